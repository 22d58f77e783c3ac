/* campaigns.c - a fleet campaign's record stored whole, its nodes' runs kept */
#include "campaigns.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "campaign_check.h"
#include "campaign_runs.h"
#include "campaign_tables.h"

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

/* The campaign's own row, as an upsert: a cancel asked for stays asked
 * for. SQLITE_OK or not. */
static int put_campaign(sqlite3 *db, json_t *c, const char *params)
{
	sqlite3_stmt *s;
	int rc;

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
		return SQLITE_ERROR;
	if (bind_json_text(s, 1, json_object_get(c, "id")) ||
	    bind_json_text(s, 2, json_object_get(c, "engine")) ||
	    bind_json_text(s, 3, json_object_get(c, "cluster")) ||
	    bind_json_text(s, 4, json_object_get(c, "experiment")) ||
	    sqlite3_bind_text(s, 5, params, -1, SQLITE_STATIC) ||
	    bind_json_text(s, 6, json_object_get(c, "created_at")) ||
	    bind_json_text(s, 7, json_object_get(c, "finished_at")) ||
	    bind_json_text(s, 8, json_object_get(c, "state")) ||
	    bind_json_text(s, 9, json_object_get(c, "error")))
		rc = SQLITE_ERROR;
	else
		rc = sqlite3_step(s) == SQLITE_DONE ? SQLITE_OK : SQLITE_ERROR;
	sqlite3_finalize(s);
	return rc;
}

/* The campaign's nodes in place of those it had; have: stored_runs. 0,
 * -ENOMEM or -EIO. */
static int put_nodes(sqlite3 *db, const char *id, json_t *nodes, json_t *have)
{
	sqlite3_stmt *s;
	json_t *n;
	size_t i;
	int rc = 0;

	if (sqlite3_prepare_v2(db,
			       "DELETE FROM campaign_nodes WHERE campaign_id=?",
			       -1, &s, NULL) != SQLITE_OK)
		return -EIO;
	sqlite3_bind_text(s, 1, id, -1, SQLITE_STATIC);
	rc = sqlite3_step(s) == SQLITE_DONE ? 0 : -EIO;
	sqlite3_finalize(s);
	if (rc)
		return rc;
	if (sqlite3_prepare_v2(
		    db,
		    "INSERT INTO campaign_nodes (campaign_id, seq, node, state, "
		    "reason, job_id, partition, features, exclusive, run_id) "
		    "VALUES (?,?,?,?,?,?,?,?,?,?)",
		    -1, &s, NULL) != SQLITE_OK)
		return -EIO;
	json_array_foreach (nodes, i, n) {
		json_t *f = json_object_get(n, "features");
		/* none given: "[]" below (a json_array() here leaked) */
		char *features = f ? json_dumps(f, JSON_COMPACT) : NULL;
		if (f && !features) {
			rc = -ENOMEM;
			break;
		}
		rc = bind_node(s, id, i, n, have, features);
		free(features);
		if (rc || sqlite3_step(s) != SQLITE_DONE) {
			rc = -EIO;
			break;
		}
	}
	sqlite3_finalize(s);
	return rc;
}

static int record_locked(struct sqlite3 *db, void *arg)
{
	struct record *r = arg;
	json_t *have = NULL;
	char *params = NULL;
	const char *id = json_string_value(json_object_get(r->c, "id"));
	int rc = -EIO;

	if (campaigns_ensure_tables(db) != SQLITE_OK ||
	    /* a savepoint: inside a caller's atomic step it nests */
	    sqlite3_exec(db, "SAVEPOINT campaign", NULL, NULL, NULL) !=
		    SQLITE_OK) {
		errinfo_set(r->err, NULL, "cannot record campaign '%s': %s", id,
			    sqlite3_errmsg(db));
		return -EIO;
	}
	params = json_dumps(json_object_get(r->c, "params"), JSON_COMPACT);
	/* stored as "{}" it would be a campaign of other params */
	if (!params)
		rc = -ENOMEM;
	else if (!(have = stored_runs(db, id)))
		rc = -EIO;
	/* the runs it names, against the store: read under the same lock */
	else if (!(rc = campaign_runs_check(db, r->c, have, r->err)) &&
		 put_campaign(db, r->c, params) == SQLITE_OK)
		rc = put_nodes(db, id, json_object_get(r->c, "nodes"), have);
	else if (!rc)
		rc = -EIO;
	if (!rc &&
	    sqlite3_exec(db, "RELEASE campaign", NULL, NULL, NULL) != SQLITE_OK)
		rc = -EIO;
	if (rc == -ENOMEM)
		errinfo_set(r->err, NULL,
			    "cannot record campaign '%s': out of memory", id);
	else if (rc == -EIO)
		errinfo_set(r->err, NULL, "cannot record campaign '%s': %s", id,
			    sqlite3_errmsg(db));
	if (rc)
		sqlite3_exec(db, "ROLLBACK TO campaign; RELEASE campaign", NULL,
			     NULL, NULL);
	free(params);
	json_decref(have);
	return rc;
}

int campaigns_record(struct store *st, json_t *c, struct errinfo *err)
{
	struct record r = {c, err};

	if (campaigns_check(c, err))
		return -EINVAL;
	return store_write_with_db(st, record_locked, &r, err);
}
