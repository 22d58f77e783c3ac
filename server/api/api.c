/* api.c - the REST route table, and the handlers' state: experiments, topology, the OpenAPI document */
#include "api.h"
#include "api_auth.h"
#include "api_campaigns.h"
#include "api_class.h"
#include "api_events.h"
#include "api_internal.h"
#include "api_runs.h"

#include <stdlib.h>

#include <jansson.h>

#include "api_check.h"
#include "doccache.h"
#include "fleet_plan.h"
#include "fleet_start.h"
#include "import.h"
#include "openapi.h"
#include "schema.h"

#define DOC_CACHE_BYTES                                                        \
	(64u << 20) /* finished runs' documents kept serialised */

/* doc serialised as an answer's bytes; steals doc. NULL on failure. */
static struct http_blob *json_blob(json_t *doc)
{
	size_t n;
	char *text = doc ? http_json_text(doc, &n) : NULL;

	json_decref(doc);
	return text ? http_blob_new(text, n, "application/json") : NULL;
}

struct api *api_new(const struct topo *t, struct store *st, struct runner *r,
		    int max_run_seconds)
{
	struct api *a = calloc(1, sizeof(*a));
	json_t *e, *tp;

	if (!a)
		return NULL;
	a->topo = t;
	a->store = st;
	a->runner = r;
	a->max_run_seconds = max_run_seconds;
	e = schema_experiments(t);
	tp = schema_topology(t);
	a->experiments = json_blob(e);
	a->topology = json_blob(tp);
	a->openapi = http_blob_copy(openapi_json, openapi_json_len,
				    "application/json");
	a->docs = doccache_new(DOC_CACHE_BYTES);
	a->cls = api_class_new(st);
	if (!a->experiments || !a->topology || !a->openapi || !a->docs ||
	    !a->cls) {
		api_free(a);
		return NULL;
	}
	return a;
}

static const struct topo *api_topology(const struct api *a)
{
	return a->topo;
}

/* POST /api/runs/check, judged against this server's machine. */
static enum MHD_Result api_post_check(struct http_request *rq, void *ctx)
{
	const struct api *a = ctx;

	return api_check_run(rq, api_topology(a), a->max_run_seconds);
}

void api_free(struct api *a)
{
	if (!a)
		return;
	http_blob_unref(a->experiments);
	http_blob_unref(a->topology);
	http_blob_unref(a->openapi);
	doccache_free(a->docs);
	api_class_free(a->cls);
	free(a);
}

static enum MHD_Result get_experiments(struct http_request *rq, void *ctx)
{
	struct api *a = ctx;

	return http_blob_respond(rq, a->experiments);
}

static enum MHD_Result get_topology(struct http_request *rq, void *ctx)
{
	struct api *a = ctx;

	return http_blob_respond(rq, a->topology);
}

static enum MHD_Result get_openapi(struct http_request *rq, void *ctx)
{
	struct api *a = ctx;

	return http_blob_respond(rq, a->openapi);
}

/* the campaigns' handlers live in api_campaigns.c; these only pass the store */
static enum MHD_Result list_campaigns(struct http_request *rq, void *ctx)
{
	struct api *a = ctx;

	return api_campaigns_list(rq, a->store,
				  __atomic_load_n(&a->fleet, __ATOMIC_ACQUIRE));
}

static enum MHD_Result get_campaign(struct http_request *rq, void *ctx)
{
	return api_campaigns_get(rq, ((struct api *)ctx)->store);
}

static enum MHD_Result post_campaign(struct http_request *rq, void *ctx)
{
	return api_campaigns_post(rq, ((struct api *)ctx)->store);
}

void api_set_fleet(struct api *a, const struct fleet_start *fs)
{
	__atomic_store_n(&a->fleet, fs, __ATOMIC_RELEASE);
}

static enum MHD_Result campaign_node(struct http_request *rq, void *ctx)
{
	return api_campaigns_node(rq, ((struct api *)ctx)->store);
}

static enum MHD_Result campaign_events(struct http_request *rq, void *ctx)
{
	return api_campaigns_events(rq, ((struct api *)ctx)->store);
}

static enum MHD_Result cancel_campaign(struct http_request *rq, void *ctx)
{
	struct api *a = ctx;
	enum MHD_Result ret;

	if (http_body_none(rq, &ret))
		return ret;
	return api_campaigns_cancel(
		rq, a->store, __atomic_load_n(&a->fleet, __ATOMIC_ACQUIRE));
}

static enum MHD_Result start_campaign(struct http_request *rq, void *ctx)
{
	struct api *a = ctx;

	return fleet_start_post(
		rq, __atomic_load_n(&a->fleet, __ATOMIC_ACQUIRE), a->store);
}

static enum MHD_Result plan_campaign(struct http_request *rq, void *ctx)
{
	struct api *a = ctx;

	return fleet_plan_post(rq,
			       __atomic_load_n(&a->fleet, __ATOMIC_ACQUIRE));
}

/* the classroom's handlers live in api_class.c: each takes its state */
#define CLASS_HANDLER(name, fn)                                                \
	static enum MHD_Result name(struct http_request *rq, void *ctx)        \
	{                                                                      \
		return fn(rq, ((struct api *)ctx)->cls);                       \
	}
CLASS_HANDLER(get_class, api_class_get)
CLASS_HANDLER(put_question, api_class_open)
CLASS_HANDLER(post_guess, api_class_guess)
CLASS_HANDLER(post_reveal, api_class_reveal)
CLASS_HANDLER(post_class_run, api_class_run)

/* .role: what a student's sign-in may do is read and (in the classroom's
 * routes) guess; whatever starts, stops or stores work is the teacher's */
const struct http_route api_routes[] = {
	{"GET", "/api/session", api_whoami, 0, HTTP_ROUTE_OPEN, NULL},
	{"POST", "/api/session", api_sign_in, 0, HTTP_ROUTE_OPEN, NULL},
	{"DELETE", "/api/session", api_sign_out, 0, HTTP_ROUTE_OPEN, NULL},
	{"PATCH", "/api/session", api_rename, 0, HTTP_ROLE_CLASS, NULL},
	{"GET", "/api/experiments", get_experiments, 0, HTTP_ROLE_CLASS, NULL},
	{"GET", "/api/topology", get_topology, 0, HTTP_ROLE_CLASS, NULL},
	{"GET", "/api/openapi.json", get_openapi, 0, HTTP_ROLE_CLASS, NULL},
	{"GET", "/api/runs", api_list_runs, 0, HTTP_ROLE_CLASS,
	 "experiment,machine,limit,offset"},
	{"POST", "/api/runs", api_post_run, 0, HTTP_ROLE_TEACHER, NULL},
	{"POST", "/api/runs/import", api_post_import, IMPORT_BODY_MAX,
	 HTTP_ROLE_TEACHER, NULL},
	{"POST", "/api/runs/check", api_post_check, 0, HTTP_ROLE_TEACHER, NULL},
	{"GET", "/api/runs/{id}", api_get_run, 0, HTTP_ROLE_CLASS, "format"},
	{"DELETE", "/api/runs/{id}", api_delete_run, 0, HTTP_ROLE_TEACHER,
	 NULL},
	{"GET", "/api/runs/{id}/events", api_get_events, 0, HTTP_ROLE_CLASS,
	 "after,format"},
	{"GET", "/api/runs/{id}/export.csv", api_get_export, 0, HTTP_ROLE_CLASS,
	 NULL},
	{"GET", "/api/campaigns", list_campaigns, 0, HTTP_ROLE_CLASS, NULL},
	{"POST", "/api/campaigns", post_campaign, CAMPAIGN_BODY_MAX,
	 HTTP_ROLE_TEACHER, NULL},
	{"POST", "/api/campaigns/start", start_campaign, 0, HTTP_ROLE_TEACHER,
	 NULL},
	{"POST", "/api/campaigns/plan", plan_campaign, 0, HTTP_ROLE_TEACHER,
	 NULL},
	{"GET", "/api/campaigns/{id}", get_campaign, 0, HTTP_ROLE_CLASS,
	 "limit,offset"},
	{"DELETE", "/api/campaigns/{id}", cancel_campaign, 0, HTTP_ROLE_TEACHER,
	 NULL},
	{"GET", "/api/campaigns/{id}/events", campaign_events, 0,
	 HTTP_ROLE_CLASS, "after,format"},
	{"POST", "/api/campaigns/{id}/nodes/{node}", campaign_node,
	 IMPORT_BODY_MAX, HTTP_ROLE_TEACHER, NULL},
	{"GET", "/api/class", get_class, 0, HTTP_ROLE_CLASS, NULL},
	{"GET", "/api/class/events", api_get_class_events, 0, HTTP_ROLE_CLASS,
	 "after"},
	{"PUT", "/api/class/question", put_question, 0, HTTP_ROLE_TEACHER,
	 NULL},
	{"POST", "/api/class/guesses", post_guess, 0, HTTP_ROLE_CLASS, NULL},
	{"POST", "/api/class/reveal", post_reveal, 0, HTTP_ROLE_TEACHER, NULL},
	{"POST", "/api/class/run", post_class_run, 0, HTTP_ROLE_TEACHER, NULL},
	{NULL, NULL, NULL, 0, 0, NULL},
};
