/* store_read.c - reading runs back: one run, a page of runs, a run's events */
#include "event_batches.h"
#include "store.h"
#include "store_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsonlimit.h"

/* what the server wrote itself: a client's document inside its envelopes */
static const struct jsonlimit stored = {.depth = JSONLIMIT_DEPTH_STORED};

/*
 * A JSON column back as JSON; null when NULL or unreadable, NULL when
 * memory ran out (a value read as null would be a wrong answer).
 */
static json_t *col_json(sqlite3_stmt *s, int i)
{
	int null = sqlite3_column_type(s, i) == SQLITE_NULL;
	const char *t = store_col_text(s, i);
	json_error_t jerr;
	json_t *j;

	/* SQLite could not convert the value (out of memory) */
	if (!t && !null)
		return NULL;
	j = jsonlimit_loads(t, JSON_DECODE_ANY, &stored, &jerr);
	/* jansson does not always say that memory ran out (a string it
	 * could not copy is an invalid token): a text is unreadable when a
	 * second try fails too */
	if (!j && t && json_error_code(&jerr) != json_error_out_of_memory)
		j = jsonlimit_loads(t, JSON_DECODE_ANY, &stored, &jerr);
	if (!j && t && json_error_code(&jerr) == json_error_out_of_memory)
		return NULL;
	return j ? j : json_null();
}

/* NULL when SQLite or jansson ran out of memory: never a null instead */
static json_t *col_str(sqlite3_stmt *s, int i)
{
	int null = sqlite3_column_type(s, i) == SQLITE_NULL;
	const char *t = store_col_text(s, i);

	return t ? json_string(t) : null ? json_null() : NULL;
}

json_t *store_get_run(struct store *st, int64_t id)
{
	sqlite3_stmt *s;
	json_t *run = NULL;
	int rc;

	pthread_mutex_lock(&st->mu);
	s = store_kept(st, KEPT_GET_RUN);
	if (!s) {
		errno = EIO;
		goto out;
	}
	sqlite3_bind_int64(s, 1, id);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW)
		run = json_pack(
			"{s:I, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o,"
			" s:o, s:o, s:o}",
			"id", (json_int_t)sqlite3_column_int64(s, 0),
			"experiment", col_str(s, 1), "status", col_str(s, 2),
			"created_at", col_str(s, 3), "started_at",
			col_str(s, 4), "finished_at", col_str(s, 5), "params",
			col_json(s, 6), "request", col_json(s, 7), "error",
			col_str(s, 8), "headline", col_str(s, 9), "summary",
			col_json(s, 10), "machine", col_json(s, 11));
	else
		errno = rc == SQLITE_DONE ? ENOENT : EIO;
	if (rc == SQLITE_ROW && !run)
		errno = ENOMEM;
out:
	store_kept_done(s);
	pthread_mutex_unlock(&st->mu);
	return run;
}

int store_has_run(struct store *st, int64_t id)
{
	sqlite3_stmt *s;
	int rc = -EIO;

	pthread_mutex_lock(&st->mu);
	s = store_kept(st, KEPT_HAS_RUN);
	if (s) {
		sqlite3_bind_int64(s, 1, id);
		switch (sqlite3_step(s)) {
		case SQLITE_ROW:
			rc = 0;
			break;
		case SQLITE_DONE:
			rc = -ENOENT;
			break;
		}
	}
	store_kept_done(s);
	pthread_mutex_unlock(&st->mu);
	return rc;
}

/* Which machine ran it: ?2 in its host name or CPU model, any case. */
#define MACHINE_MATCH                                                          \
	" (?2 IS NULL OR instr(lower(coalesce(json_extract(machine,"           \
	" '$.hostname'), '') || ' ' || coalesce(json_extract(machine,"         \
	" '$.cpu_model'), '')), lower(?2)) > 0)"

int store_find_runs(struct store *st, const char *experiment,
		    const char *machine, int64_t limit, int64_t offset,
		    json_t **runs, int64_t *total)
{
	sqlite3_stmt *s = NULL;
	int rc = -EIO;

	*runs = json_array();
	*total = 0;
	if (!*runs)
		return -ENOMEM;
	pthread_mutex_lock(&st->mu);
	if (sqlite3_prepare_v2(st->db,
			       "SELECT COUNT(*) FROM runs WHERE (?1 IS NULL OR "
			       "experiment=?1) AND" MACHINE_MATCH,
			       -1, &s, NULL) != SQLITE_OK)
		goto out;
	/* a filter that could not be bound would match every run */
	if (store_bind_text_or_null(s, 1, experiment) ||
	    store_bind_text_or_null(s, 2, machine))
		goto out;
	if (sqlite3_step(s) != SQLITE_ROW)
		goto out;
	*total = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	s = NULL;
	if (sqlite3_prepare_v2(
		    st->db,
		    "SELECT id, experiment, status, created_at,"
		    " finished_at, headline, params,"
		    " json_extract(machine, '$.hostname'),"
		    " json_extract(machine, '$.cpu_model'),"
		    /* an import's mark: its imported event */
		    " (SELECT data FROM run_imports i WHERE i.run_id=runs.id),"
		    " started_at"
		    " FROM runs WHERE (?1 IS NULL OR experiment=?1)"
		    " AND" MACHINE_MATCH " ORDER BY id DESC"
		    " LIMIT ?3 OFFSET ?4",
		    -1, &s, NULL) != SQLITE_OK)
		goto out;
	/* a filter that could not be bound would match every run */
	if (store_bind_text_or_null(s, 1, experiment) ||
	    store_bind_text_or_null(s, 2, machine))
		goto out;
	sqlite3_bind_int64(s, 3, limit);
	sqlite3_bind_int64(s, 4, offset);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		json_t *imp = col_json(s, 9);
		json_object_del(imp, "type");
		json_object_del(imp, "seq");
		json_object_del(imp, "verdict");
		/* a row left out would be a shorter list said to be whole */
		if (json_array_append_new(
			    *runs,
			    json_pack(
				    "{s:I, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o,"
				    " s:o}",
				    "id",
				    (json_int_t)sqlite3_column_int64(s, 0),
				    "experiment", col_str(s, 1), "status",
				    col_str(s, 2), "created_at", col_str(s, 3),
				    "finished_at", col_str(s, 4), "headline",
				    col_str(s, 5), "params", col_json(s, 6),
				    "hostname", col_str(s, 7), "cpu_model",
				    col_str(s, 8), "imported", imp,
				    "started_at", col_str(s, 10)))) {
			rc = -ENOMEM;
			goto out;
		}
	}
	rc = rc == SQLITE_DONE ? 0 : -EIO;
out:
	sqlite3_finalize(s);
	pthread_mutex_unlock(&st->mu);
	return rc;
}

struct loading {
	struct runlog *log;
	char type[32];
};

static int load_one(void *arg, int64_t seq, const char *text, size_t len)
{
	struct loading *l = arg;

	if (event_text_type(text, len, l->type, sizeof(l->type)))
		return -EIO;
	return runlog_append_raw(l->log, seq, l->type, text, len);
}

int store_load_events(struct store *st, int64_t id, int64_t after,
		      struct runlog *log)
{
	struct loading l = {.log = log};
	sqlite3_stmt *s = NULL;
	int rc = -EIO, r = 0;

	pthread_mutex_lock(&st->mu);
	if (sqlite3_prepare_v2(st->db,
			       "SELECT first_seq, last_seq, data FROM"
			       " event_batches WHERE run_id=? AND last_seq>?"
			       " ORDER BY last_seq",
			       -1, &s, NULL) != SQLITE_OK)
		goto out;
	sqlite3_bind_int64(s, 1, id);
	sqlite3_bind_int64(s, 2, after);
	while (!r && (rc = sqlite3_step(s)) == SQLITE_ROW)
		r = event_batches_each(store_col_text(s, 2),
				       (size_t)sqlite3_column_bytes(s, 2),
				       sqlite3_column_int64(s, 0),
				       sqlite3_column_int64(s, 1), after,
				       load_one, &l);
	rc = r ? r : rc == SQLITE_DONE ? 0 : -EIO;
out:
	sqlite3_finalize(s);
	pthread_mutex_unlock(&st->mu);
	return rc;
}
