/* store_internal.h - the store's connection, for the files that read and write through it */
#ifndef NUMALAB_STORE_INTERNAL_H
#define NUMALAB_STORE_INTERNAL_H

#include <pthread.h>

#include <sqlite3.h>

#include "store_file.h"
#include "store_kept.h"

struct checkpointer;

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
};

/* SQLITE_OK, or SQLITE_NOMEM when the text could not be copied (the
 * value would be written as NULL). */
int store_bind_text_or_null(sqlite3_stmt *s, int i, const char *v);
/* Column i of the current row as text, NULL for a NULL. */
const char *store_col_text(sqlite3_stmt *s, int i);

#endif
