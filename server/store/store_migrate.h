/* store_migrate.h - a store an older numalab wrote, read by this one: its events table converted, or (read-only) seen through views */
#ifndef NUMALAB_STORE_MIGRATE_H
#define NUMALAB_STORE_MIGRATE_H

#include <sqlite3.h>

#include "errinfo.h"

struct store;

/*
 * The old events table (a row an event) converted to event_batches and
 * run_imports (made by tables_sql), then dropped, in one transaction:
 * whole, or the file's tables left as they were (err says why; path
 * names it). Events of runs no longer in the store are left out. Says
 * on stderr what it converted. 0 or -errno.
 */
int store_migrate(struct store *st, const char *path, const char *tables_sql,
		  struct errinfo *err);

/*
 * For a read-only file of the old tables: event_batches and run_imports as
 * temporary views over its events table (a batch an event), so that every
 * reader reads it as it reads a new one. 0 or -EIO.
 */
int store_legacy_views(sqlite3 *db);

#endif
