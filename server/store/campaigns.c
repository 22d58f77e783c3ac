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
	" finished_at TEXT);"
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
	" PRIMARY KEY (campaign_id, seq));";

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
	static const char *const states[] = {"done", "failed", "pending",
					     "running", NULL};
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
			"%sstate '%.40s' is not one of done, failed, pending, running",
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
		"id",	      "engine",	     "cluster", "experiment", "params",
		"created_at", "finished_at", "dir",	"nodes",      NULL};
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
	    text_or_null(c, "dir", 0, err, ""))
		return -EINVAL;
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

static int record_locked(struct sqlite3 *db, void *arg)
{
	struct record *r = arg;
	sqlite3_stmt *s = NULL;
	json_t *n;
	size_t i;
	char *params = NULL;
	const char *id = json_string_value(json_object_get(r->c, "id"));
	int rc;

	if (sqlite3_exec(db, campaigns_sql, NULL, NULL, NULL) != SQLITE_OK ||
	    sqlite3_exec(db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK)
		goto fail;
	params = json_dumps(json_object_get(r->c, "params"), JSON_COMPACT);
	/* stored as "{}" it would be a campaign of other params */
	if (!params)
		goto nomem;
	if (sqlite3_prepare_v2(db,
			       "DELETE FROM campaign_nodes WHERE campaign_id=?",
			       -1, &s, NULL) != SQLITE_OK)
		goto rollback;
	sqlite3_bind_text(s, 1, id, -1, SQLITE_STATIC);
	if (sqlite3_step(s) != SQLITE_DONE)
		goto rollback;
	sqlite3_finalize(s);
	if (sqlite3_prepare_v2(
		    db,
		    "INSERT OR REPLACE INTO campaigns (id, engine, cluster, "
		    "experiment, params, created_at, finished_at) VALUES "
		    "(?,?,?,?,?,?,?)",
		    -1, &s, NULL) != SQLITE_OK)
		goto rollback;
	if (bind_json_text(s, 1, json_object_get(r->c, "id")) ||
	    bind_json_text(s, 2, json_object_get(r->c, "engine")) ||
	    bind_json_text(s, 3, json_object_get(r->c, "cluster")) ||
	    bind_json_text(s, 4, json_object_get(r->c, "experiment")) ||
	    sqlite3_bind_text(s, 5, params, -1, SQLITE_STATIC) ||
	    bind_json_text(s, 6, json_object_get(r->c, "created_at")) ||
	    bind_json_text(s, 7, json_object_get(r->c, "finished_at")) ||
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
		json_t *run = json_object_get(n, "run_id");
		if (f && !features)
			goto nomem;
		sqlite3_reset(s);
		sqlite3_bind_text(s, 1, id, -1, SQLITE_STATIC);
		sqlite3_bind_int64(s, 2, (sqlite3_int64)i);
		rc = bind_json_text(s, 3, json_object_get(n, "node")) ||
		     bind_json_text(s, 4, json_object_get(n, "state")) ||
		     bind_json_text(s, 5, json_object_get(n, "reason")) ||
		     bind_json_text(s, 6, json_object_get(n, "job_id")) ||
		     bind_json_text(s, 7, json_object_get(n, "partition")) ||
		     sqlite3_bind_text(s, 8, features ? features : "[]", -1,
				       SQLITE_TRANSIENT);
		sqlite3_bind_int(s, 9,
				 json_is_true(json_object_get(n, "exclusive")));
		if (json_is_integer(run))
			sqlite3_bind_int64(s, 10, json_integer_value(run));
		else
			sqlite3_bind_null(s, 10);
		free(features);
		if (rc || sqlite3_step(s) != SQLITE_DONE)
			goto rollback;
	}
	sqlite3_finalize(s);
	s = NULL;
	if (sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
		goto rollback;
	free(params);
	return 0;
nomem:
	errinfo_set(r->err, NULL, "cannot record campaign '%s': out of memory",
		    id);
	sqlite3_finalize(s);
	sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
	free(params);
	return -ENOMEM;
rollback:
	errinfo_set(r->err, NULL, "cannot record campaign '%s': %s", id,
		    sqlite3_errmsg(db));
	sqlite3_finalize(s);
	sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
	free(params);
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

static int list_locked(struct sqlite3 *db, void *arg)
{
	json_t *out = arg;
	sqlite3_stmt *s;
	int has = has_campaigns(db), rc;

	if (has <= 0)
		return has;
	if (sqlite3_prepare_v2(
		    db,
		    "SELECT c.id, c.engine, c.cluster, c.experiment, c.created_at, "
		    "c.finished_at, c.params, "
		    "(SELECT count(*) FROM campaign_nodes n WHERE n.campaign_id=c.id), "
		    "(SELECT count(*) FROM campaign_nodes n WHERE n.campaign_id=c.id AND n.state='done'), "
		    "(SELECT count(*) FROM campaign_nodes n WHERE n.campaign_id=c.id AND n.state='failed') "
		    "FROM campaigns c ORDER BY c.created_at DESC, c.id DESC",
		    -1, &s, NULL) != SQLITE_OK)
		return -EIO;
	/* a campaign left out would be a shorter list said to be whole */
	while ((rc = sqlite3_step(s)) == SQLITE_ROW)
		if (json_array_append_new(
			    out,
			    json_pack(
				    "{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:I, s:I, s:I}",
				    "id", col(s, 0), "engine", col(s, 1),
				    "cluster", col(s, 2), "experiment",
				    col(s, 3), "created_at", col(s, 4),
				    "finished_at", col(s, 5), "params",
				    col_json(s, 6, json_object()), "nodes",
				    (json_int_t)sqlite3_column_int64(s, 7),
				    "done",
				    (json_int_t)sqlite3_column_int64(s, 8),
				    "failed",
				    (json_int_t)sqlite3_column_int64(s, 9)))) {
			sqlite3_finalize(s);
			return -ENOMEM;
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
	json_t *counts = json_pack("{s:i, s:i, s:i, s:i}", "done", 0, "failed",
				   0, "pending", 0, "running", 0);
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
	sqlite3_stmt *s;
	json_t *nodes;
	int has = has_campaigns(db), rc;

	if (has < 0)
		return -EIO;
	if (!has)
		return -ENOENT;
	if (sqlite3_prepare_v2(
		    db,
		    "SELECT id, engine, cluster, experiment, params, created_at, "
		    "finished_at FROM campaigns WHERE id=?",
		    -1, &s, NULL) != SQLITE_OK)
		return -EIO;
	sqlite3_bind_text(s, 1, g->id, -1, SQLITE_STATIC);
	rc = sqlite3_step(s);
	if (rc != SQLITE_ROW) {
		sqlite3_finalize(s);
		/* a read that failed is not a campaign that is not there */
		return rc == SQLITE_DONE ? -ENOENT : -EIO;
	}
	nodes = json_array();
	g->c = json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "id",
			 col(s, 0), "engine", col(s, 1), "cluster", col(s, 2),
			 "experiment", col(s, 3), "params",
			 col_json(s, 4, json_object()), "created_at", col(s, 5),
			 "finished_at", col(s, 6), "nodes", nodes);
	sqlite3_finalize(s);
	if (!g->c)
		return -ENOMEM;
	if ((rc = count_locked(db, g)))
		return rc;
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
