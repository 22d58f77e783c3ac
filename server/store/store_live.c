/* store_live.c - a live run's events in the journal, and into the store when it ends */
#include "event_batches.h"
#include "live_journal.h"
#include "store.h"
#include "store_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

/* A live run's section is put in the store as it goes past this. */
#define LIVE_FOLD_BYTES (4u << 20)

/* The highest seq the store holds of run id into *last (0: none): 0,
 * -ENOENT when the run has no row, -EIO. */
static int stored_last(struct store *st, int64_t id, int64_t *last)
{
	sqlite3_stmt *s = store_kept(st, KEPT_STORED_LAST);
	int rc = -EIO;

	if (s) {
		sqlite3_bind_int64(s, 1, id);
		if (sqlite3_step(s) == SQLITE_ROW) {
			rc = sqlite3_column_type(s, 0) == SQLITE_NULL ? -ENOENT
								      : 0;
			*last = sqlite3_column_int64(s, 1);
		}
	}
	store_kept_done(s);
	return rc;
}

/* ev[0..n) of run id above what the store holds, as rows. mu held, in a
 * transaction. 0, -ENOENT (no such run any more), -ENOMEM, -EIO. */
static int insert_new(struct store *st, int64_t id, const struct live_event *ev,
		      int n)
{
	struct runlog_event *e;
	const struct runlog_event **ep;
	int64_t last;
	int m = 0, rc;

	rc = stored_last(st, id, &last);
	if (rc)
		return rc;
	e = calloc((size_t)n + 1, sizeof(*e));
	ep = calloc((size_t)n + 1, sizeof(*ep));
	if (!e || !ep) {
		free(e);
		free(ep);
		return -ENOMEM;
	}
	for (int i = 0; i < n; i++) {
		if (ev[i].seq <= last)
			continue; /* kept already: a fold that died before the
				     journal was emptied */
		e[m] = (struct runlog_event){.seq = ev[i].seq,
					     .json = (char *)ev[i].text,
					     .len = ev[i].len};
		ep[m] = &e[m];
		m++;
	}
	rc = m ? event_batches_insert(st, id, ep, m) : 0;
	free(e);
	free(ep);
	return rc == -EINVAL ? -EIO : rc;
}

/*
 * The journal's events into the store, in the caller's transaction (the
 * journal is emptied when it commits) or in one of their own (emptied
 * now). A journal of a run the store no longer holds is emptied. mu held.
 */
static int fold(struct store *st, struct errinfo *err)
{
	struct live_event *ev = NULL;
	char *data = NULL;
	size_t len;
	int64_t id = 0;
	int n = 0, own = !st->atomic, rc;

	rc = live_journal_read(&st->live, &data, &len);
	if (!rc && data)
		rc = live_journal_parse(data, len, &id, &ev, &n);
	if (rc == -EINVAL || (!rc && !n)) {
		/* a head half written, or no event yet: nothing to keep */
		free(data);
		return st->atomic ? (st->live_clear = 1, 0)
				  : live_journal_kept(&st->live);
	}
	if (rc)
		goto out;
	if (own && store_kept_exec(st, KEPT_BEGIN_IMMEDIATE)) {
		rc = -EIO;
		goto out;
	}
	rc = insert_new(st, id, ev, n);
	if (rc == -ENOENT) {
		fprintf(stderr,
			"numalab: store: run %lld is no longer in the store: "
			"what a server kept of it while it ran is dropped "
			"(%d events)\n",
			(long long)id, n);
		rc = 0;
	}
	if (own) {
		if (!rc && store_kept_exec(st, KEPT_COMMIT))
			rc = -EIO;
		if (!sqlite3_get_autocommit(st->db))
			sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
		if (!rc)
			rc = live_journal_kept(&st->live);
	} else if (!rc) {
		st->live_clear = 1;
	}
out:
	if (rc)
		errinfo_set(err, NULL,
			    "cannot keep the events of run %lld in the store: "
			    "%s",
			    (long long)id,
			    rc == -EIO ? sqlite3_errmsg(st->db)
				       : strerror(-rc));
	free(ev);
	free(data);
	if (rc && sqlite3_errcode(st->db) == SQLITE_FULL)
		return -ENOSPC;
	return rc ? -EIO : 0;
}

int store_live_attach(struct store *st, struct errinfo *err)
{
	char *path;
	size_t n;
	int rc;

	if (!st->file.path || st->readonly || st->live.fd >= 0)
		return 0;
	n = strlen(st->file.path) + sizeof(LIVE_JOURNAL_SUFFIX);
	path = malloc(n);
	if (!path)
		return 0; /* the runs store their batches themselves */
	snprintf(path, n, "%s%s", st->file.path, LIVE_JOURNAL_SUFFIX);
	rc = live_journal_open(&st->live, path);
	if (rc == -EWOULDBLOCK) {
		/* its live run's events are in that journal, and its runs look
		 * stale from here: this one would mark them interrupted */
		errinfo_set(err, NULL,
			    "another numalab server is serving '%s' (it holds "
			    "%s)",
			    st->file.path, path);
		free(path);
		return -EBUSY;
	}
	if (rc == -EEXIST)
		fprintf(stderr,
			"numalab: %s is not a numalab file: left as it is (a "
			"run's batches go to the store one by one)\n",
			path);
	else if (rc)
		fprintf(stderr,
			"numalab: cannot keep a journal of the runs at %s: %s "
			"(a run's batches go to the store one by one)\n",
			path, strerror(-rc));
	st->live_path = path;
	if (!rc) {
		struct errinfo ferr;

		/* what a server that died left: in before anything reads (a
		 * full disk: the marking of its run tries again) */
		if (store_live_fold_left(st, &ferr))
			fprintf(stderr, "numalab: %s\n", ferr.msg);
	}
	return 0;
}

void store_live_close(struct store *st)
{
	int empty = st->live.fd >= 0 && !st->live.pending;

	/* a journal the store holds all of goes; one that holds events it
	 * lacks stays for the next start to fold in */
	if (empty && st->live_path)
		unlink(st->live_path);
	live_journal_close(&st->live);
	free(st->live_path);
	st->live_path = NULL;
}

int store_live_begin(struct store *st, int64_t id)
{
	struct errinfo err;
	int rc = -EBADF;

	pthread_mutex_lock(&st->mu);
	if (st->live.fd < 0 || st->atomic)
		goto out;
	st->live_id = 0;
	/* the last run's, when its end could not keep them */
	if (st->live.pending && fold(st, &err)) {
		fprintf(stderr, "numalab: %s\n", err.msg);
		rc = -EIO;
		goto out;
	}
	rc = live_journal_begin(&st->live, id);
	if (!rc) {
		st->live_id = id;
		st->live_fold_at = LIVE_FOLD_BYTES;
	}
out:
	pthread_mutex_unlock(&st->mu);
	return rc;
}

int store_live_journaled(struct store *st, int64_t id)
{
	return id && id == st->live_id && !st->live_folding && st->live.fd >= 0;
}

/*
 * A long run's section into the store as it goes (mu held, no atomic step
 * open): its end then has at most LIVE_FOLD_BYTES to put in, one
 * transaction of a few milliseconds, and so has a start after a crash.
 * The run's next section follows; where it cannot be begun, its batches
 * go to the store. A fold that fails is tried again at twice the size
 * (the journal keeps the events meanwhile, the run's end tries last).
 */
static void fold_ahead(struct store *st)
{
	struct errinfo err;
	int64_t id = st->live_id;

	if (fold(st, &err)) {
		st->live_fold_at *= 2;
		return;
	}
	if (live_journal_begin(&st->live, id))
		st->live_id = 0;
}

int store_live_append(struct store *st, const struct runlog_event *const *ev,
		      int n, struct errinfo *err)
{
	int rc = live_journal_append(&st->live, ev, n);

	if (!rc && !st->atomic &&
	    st->live.bytes - st->live.start >= st->live_fold_at)
		fold_ahead(st);

	/* a full disk in the words SQLite uses for it, whichever file met
	 * it; new runs are refused until it has room */
	if (rc == -ENOSPC || rc == -EDQUOT)
		st->live_full = 1;
	if (rc)
		errinfo_set(err, NULL, "cannot store the run's events: %s",
			    rc == -EINVAL ? "an event's text holds a line break"
			    : rc == -ENOSPC || rc == -EDQUOT
				    ? "database or disk is full"
				    : strerror(-rc));
	return rc ? -EIO : 0;
}

int store_live_end(struct store *st, int64_t id, struct errinfo *err)
{
	int rc = 0;

	pthread_mutex_lock(&st->mu);
	if (id && id == st->live_id && st->live.fd >= 0) {
		rc = fold(st, err);
		if (!rc && st->atomic)
			st->live_folding = 1; /* the rest of the run: SQLite */
		else if (!rc)
			st->live_id = 0;
	}
	pthread_mutex_unlock(&st->mu);
	return rc;
}

int store_live_fold_left(struct store *st, struct errinfo *err)
{
	int rc = 0;

	pthread_mutex_lock(&st->mu);
	if (st->live.fd >= 0 && st->live.pending && !st->live_id) {
		rc = fold(st, err);
		if (!rc)
			live_journal_empty(&st->live);
	}
	pthread_mutex_unlock(&st->mu);
	return rc;
}

/* Room a run needs, at least, beside the store once its disk filled. */
#define ROOM_BYTES (1 << 20)

int store_live_room(struct store *st, struct errinfo *err)
{
	struct statvfs vs;

	if (!st->live_full)
		return 0;
	if (st->file.path && !statvfs(st->file.path, &vs) &&
	    (unsigned long long)vs.f_bavail * vs.f_frsize >= ROOM_BYTES) {
		st->live_full = 0;
		return 0;
	}
	errinfo_set(err, NULL,
		    "cannot record the run: database or disk is "
		    "full");
	return -ENOSPC;
}

int store_make_room(struct store *st)
{
	int log = -1, done = -1, rc;

	pthread_mutex_lock(&st->mu);
	rc = st->atomic || !st->db
		     ? SQLITE_MISUSE
		     : sqlite3_wal_checkpoint_v2(st->db, NULL,
						 SQLITE_CHECKPOINT_PASSIVE,
						 &log, &done);
	pthread_mutex_unlock(&st->mu);
	return rc == SQLITE_OK && log >= 0 && log == done ? 0 : -ENOSPC;
}

void store_live_committed(struct store *st, int ok)
{
	if (st->live_clear && ok) {
		live_journal_kept(&st->live);
		st->live_id = 0;
	}
	st->live_clear = 0;
	st->live_folding = 0;
}
