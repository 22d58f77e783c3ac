/* campaign_check.h - whether a campaign document is one the store takes */
#ifndef NUMALAB_CAMPAIGN_CHECK_H
#define NUMALAB_CAMPAIGN_CHECK_H

#include <jansson.h>

#include "errinfo.h"

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

#endif
