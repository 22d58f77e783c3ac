/* guesses.c - the class's guesses kept with a run: one block per run, apart from its measurement */
#include "guesses.h"

#include <errno.h>
#include <stdlib.h>

#include <sqlite3.h>

#include "jsonlimit.h"
#include "store_internal.h"

static const struct jsonlimit stored = {.depth = JSONLIMIT_DEPTH_STORED};

/* a table of its own: the runs' rows and events, the measurement, are
 * never written for a guess */
static const char guesses_sql[] = "CREATE TABLE IF NOT EXISTS run_guesses ("
				  " run_id INTEGER PRIMARY KEY,"
				  " block TEXT NOT NULL);";

struct put {
	int64_t id;
	const char *text;
	struct errinfo *err;
};

static int put_locked(sqlite3 *db, void *arg)
{
	struct put *p = arg;
	sqlite3_stmt *s = NULL;
	int rc;

	if (sqlite3_exec(db, guesses_sql, NULL, NULL, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db,
			       "INSERT OR REPLACE INTO run_guesses "
			       "(run_id, block) VALUES (?, ?)",
			       -1, &s, NULL) != SQLITE_OK) {
		errinfo_set(p->err, NULL, "cannot store the guesses: %s",
			    sqlite3_errmsg(db));
		return -EIO;
	}
	sqlite3_bind_int64(s, 1, p->id);
	sqlite3_bind_text(s, 2, p->text, -1, SQLITE_STATIC);
	rc = sqlite3_step(s) == SQLITE_DONE ? 0 : -EIO;
	if (rc)
		errinfo_set(p->err, NULL, "cannot store the guesses: %s",
			    sqlite3_errmsg(db));
	sqlite3_finalize(s);
	return rc;
}

int guesses_put(struct store *st, int64_t id, json_t *block,
		struct errinfo *err)
{
	struct put p = {id, NULL, err};
	char *text = json_dumps(block, JSON_COMPACT);
	int rc;

	if (!text)
		return errinfo_set(err, NULL, "out of memory"), -ENOMEM;
	p.text = text;
	rc = store_write_with_db(st, put_locked, &p, err);
	free(text);
	return rc;
}

json_t *guesses_get(struct store *st, int64_t id)
{
	json_t *block = NULL;
	sqlite3_stmt *s;
	int err = ENOENT, step;

	pthread_mutex_lock(&st->mu);
	/* no table yet: no run has guesses (and it is prepared again the
	 * next time) */
	s = store_kept(st, KEPT_GUESSES);
	if (s) {
		sqlite3_bind_int64(s, 1, id);
		step = sqlite3_step(s);
		if (step == SQLITE_ROW) {
			const char *t = (const char *)sqlite3_column_text(s, 0);
			block = t ? jsonlimit_loads(t, 0, &stored, NULL) : NULL;
			err = block ? 0 : EIO;
		} else if (step != SQLITE_DONE) {
			err = EIO;
		}
	}
	store_kept_done(s);
	pthread_mutex_unlock(&st->mu);
	if (!block)
		errno = err;
	return block;
}
