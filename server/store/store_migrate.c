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

/* An import's mark sat just before its final event, in the old table. */
static const char imports_sql[] =
	"INSERT OR REPLACE INTO run_imports (run_id, data)"
	" SELECT e.run_id, e.data FROM events e WHERE e.type='imported'"
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

static int convert_events(struct store *st, int64_t *nev, int64_t *nruns)
{
	sqlite3_stmt *s = NULL;
	struct chunk *c = calloc(1, sizeof(*c));
	int rc = -ENOMEM, step;

	if (!c)
		return rc;
	rc = -EIO;
	if (sqlite3_prepare_v2(st->db,
			       "SELECT run_id, seq, data FROM events"
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
	chunk_clear(c);
	free(c);
	sqlite3_finalize(s);
	return rc;
}

int store_migrate(struct store *st, const char *path, struct errinfo *err)
{
	int64_t nev = 0, nruns = 0;
	int rc = -EIO;

	if (sqlite3_exec(st->db, "BEGIN IMMEDIATE", NULL, NULL, NULL) !=
	    SQLITE_OK)
		goto fail;
	if (sqlite3_exec(st->db, imports_sql, NULL, NULL, NULL) != SQLITE_OK)
		goto fail;
	rc = convert_events(st, &nev, &nruns);
	if (rc)
		goto fail;
	rc = -EIO;
	if (sqlite3_exec(st->db, "DROP TABLE events", NULL, NULL, NULL) !=
		    SQLITE_OK ||
	    sqlite3_exec(st->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
		goto fail;
	fprintf(stderr,
		"numalab: database '%s': %" PRId64 " events of %" PRId64
		" runs converted to this version's tables\n",
		path, nev, nruns);
	return 0;
fail:
	errinfo_set(err, NULL,
		    "cannot convert database '%s' to this version's tables "
		    "(%s): it is left as it was",
		    path,
		    rc == -ENOMEM   ? "out of memory"
		    : rc == -EINVAL ? "an event's text holds a line break"
				    : sqlite3_errmsg(st->db));
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
