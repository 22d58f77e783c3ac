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
 *    "created_at", "finished_at", "nodes": [{"node", "state":
 *    "done"|"failed"|"pending"|"running", "reason", "job_id",
 *    "partition", "features": [...], "exclusive", "run_id"}]}
 * Checks every field; 0 or -EINVAL with err naming it.
 */
int campaigns_check(json_t *c, struct errinfo *err);

/* Stores c (checked first), replacing a campaign of the same id. 0, -EINVAL,
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

#endif
