/* store_kept.h - the statements a run's rows use, prepared once on the store's connection */
#ifndef NUMALAB_STORE_KEPT_H
#define NUMALAB_STORE_KEPT_H

#include <sqlite3.h>

struct store;

/* Each is prepared the first time it is used, then kept (under the
 * store's mu) until the store closes. */
enum store_kept {
	KEPT_INSERT_EVENT,
	KEPT_SAVEPOINT, /* a batch of events nests inside an atomic step */
	KEPT_RELEASE,
	KEPT_BEGIN,
	KEPT_BEGIN_IMMEDIATE,
	KEPT_COMMIT,
	KEPT_CREATE_RUN,
	KEPT_RUN_STARTED,
	KEPT_RUN_MACHINE,
	KEPT_RUN_FINISHED,
	KEPT_GET_RUN,
	KEPT_HAS_RUN,
	KEPT_GUESSES, /* fails to prepare while no run has guesses */
	KEPT_N
};

/*
 * The statement k, prepared now if it is not yet (through
 * sqlite3_prepare_v2, so a failure of it is tried as before: it is
 * prepared again the next time); NULL when it cannot be, the connection's
 * error set. mu held. Give it back with store_kept_done.
 */
sqlite3_stmt *store_kept(struct store *st, enum store_kept k);
/* Resets s and drops its bindings, for its next use (NULL: nothing). */
void store_kept_done(sqlite3_stmt *s);
/*
 * Runs the kept k, a statement with no rows and nothing bound (BEGIN,
 * COMMIT, SAVEPOINT): 0 or -EIO, the connection's error set. mu held.
 */
int store_kept_exec(struct store *st, enum store_kept k);
/* Finalizes every kept statement, before the connection closes. */
void store_kept_close(struct store *st);

#endif
