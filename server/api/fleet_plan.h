/* fleet_plan.h - POST /api/campaigns/plan: the nodes a campaign would run on, as its engine counts them, before it starts */
#ifndef NUMALAB_FLEET_PLAN_H
#define NUMALAB_FLEET_PLAN_H

#include "fleet_start.h"
#include "http.h"

/*
 * 200 {"engine", "experiment", "count", "nodes": [names], "unavailable":
 * [{"node", "reason"}], "partition", "constraint"}: what `numalab fleet
 * run ... --plan --json` says for the same body as POST
 * /api/campaigns/start (Slurm: the nodes sinfo lists now, in the
 * partition, with the features); nothing is started. 400 naming the
 * field, or with the engine's own words (an unknown partition, node or
 * feature); 404 when fs is NULL.
 */
enum MHD_Result fleet_plan_post(struct http_request *rq,
				const struct fleet_start *fs);

#endif
