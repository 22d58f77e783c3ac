/* store.c - runs and their events in one SQLite file (WAL, one connection, checkpointed by another) */
#include "store.h"
#include "checkpointer.h"
#include "events.h"
#include "store_file.h"
#include "store_internal.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sqlite3.h>

#include "event_batches.h"
#include "jsonlimit.h"
#include "store_migrate.h"

/* A run's events (store version 2), and an imported run's mark (its
 * imported event) for the run list. */
#define EVENTS_SQL                                                             \
	EVENT_BATCHES_SQL                                                      \
	"CREATE TABLE IF NOT EXISTS run_imports ("                             \
	" run_id INTEGER PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,"   \
	" data TEXT NOT NULL);"

static const char events_sql[] = EVENTS_SQL;

static const char schema_sql[] =
	"CREATE TABLE IF NOT EXISTS runs ("
	" id INTEGER PRIMARY KEY AUTOINCREMENT,"
	" experiment TEXT NOT NULL,"
	" status TEXT NOT NULL,"
	" created_at TEXT NOT NULL,"
	" started_at TEXT,"
	" finished_at TEXT,"
	" params TEXT NOT NULL,"
	" request TEXT NOT NULL,"
	" error TEXT,"
	" headline TEXT,"
	" summary TEXT,"
	" machine TEXT);"
	"CREATE INDEX IF NOT EXISTS runs_by_experiment ON runs(experiment, id);"
	"CREATE INDEX IF NOT EXISTS runs_by_status ON runs(status);" EVENTS_SQL;

void store_set_errinfo(struct errinfo *err, const char *what, sqlite3 *db)
{
	if (err)
		errinfo_set(err, NULL, "%s: %s", what, sqlite3_errmsg(db));
}

static int has_table(sqlite3 *db, const char *name)
{
	sqlite3_stmt *s;
	int found = 0;

	if (sqlite3_prepare_v2(db,
			       "SELECT 1 FROM sqlite_master WHERE type='table' "
			       "AND name=?",
			       -1, &s, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_text(s, 1, name, -1, SQLITE_STATIC);
	found = sqlite3_step(s) == SQLITE_ROW;
	sqlite3_finalize(s);
	return found;
}

/* recursive: a caller holding it for an atomic step calls the store's
 * functions, which take it again */
static int store_mutex_init(pthread_mutex_t *mu)
{
	pthread_mutexattr_t a;
	int rc = pthread_mutexattr_init(&a);

	if (rc)
		return rc;
	rc = pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE);
	if (!rc)
		rc = pthread_mutex_init(mu, &a);
	pthread_mutexattr_destroy(&a);
	return rc;
}

struct store *store_open(const char *path, struct errinfo *err)
{
	struct store *st = calloc(1, sizeof(*st));
	int rc;

	if (!st) {
		errinfo_set(err, NULL, "out of memory");
		return NULL;
	}
	st->live.fd = -1;
	if (store_mutex_init(&st->mu)) {
		errinfo_set(err, NULL, "out of memory");
		free(st);
		return NULL;
	}
	if (store_file_check(path, &st->file, err))
		goto fail;
	rc = sqlite3_open_v2(st->file.open_path, &st->db, st->file.open_flags,
			     NULL);
	if (rc != SQLITE_OK) {
		errinfo_set(err, NULL, "cannot open database '%s': %s", path,
			    st->db ? sqlite3_errmsg(st->db)
				   : sqlite3_errstr(rc));
		goto fail;
	}
	sqlite3_extended_result_codes(st->db, 1);
	sqlite3_busy_timeout(st->db, 5000);
	st->readonly = sqlite3_db_readonly(st->db, "main") == 1;
	/* reading the schema also proves the file is a database */
	if (has_table(st->db, "runs") < 0) {
		errinfo_set(err, NULL, "cannot open database '%s': %s", path,
			    sqlite3_errmsg(st->db));
		goto fail;
	}
	if (store_file_version_ok(&st->file, st->db, err))
		goto fail;
	if (!st->readonly) {
		char *msg = NULL;
		int bad = sqlite3_exec(st->db,
				       "PRAGMA journal_mode=WAL;"
				       "PRAGMA synchronous=NORMAL;"
				       "PRAGMA wal_autocheckpoint=0;"
				       "PRAGMA foreign_keys=ON;",
				       NULL, NULL, &msg) != SQLITE_OK;
		/* a store of an older numalab: its events in this one's rows
		 * (the new tables made in the same transaction) */
		if (!bad && has_table(st->db, "events") == 1 &&
		    store_migrate(st, path, events_sql, err))
			goto fail;
		if (bad || sqlite3_exec(st->db, schema_sql, NULL, NULL, &msg) !=
				   SQLITE_OK) {
			errinfo_set(err, NULL,
				    "cannot set up database '%s': %s", path,
				    msg ? msg : sqlite3_errmsg(st->db));
			sqlite3_free(msg);
			goto fail;
		}
		if (store_file_mark(&st->file, st->db, err))
			goto fail;
		st->ck = checkpointer_start(path, err);
		if (!st->ck)
			goto fail;
	} else if (has_table(st->db, "runs") != 1 ||
		   (has_table(st->db, "events") == 1
			    ? store_legacy_views(st->db)
			    : has_table(st->db, "event_batches") != 1)) {
		errinfo_set(
			err, NULL,
			"database '%s' is read-only and holds no numalab runs",
			path);
		goto fail;
	}
	return st;
fail:
	store_close(st);
	return NULL;
}

void store_close(struct store *st)
{
	if (!st)
		return;
	store_live_close(st);
	checkpointer_stop(st->ck); /* before the last connection closes */
	store_kept_close(st);
	if (st->db)
		sqlite3_close(st->db);
	store_file_release(&st->file);
	pthread_mutex_destroy(&st->mu);
	free(st);
}

int store_readonly(struct store *st)
{
	return st->readonly;
}

int store_with_db(struct store *st, int (*fn)(struct sqlite3 *db, void *arg),
		  void *arg)
{
	int rc;

	pthread_mutex_lock(&st->mu);
	rc = fn(st->db, arg);
	pthread_mutex_unlock(&st->mu);
	return rc;
}

int store_write_with_db(struct store *st,
			int (*fn)(struct sqlite3 *db, void *arg), void *arg,
			struct errinfo *err)
{
	int rc;

	pthread_mutex_lock(&st->mu);
	errinfo_clear(err);
	if (store_file_gone(&st->file, err))
		rc = -ESTALE;
	else
		rc = fn(st->db, arg);
	pthread_mutex_unlock(&st->mu);
	return rc;
}

int store_atomic_begin(struct store *st, struct errinfo *err)
{
	/* IMMEDIATE: the write lock now, so what is read inside stays true
	 * when another connection to the file (a CLI) writes */
	enum store_kept begin =
		st->readonly ? KEPT_BEGIN : KEPT_BEGIN_IMMEDIATE;

	pthread_mutex_lock(&st->mu);
	if (!st->atomic && store_kept_exec(st, begin)) {
		store_set_errinfo(err, "cannot start storing", st->db);
		pthread_mutex_unlock(&st->mu);
		return -EIO;
	}
	st->atomic++;
	return 0;
}

int store_atomic_end(struct store *st, int ok, struct errinfo *err)
{
	int rc = 0;

	if (--st->atomic == 0) {
		if (ok && store_kept_exec(st, KEPT_COMMIT)) {
			store_set_errinfo(err, "cannot store", st->db);
			rc = -EIO;
		}
		/* nothing of it kept: a failed COMMIT may leave it open */
		if (!sqlite3_get_autocommit(st->db))
			sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
		store_live_committed(st, ok && !rc);
		/* a checkpoint is asked for what was committed only */
		if (st->poke_after && ok && !rc)
			checkpointer_poke(st->ck);
		st->poke_after = 0;
	}
	pthread_mutex_unlock(&st->mu);
	return rc;
}

void store_timestamp(char *buf, size_t len)
{
	struct timespec ts;
	struct tm tm;

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	snprintf(buf, len, "%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ",
		 tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
		 tm.tm_min, tm.tm_sec, ts.tv_nsec / 1000000L);
}

/* SQLITE_OK, or SQLITE_NOMEM when the text could not be copied (the
 * value would be written as NULL) */
int store_bind_text_or_null(sqlite3_stmt *s, int i, const char *v)
{
	if (v)
		return sqlite3_bind_text(s, i, v, -1, SQLITE_TRANSIENT);
	return sqlite3_bind_null(s, i);
}

const char *store_col_text(sqlite3_stmt *s, int i)
{
	return (const char *)sqlite3_column_text(s, i);
}

/* Runs the kept write statement k with text/NULL params bound in order,
 * then the id. */
static int exec_write(struct store *st, enum store_kept k, int64_t id,
		      const char *const *vals, int nvals, const char *what,
		      struct errinfo *err)
{
	sqlite3_stmt *s;
	int rc = 0;

	pthread_mutex_lock(&st->mu);
	s = store_kept(st, k);
	if (!s)
		goto fail;
	for (int i = 0; i < nvals; i++)
		if (store_bind_text_or_null(s, i + 1, vals[i]) != SQLITE_OK)
			goto fail;
	sqlite3_bind_int64(s, nvals + 1, id);
	if (sqlite3_step(s) != SQLITE_DONE)
		goto fail;
	goto out;
fail:
	store_set_errinfo(err, what, st->db);
	rc = -EIO;
out:
	store_kept_done(s);
	pthread_mutex_unlock(&st->mu);
	return rc;
}

int store_create_run(struct store *st, const char *experiment,
		     const char *params_json, const char *request_json,
		     const char *created_at, int64_t *id, struct errinfo *err)
{
	sqlite3_stmt *s = NULL;
	int rc = 0;

	pthread_mutex_lock(&st->mu);
	if (store_file_gone(&st->file, err)) {
		rc = -ESTALE;
		goto out;
	}
	if (store_live_room(st, err)) {
		rc = -EIO;
		goto out;
	}
	s = store_kept(st, KEPT_CREATE_RUN);
	if (!s)
		goto fail;
	/* static: the bindings are dropped before the texts go */
	if (sqlite3_bind_text(s, 1, experiment, -1, SQLITE_STATIC) ||
	    sqlite3_bind_text(s, 2, created_at, -1, SQLITE_STATIC) ||
	    sqlite3_bind_text(s, 3, params_json, -1, SQLITE_STATIC) ||
	    sqlite3_bind_text(s, 4, request_json, -1, SQLITE_STATIC) ||
	    sqlite3_step(s) != SQLITE_DONE)
		goto fail;
	*id = sqlite3_last_insert_rowid(st->db);
	goto out;
fail:
	store_set_errinfo(err, "cannot record the run", st->db);
	rc = -EIO;
out:
	store_kept_done(s);
	pthread_mutex_unlock(&st->mu);
	return rc;
}

int store_run_started(struct store *st, int64_t id, const char *started_at,
		      struct errinfo *err)
{
	const char *v[] = {started_at};

	return exec_write(st, KEPT_RUN_STARTED, id, v, 1,
			  "cannot record the run's start", err);
}

int store_run_machine(struct store *st, int64_t id, const char *machine_json,
		      struct errinfo *err)
{
	const char *v[] = {machine_json};

	return exec_write(st, KEPT_RUN_MACHINE, id, v, 1,
			  "cannot record the machine", err);
}

int store_run_imported(struct store *st, int64_t id, const char *event_json,
		       struct errinfo *err)
{
	const char *v[] = {event_json};

	return exec_write(st, KEPT_RUN_IMPORTED, id, v, 1,
			  "cannot record where the run came from", err);
}

int store_run_finished(struct store *st, int64_t id, const char *status,
		       const char *finished_at, const char *error,
		       const char *headline, const char *summary_json,
		       struct errinfo *err)
{
	const char *v[] = {status, finished_at, error, headline, summary_json};
	int rc = exec_write(st, KEPT_RUN_FINISHED, id, v, 5,
			    "cannot record the run's end", err);

	/* the run's events into the main file while nothing is measured:
	 * inside an atomic step, once it is committed */
	pthread_mutex_lock(&st->mu);
	if (st->atomic)
		st->poke_after = 1;
	else
		checkpointer_poke(st->ck);
	pthread_mutex_unlock(&st->mu);
	return rc;
}

int store_append_events(struct store *st, int64_t id,
			const struct runlog_event *const *ev, int n,
			struct errinfo *err)
{
	int rc = 0, rows;

	if (n <= 0)
		return 0;
	pthread_mutex_lock(&st->mu);
	if (store_live_journaled(st, id)) {
		rc = store_live_append(st, ev, n, err);
		pthread_mutex_unlock(&st->mu);
		return rc;
	}
	/* more than one row: a savepoint, not BEGIN (inside an atomic step it
	 * nests); one row is an INSERT, whole or not at all by itself */
	rows = event_batches_rows(ev, n) > 1;
	if (rows && store_kept_exec(st, KEPT_SAVEPOINT)) {
		rc = -EIO;
		goto out;
	}
	rc = event_batches_insert(st, id, ev, n);
	if (!rc && rows && store_kept_exec(st, KEPT_RELEASE))
		rc = -EIO;
out:
	if (rc == -EINVAL || rc == -ENOMEM)
		errinfo_set(err, NULL, "cannot store the run's events: %s",
			    rc == -EINVAL ? "an event's text holds a line break"
					  : "out of memory");
	else if (rc)
		store_set_errinfo(err, "cannot store the run's events", st->db);
	/* whatever failed, the savepoint goes: a failed RELEASE leaves it
	 * open; this fails when SQLite already rolled the whole transaction
	 * back */
	if (rc && rows)
		sqlite3_exec(st->db, "ROLLBACK TO events; RELEASE events", NULL,
			     NULL, NULL);
	rc = rc ? -EIO : 0;
	pthread_mutex_unlock(&st->mu);
	return rc;
}
