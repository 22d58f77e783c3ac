/* store_internal.h - the store's connection, for the files that read and write through it */
#ifndef NUMALAB_STORE_INTERNAL_H
#define NUMALAB_STORE_INTERNAL_H

#include <pthread.h>

#include <sqlite3.h>

#include "live_journal.h"
#include "store_file.h"

struct checkpointer;
struct store;

/*
 * The statements a run's rows use, prepared once on the store's
 * connection (store_kept.c): each the first time it is used, then kept
 * (under the store's mu) until the store closes.
 */
enum store_kept {
	KEPT_INSERT_BATCH,
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
	KEPT_RUN_IMPORTED,
	KEPT_STORED_LAST, /* a run's row and its highest stored seq */
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
/* err (NULL: none) says what failed, and the connection's error. */
void store_set_errinfo(struct errinfo *err, const char *what, sqlite3 *db);

/*
 * One connection behind one mutex: statements are short, and a failing
 * write (read-only file, full disk) leaves the connection usable for
 * reads. The mutex is recursive: store_atomic_begin holds it, and the
 * transaction it opens, across the calls of one atomic step (atomic: how
 * deep, under mu), so no other thread's statement falls into it.
 */
struct store {
	pthread_mutex_t mu;
	int atomic;
	int poke_after; /* a checkpoint asked for inside an atomic step */
	sqlite3 *db;
	int readonly;
	struct checkpointer *ck; /* NULL for a read-only store */
	struct store_file file;
	/* a run's rows and events: prepared once (under mu) */
	sqlite3_stmt *kept[KEPT_N];
	/* the live run's events (store_live.c): live_id's batches go to the
	 * journal, until its end folds them in (live_folding: inside the
	 * transaction that ends it; live_clear: empty the journal when that
	 * commits) */
	struct live_journal live;
	char *live_path;
	int64_t live_id;
	int live_folding, live_clear;
	int live_full;	     /* a journal write found the disk full */
	size_t live_fold_at; /* the section's size that is folded in */
};

/* The journal closed, and removed when the store holds all of it, by
 * store_close. */
void store_live_close(struct store *st);
/* Whether run id's events go to the journal now. mu held. */
int store_live_journaled(struct store *st, int64_t id);
/* ev[0..n) into the journal, err set on failure: 0 or -EIO. mu held. */
int store_live_append(struct store *st, const struct runlog_event *const *ev,
		      int n, struct errinfo *err);
/* What a server that stopped left in the journal (no run of this one's
 * live), into the store; the journal emptied. 0, -ENOSPC or -EIO. */
int store_live_fold_left(struct store *st, struct errinfo *err);
/* -ENOSPC (err set) while the disk a journal write found full still
 * lacks room for a run; else 0. mu held. */
int store_live_room(struct store *st, struct errinfo *err);
/* At the commit (ok) or rollback of an atomic step. mu held. */
void store_live_committed(struct store *st, int ok);

/* SQLITE_OK, or SQLITE_NOMEM when the text could not be copied (the
 * value would be written as NULL). */
int store_bind_text_or_null(sqlite3_stmt *s, int i, const char *v);
/* Column i of the current row as text, NULL for a NULL. */
const char *store_col_text(sqlite3_stmt *s, int i);

#endif
