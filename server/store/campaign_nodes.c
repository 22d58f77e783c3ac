/* campaign_nodes.c - a campaign's nodes as they go, and the campaign's end */
#include "campaign_nodes.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <sqlite3.h>

#include "campaign_tables.h"

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
	int has = campaigns_has_tables(db), rc;

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

struct node_now {
	const char *id, *node;
	struct campaign_node_now *now;
};

static int node_now_locked(sqlite3 *db, void *arg)
{
	struct node_now *nn = arg;
	struct campaign_node_now *now = nn->now;
	sqlite3_stmt *s;
	int has = campaigns_has_tables(db), rc;

	if (has <= 0)
		return has < 0 ? -EIO : -ENOENT;
	if (sqlite3_prepare_v2(
		    db,
		    "SELECT n.run_id, n.state, c.experiment, c.params FROM "
		    "campaign_nodes n JOIN campaigns c ON c.id=n.campaign_id "
		    "WHERE n.campaign_id=? AND n.node=?",
		    -1, &s, NULL) != SQLITE_OK)
		return -EIO;
	sqlite3_bind_text(s, 1, nn->id, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 2, nn->node, -1, SQLITE_STATIC);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW) {
		const char *params = (const char *)sqlite3_column_text(s, 3);
		now->run_id = sqlite3_column_int64(s, 0);
		snprintf(now->state, sizeof(now->state), "%s",
			 (const char *)sqlite3_column_text(s, 1));
		snprintf(now->experiment, sizeof(now->experiment), "%s",
			 (const char *)sqlite3_column_text(s, 2));
		now->params = json_loads(params ? params : "{}", 0, NULL);
	}
	sqlite3_finalize(s);
	if (rc == SQLITE_DONE)
		return unknown(db, nn->id);
	if (rc != SQLITE_ROW)
		return -EIO;
	return now->params ? 0 : -ENOMEM;
}

int campaigns_node_now(struct store *st, const char *id, const char *node,
		       struct campaign_node_now *now)
{
	struct node_now nn = {id, node, now};

	memset(now, 0, sizeof(*now));
	return store_with_db(st, node_now_locked, &nn);
}

static int node_set_locked(sqlite3 *db, void *arg)
{
	struct node_set *ns = arg;
	sqlite3_stmt *s;
	int rc;

	if (campaigns_ensure_tables(db) != SQLITE_OK)
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

	if (campaigns_ensure_tables(db) != SQLITE_OK)
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
