/* campaign_tables.c - the campaigns' tables, made or brought up to date */
#include "campaign_tables.h"

#include <string.h>

static const char campaigns_sql[] =
	"CREATE TABLE IF NOT EXISTS campaigns ("
	" id TEXT PRIMARY KEY,"
	" engine TEXT NOT NULL,"
	" cluster TEXT,"
	" experiment TEXT NOT NULL,"
	" params TEXT NOT NULL,"
	" created_at TEXT NOT NULL,"
	" finished_at TEXT,"
	" state TEXT,"
	" error TEXT,"
	" cancel_requested INTEGER NOT NULL DEFAULT 0);"
	"CREATE TABLE IF NOT EXISTS campaign_nodes ("
	" campaign_id TEXT NOT NULL REFERENCES campaigns(id) ON DELETE CASCADE,"
	" seq INTEGER NOT NULL,"
	" node TEXT NOT NULL,"
	" state TEXT NOT NULL,"
	" reason TEXT,"
	" job_id TEXT,"
	" partition TEXT,"
	" features TEXT NOT NULL,"
	" exclusive INTEGER NOT NULL,"
	" run_id INTEGER,"
	" PRIMARY KEY (campaign_id, seq));"
	"CREATE INDEX IF NOT EXISTS campaign_nodes_by_node"
	" ON campaign_nodes(campaign_id, node);";

/* the columns a store made before campaigns lived (state at start) lacks */
static const char *const live_columns[] = {
	"ALTER TABLE campaigns ADD COLUMN state TEXT",
	"ALTER TABLE campaigns ADD COLUMN error TEXT",
	"ALTER TABLE campaigns ADD COLUMN cancel_requested INTEGER NOT NULL "
	"DEFAULT 0",
	NULL};

int campaigns_has_live_columns(sqlite3 *db)
{
	sqlite3_stmt *s;
	int found = 0, rc;

	if (sqlite3_prepare_v2(db, "PRAGMA table_info(campaigns)", -1, &s,
			       NULL) != SQLITE_OK)
		return -1;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(s, 1);
		found |= name && !strcmp(name, "cancel_requested");
	}
	sqlite3_finalize(s);
	return rc == SQLITE_DONE ? found : -1;
}

int campaigns_ensure_tables(sqlite3 *db)
{
	int has;

	if (sqlite3_exec(db, campaigns_sql, NULL, NULL, NULL) != SQLITE_OK)
		return SQLITE_ERROR;
	has = campaigns_has_live_columns(db);
	if (has < 0)
		return SQLITE_ERROR;
	for (int i = 0; !has && live_columns[i]; i++)
		if (sqlite3_exec(db, live_columns[i], NULL, NULL, NULL) !=
		    SQLITE_OK)
			return SQLITE_ERROR;
	return SQLITE_OK;
}

int campaigns_has_tables(sqlite3 *db)
{
	sqlite3_stmt *s;
	int found;

	if (sqlite3_prepare_v2(
		    db,
		    "SELECT 1 FROM sqlite_master WHERE type='table' AND name='campaign_nodes'",
		    -1, &s, NULL) != SQLITE_OK)
		return -1;
	found = sqlite3_step(s);
	found = found == SQLITE_ROW ? 1 : found == SQLITE_DONE ? 0 : -1;
	sqlite3_finalize(s);
	return found;
}
