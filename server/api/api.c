/* api.c - the REST handlers: experiments, topology, runs, their events, exports and imports */
#include "api.h"
#include "api_auth.h"
#include "api_campaigns.h"
#include "api_class.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "api_check.h"
#include "doccache.h"
#include "experiment.h"
#include "export_csv.h"
#include "fleet_start.h"
#include "import.h"
#include "import_store.h"
#include "logshare.h"
#include "openapi.h"
#include "run_limits.h"
#include "rundoc.h"
#include "schema.h"
#include "stream.h"
#include "strvec.h"

#define LIST_DEFAULT 50
#define LIST_MAX 1000
#define RETRY_AFTER "10"
#define DOC_CACHE_BYTES                                                        \
	(64u << 20) /* finished runs' documents kept serialised */

struct api {
	const struct topo *topo;
	struct store *store;
	struct runner *runner;
	int max_run_seconds;
	/* the machine does not change: kept serialised, with their ETags */
	struct http_blob *experiments, *topology, *openapi;
	struct doccache *docs;
	const struct fleet_start
		*fleet;	       /* NULL: campaigns are not started here */
	struct api_class *cls; /* the classroom's question and guesses */
};

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
	return api_check_run(rq, api_topology(ctx));
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

/* Strict decimal in [min, max]; 0 or -EINVAL. */
static int parse_num(const char *s, int64_t min, int64_t max, int64_t *out)
{
	int64_t v = 0;

	if (!s || !*s || strlen(s) > 19)
		return -EINVAL;
	for (const char *p = s; *p; p++) {
		if (*p < '0' || *p > '9' || v > (INT64_MAX - (*p - '0')) / 10)
			return -EINVAL;
		v = v * 10 + (*p - '0');
	}
	if (v < min || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

/* The {id} of the route; on failure the 400 is queued in *ret. */
static int run_id(struct http_request *rq, int64_t *id, enum MHD_Result *ret)
{
	if (!parse_num(rq->capture[0], 1, INT64_MAX, id))
		return 0;
	*ret = http_error(rq, MHD_HTTP_BAD_REQUEST, "id",
			  "'%.40s' is not a run id (a positive whole number)",
			  rq->capture[0]);
	return -EINVAL;
}

static const char *const run_fields[] = {"experiment", "params", NULL};
static const struct request_rules run_rules = {
	.fields = run_fields,
	.not_object = "the request body must be a JSON object",
	.list_known = 1,
};

static enum MHD_Result post_run(struct http_request *rq, void *ctx)
{
	struct api *a = ctx;
	struct run_request req = RUN_REQUEST_INIT;
	const struct experiment *exp;
	struct errinfo perr;
	double estimate_s = -1;
	json_t *root = NULL, *resp = NULL;
	struct strvec args = STRVEC_INIT;
	char *params_text = NULL, *request_text = NULL;
	char loc[64];
	enum MHD_Result ret;
	int rc;
	int64_t id;

	/* a body that is not JSON never gets here: trust_check_head answers
	 * 415 for it before the body is read */
	if (!rq->body_len) {
		ret = http_error(rq, MHD_HTTP_BAD_REQUEST, NULL,
				 "empty request body (send {\"experiment\": "
				 "NAME, \"params\": {...}})");
		goto out;
	}
	root = http_body_json(rq, &ret);
	if (!root)
		goto out;
	rc = schema_run_request(root, &run_rules, a->topo, &req, &perr);
	if (rc) {
		ret = rc == -ENOMEM ? MHD_NO
				    : http_error(rq, MHD_HTTP_BAD_REQUEST,
						 req.field, "%s", perr.msg);
		goto out;
	}
	exp = req.exp;
	if (limits_check_estimate(exp, req.typed, &req.common, a->topo,
				  a->max_run_seconds, &estimate_s, &perr)) {
		ret = http_error(rq, MHD_HTTP_BAD_REQUEST, NULL, "%s",
				 perr.msg);
		goto out;
	}
	/* the worker runs exactly the resolved request: every value, normalised
	 */
	for (int i = 0; i < req.pv->n; i++)
		strvec_pushf(&args, "%s=%s", req.pv->v[i].p->name,
			     req.pv->v[i].text);
	if (args.oom) {
		ret = MHD_NO;
		goto out;
	}
	json_t *pj = schema_params_json(req.pv);
	params_text = pj ? json_dumps(pj, JSON_COMPACT) : NULL;
	json_decref(pj);
	request_text = json_dumps(root, JSON_COMPACT);
	if (!params_text || !request_text) {
		ret = MHD_NO;
		goto out;
	}
	errinfo_clear(&perr);
	rc = runner_submit(a->runner, exp->name, args.v, (int)args.n,
			   params_text, request_text, estimate_s, &id, &perr);
	if (rc == -EAGAIN) {
		struct MHD_Response *r = http_error_response(
			NULL,
			"the run queue is full (%d runs waiting): try again later",
			runner_queued(a->runner));
		if (r)
			MHD_add_response_header(r, "Retry-After", RETRY_AFTER);
		ret = http_respond(rq, MHD_HTTP_TOO_MANY_REQUESTS, r);
		goto out;
	}
	if (rc == -ESHUTDOWN) {
		ret = http_error(rq, MHD_HTTP_SERVICE_UNAVAILABLE, NULL,
				 "the server is shutting down");
		goto out;
	}
	if (rc) {
		ret = http_error(rq, MHD_HTTP_SERVICE_UNAVAILABLE, NULL, "%s",
				 *perr.msg ? perr.msg : strerror(-rc));
		goto out;
	}
	snprintf(loc, sizeof(loc), "/api/runs/%" PRId64, id);
	resp = json_pack("{s:I, s:s, s:s+, s:s}", "id", (json_int_t)id,
			 "status", "queued", "events", loc, "/events", "url",
			 loc);
	struct MHD_Response *r = http_json_response(resp);
	resp = NULL;
	if (r)
		MHD_add_response_header(r, "Location", loc);
	ret = http_respond(rq, MHD_HTTP_ACCEPTED, r);
out:
	run_request_clear(&req);
	strvec_clear(&args);
	free(params_text);
	free(request_text);
	json_decref(resp);
	json_decref(root);
	return ret;
}

static void set_str(json_t *doc, const char *key, const char *v)
{
	json_object_set_new(doc, key, v && *v ? json_string(v) : json_null());
}

/* Keeps an ended run's document as the bytes of its answer; NULL when it
 * cannot be kept. */
static struct http_blob *keep_document(struct api *a, int64_t id, json_t *doc)
{
	size_t n;
	char *text = http_json_text(doc, &n);

	return text ? doccache_put(a->docs, id, text, n) : NULL;
}

/* Answers with b and gives back the reference. */
static enum MHD_Result respond_blob(struct http_request *rq,
				    struct http_blob *b)
{
	enum MHD_Result ret = http_blob_respond(rq, b);

	http_blob_unref(b);
	return ret;
}

static enum MHD_Result get_run(struct http_request *rq, void *ctx)
{
	struct api *a = ctx;
	struct http_blob *kept;
	enum MHD_Result ret;
	int64_t id;
	int ended = 0, touched;
	json_t *doc;

	if (run_id(rq, &id, &ret))
		return ret;
	/* a run the class guessed on here may still take guesses */
	touched = api_class_touched(a->cls, id);
	kept = touched ? NULL : doccache_get(a->docs, id);
	if (kept)
		return respond_blob(rq, kept);
	doc = rundoc_build(a->store, a->runner, id, &ended);
	if (doc && ended && !touched && (kept = keep_document(a, id, doc))) {
		json_decref(doc);
		return respond_blob(rq, kept);
	}
	if (!doc)
		return errno == ENOENT
			       ? http_error(rq, MHD_HTTP_NOT_FOUND, "id",
					    "unknown run id '%" PRId64 "'", id)
			       : http_error(rq, MHD_HTTP_INTERNAL_SERVER_ERROR,
					    NULL,
					    "cannot read run %" PRId64
					    " from the store",
					    id);
	return http_json(rq, MHD_HTTP_OK, doc);
}

static enum MHD_Result list_runs(struct http_request *rq, void *ctx)
{
	struct api *a = ctx;
	const char *lim = http_query(rq, "limit"),
		   *off = http_query(rq, "offset");
	const char *exp = http_query(rq, "experiment");
	const char *machine = http_query(rq, "machine");
	int64_t limit = LIST_DEFAULT, offset = 0, total;
	json_t *runs, *r;
	size_t i;

	if (lim && parse_num(lim, 1, LIST_MAX, &limit))
		return http_error(rq, MHD_HTTP_BAD_REQUEST, "limit",
				  "'%.40s' is not a valid limit (allowed 1-%d)",
				  lim, LIST_MAX);
	if (off && parse_num(off, 0, INT64_MAX / 2, &offset))
		return http_error(rq, MHD_HTTP_BAD_REQUEST, "offset",
				  "'%.40s' is not a valid offset (a whole "
				  "number, 0 or more)",
				  off);
	if (exp && !*exp)
		exp = NULL;
	if (machine && !*machine)
		machine = NULL;
	if (store_find_runs(a->store, exp, machine, limit, offset, &runs,
			    &total)) {
		json_decref(runs);
		return http_error(rq, MHD_HTTP_INTERNAL_SERVER_ERROR, NULL,
				  "cannot read the runs from the store");
	}
	json_array_foreach (runs, i, r) {
		struct run_state st;
		int64_t id = json_integer_value(json_object_get(r, "id"));
		if (runner_lookup(a->runner, id, &st, NULL))
			continue;
		set_str(r, "status", st.status);
		if (st.finished_at[0])
			set_str(r, "finished_at", st.finished_at);
	}
	return http_json(rq, MHD_HTTP_OK,
			 json_pack("{s:o, s:I, s:I, s:I}", "runs", runs,
				   "total", (json_int_t)total, "limit",
				   (json_int_t)limit, "offset",
				   (json_int_t)offset));
}

static enum MHD_Result delete_run(struct http_request *rq, void *ctx)
{
	struct api *a = ctx;
	struct run_state st;
	enum MHD_Result ret;
	int64_t id;
	json_t *row;

	if (run_id(rq, &id, &ret))
		return ret;
	if (!runner_cancel(a->runner, id, &st))
		return http_json(rq, MHD_HTTP_OK,
				 json_pack("{s:I, s:s, s:s*}", "id",
					   (json_int_t)id, "status", st.status,
					   "error",
					   st.error[0] ? st.error : NULL));
	row = store_get_run(a->store, id);
	if (!row)
		return http_error(rq, MHD_HTTP_NOT_FOUND, "id",
				  "unknown run id '%" PRId64 "'", id);
	ret = http_error(rq, MHD_HTTP_CONFLICT, NULL,
			 "run %" PRId64
			 " cannot be cancelled: it is already '%s'",
			 id, json_string_value(json_object_get(row, "status")));
	json_decref(row);
	return ret;
}

/* The seq a reconnecting client last saw; -1 when the header is bad. */
static int64_t resume_after(struct http_request *rq, const char **bad)
{
	const char *h = http_header(rq, "Last-Event-ID");
	const char *q = http_query(rq, "after");
	int64_t a = 0, b = 0;

	if (h && *h && parse_num(h, 0, INT64_MAX / 2, &a)) {
		*bad = "Last-Event-ID";
		return -1;
	}
	if (q && parse_num(q, 0, INT64_MAX / 2, &b)) {
		*bad = "after";
		return -1;
	}
	return a > b ? a : b;
}

/* The room's state for the phones: from its newest event, or after the
 * one a reconnecting phone names. */
static enum MHD_Result get_class_events(struct http_request *rq, void *ctx)
{
	struct api *a = ctx;
	const char *bad = NULL;
	int64_t after = resume_after(rq, &bad);
	struct runlog *log;

	if (after < 0)
		return http_error(rq, MHD_HTTP_BAD_REQUEST, bad,
				  "'%s' must be the seq of an event (a whole "
				  "number)",
				  bad);
	log = api_class_feed(a->cls);
	if (!log)
		return http_error(rq, MHD_HTTP_SERVICE_UNAVAILABLE, NULL,
				  "the server is shutting down");
	if (!after)
		after = runlog_last_seq(log) - 1;
	return stream_respond(rq, log, after, 0);
}

static enum MHD_Result get_events(struct http_request *rq, void *ctx)
{
	struct api *a = ctx;
	const char *format = http_query(rq, "format");
	const char *accept = http_header(rq, "Accept");
	const char *bad = NULL;
	struct run_state st;
	struct runlog *log;
	enum MHD_Result ret;
	int64_t id, after;
	int ndjson = 0, mem;
	json_t *row;

	if (run_id(rq, &id, &ret))
		return ret;
	if (format && !strcmp(format, "ndjson"))
		ndjson = 1;
	else if (format && strcmp(format, "sse"))
		return http_error(
			rq, MHD_HTTP_BAD_REQUEST, "format",
			"unknown format '%.40s' (allowed: sse, ndjson)",
			format);
	else if (!format && accept && strstr(accept, "application/x-ndjson"))
		ndjson = 1;
	after = resume_after(rq, &bad);
	if (after < 0)
		return http_error(rq, MHD_HTTP_BAD_REQUEST, bad,
				  "'%s' must be the seq of an event (a whole "
				  "number)",
				  bad);
	row = store_get_run(a->store, id);
	if (!row)
		return errno == ENOENT
			       ? http_error(rq, MHD_HTTP_NOT_FOUND, "id",
					    "unknown run id '%" PRId64 "'", id)
			       : http_error(rq, MHD_HTTP_INTERNAL_SERVER_ERROR,
					    NULL, "cannot read run %" PRId64,
					    id);
	json_decref(row);
	log = rundoc_events(a->store, a->runner, id, after, &st, &mem);
	if (!log)
		return http_error(rq, MHD_HTTP_INTERNAL_SERVER_ERROR, NULL,
				  "cannot read the events of run %" PRId64, id);
	/* 204 tells an EventSource the run is over: it stops reconnecting */
	if (!ndjson && runlog_closed(log) && !runlog_next(log, after)) {
		runlog_unref(log);
		return http_respond(rq, MHD_HTTP_NO_CONTENT,
				    MHD_create_response_from_buffer(
					    0, NULL, MHD_RESPMEM_PERSISTENT));
	}
	return stream_respond(rq, log, after, ndjson);
}

static enum MHD_Result get_export(struct http_request *rq, void *ctx)
{
	struct api *a = ctx;
	struct MHD_Response *resp;
	enum MHD_Result ret;
	char disp[96], *csv;
	json_t *doc;
	int64_t id;
	size_t len = 0;
	int ended;

	if (run_id(rq, &id, &ret))
		return ret;
	doc = rundoc_build(a->store, a->runner, id, &ended);
	if (!doc)
		return errno == ENOENT
			       ? http_error(rq, MHD_HTTP_NOT_FOUND, "id",
					    "unknown run id '%" PRId64 "'", id)
			       : http_error(rq, MHD_HTTP_INTERNAL_SERVER_ERROR,
					    NULL, "cannot read run %" PRId64,
					    id);
	csv = export_csv(doc, id, &len);
	json_decref(doc);
	if (!csv)
		return MHD_NO;
	resp = MHD_create_response_from_buffer(len, csv, MHD_RESPMEM_MUST_FREE);
	if (!resp) {
		free(csv);
		return MHD_NO;
	}
	MHD_add_response_header(resp, "Content-Type",
				"text/csv; charset=utf-8");
	snprintf(disp, sizeof(disp),
		 "attachment; filename=\"numalab-run-%" PRId64 ".csv\"", id);
	MHD_add_response_header(resp, "Content-Disposition", disp);
	return http_respond(rq, MHD_HTTP_OK, resp);
}

/* POST /api/runs/import: 201 {"id", "url", "imported"} or 400 with why. */
static enum MHD_Result post_import(struct http_request *rq, void *ctx)
{
	struct api *a = ctx;
	struct errinfo err;
	char loc[64], client[64];
	enum MHD_Result ret;
	json_t *doc;
	int64_t id;

	if (!rq->body_len)
		return http_error(rq, MHD_HTTP_BAD_REQUEST, NULL,
				  "empty request body (send a run: the JSON of "
				  "GET /api/runs/{id} or numalab run --json)");
	doc = http_body_json(rq, &ret);
	if (!doc)
		return ret;
	if (import_validate(doc, &err)) {
		json_decref(doc);
		return http_error(rq, MHD_HTTP_BAD_REQUEST,
				  *err.field ? err.field : NULL,
				  "cannot import: %s", err.msg);
	}
	errinfo_clear(&err);
	int rc = import_store(a->store, doc,
			      *http_client_address(rq, client, sizeof(client))
				      ? client
				      : NULL,
			      &id, &err);
	if (rc) {
		json_decref(doc);
		/* a database deleted under the server refuses imports as it
		 * refuses runs */
		return http_error(rq,
				  rc == -ESTALE
					  ? MHD_HTTP_SERVICE_UNAVAILABLE
					  : MHD_HTTP_INTERNAL_SERVER_ERROR,
				  NULL, "cannot import: %s",
				  *err.msg ? err.msg : "store error");
	}
	json_decref(doc);
	snprintf(loc, sizeof(loc), "/api/runs/%" PRId64, id);
	struct MHD_Response *r = http_json_response(
		json_pack("{s:I, s:s, s:b}", "id", (json_int_t)id, "url", loc,
			  "imported", 1));
	if (r)
		MHD_add_response_header(r, "Location", loc);
	return http_respond(rq, MHD_HTTP_CREATED, r);
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

	return api_campaigns_cancel(
		rq, a->store, __atomic_load_n(&a->fleet, __ATOMIC_ACQUIRE));
}

static enum MHD_Result start_campaign(struct http_request *rq, void *ctx)
{
	struct api *a = ctx;

	return fleet_start_post(
		rq, __atomic_load_n(&a->fleet, __ATOMIC_ACQUIRE), a->store);
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
	{"GET", "/api/session", api_whoami, 0, HTTP_ROUTE_OPEN},
	{"POST", "/api/session", api_sign_in, 0, HTTP_ROUTE_OPEN},
	{"DELETE", "/api/session", api_sign_out, 0, HTTP_ROUTE_OPEN},
	{"PATCH", "/api/session", api_rename, 0, HTTP_ROLE_CLASS},
	{"GET", "/api/experiments", get_experiments, 0, HTTP_ROLE_CLASS},
	{"GET", "/api/topology", get_topology, 0, HTTP_ROLE_CLASS},
	{"GET", "/api/openapi.json", get_openapi, 0, HTTP_ROLE_CLASS},
	{"GET", "/api/runs", list_runs, 0, HTTP_ROLE_CLASS},
	{"POST", "/api/runs", post_run, 0, HTTP_ROLE_TEACHER},
	{"POST", "/api/runs/import", post_import, IMPORT_BODY_MAX,
	 HTTP_ROLE_TEACHER},
	{"POST", "/api/runs/check", api_post_check, 0, HTTP_ROLE_TEACHER},
	{"GET", "/api/runs/{id}", get_run, 0, HTTP_ROLE_CLASS},
	{"DELETE", "/api/runs/{id}", delete_run, 0, HTTP_ROLE_TEACHER},
	{"GET", "/api/runs/{id}/events", get_events, 0, HTTP_ROLE_CLASS},
	{"GET", "/api/runs/{id}/export.csv", get_export, 0, HTTP_ROLE_CLASS},
	{"GET", "/api/campaigns", list_campaigns, 0, HTTP_ROLE_CLASS},
	{"POST", "/api/campaigns", post_campaign, CAMPAIGN_BODY_MAX,
	 HTTP_ROLE_TEACHER},
	{"POST", "/api/campaigns/start", start_campaign, 0, HTTP_ROLE_TEACHER},
	{"GET", "/api/campaigns/{id}", get_campaign, 0, HTTP_ROLE_CLASS},
	{"DELETE", "/api/campaigns/{id}", cancel_campaign, 0,
	 HTTP_ROLE_TEACHER},
	{"GET", "/api/campaigns/{id}/events", campaign_events, 0,
	 HTTP_ROLE_CLASS},
	{"POST", "/api/campaigns/{id}/nodes/{node}", campaign_node,
	 IMPORT_BODY_MAX, HTTP_ROLE_TEACHER},
	{"GET", "/api/class", get_class, 0, HTTP_ROLE_CLASS},
	{"GET", "/api/class/events", get_class_events, 0, HTTP_ROLE_CLASS},
	{"PUT", "/api/class/question", put_question, 0, HTTP_ROLE_TEACHER},
	{"POST", "/api/class/guesses", post_guess, 0, HTTP_ROLE_CLASS},
	{"POST", "/api/class/reveal", post_reveal, 0, HTTP_ROLE_TEACHER},
	{"POST", "/api/class/run", post_class_run, 0, HTTP_ROLE_TEACHER},
	{NULL, NULL, NULL, 0, 0},
};
