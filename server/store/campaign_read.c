/* campaign_read.c - the list of campaigns, and one campaign a page of nodes at a time */
#include "campaign_read.h"

#include <errno.h>
#include <stdint.h>

#include <sqlite3.h>

#include "campaign_tables.h"
#include "jsonlimit.h"
#include "strbuf.h"

/* what the server wrote itself: a client's document inside its envelopes */
static const struct jsonlimit stored = {.depth = JSONLIMIT_DEPTH_STORED};

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
	int has = campaigns_has_tables(db), live, rc;

	if (has <= 0)
		return has;
	live = campaigns_has_live_columns(db);
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
	int has = campaigns_has_tables(db), live, rc;

	if (has < 0)
		return -EIO;
	if (!has)
		return -ENOENT;
	live = campaigns_has_live_columns(db);
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
