/* store_kept.c - the statements a run's rows use, prepared once on the store's connection */
#include "store_internal.h"

#include <errno.h>

/*
 * Preparing a statement is most of the instructions of a short one (an
 * UPDATE of one row parses and plans its SQL every time): a run's own
 * rows and events are written through these.
 */
static const char *const kept_sql[KEPT_N] = {
	[KEPT_INSERT_BATCH] = "INSERT INTO event_batches (run_id, first_seq,"
			      " last_seq, data) VALUES (?, ?, ?, ?)",
	[KEPT_SAVEPOINT] = "SAVEPOINT events",
	[KEPT_RELEASE] = "RELEASE events",
	[KEPT_BEGIN] = "BEGIN",
	[KEPT_BEGIN_IMMEDIATE] = "BEGIN IMMEDIATE",
	[KEPT_COMMIT] = "COMMIT",
	[KEPT_CREATE_RUN] = "INSERT INTO runs (experiment, status, created_at,"
			    " params, request) VALUES (?, 'queued', ?, ?, ?)",
	[KEPT_RUN_STARTED] = "UPDATE runs SET status='running', started_at=?"
			     " WHERE id=?",
	[KEPT_RUN_MACHINE] = "UPDATE runs SET machine=? WHERE id=?",
	[KEPT_RUN_FINISHED] = "UPDATE runs SET status=?, finished_at=?, "
			      "error=?, headline=?, summary=? WHERE id=?",
	[KEPT_GET_RUN] = "SELECT id, experiment, status, created_at,"
			 " started_at, finished_at, params, request, error,"
			 " headline, summary, machine FROM runs WHERE id=?",
	[KEPT_HAS_RUN] = "SELECT 1 FROM runs WHERE id=?",
	[KEPT_GUESSES] = "SELECT block FROM run_guesses WHERE run_id = ?",
	[KEPT_RUN_IMPORTED] =
		"INSERT OR REPLACE INTO run_imports (data, run_id)"
		" VALUES (?, ?)",
	[KEPT_STORED_LAST] = "SELECT (SELECT 1 FROM runs WHERE id = ?1),"
			     " (SELECT MAX(last_seq) FROM event_batches"
			     " WHERE run_id = ?1)",
};

sqlite3_stmt *store_kept(struct store *st, enum store_kept k)
{
	if (!st->kept[k] &&
	    sqlite3_prepare_v2(st->db, kept_sql[k], -1, &st->kept[k], NULL) !=
		    SQLITE_OK) {
		sqlite3_finalize(st->kept[k]);
		st->kept[k] = NULL;
	}
	return st->kept[k];
}

void store_kept_done(sqlite3_stmt *s)
{
	if (!s)
		return;
	sqlite3_reset(s);
	sqlite3_clear_bindings(s);
}

int store_kept_exec(struct store *st, enum store_kept k)
{
	sqlite3_stmt *s = store_kept(st, k);
	int rc = s && sqlite3_step(s) == SQLITE_DONE ? 0 : -EIO;

	store_kept_done(s);
	return rc;
}

void store_kept_close(struct store *st)
{
	for (int k = 0; k < KEPT_N; k++) {
		sqlite3_finalize(st->kept[k]);
		st->kept[k] = NULL;
	}
}
