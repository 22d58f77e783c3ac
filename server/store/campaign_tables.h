/* campaign_tables.h - the campaigns' tables, for the store's campaign files */
#ifndef NUMALAB_CAMPAIGN_TABLES_H
#define NUMALAB_CAMPAIGN_TABLES_H

#include <sqlite3.h>

/* Makes the tables, and adds the columns an older store lacks. SQLITE_OK
 * or not. */
int campaigns_ensure_tables(sqlite3 *db);

/* Whether the campaigns table has the live columns (state, error,
 * cancel_requested): 1, 0, or -1. */
int campaigns_has_live_columns(sqlite3 *db);

/* Whether the campaigns' tables are there at all: 1, 0, or -1. */
int campaigns_has_tables(sqlite3 *db);

#endif
