/* campaigns.c - fleet campaigns in the store: what ran where, and each node's state */
#include "campaigns.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "jsonlimit.h"
#include "jsonschema.h"
#include "strbuf.h"

/* what the server wrote itself: a client's document inside its envelopes */
static const struct jsonlimit stored = {.depth = JSONLIMIT_DEPTH_STORED};

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

/* Whether the campaigns table has the live columns: 1, 0, or -1. */
static int has_live_columns(sqlite3 *db)
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

/* The tables, and the columns an older store lacks. SQLITE_OK or not. */
static int ensure_schema(sqlite3 *db)
{
	int has;

	if (sqlite3_exec(db, campaigns_sql, NULL, NULL, NULL) != SQLITE_OK)
		return SQLITE_ERROR;
	has = has_live_columns(db);
	if (has < 0)
		return SQLITE_ERROR;
	for (int i = 0; !has && live_columns[i]; i++)
		if (sqlite3_exec(db, live_columns[i], NULL, NULL, NULL) !=
		    SQLITE_OK)
			return SQLITE_ERROR;
	return SQLITE_OK;
}

int campaigns_state_known(const char *state)
{
	static const char *const states[] = {"running", "done", "failed",
					     "cancelled", NULL};

	for (int i = 0; states[i]; i++)
		if (!strcmp(states[i], state))
			return 1;
	return 0;
}

static int text_or_null(json_t *o, const char *key, int required,
			struct errinfo *err, const char *where)
{
	json_t *v = json_object_get(o, key);

	if (!v && !required)
		return 0;
	if (json_is_string(v) || (!required && json_is_null(v)))
		return 0;
	return errinfo_set(err, key, "%s'%s' must be text%s", where, key,
			   required ? "" : " or null");
}

static int known_keys(json_t *o, const char *const *keys, struct errinfo *err,
		      const char *where)
{
	const char *key;
	json_t *v;

	json_object_foreach (o, key, v) {
		int ok = 0;
		for (int i = 0; keys[i]; i++)
			ok |= !strcmp(keys[i], key);
		if (!ok)
			return errinfo_set(err, key, "%sunknown field '%.60s'",
					   where, key);
	}
	return 0;
}

static int check_node(json_t *n, size_t i, struct errinfo *err)
{
	static const char *const keys[] = {"node",	"state",     "reason",
					   "job_id",	"partition", "features",
					   "exclusive", "run_id",    NULL};
	static const char *const states[] = {"done",	"failed",    "pending",
					     "running", "cancelled", NULL};
	char where[40];
	const char *state;
	json_t *v;
	size_t k;
	int ok = 0;

	snprintf(where, sizeof(where), "node %zu: ", i);
	if (!json_is_object(n))
		return errinfo_set(err, "nodes", "node %zu is not an object",
				   i);
	if (known_keys(n, keys, err, where) ||
	    text_or_null(n, "node", 1, err, where) ||
	    text_or_null(n, "state", 1, err, where) ||
	    text_or_null(n, "reason", 0, err, where) ||
	    text_or_null(n, "job_id", 0, err, where) ||
	    text_or_null(n, "partition", 0, err, where))
		return -EINVAL;
	state = json_string_value(json_object_get(n, "state"));
	for (int s = 0; states[s]; s++)
		ok |= !strcmp(states[s], state);
	if (!ok)
		return errinfo_set(
			err, "state",
			"%sstate '%.40s' is not one of done, failed, pending, running, cancelled",
			where, state);
	v = json_object_get(n, "features");
	if (v && !json_is_array(v))
		return errinfo_set(err, "features",
				   "%s'features' must be an array of text",
				   where);
	json_t *f;
	json_array_foreach (v, k, f)
		if (!json_is_string(f))
			return errinfo_set(
				err, "features",
				"%s'features' must be an array of text", where);
	return 0;
}

int campaigns_check(json_t *c, struct errinfo *err)
{
	static const char *const keys[] = {
		"id",	  "engine",	"cluster",     "experiment",
		"params", "created_at", "finished_at", "dir",
		"nodes",  "state",	"error",       NULL};
	const char *id, *engine;
	json_t *nodes, *n;
	size_t i;

	/* the contract GET /api/openapi.json publishes; below, what it cannot
	 * say */
	if (jsonschema_check("Campaign", c, err))
		return -EINVAL;
	if (!json_is_object(c))
		return errinfo_set(err, NULL,
				   "a campaign must be a JSON object");
	if (known_keys(c, keys, err, "") || text_or_null(c, "id", 1, err, "") ||
	    text_or_null(c, "engine", 1, err, "") ||
	    text_or_null(c, "cluster", 0, err, "") ||
	    text_or_null(c, "experiment", 1, err, "") ||
	    text_or_null(c, "created_at", 1, err, "") ||
	    text_or_null(c, "finished_at", 0, err, "") ||
	    text_or_null(c, "dir", 0, err, "") ||
	    text_or_null(c, "state", 0, err, "") ||
	    text_or_null(c, "error", 0, err, ""))
		return -EINVAL;
	if (json_is_string(json_object_get(c, "state")) &&
	    !campaigns_state_known(
		    json_string_value(json_object_get(c, "state"))))
		return errinfo_set(
			err, "state",
			"campaign state '%.40s' is not one of "
			"running, done, failed, cancelled",
			json_string_value(json_object_get(c, "state")));
	id = json_string_value(json_object_get(c, "id"));
	if (!*id || strlen(id) > 64 ||
	    strspn(id,
		   "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") !=
		    strlen(id))
		return errinfo_set(
			err, "id",
			"campaign id '%.70s' must be 1 to 64 letters, digits, '.', '_' or '-'",
			id);
	engine = json_string_value(json_object_get(c, "engine"));
	if (strcmp(engine, "slurm") && strcmp(engine, "clush"))
		return errinfo_set(err, "engine",
				   "engine '%.40s' is not one of slurm, clush",
				   engine);
	if (!json_is_object(json_object_get(c, "params")))
		return errinfo_set(err, "params", "'params' must be an object");
	nodes = json_object_get(c, "nodes");
	if (!json_is_array(nodes))
		return errinfo_set(err, "nodes", "'nodes' must be an array");
	json_array_foreach (nodes, i, n) {
		json_t *run = json_object_get(n, "run_id");
		if (check_node(n, i, err))
			return -EINVAL;
		if (run && !json_is_null(run) &&
		    (!json_is_integer(run) || json_integer_value(run) < 1))
			return errinfo_set(
				err, "run_id",
				"node %zu: 'run_id' must be a positive whole number or null",
				i);
		if (json_object_get(n, "exclusive") &&
		    !json_is_boolean(json_object_get(n, "exclusive")))
			return errinfo_set(
				err, "exclusive",
				"node %zu: 'exclusive' must be true or false",
				i);
	}
	return 0;
}

/* SQLITE_OK, or SQLITE_NOMEM: the text could not be copied (it would be
 * written as NULL) */
static int bind_json_text(sqlite3_stmt *s, int i, json_t *v)
{
	if (json_is_string(v))
		return sqlite3_bind_text(s, i, json_string_value(v), -1,
					 SQLITE_TRANSIENT);
	return sqlite3_bind_null(s, i);
}

struct record {
	json_t *c;
	struct errinfo *err;
};

/*
 * What the store already has of each node: its run and state, by node
 * name. A record sent again (a delivery retried, `fleet deliver`) that
 * does not know a node's run keeps the one stored, so a run delivered
 * once stays that node's and is never stored twice.
 */
static json_t *stored_runs(sqlite3 *db, const char *id)
{
	json_t *have = json_object();
	sqlite3_stmt *s;
	int rc;

	if (!have)
		return NULL;
	if (sqlite3_prepare_v2(db,
			       "SELECT node, run_id, state FROM campaign_nodes "
			       "WHERE campaign_id=? AND run_id IS NOT NULL",
			       -1, &s, NULL) != SQLITE_OK) {
		json_decref(have);
		return NULL;
	}
	sqlite3_bind_text(s, 1, id, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		const char *node = (const char *)sqlite3_column_text(s, 0);
		const char *state = (const char *)sqlite3_column_text(s, 2);
		if (node &&
		    json_object_set_new(
			    have, node,
			    json_pack("[I, s]",
				      (json_int_t)sqlite3_column_int64(s, 1),
				      state ? state : "done")))
			rc = SQLITE_NOMEM;
	}
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE) {
		json_decref(have);
		return NULL;
	}
	return have;
}

static int final_node_state(const char *state)
{
	return state && (!strcmp(state, "done") || !strcmp(state, "failed") ||
			 !strcmp(state, "cancelled"));
}

/* Binds node n (its place i) to the insert s; have: stored_runs. */
static int bind_node(sqlite3_stmt *s, const char *id, size_t i, json_t *n,
		     json_t *have, const char *features)
{
	json_t *run = json_object_get(n, "run_id");
	json_t *old = json_object_get(
		have, json_string_value(json_object_get(n, "node")));
	const char *state = json_string_value(json_object_get(n, "state"));
	int rc;

	if (!json_is_integer(run) && old) {
		run = json_array_get(old, 0);
		if (!final_node_state(state))
			state = json_string_value(json_array_get(old, 1));
	}
	sqlite3_reset(s);
	sqlite3_bind_text(s, 1, id, -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, 2, (sqlite3_int64)i);
	rc = bind_json_text(s, 3, json_object_get(n, "node")) ||
	     sqlite3_bind_text(s, 4, state, -1, SQLITE_TRANSIENT) ||
	     bind_json_text(s, 5, json_object_get(n, "reason")) ||
	     bind_json_text(s, 6, json_object_get(n, "job_id")) ||
	     bind_json_text(s, 7, json_object_get(n, "partition")) ||
	     sqlite3_bind_text(s, 8, features ? features : "[]", -1,
			       SQLITE_TRANSIENT);
	sqlite3_bind_int(s, 9, json_is_true(json_object_get(n, "exclusive")));
	if (json_is_integer(run))
		sqlite3_bind_int64(s, 10, json_integer_value(run));
	else
		sqlite3_bind_null(s, 10);
	return rc;
}

static int record_locked(struct sqlite3 *db, void *arg)
{
	struct record *r = arg;
	sqlite3_stmt *s = NULL;
	json_t *n, *have = NULL;
	size_t i;
	char *params = NULL;
	const char *id = json_string_value(json_object_get(r->c, "id"));
	int rc;

	if (ensure_schema(db) != SQLITE_OK ||
	    sqlite3_exec(db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK)
		goto fail;
	params = json_dumps(json_object_get(r->c, "params"), JSON_COMPACT);
	/* stored as "{}" it would be a campaign of other params */
	if (!params)
		goto nomem;
	have = stored_runs(db, id);
	if (!have)
		goto rollback;
	if (sqlite3_prepare_v2(db,
			       "DELETE FROM campaign_nodes WHERE campaign_id=?",
			       -1, &s, NULL) != SQLITE_OK)
		goto rollback;
	sqlite3_bind_text(s, 1, id, -1, SQLITE_STATIC);
	if (sqlite3_step(s) != SQLITE_DONE)
		goto rollback;
	sqlite3_finalize(s);
	/* an upsert: a cancel asked for stays asked for */
	if (sqlite3_prepare_v2(
		    db,
		    "INSERT INTO campaigns (id, engine, cluster, experiment, "
		    "params, created_at, finished_at, state, error) VALUES "
		    "(?,?,?,?,?,?,?,?,?) ON CONFLICT(id) DO UPDATE SET "
		    "engine=excluded.engine, cluster=excluded.cluster, "
		    "experiment=excluded.experiment, params=excluded.params, "
		    "created_at=excluded.created_at, "
		    "finished_at=excluded.finished_at, state=excluded.state, "
		    "error=excluded.error",
		    -1, &s, NULL) != SQLITE_OK)
		goto rollback;
	if (bind_json_text(s, 1, json_object_get(r->c, "id")) ||
	    bind_json_text(s, 2, json_object_get(r->c, "engine")) ||
	    bind_json_text(s, 3, json_object_get(r->c, "cluster")) ||
	    bind_json_text(s, 4, json_object_get(r->c, "experiment")) ||
	    sqlite3_bind_text(s, 5, params, -1, SQLITE_STATIC) ||
	    bind_json_text(s, 6, json_object_get(r->c, "created_at")) ||
	    bind_json_text(s, 7, json_object_get(r->c, "finished_at")) ||
	    bind_json_text(s, 8, json_object_get(r->c, "state")) ||
	    bind_json_text(s, 9, json_object_get(r->c, "error")) ||
	    sqlite3_step(s) != SQLITE_DONE)
		goto rollback;
	sqlite3_finalize(s);
	if (sqlite3_prepare_v2(
		    db,
		    "INSERT INTO campaign_nodes (campaign_id, seq, node, state, "
		    "reason, job_id, partition, features, exclusive, run_id) "
		    "VALUES (?,?,?,?,?,?,?,?,?,?)",
		    -1, &s, NULL) != SQLITE_OK)
		goto rollback;
	json_array_foreach (json_object_get(r->c, "nodes"), i, n) {
		json_t *f = json_object_get(n, "features");
		/* none given: "[]" below (a json_array() here leaked) */
		char *features = f ? json_dumps(f, JSON_COMPACT) : NULL;
		if (f && !features)
			goto nomem;
		rc = bind_node(s, id, i, n, have, features);
		free(features);
		if (rc || sqlite3_step(s) != SQLITE_DONE)
			goto rollback;
	}
	sqlite3_finalize(s);
	s = NULL;
	if (sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
		goto rollback;
	free(params);
	json_decref(have);
	return 0;
nomem:
	errinfo_set(r->err, NULL, "cannot record campaign '%s': out of memory",
		    id);
	sqlite3_finalize(s);
	sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
	free(params);
	json_decref(have);
	return -ENOMEM;
rollback:
	errinfo_set(r->err, NULL, "cannot record campaign '%s': %s", id,
		    sqlite3_errmsg(db));
	sqlite3_finalize(s);
	sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
	free(params);
	json_decref(have);
	return -EIO;
fail:
	errinfo_set(r->err, NULL, "cannot record campaign '%s': %s", id,
		    sqlite3_errmsg(db));
	return -EIO;
}

int campaigns_record(struct store *st, json_t *c, struct errinfo *err)
{
	struct record r = {c, err};

	if (campaigns_check(c, err))
		return -EINVAL;
	return store_write_with_db(st, record_locked, &r, err);
}

/* NULL when SQLite or jansson ran out of memory: never a null instead */
static json_t *col(sqlite3_stmt *s, int i)
{
	int null = sqlite3_column_type(s, i) == SQLITE_NULL;
	const char *t = (const char *)sqlite3_column_text(s, i);
	return t ? json_string(t) : null ? json_null() : NULL;
}

/*
 * A JSON column, or fallback when it is NULL or unreadable; NULL (and
 * fallback released) when memory ran out. jansson does not always say
 * so: a text is unreadable when a second try fails too.
 */
static json_t *col_json(sqlite3_stmt *s, int i, json_t *fallback)
{
	int null = sqlite3_column_type(s, i) == SQLITE_NULL;
	const char *t = (const char *)sqlite3_column_text(s, i);
	json_error_t jerr;
	json_t *v;

	if (!t && !null) {
		json_decref(fallback);
		return NULL;
	}
	v = jsonlimit_loads(t, 0, &stored, &jerr);

	if (!v && t && json_error_code(&jerr) != json_error_out_of_memory)
		v = jsonlimit_loads(t, 0, &stored, &jerr);
	if (v || !fallback ||
	    (t && json_error_code(&jerr) == json_error_out_of_memory)) {
		json_decref(fallback);
		return v;
	}
	return fallback;
}

static int has_campaigns(sqlite3 *db)
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

/*
 * A campaign's state when its record names none (one recorded before
 * campaigns said theirs): running while unfinished with a node still
 * to go, then failed when a node failed, else done.
 */
static const char *derived_state(int finished, int64_t to_go, int64_t failed)
{
	if (!finished && to_go)
		return "running";
	return failed ? "failed" : "done";
}

static json_t *state_of(sqlite3_stmt *s, int col_state, int col_finished,
			int64_t failed, int64_t to_go)
{
	const char *state = (const char *)sqlite3_column_text(s, col_state);

	if (state)
		return json_string(state);
	return json_string(derived_state(sqlite3_column_type(s, col_finished) !=
						 SQLITE_NULL,
					 to_go, failed));
}

/* the live columns, or what an older store stands for them */
#define LIVE_COLUMNS(has, p)                                                   \
	((has) ? p "state, " p "error, " p "cancel_requested" : "NULL, NULL, 0")

static int list_locked(struct sqlite3 *db, void *arg)
{
	json_t *out = arg;
	struct strbuf sql = STRBUF_INIT;
	sqlite3_stmt *s;
	int has = has_campaigns(db), live, rc;

	if (has <= 0)
		return has;
	live = has_live_columns(db);
	if (live < 0)
		return -EIO;
	strbuf_addf(&sql,
		    "SELECT c.id, c.engine, c.cluster, c.experiment, "
		    "c.created_at, c.finished_at, c.params, "
		    "coalesce(n.total, 0), coalesce(n.done, 0), "
		    "coalesce(n.failed, 0), coalesce(n.running, 0), "
		    "coalesce(n.pending, 0), coalesce(n.cancelled, 0), %s "
		    "FROM campaigns c LEFT JOIN (SELECT campaign_id, "
		    "count(*) AS total, sum(state='done') AS done, "
		    "sum(state='failed') AS failed, sum(state='running') AS "
		    "running, sum(state='pending') AS pending, "
		    "sum(state='cancelled') AS cancelled FROM campaign_nodes "
		    "GROUP BY campaign_id) n ON n.campaign_id=c.id "
		    "ORDER BY c.created_at DESC, c.id DESC",
		    LIVE_COLUMNS(live, "c."));
	if (sql.oom) {
		strbuf_release(&sql);
		return -ENOMEM;
	}
	rc = sqlite3_prepare_v2(db, sql.buf, -1, &s, NULL);
	strbuf_release(&sql);
	if (rc != SQLITE_OK)
		return -EIO;
	/* a campaign left out would be a shorter list said to be whole */
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		int64_t failed = sqlite3_column_int64(s, 9);
		if (json_array_append_new(
			    out,
			    json_pack(
				    "{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:I, "
				    "s:I, s:I, s:I, s:I, s:I, s:o, s:o, s:b}",
				    "id", col(s, 0), "engine", col(s, 1),
				    "cluster", col(s, 2), "experiment",
				    col(s, 3), "created_at", col(s, 4),
				    "finished_at", col(s, 5), "params",
				    col_json(s, 6, json_object()), "nodes",
				    (json_int_t)sqlite3_column_int64(s, 7),
				    "done",
				    (json_int_t)sqlite3_column_int64(s, 8),
				    "failed", (json_int_t)failed, "running",
				    (json_int_t)sqlite3_column_int64(s, 10),
				    "pending",
				    (json_int_t)sqlite3_column_int64(s, 11),
				    "cancelled",
				    (json_int_t)sqlite3_column_int64(s, 12),
				    "state",
				    state_of(s, 13, 5, failed,
					     sqlite3_column_int64(s, 10) +
						     sqlite3_column_int64(s,
									  11)),
				    "error", col(s, 14), "cancel_requested",
				    sqlite3_column_int(s, 15)))) {
			sqlite3_finalize(s);
			return -ENOMEM;
		}
	}
	sqlite3_finalize(s);
	return rc == SQLITE_DONE ? 0 : -EIO;
}

json_t *campaigns_list(struct store *st)
{
	json_t *out = json_array();

	if (!out || store_with_db(st, list_locked, out) < 0) {
		json_decref(out);
		return NULL;
	}
	return out;
}

struct get {
	const char *id;
	int64_t offset, limit;
	json_t *c;
};

/* How many nodes the campaign has, and how many in each state. */
static int count_locked(sqlite3 *db, struct get *g)
{
	json_t *counts =
		json_pack("{s:i, s:i, s:i, s:i, s:i}", "done", 0, "failed", 0,
			  "pending", 0, "running", 0, "cancelled", 0);
	json_int_t total = 0;
	sqlite3_stmt *s;
	int rc, bad = 0;

	if (!counts)
		return -ENOMEM;
	if (sqlite3_prepare_v2(db,
			       "SELECT state, count(*) FROM campaign_nodes "
			       "WHERE campaign_id=? GROUP BY state",
			       -1, &s, NULL) != SQLITE_OK) {
		json_decref(counts);
		return -EIO;
	}
	sqlite3_bind_text(s, 1, g->id, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		const char *state = (const char *)sqlite3_column_text(s, 0);
		json_int_t n = sqlite3_column_int64(s, 1);
		total += n;
		if (state)
			bad |= json_object_set_new(counts, state,
						   json_integer(n));
	}
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE) {
		json_decref(counts);
		return -EIO;
	}
	bad |= json_object_set_new(g->c, "total", json_integer(total));
	bad |= json_object_set_new(g->c, "counts", counts);
	bad |= json_object_set_new(g->c, "offset", json_integer(g->offset));
	bad |= json_object_set_new(g->c, "limit", json_integer(g->limit));
	return bad ? -ENOMEM : 0;
}

static int get_locked(struct sqlite3 *db, void *arg)
{
	struct get *g = arg;
	struct strbuf sql = STRBUF_INIT;
	sqlite3_stmt *s;
	json_t *nodes, *state;
	int has = has_campaigns(db), live, rc;

	if (has < 0)
		return -EIO;
	if (!has)
		return -ENOENT;
	live = has_live_columns(db);
	if (live < 0)
		return -EIO;
	strbuf_addf(
		&sql,
		"SELECT id, engine, cluster, experiment, params, created_at, "
		"finished_at, %s FROM campaigns WHERE id=?",
		LIVE_COLUMNS(live, ""));
	rc = sql.oom ? SQLITE_NOMEM
		     : sqlite3_prepare_v2(db, sql.buf, -1, &s, NULL);
	strbuf_release(&sql);
	if (rc != SQLITE_OK)
		return rc == SQLITE_NOMEM ? -ENOMEM : -EIO;
	sqlite3_bind_text(s, 1, g->id, -1, SQLITE_STATIC);
	rc = sqlite3_step(s);
	if (rc != SQLITE_ROW) {
		sqlite3_finalize(s);
		/* a read that failed is not a campaign that is not there */
		return rc == SQLITE_DONE ? -ENOENT : -EIO;
	}
	nodes = json_array();
	/* the state after the counts: an old record's is made of them */
	state = sqlite3_column_type(s, 7) == SQLITE_NULL
			? NULL
			: json_string((const char *)sqlite3_column_text(s, 7));
	g->c = json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:b}",
			 "id", col(s, 0), "engine", col(s, 1), "cluster",
			 col(s, 2), "experiment", col(s, 3), "params",
			 col_json(s, 4, json_object()), "created_at", col(s, 5),
			 "finished_at", col(s, 6), "nodes", nodes, "error",
			 col(s, 8), "cancel_requested",
			 sqlite3_column_int(s, 9));
	sqlite3_finalize(s);
	if (!g->c) {
		json_decref(state);
		return -ENOMEM;
	}
	if ((rc = count_locked(db, g))) {
		json_decref(state);
		return rc;
	}
	if (!state) {
		json_t *counts = json_object_get(g->c, "counts");
		state = json_string(derived_state(
			!json_is_null(json_object_get(g->c, "finished_at")),
			json_integer_value(json_object_get(counts, "running")) +
				json_integer_value(
					json_object_get(counts, "pending")),
			json_integer_value(json_object_get(counts, "failed"))));
	}
	if (json_object_set_new(g->c, "state", state))
		return -ENOMEM;
	if (sqlite3_prepare_v2(
		    db,
		    "SELECT node, state, reason, job_id, partition, features, "
		    "exclusive, run_id FROM campaign_nodes WHERE campaign_id=? "
		    "ORDER BY seq LIMIT ? OFFSET ?",
		    -1, &s, NULL) != SQLITE_OK)
		return -EIO;
	sqlite3_bind_text(s, 1, g->id, -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, 2, g->limit);
	sqlite3_bind_int64(s, 3, g->offset);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW)
		if (json_array_append_new(
			    nodes,
			    json_pack(
				    "{s:o, s:o, s:o, s:o, s:o, s:o, s:b, s:o}",
				    "node", col(s, 0), "state", col(s, 1),
				    "reason", col(s, 2), "job_id", col(s, 3),
				    "partition", col(s, 4), "features",
				    col_json(s, 5, json_array()), "exclusive",
				    sqlite3_column_int(s, 6), "run_id",
				    sqlite3_column_type(s, 7) == SQLITE_NULL
					    ? json_null()
					    : json_integer(sqlite3_column_int64(
						      s, 7))))) {
			sqlite3_finalize(s);
			return -ENOMEM;
		}
	sqlite3_finalize(s);
	return rc == SQLITE_DONE ? 0 : -EIO;
}

json_t *campaigns_get(struct store *st, const char *id, int64_t offset,
		      int64_t limit)
{
	struct get g = {id, offset, limit, NULL};
	int rc = store_with_db(st, get_locked, &g);
	json_t *n;
	size_t i;

	if (rc) {
		json_decref(g.c);
		errno = rc == -ENOENT ? ENOENT : rc == -ENOMEM ? ENOMEM : EIO;
		return NULL;
	}
	/* each node's run, read through the store's own accessor */
	json_array_foreach (json_object_get(g.c, "nodes"), i, n) {
		json_t *rid = json_object_get(n, "run_id"), *run;
		if (!json_is_integer(rid))
			continue;
		run = store_get_run(st, json_integer_value(rid));
		if (!run && errno == ENOENT)
			continue;
		/* a node shown without the run it has is a wrong answer */
		if (!run ||
		    json_object_set_new(
			    n, "run",
			    json_pack(
				    "{s:O?, s:O?, s:O?, s:O?, s:O?, s:O?}",
				    "id", json_object_get(run, "id"), "status",
				    json_object_get(run, "status"), "headline",
				    json_object_get(run, "headline"), "summary",
				    json_object_get(run, "summary"), "machine",
				    json_object_get(run, "machine"), "params",
				    json_object_get(run, "params")))) {
			int e = run ? ENOMEM : errno;
			json_decref(run);
			json_decref(g.c);
			errno = e;
			return NULL;
		}
		json_decref(run);
	}
	return g.c;
}

struct node_set {
	const char *id, *node;
	const struct campaign_node_update *u;
	int64_t run_id; /* in: the run to give it, 0 none; out: its run */
};

/* -ENOENT naming which is unknown: the campaign or its node */
static int unknown(sqlite3 *db, const char *id)
{
	sqlite3_stmt *s;
	int rc;

	if (sqlite3_prepare_v2(db, "SELECT 1 FROM campaigns WHERE id=?", -1, &s,
			       NULL) != SQLITE_OK)
		return -EIO;
	sqlite3_bind_text(s, 1, id, -1, SQLITE_STATIC);
	rc = sqlite3_step(s);
	sqlite3_finalize(s);
	return rc == SQLITE_ROW ? -ESRCH : rc == SQLITE_DONE ? -ENOENT : -EIO;
}

static int node_run_locked(sqlite3 *db, void *arg)
{
	struct node_set *ns = arg;
	sqlite3_stmt *s;
	int has = has_campaigns(db), rc;

	if (has <= 0)
		return has < 0 ? -EIO : -ENOENT;
	if (sqlite3_prepare_v2(db,
			       "SELECT run_id FROM campaign_nodes WHERE "
			       "campaign_id=? AND node=?",
			       -1, &s, NULL) != SQLITE_OK)
		return -EIO;
	sqlite3_bind_text(s, 1, ns->id, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 2, ns->node, -1, SQLITE_STATIC);
	rc = sqlite3_step(s);
	ns->run_id = rc == SQLITE_ROW ? sqlite3_column_int64(s, 0) : 0;
	sqlite3_finalize(s);
	if (rc == SQLITE_DONE)
		return unknown(db, ns->id);
	return rc == SQLITE_ROW ? 0 : -EIO;
}

int campaigns_node_run(struct store *st, const char *id, const char *node,
		       int64_t *run_id)
{
	struct node_set ns = {id, node, NULL, 0};
	int rc = store_with_db(st, node_run_locked, &ns);

	*run_id = ns.run_id;
	return rc;
}

static int node_set_locked(sqlite3 *db, void *arg)
{
	struct node_set *ns = arg;
	sqlite3_stmt *s;
	int rc;

	if (ensure_schema(db) != SQLITE_OK)
		return -EIO;
	/* a run a node has is its own: a later one does not replace it */
	if (sqlite3_prepare_v2(
		    db,
		    "UPDATE campaign_nodes SET state=?, reason=?, "
		    "job_id=coalesce(?, job_id), "
		    "run_id=coalesce(run_id, ?) WHERE campaign_id=? AND node=?",
		    -1, &s, NULL) != SQLITE_OK)
		return -EIO;
	sqlite3_bind_text(s, 1, ns->u->state, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 2, ns->u->reason, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 3, ns->u->job_id, -1, SQLITE_STATIC);
	if (ns->run_id)
		sqlite3_bind_int64(s, 4, ns->run_id);
	else
		sqlite3_bind_null(s, 4);
	sqlite3_bind_text(s, 5, ns->id, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 6, ns->node, -1, SQLITE_STATIC);
	rc = sqlite3_step(s);
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE)
		return -EIO;
	if (!sqlite3_changes(db))
		return unknown(db, ns->id);
	return node_run_locked(db, ns);
}

int campaigns_node_set(struct store *st, const char *id, const char *node,
		       const struct campaign_node_update *u, int64_t *run_id,
		       struct errinfo *err)
{
	struct node_set ns = {id, node, u, *run_id};
	int rc = store_write_with_db(st, node_set_locked, &ns, err);

	*run_id = ns.run_id;
	if (rc == -ENOENT)
		errinfo_set(err, "id", "unknown campaign id '%.80s'", id);
	else if (rc == -ESRCH)
		errinfo_set(err, "node", "campaign '%.80s' has no node '%.80s'",
			    id, node);
	else if (rc == -EIO)
		errinfo_set(err, NULL, "cannot record node '%.80s' of '%.80s'",
			    node, id);
	return rc;
}

struct ending {
	const char *id, *state, *error;
	int only_running;
};

static int end_locked(sqlite3 *db, void *arg)
{
	struct ending *e = arg;
	char now[40];
	sqlite3_stmt *s;
	int rc;

	if (ensure_schema(db) != SQLITE_OK)
		return -EIO;
	store_timestamp(now, sizeof(now));
	if (sqlite3_prepare_v2(
		    db,
		    e->only_running
			    ? "UPDATE campaigns SET state=?, error=?, "
			      "finished_at=? WHERE id=? AND "
			      "(state IS NULL OR state='running')"
			    : "UPDATE campaigns SET cancel_requested=1 WHERE id=?",
		    -1, &s, NULL) != SQLITE_OK)
		return -EIO;
	if (e->only_running) {
		sqlite3_bind_text(s, 1, e->state, -1, SQLITE_STATIC);
		sqlite3_bind_text(s, 2, e->error, -1, SQLITE_STATIC);
		sqlite3_bind_text(s, 3, now, -1, SQLITE_TRANSIENT);
		sqlite3_bind_text(s, 4, e->id, -1, SQLITE_STATIC);
	} else {
		sqlite3_bind_text(s, 1, e->id, -1, SQLITE_STATIC);
	}
	rc = sqlite3_step(s);
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE)
		return -EIO;
	if (!sqlite3_changes(db))
		return e->only_running ? 1 : -ENOENT;
	if (!e->only_running)
		return 0;
	/* its nodes still waiting end with it */
	if (sqlite3_prepare_v2(db,
			       "UPDATE campaign_nodes SET state=?, "
			       "reason=coalesce(reason, ?) WHERE campaign_id=? "
			       "AND state IN ('pending', 'running')",
			       -1, &s, NULL) != SQLITE_OK)
		return -EIO;
	sqlite3_bind_text(s, 1, e->state, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 2, e->error, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 3, e->id, -1, SQLITE_STATIC);
	rc = sqlite3_step(s);
	sqlite3_finalize(s);
	return rc == SQLITE_DONE ? 0 : -EIO;
}

int campaigns_end(struct store *st, const char *id, const char *state,
		  const char *error, struct errinfo *err)
{
	struct ending e = {id, state, error, 1};

	return store_write_with_db(st, end_locked, &e, err);
}

int campaigns_cancel(struct store *st, const char *id, struct errinfo *err)
{
	struct ending e = {id, NULL, NULL, 0};
	int rc = store_write_with_db(st, end_locked, &e, err);

	if (rc == -ENOENT)
		errinfo_set(err, "id", "unknown campaign id '%.80s'", id);
	return rc;
}
