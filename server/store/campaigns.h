/* campaigns.h - fleet campaigns in the store: what ran where, and each node's state */
#ifndef NUMALAB_CAMPAIGNS_H
#define NUMALAB_CAMPAIGNS_H

#include <stdint.h>

#include <jansson.h>

#include "errinfo.h"
#include "store.h"

/*
 * A campaign document:
 *   {"id", "engine": "slurm"|"clush", "cluster", "experiment", "params",
 *    "created_at", "finished_at", "state": "running"|"done"|"failed"|
 *    "cancelled", "error", "nodes": [{"node", "state":
 *    "done"|"failed"|"pending"|"running"|"cancelled", "reason", "job_id",
 *    "partition", "features": [...], "exclusive", "run_id"}]}
 * Checks every field; 0 or -EINVAL with err naming it.
 */
int campaigns_check(json_t *c, struct errinfo *err);

/* Stores c (checked first), replacing a campaign of the same id (a node
 * whose run c does not name keeps the run stored, and a cancel asked for
 * stays asked). 0, -EINVAL,
 * -ESTALE (the database file is gone: nothing would be kept), -ENOMEM or
 * -EIO, err set. */
int campaigns_record(struct store *st, json_t *c, struct errinfo *err);

/* Newest first: [{id, engine, cluster, experiment, created_at, finished_at,
 * nodes, done, failed}]; NULL on EIO or ENOMEM. */
json_t *campaigns_list(struct store *st);

/* Nodes one GET of a campaign gives when not told, and at most. */
#define CAMPAIGN_PAGE_DEFAULT 100
#define CAMPAIGN_PAGE_MAX 1000

/*
 * One campaign with a page of its nodes (limit of them from offset, in
 * their order), each with its run ({id, status, headline, summary,
 * machine, params}) when it has one; "total" nodes and "counts" by
 * state say what the other pages hold, so that reading a campaign of
 * any size costs one page. NULL with errno ENOENT when there is none,
 * EIO or ENOMEM.
 */
json_t *campaigns_get(struct store *st, const char *id, int64_t offset,
		      int64_t limit);

/* Whether state is one a campaign may be in: running, done, failed,
 * cancelled. */
int campaigns_state_known(const char *state);

/* The run node of campaign id has (*run_id, 0 for none): 0, -ENOENT (no
 * such campaign), -ESRCH (no such node) or -EIO. */
int campaigns_node_run(struct store *st, const char *id, const char *node,
		       int64_t *run_id);

/* What a coordinator says of one node as it goes. */
struct campaign_node_update {
	const char *state;  /* pending, running, done, failed, cancelled */
	const char *reason; /* NULL: none */
	const char *job_id; /* NULL: the one it had */
};

/*
 * Sets node's state and reason, and its run when it has none yet
 * (*run_id: the run to give it, 0 none; then the run it has). 0,
 * -ENOENT (unknown campaign), -ESRCH (unknown node), -ESTALE or -EIO,
 * err set.
 */
int campaigns_node_set(struct store *st, const char *id, const char *node,
		       const struct campaign_node_update *u, int64_t *run_id,
		       struct errinfo *err);

/*
 * Ends a running campaign as state (failed, cancelled) with error, and
 * its nodes still pending or running with it. 0; 1 when it was not
 * running (or is not there); -EIO with err set.
 */
int campaigns_end(struct store *st, const char *id, const char *state,
		  const char *error, struct errinfo *err);

/* Marks that a cancel was asked for (its coordinator reads it). 0, -ENOENT
 * or -EIO, err set. */
int campaigns_cancel(struct store *st, const char *id, struct errinfo *err);

#endif
