/* api.c - the REST handlers: experiments, topology, runs, their events and exports */
#include "api.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <jansson.h>

#include "api_check.h"
#include "experiment.h"
#include "import.h"
#include "openapi.h"
#include "doccache.h"
#include "rundoc.h"
#include "schema.h"
#include "stream.h"

#define MAX_ARGS 64
#define LIST_DEFAULT 50
#define LIST_MAX 1000
#define RETRY_AFTER "10"
#define DOC_CACHE_BYTES (64u << 20) /* finished runs' documents kept serialised */

struct api {
	const struct topo *topo;
	struct store *store;
	struct runner *runner;
	int max_run_seconds;
	char *experiments; /* cached JSON: the machine does not change */
	char *topology;
	struct doccache *docs;
};

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
	a->experiments = e ? json_dumps(e, JSON_COMPACT) : NULL;
	a->topology = tp ? json_dumps(tp, JSON_COMPACT) : NULL;
	json_decref(e);
	json_decref(tp);
	a->docs = doccache_new(DOC_CACHE_BYTES);
	if (!a->experiments || !a->topology || !a->docs) {
		api_free(a);
		return NULL;
	}
	return a;
}

const struct topo *api_topology(const struct api *a)
{
	return a->topo;
}

void api_free(struct api *a)
{
	if (!a)
		return;
	free(a->experiments);
	free(a->topology);
	doccache_free(a->docs);
	free(a);
}

static enum MHD_Result send_static_json(struct http_request *rq,
					const char *s, size_t len)
{
	struct MHD_Response *resp = MHD_create_response_from_buffer(
		len, (void *)s, MHD_RESPMEM_PERSISTENT);

	if (!resp)
		return MHD_NO;
	MHD_add_response_header(resp, "Content-Type", "application/json");
	return http_respond(rq, MHD_HTTP_OK, resp);
}

static enum MHD_Result get_experiments(struct http_request *rq, void *ctx)
{
	struct api *a = ctx;

	return send_static_json(rq, a->experiments, strlen(a->experiments));
}

static enum MHD_Result get_topology(struct http_request *rq, void *ctx)
{
	struct api *a = ctx;

	return send_static_json(rq, a->topology, strlen(a->topology));
}

static enum MHD_Result get_openapi(struct http_request *rq, void *ctx)
{
	(void)ctx;
	return send_static_json(rq, openapi_json, openapi_json_len);
}

/* Strict decimal in [min, max]; 0 or -EINVAL. */
static int parse_num(const char *s, int64_t min, int64_t max, int64_t *out)
{
	int64_t v = 0;

	if (!s || !*s || strlen(s) > 18)
		return -EINVAL;
	for (const char *p = s; *p; p++) {
		if (*p < '0' || *p > '9')
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

static void known_experiments(char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (int i = 0; experiments[i] && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%s",
					i ? ", " : "", experiments[i]->name);
}

static int content_type_json(const char *ct)
{
	size_t n = strlen("application/json");

	if (!ct || strncasecmp(ct, "application/json", n))
		return 0;
	return ct[n] == '\0' || ct[n] == ';' || ct[n] == ' ';
}

/*
 * Memory free now, in bytes: MemAvailable (what can be had without
 * swapping), else the nodes' free memory as the topology saw it at start.
 * 0 when neither is known.
 */
static uint64_t memory_available(const struct topo *t)
{
	FILE *f = fopen("/proc/meminfo", "re");
	char line[128];
	unsigned long long kb;
	uint64_t sum = 0;

	if (f) {
		while (fgets(line, sizeof(line), f))
			if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1) {
				fclose(f);
				return (uint64_t)kb * 1024;
			}
		fclose(f);
	}
	for (int i = 0; i < t->nnodes; i++)
		sum += t->node[i].mem_free;
	return sum;
}

/*
 * Refuses a request the server would only have to kill or that would push
 * the machine into swap: its estimated time over --max-run-seconds, or its
 * memory over what is free. Returns 0, or -E2BIG with err set.
 */
static int check_estimate(const struct api *a, const struct experiment *exp,
			  const void *params, const struct common_params *common,
			  char *err, size_t len)
{
	double seconds = 0;
	uint64_t bytes = 0, avail;

	if (!exp->estimate)
		return 0;
	exp->estimate(params, common, a->topo, &seconds, &bytes);
	avail = memory_available(a->topo);
	if (avail && bytes > avail) {
		snprintf(err, len,
			 "the run would allocate about %.1f MiB but only "
			 "%.1f MiB of memory is free: ask for less",
			 bytes / 1048576.0, avail / 1048576.0);
		return -E2BIG;
	}
	if (a->max_run_seconds > 0 && seconds > a->max_run_seconds) {
		snprintf(err, len,
			 "the run is estimated to take about %.0f s, over the "
			 "server's limit of %d s (--max-run-seconds): ask for "
			 "less",
			 seconds, a->max_run_seconds);
		return -E2BIG;
	}
	return 0;
}

static enum MHD_Result post_run(struct http_request *rq, void *ctx)
{
	struct api *a = ctx;
	const char *ct = http_header(rq, "Content-Type");
	const struct experiment *exp;
	struct param_values *pv = NULL;
	struct common_params common;
	void *typed = NULL;
	struct errinfo perr;
	json_error_t jerr;
	json_t *root = NULL, *params = NULL, *resp = NULL;
	const char *name = NULL, *key;
	char *argv[MAX_ARGS] = {0}, *args[PARAM_MAX_PER_EXP] = {0};
	char *params_text = NULL, *request_text = NULL;
	char err[512], loc[64];
	enum MHD_Result ret;
	int argc = 0, nargs = 0, rc;
	int64_t id;
	json_t *val;

	if (!ct) {
		ret = http_error(rq, MHD_HTTP_UNSUPPORTED_MEDIA_TYPE, NULL,
				 "missing Content-Type (send 'application/json')");
		goto out;
	}
	if (!content_type_json(ct)) {
		ret = http_error(rq, MHD_HTTP_UNSUPPORTED_MEDIA_TYPE, NULL,
				 "unsupported Content-Type '%.100s' (send "
				 "'application/json')",
				 ct);
		goto out;
	}
	if (!rq->body_len) {
		ret = http_error(rq, MHD_HTTP_BAD_REQUEST, NULL,
				 "empty request body (send {\"experiment\": "
				 "NAME, \"params\": {...}})");
		goto out;
	}
	root = json_loadb(rq->body, rq->body_len, JSON_REJECT_DUPLICATES, &jerr);
	if (!root) {
		ret = http_error(rq, MHD_HTTP_BAD_REQUEST, NULL,
				 "malformed JSON at line %d, column %d: %s",
				 jerr.line, jerr.column, jerr.text);
		goto out;
	}
	if (!json_is_object(root)) {
		ret = http_error(rq, MHD_HTTP_BAD_REQUEST, NULL,
				 "the request body must be a JSON object");
		goto out;
	}
	json_object_foreach(root, key, val)
	{
		if (strcmp(key, "experiment") && strcmp(key, "params")) {
			ret = http_error(rq, MHD_HTTP_BAD_REQUEST, key,
					 "unknown field '%.60s' (allowed: "
					 "experiment, params)",
					 key);
			goto out;
		}
	}
	if (!json_is_string(json_object_get(root, "experiment"))) {
		ret = http_error(rq, MHD_HTTP_BAD_REQUEST, "experiment",
				 json_object_get(root, "experiment")
					 ? "'experiment' must be a string"
					 : "missing field 'experiment'");
		goto out;
	}
	if (json_unpack_ex(root, &jerr, JSON_STRICT, "{s:s, s?o}", "experiment",
			   &name, "params", &params)) {
		ret = http_error(rq, MHD_HTTP_BAD_REQUEST, NULL, "%s", jerr.text);
		goto out;
	}
	exp = experiment_find(name);
	if (!exp) {
		known_experiments(err, sizeof(err));
		ret = http_error(rq, MHD_HTTP_BAD_REQUEST, "experiment",
				 "unknown experiment '%.60s' (known: %s)", name,
				 err);
		goto out;
	}
	argc = schema_params_to_argv(params, argv, MAX_ARGS, &perr);
	if (argc < 0) {
		argc = 0;
		ret = http_error(rq, MHD_HTTP_BAD_REQUEST, perr.field, "%s",
				 perr.msg);
		goto out;
	}
	pv = calloc(1, sizeof(*pv));
	typed = calloc(1, exp->params_size ? exp->params_size : 1);
	if (!pv || !typed) {
		ret = MHD_NO;
		goto out;
	}
	if (experiment_parse(exp, a->topo, argc, argv, pv, typed, &common,
			     &perr)) {
		ret = http_error(rq, MHD_HTTP_BAD_REQUEST, perr.field, "%s",
				 perr.msg);
		goto out;
	}
	if (check_estimate(a, exp, typed, &common, err, sizeof(err))) {
		ret = http_error(rq, MHD_HTTP_BAD_REQUEST, NULL, "%s", err);
		goto out;
	}
	/* the worker runs exactly the resolved request: every value, normalised */
	for (int i = 0; i < pv->n && nargs < PARAM_MAX_PER_EXP; i++) {
		size_t n = strlen(pv->v[i].p->name) + strlen(pv->v[i].text) + 2;
		args[nargs] = malloc(n);
		if (!args[nargs]) {
			ret = MHD_NO;
			goto out;
		}
		snprintf(args[nargs++], n, "%s=%s", pv->v[i].p->name,
			 pv->v[i].text);
	}
	json_t *pj = schema_params_json(pv);
	params_text = pj ? json_dumps(pj, JSON_COMPACT) : NULL;
	json_decref(pj);
	request_text = json_dumps(root, JSON_COMPACT);
	if (!params_text || !request_text) {
		ret = MHD_NO;
		goto out;
	}
	err[0] = '\0';
	rc = runner_submit(a->runner, exp->name, args, nargs, params_text,
			   request_text, &id, err, sizeof(err));
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
				 *err ? err : strerror(-rc));
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
	for (int i = 0; i < argc; i++)
		free(argv[i]);
	for (int i = 0; i < nargs; i++)
		free(args[i]);
	free(params_text);
	free(request_text);
	free(typed);
	free(pv);
	json_decref(resp);
	json_decref(root);
	return ret;
}

/* A run's events: the runner's log while it holds the run, else the store's. */
static struct runlog *events_of(struct api *a, int64_t id, int64_t after,
				struct run_state *st, int *in_memory)
{
	struct runlog *log = NULL;

	*in_memory = !runner_lookup(a->runner, id, st, &log);
	if (log)
		return log;
	log = runlog_new(id);
	if (!log)
		return NULL;
	if (store_load_events(a->store, id, after, log)) {
		runlog_unref(log);
		return NULL;
	}
	runlog_close(log);
	return log;
}

static int is_empty(json_t *v)
{
	return !v || json_is_null(v) ||
	       (json_is_object(v) && json_object_size(v) == 0);
}

static void set_str(json_t *doc, const char *key, const char *v)
{
	json_object_set_new(doc, key, v && *v ? json_string(v) : json_null());
}

/*
 * The run document: the events folded, then the run row's fields (and
 * what the runner knows that is newer). NULL with *status 404 or 500.
 * *ended: the run has ended and its log is closed, so the document will
 * not change again.
 */
static json_t *run_document(struct api *a, int64_t id, unsigned int *status,
			    int *ended)
{
	struct run_state st;
	struct runlog *log;
	json_t *row, *doc;
	int mem = 0, closed;
	int64_t seq = 0;
	const struct runlog_event *e;

	row = store_get_run(a->store, id);
	if (!row) {
		*status = errno == ENOENT ? MHD_HTTP_NOT_FOUND
					  : MHD_HTTP_INTERNAL_SERVER_ERROR;
		return NULL;
	}
	log = events_of(a, id, 0, &st, &mem);
	doc = rundoc_new();
	if (!log || !doc) {
		json_decref(row);
		json_decref(doc);
		runlog_unref(log);
		*status = MHD_HTTP_INTERNAL_SERVER_ERROR;
		return NULL;
	}
	/* closed: the end event is in, and the runner has written the row */
	closed = runlog_closed(log);
	while ((e = runlog_next(log, seq))) {
		json_t *ev = json_loadb(e->json, e->len, 0, NULL);
		if (ev)
			rundoc_apply(doc, ev);
		json_decref(ev);
		seq = e->seq;
	}
	runlog_unref(log);

	static const char *const fields[] = {"id",	    "experiment",
					     "status",	    "created_at",
					     "started_at",  "finished_at",
					     "error",	    "request"};
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		json_object_set(doc, fields[i], json_object_get(row, fields[i]));
	/* a run that never started has no start event: the row has them */
	static const char *const fallback[] = {"params", "machine", "summary",
					       "headline"};
	for (size_t i = 0; i < sizeof(fallback) / sizeof(fallback[0]); i++)
		if (is_empty(json_object_get(doc, fallback[i])))
			json_object_set(doc, fallback[i],
					json_object_get(row, fallback[i]));
	if (!json_object_get(doc, "headline"))
		json_object_set_new(doc, "headline", json_null());
	if (mem) {
		/* newer than the row when the store failed mid-run */
		set_str(doc, "status", st.status);
		if (st.started_at[0])
			set_str(doc, "started_at", st.started_at);
		if (st.finished_at[0])
			set_str(doc, "finished_at", st.finished_at);
		if (st.error[0])
			set_str(doc, "error", st.error);
	}
	*ended = closed &&
		 rundoc_status_final(json_string_value(json_object_get(doc, "status")));
	json_decref(row);
	return doc;
}

/* A cached run's answer; NULL when it is not (or cannot be) kept. */
static struct MHD_Response *cached_response(struct api *a, int64_t id)
{
	struct MHD_Response *resp = doccache_response(a->docs, id);

	if (resp)
		MHD_add_response_header(resp, "Content-Type",
					"application/json");
	return resp;
}

/* Keeps an ended run's document as the text of its answer. */
static struct MHD_Response *keep_document(struct api *a, int64_t id,
					  json_t *doc)
{
	size_t n;
	char *text = http_json_text(doc, &n);

	if (!text || doccache_put(a->docs, id, text, n))
		return NULL;
	return cached_response(a, id);
}

static enum MHD_Result get_run(struct http_request *rq, void *ctx)
{
	struct api *a = ctx;
	struct MHD_Response *resp;
	unsigned int status;
	enum MHD_Result ret;
	int64_t id;
	int ended = 0;
	json_t *doc;

	if (run_id(rq, &id, &ret))
		return ret;
	resp = cached_response(a, id);
	if (resp)
		return http_respond(rq, MHD_HTTP_OK, resp);
	doc = run_document(a, id, &status, &ended);
	if (doc && ended && (resp = keep_document(a, id, doc))) {
		json_decref(doc);
		return http_respond(rq, MHD_HTTP_OK, resp);
	}
	if (!doc)
		return status == MHD_HTTP_NOT_FOUND
			       ? http_error(rq, status, "id",
					    "unknown run id '%" PRId64 "'", id)
			       : http_error(rq, status, NULL,
					    "cannot read run %" PRId64
					    " from the store",
					    id);
	return http_json(rq, MHD_HTTP_OK, doc);
}

static enum MHD_Result list_runs(struct http_request *rq, void *ctx)
{
	struct api *a = ctx;
	const char *lim = http_query(rq, "limit"), *off = http_query(rq, "offset");
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
	json_array_foreach(runs, i, r)
	{
		struct run_state st;
		int64_t id = json_integer_value(json_object_get(r, "id"));
		if (runner_lookup(a->runner, id, &st, NULL))
			continue;
		set_str(r, "status", st.status);
		if (st.finished_at[0])
			set_str(r, "finished_at", st.finished_at);
	}
	return http_json(rq, MHD_HTTP_OK,
			 json_pack("{s:o, s:I, s:I, s:I}", "runs", runs, "total",
				   (json_int_t)total, "limit", (json_int_t)limit,
				   "offset", (json_int_t)offset));
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
					   "error", st.error[0] ? st.error : NULL));
	row = store_get_run(a->store, id);
	if (!row)
		return http_error(rq, MHD_HTTP_NOT_FOUND, "id",
				  "unknown run id '%" PRId64 "'", id);
	ret = http_error(rq, MHD_HTTP_CONFLICT, NULL,
			 "run %" PRId64 " cannot be cancelled: it is already '%s'",
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
		return http_error(rq, MHD_HTTP_BAD_REQUEST, "format",
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
	log = events_of(a, id, after, &st, &mem);
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

/* A growing CSV text. */
struct csv {
	char *s;
	size_t len, cap;
	int failed;
};

static void csv_put(struct csv *c, const char *a, size_t n)
{
	if (c->failed)
		return;
	if (c->len + n + 1 > c->cap) {
		size_t cap = c->cap ? c->cap : 4096;
		while (cap < c->len + n + 1)
			cap *= 2;
		char *b = realloc(c->s, cap);
		if (!b) {
			c->failed = 1;
			return;
		}
		c->s = b;
		c->cap = cap;
	}
	memcpy(c->s + c->len, a, n);
	c->len += n;
	c->s[c->len] = '\0';
}

/* One field, quoted when it must be (RFC 4180). */
static void csv_field(struct csv *c, const char *v, int last)
{
	if (v && v[strcspn(v, ",\"\r\n")]) {
		csv_put(c, "\"", 1);
		for (const char *p = v; *p; p++) {
			if (*p == '"')
				csv_put(c, "\"", 1);
			csv_put(c, p, 1);
		}
		csv_put(c, "\"", 1);
	} else if (v) {
		csv_put(c, v, strlen(v));
	}
	csv_put(c, last ? "\r\n" : ",", last ? 2 : 1);
}

/* The shortest text that reads back as the same double. */
static void fmt_number(json_t *v, char *buf, size_t len)
{
	buf[0] = '\0';
	if (json_is_integer(v)) {
		snprintf(buf, len, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
	} else if (json_is_real(v)) {
		double d = json_real_value(v);
		for (int prec = 15; prec <= 17; prec++) {
			snprintf(buf, len, "%.*g", prec, d);
			if (strtod(buf, NULL) == d)
				break;
		}
	}
}

static const char *str_of(json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

static void csv_row(struct csv *c, const char *id, const char *kind,
		    json_t *item, const char *x, const char *row,
		    const char *col, const char *index, const char *value)
{
	int is_cell = !strcmp(kind, "cell");

	csv_field(c, id, 0);
	csv_field(c, kind, 0);
	csv_field(c, str_of(item, "chart"), 0);
	csv_field(c, is_cell ? NULL : str_of(item, "series"), 0);
	csv_field(c, x, 0);
	csv_field(c, is_cell ? NULL : str_of(item, "x_label"), 0);
	csv_field(c, row, 0);
	csv_field(c, col, 0);
	csv_field(c, is_cell ? str_of(item, "row_label") : NULL, 0);
	csv_field(c, is_cell ? str_of(item, "col_label") : NULL, 0);
	csv_field(c, str_of(item, "unit"), 0);
	csv_field(c, index, 0);
	csv_field(c, value, 1);
}

/* Every raw sample of a sample or cell, one row each. */
static void csv_item(struct csv *c, const char *id, const char *kind,
		     json_t *item)
{
	json_t *samples = json_object_get(item, "samples"), *v;
	char x[40] = "", row[40] = "", col[40] = "", idx[24], val[40];
	size_t i;

	if (!strcmp(kind, "cell")) {
		fmt_number(json_object_get(item, "row"), row, sizeof(row));
		fmt_number(json_object_get(item, "col"), col, sizeof(col));
	} else {
		fmt_number(json_object_get(item, "x"), x, sizeof(x));
	}
	if (!json_is_array(samples) || !json_array_size(samples)) {
		/* no raw samples kept: the value itself, if there is one */
		fmt_number(json_object_get(item, strcmp(kind, "cell") ? "y" : "value"),
			   val, sizeof(val));
		csv_row(c, id, kind, item, x, row, col, val[0] ? "0" : "", val);
		return;
	}
	json_array_foreach(samples, i, v)
	{
		snprintf(idx, sizeof(idx), "%zu", i);
		fmt_number(v, val, sizeof(val));
		csv_row(c, id, kind, item, x, row, col, idx, val);
	}
}

static enum MHD_Result get_export(struct http_request *rq, void *ctx)
{
	struct MHD_Response *resp;
	struct csv c = {0};
	unsigned int status;
	enum MHD_Result ret;
	char id_text[24], disp[96];
	json_t *doc, *item;
	int64_t id;
	int ended;
	size_t i;

	if (run_id(rq, &id, &ret))
		return ret;
	doc = run_document(ctx, id, &status, &ended);
	if (!doc)
		return status == MHD_HTTP_NOT_FOUND
			       ? http_error(rq, status, "id",
					    "unknown run id '%" PRId64 "'", id)
			       : http_error(rq, status, NULL,
					    "cannot read run %" PRId64, id);
	snprintf(id_text, sizeof(id_text), "%" PRId64, id);
	static const char header[] =
		"run_id,kind,chart,series,x,x_label,row,col,row_label,"
		"col_label,unit,sample_index,value\r\n";
	csv_put(&c, header, sizeof(header) - 1);
	json_array_foreach(json_object_get(doc, "samples"), i, item)
		csv_item(&c, id_text, "sample", item);
	json_array_foreach(json_object_get(doc, "cells"), i, item)
		csv_item(&c, id_text, "cell", item);
	json_decref(doc);
	if (c.failed) {
		free(c.s);
		return MHD_NO;
	}
	resp = MHD_create_response_from_buffer(c.len, c.s, MHD_RESPMEM_MUST_FREE);
	if (!resp) {
		free(c.s);
		return MHD_NO;
	}
	MHD_add_response_header(resp, "Content-Type", "text/csv; charset=utf-8");
	snprintf(disp, sizeof(disp),
		 "attachment; filename=\"numalab-run-%" PRId64 ".csv\"", id);
	MHD_add_response_header(resp, "Content-Disposition", disp);
	return http_respond(rq, MHD_HTTP_OK, resp);
}

static enum MHD_Result post_import(struct http_request *rq, void *ctx)
{
	struct api *a = ctx;

	return import_respond(rq, a->store, a->topo);
}

const struct http_route api_routes[] = {
	{"GET", "/api/experiments", get_experiments, 0},
	{"GET", "/api/topology", get_topology, 0},
	{"GET", "/api/openapi.json", get_openapi, 0},
	{"GET", "/api/runs", list_runs, 0},
	{"POST", "/api/runs", post_run, 0},
	{"POST", "/api/runs/import", post_import, IMPORT_BODY_MAX},
	{"POST", "/api/runs/check", api_post_check, 0},
	{"GET", "/api/runs/{id}", get_run, 0},
	{"DELETE", "/api/runs/{id}", delete_run, 0},
	{"GET", "/api/runs/{id}/events", get_events, 0},
	{"GET", "/api/runs/{id}/export.csv", get_export, 0},
	{NULL, NULL, NULL, 0},
};
