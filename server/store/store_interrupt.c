/* store_interrupt.c - the runs a stopped server left queued or running, marked interrupted */
#include "events.h"
#include "store.h"
#include "store_internal.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "event_batches.h"
#include "jsonlimit.h"

/* what the server wrote itself: a client's document inside its envelopes */
static const struct jsonlimit stored = {.depth = JSONLIMIT_DEPTH_STORED};

/*
 * The outcome of a run's stored events (summary, headline), folded as the
 * runner folds them live, and its last seq. mu held.
 */
static int fold_outcome(void *outcome, int64_t seq, const char *text,
			size_t len)
{
	json_t *ev = jsonlimit_load(text, len, 0, &stored, NULL, NULL, 0);
	/* an outcome short of an event would be the run's for good; an event
	 * that does not parse says nothing of it */
	int r = ev ? events_fold(outcome, ev, EVENTS_FOLD_OUTCOME) : 0;

	(void)seq;
	json_decref(ev);
	return r == -ENOMEM ? -ENOMEM : 0;
}

static int gather_results(struct store *st, int64_t id, json_t *outcome,
			  int64_t *last_seq)
{
	sqlite3_stmt *s = NULL;
	int rc = 0, r = 0;

	*last_seq = 0;
	if (sqlite3_prepare_v2(
		    st->db,
		    "SELECT first_seq, last_seq, data FROM"
		    " event_batches WHERE run_id=? ORDER BY last_seq",
		    -1, &s, NULL) != SQLITE_OK)
		return -EIO;
	sqlite3_bind_int64(s, 1, id);
	while (!r && (rc = sqlite3_step(s)) == SQLITE_ROW) {
		*last_seq = sqlite3_column_int64(s, 1);
		r = event_batches_each(store_col_text(s, 2),
				       (size_t)sqlite3_column_bytes(s, 2),
				       sqlite3_column_int64(s, 0), *last_seq, 0,
				       fold_outcome, outcome);
		/* a row not as it was written: what it gave is folded */
		if (r == -EIO)
			r = 0;
	}
	sqlite3_finalize(s);
	if (r)
		return r;
	return rc == SQLITE_DONE ? 0 : -EIO;
}

/* Marks one run interrupted, with its final event. mu held, in a txn. */
static int interrupt_one(struct store *st, int64_t id, const char *why,
			 const char *now)
{
	json_t *outcome = events_doc_new(), *ev = NULL, *summary;
	const char *headline;
	char *sum_text = NULL;
	struct runlog_event e = {.type = "interrupted"};
	const struct runlog_event *evp = &e;
	sqlite3_stmt *s = NULL;
	int64_t last = 0;
	int rc;

	if (!outcome)
		return -ENOMEM;
	rc = gather_results(st, id, outcome, &last);
	if (rc)
		goto out;
	summary = json_object_get(outcome, "summary");
	headline = json_string_value(json_object_get(outcome, "headline"));
	ev = events_final("interrupted", why, summary, headline);
	/* above every seq a reader may have seen: the events the store could
	 * not keep were shown (RUNLOG_UNSTORED_MAX) */
	e.seq = last + RUNLOG_UNSTORED_MAX + 1;
	if (ev)
		json_object_set_new(ev, "seq", json_integer(e.seq));
	e.json = ev ? json_dumps(ev, JSON_COMPACT) : NULL;
	sum_text = json_dumps(summary, JSON_COMPACT);
	if (!e.json || !sum_text) {
		rc = -ENOMEM;
		goto out;
	}
	e.len = strlen(e.json);
	rc = event_batches_insert(st, id, &evp, 1) ? -EIO : 0;
	if (rc)
		goto out;
	rc = -EIO;
	if (sqlite3_prepare_v2(
		    st->db,
		    "UPDATE runs SET status='interrupted', error=?,"
		    " finished_at=?, headline=?, summary=? WHERE id=?",
		    -1, &s, NULL) != SQLITE_OK)
		goto out;
	sqlite3_bind_text(s, 1, why, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 2, now, -1, SQLITE_STATIC);
	if (store_bind_text_or_null(s, 3, headline))
		goto out;
	sqlite3_bind_text(s, 4, sum_text, -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, 5, id);
	if (sqlite3_step(s) == SQLITE_DONE && sqlite3_changes(st->db) == 1)
		rc = 0;
out:
	sqlite3_finalize(s);
	json_decref(outcome);
	json_decref(ev);
	free(e.json);
	free(sum_text);
	return rc;
}

int store_interrupt_stale(struct store *st, const char *why,
			  const char *why_queued, int64_t *upto,
			  struct errinfo *err)
{
	sqlite3_stmt *s = NULL;
	int64_t *ids = NULL; /* a queued run's id negated */
	int n = 0, cap = 0, rc = 0;
	char now[32];

	store_timestamp(now, sizeof(now));
	pthread_mutex_lock(&st->mu);
	if (sqlite3_prepare_v2(st->db,
			       "SELECT id, status = 'queued' FROM runs WHERE "
			       "status IN "
			       "('queued', 'running') AND (?1 = 0 OR id <= ?1)"
			       " ORDER BY id",
			       -1, &s, NULL) != SQLITE_OK)
		goto fail;
	sqlite3_bind_int64(s, 1, *upto);
	while (sqlite3_step(s) == SQLITE_ROW) {
		if (n == cap) {
			int64_t *v;
			cap = cap ? cap * 2 : 16;
			v = realloc(ids, (size_t)cap * sizeof(*v));
			if (!v)
				goto fail;
			ids = v;
		}
		ids[n++] = sqlite3_column_int64(s, 0) *
			   (sqlite3_column_int(s, 1) ? -1 : 1);
	}
	sqlite3_finalize(s);
	s = NULL;
	if (n && !*upto)
		*upto = llabs(ids[n - 1]);
	/* a stopped server's journal in first, a run's end numbered above it
	 * (*upto set first: a retry leaves this server's own runs alone) */
	rc = store_live_fold_left(st, err);
	if (rc || !n)
		goto out;
	if (sqlite3_exec(st->db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK)
		goto fail;
	for (int i = 0; i < n; i++)
		if (interrupt_one(st, llabs(ids[i]),
				  ids[i] < 0 && why_queued ? why_queued : why,
				  now))
			goto fail;
	if (sqlite3_exec(st->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
		goto fail;
	rc = n;
	goto out;
fail:
	store_set_errinfo(err, "cannot mark the interrupted runs", st->db);
	rc = sqlite3_errcode(st->db) == SQLITE_FULL ? -ENOSPC : -EIO;
	if (!sqlite3_get_autocommit(st->db))
		sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
out:
	sqlite3_finalize(s);
	pthread_mutex_unlock(&st->mu);
	free(ids);
	return rc;
}
