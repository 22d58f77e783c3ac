/* api_campaigns.h - GET/POST /api/campaigns: fleet campaigns over HTTP */
#ifndef NUMALAB_API_CAMPAIGNS_H
#define NUMALAB_API_CAMPAIGNS_H

#include "http.h"
#include "store.h"

/* The largest campaign document POST /api/campaigns takes. */
#define CAMPAIGN_BODY_MAX (1024 * 1024)

/* GET /api/campaigns: 200 {"campaigns": [...]} newest first. */
enum MHD_Result api_campaigns_list(struct http_request *rq, struct store *st);
/* GET /api/campaigns/{id}: 200 the campaign with its nodes and runs, 404. */
enum MHD_Result api_campaigns_get(struct http_request *rq, struct store *st);
/* POST /api/campaigns: 201 {"id", "url"} or 400 naming the field. */
enum MHD_Result api_campaigns_post(struct http_request *rq, struct store *st);

#endif
