/* api_campaigns.h - GET/POST /api/campaigns: fleet campaigns over HTTP */
#ifndef NUMALAB_API_CAMPAIGNS_H
#define NUMALAB_API_CAMPAIGNS_H

#include "fleet_start.h"
#include "http.h"
#include "store.h"

/* The largest campaign document POST /api/campaigns takes. */
#define CAMPAIGN_BODY_MAX (1024 * 1024)

/* GET /api/campaigns: 200 {"campaigns": [...], "fleet"} newest first;
 * fleet: the engine POST /api/campaigns/start uses here, or null. */
enum MHD_Result api_campaigns_list(struct http_request *rq, struct store *st,
				   const struct fleet_start *fs);
/* GET /api/campaigns/{id}: 200 the campaign with its nodes and runs, 404. */
enum MHD_Result api_campaigns_get(struct http_request *rq, struct store *st);
/* POST /api/campaigns: 201 {"id", "url"} or 400 naming the field. */
enum MHD_Result api_campaigns_post(struct http_request *rq, struct store *st);

/*
 * POST /api/campaigns/{id}/nodes/{node} {"state", "reason", "job_id",
 * "run"}: what a coordinator says of one node, with its run once it has
 * one. A run is stored once: a node that has one keeps it, and the
 * answer names it ("stored": false). 200 {"node", "state", "run_id",
 * "stored", "cancel"} (cancel: a cancel was asked for); 400; 404.
 */
enum MHD_Result api_campaigns_node(struct http_request *rq, struct store *st);
/* DELETE /api/campaigns/{id}: 202 a cancel asked for (the campaign's
 * coordinator cancels its jobs and records it cancelled); 404; 409 when
 * it has ended. */
enum MHD_Result api_campaigns_cancel(struct http_request *rq, struct store *st,
				     const struct fleet_start *fs);
/* GET /api/campaigns/{id}/events: a "campaign" event each time it
 * changes, SSE or NDJSON, until it ends. */
enum MHD_Result api_campaigns_events(struct http_request *rq, struct store *st);

#endif
