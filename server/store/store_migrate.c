/* store_migrate.c - a store an older numalab wrote, read by this one: its events table converted, or (read-only) seen through views */
#include "store_migrate.h"
#include "event_batches.h"
#include "store_internal.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Events converted a row at a time (consecutive ones of one run). */
#define CHUNK 256

/* An import's mark sat just before its final event, in the old table.
 * Events of a run no longer in the store (its row deleted by hand, where
 * foreign keys were not enforced) are left out: nothing could read them. */
static const char imports_sql[] =
	"INSERT OR REPLACE INTO run_imports (run_id, data)"
	" SELECT e.run_id, e.data FROM events e WHERE e.type='imported'"
	" AND e.run_id IN (SELECT id FROM runs)"
	" AND e.seq >= (SELECT MAX(seq) FROM events WHERE run_id=e.run_id) - 1"
	" ORDER BY e.run_id, e.seq";

/* The gathered chunk, copied: rows of the old table's statement are gone
 * at its next step. */
struct chunk {
	struct runlog_event ev[CHUNK];
	const struct runlog_event *ptr[CHUNK];
	int n;
	int64_t run;
};

static void chunk_clear(struct chunk *c)
{
	for (int i = 0; i < c->n; i++)
		free(c->ev[i].json);
	c->n = 0;
}

static int chunk_flush(struct store *st, struct chunk *c)
{
	int rc = c->n ? event_batches_insert(st, c->run, c->ptr, c->n) : 0;

	chunk_clear(c);
	return rc;
}

/* SQLite's words for the last failure, kept before a finalize resets them. */
static void keep_error(struct store *st, char *why, size_t size)
{
	if (!*why)
		snprintf(why, size, "%s", sqlite3_errmsg(st->db));
}

static int convert_events(struct store *st, int64_t *nev, int64_t *nruns,
			  char *why, size_t size)
{
	sqlite3_stmt *s = NULL;
	struct chunk *c = calloc(1, sizeof(*c));
	int rc = -ENOMEM, step;

	if (!c)
		return rc;
	rc = -EIO;
	if (sqlite3_prepare_v2(st->db,
			       "SELECT run_id, seq, data FROM events"
			       " WHERE run_id IN (SELECT id FROM runs)"
			       " ORDER BY run_id, seq",
			       -1, &s, NULL) != SQLITE_OK)
		goto out;
	while ((step = sqlite3_step(s)) == SQLITE_ROW) {
		int64_t run = sqlite3_column_int64(s, 0);
		const char *data = (const char *)sqlite3_column_text(s, 2);
		struct runlog_event *e = &c->ev[c->n];

		if (c->n && (run != c->run || c->n == CHUNK) &&
		    (rc = chunk_flush(st, c)))
			goto out;
		rc = -EIO;
		if (!c->n && run != c->run)
			++*nruns;
		c->run = run;
		e = &c->ev[c->n];
		e->seq = sqlite3_column_int64(s, 1);
		e->json = strdup(data ? data : "");
		if (!e->json) {
			rc = -ENOMEM;
			goto out;
		}
		e->len = strlen(e->json);
		c->ptr[c->n++] = e;
		++*nev;
	}
	rc = step == SQLITE_DONE ? chunk_flush(st, c) : -EIO;
out:
	if (rc == -EIO)
		keep_error(st, why, size);
	chunk_clear(c);
	free(c);
	sqlite3_finalize(s);
	return rc;
}

/* How many events of runs no longer in the store the old table holds. */
static int64_t orphans(struct store *st)
{
	sqlite3_stmt *s = NULL;
	int64_t n = 0;

	if (sqlite3_prepare_v2(st->db,
			       "SELECT count(*) FROM events WHERE run_id NOT IN"
			       " (SELECT id FROM runs)",
			       -1, &s, NULL) == SQLITE_OK &&
	    sqlite3_step(s) == SQLITE_ROW)
		n = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	return n;
}

int store_migrate(struct store *st, const char *path, const char *tables_sql,
		  struct errinfo *err)
{
	int64_t nev = 0, nruns = 0, left = 0;
	char why[256] = "";
	int rc = -EIO;

	/* the new tables too: a conversion that fails leaves none of them */
	if (sqlite3_exec(st->db, "BEGIN IMMEDIATE", NULL, NULL, NULL) !=
		    SQLITE_OK ||
	    sqlite3_exec(st->db, tables_sql, NULL, NULL, NULL) != SQLITE_OK ||
	    sqlite3_exec(st->db, imports_sql, NULL, NULL, NULL) != SQLITE_OK)
		goto fail;
	left = orphans(st);
	rc = convert_events(st, &nev, &nruns, why, sizeof(why));
	if (rc)
		goto fail;
	rc = -EIO;
	if (sqlite3_exec(st->db, "DROP TABLE events", NULL, NULL, NULL) !=
		    SQLITE_OK ||
	    sqlite3_exec(st->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
		goto fail;
	/* the conversion's pages into the file, and the log back to nothing
	 * (it held the whole store once) */
	sqlite3_exec(st->db, "PRAGMA wal_checkpoint(TRUNCATE)", NULL, NULL,
		     NULL);
	fprintf(stderr,
		"numalab: database '%s': %" PRId64 " events of %" PRId64
		" runs converted to this version's tables",
		path, nev, nruns);
	if (left)
		fprintf(stderr,
			"; %" PRId64 " events of runs no longer in it left out",
			left);
	fprintf(stderr, "\n");
	return 0;
fail:
	if (rc == -EIO)
		keep_error(st, why, sizeof(why));
	errinfo_set(err, NULL,
		    "cannot convert database '%s' to this version's tables "
		    "(%s): it is left as it was",
		    path,
		    rc == -ENOMEM   ? "out of memory"
		    : rc == -EINVAL ? "an event's text holds a line break"
				    : why);
	if (!sqlite3_get_autocommit(st->db))
		sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
	return rc;
}

int store_legacy_views(sqlite3 *db)
{
	static const char sql[] =
		"CREATE TEMP VIEW event_batches AS SELECT run_id,"
		" seq AS first_seq, seq AS last_seq, data FROM events;"
		"CREATE TEMP VIEW run_imports AS SELECT e.run_id AS run_id,"
		" e.data AS data FROM events e WHERE e.type='imported'"
		" AND e.seq >= (SELECT MAX(seq) FROM events"
		" WHERE run_id=e.run_id) - 1;";

	return sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK ? 0 : -EIO;
}
