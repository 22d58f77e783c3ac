/* campaigns.h - fleet campaigns in the store: what ran where, and each node's state */
#ifndef NUMALAB_CAMPAIGNS_H
#define NUMALAB_CAMPAIGNS_H

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
 * -ESTALE (the database file is gone: nothing would be kept) or -EIO, err
 * set. */
int campaigns_record(struct store *st, json_t *c, struct errinfo *err);

/* Newest first: [{id, engine, cluster, experiment, created_at, finished_at,
 * nodes, done, failed}]; NULL on EIO. */
json_t *campaigns_list(struct store *st);

/*
 * One campaign with its nodes, each with its run ({id, status,
 * headline, summary, machine, params}) when it has one. NULL with errno
 * ENOENT when there is none, EIO.
 */
json_t *campaigns_get(struct store *st, const char *id);

#endif
