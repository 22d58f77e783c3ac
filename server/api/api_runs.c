/* api_runs.c - /api/runs: start, read, list, cancel, export and import runs */
#include "api_runs.h"
#include "api_args.h"
#include "api_class.h"
#include "api_internal.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "doccache.h"
#include "experiment.h"
#include "export_csv.h"
#include "import.h"
#include "import_store.h"
#include "jsondump.h"
#include "run_limits.h"
#include "rundoc.h"
#include "schema.h"
#include "strvec.h"

#define LIST_DEFAULT 50
#define LIST_MAX 1000
#define RETRY_AFTER "10"

static const char *const run_fields[] = {"experiment", "params", NULL};
static const struct request_rules run_rules = {
	.fields = run_fields,
	.not_object = "the request body must be a JSON object",
	.list_known = 1,
};

/* {"id": id, "status": "queued", "events": loc + "/events", "url": loc}
 * as http_json_text writes it (the id and loc need no escaping): jansson's
 * tree and dump of it were a sixth of a POST's work. */
static struct MHD_Response *queued_response(int64_t id, const char *loc)
{
	char buf[256], *text;
	int n = snprintf(buf, sizeof(buf),
			 "{\"id\":%" PRId64 ",\"status\":\"queued\","
			 "\"events\":\"%s/events\",\"url\":\"%s\"}\n",
			 id, loc, loc);

	if (n < 0 || (size_t)n >= sizeof(buf) || !(text = malloc((size_t)n)))
		return NULL;
	memcpy(text, buf, (size_t)n);
	return http_json_text_response(text, (size_t)n);
}

/* The answer to a run handed to the runner (rc, perr: what
 * runner_submit said; id: the run it queued). */
static enum MHD_Result submitted(struct http_request *rq, struct api *a, int rc,
				 int64_t id, const struct errinfo *perr)
{
	struct MHD_Response *r;
	char loc[64];

	if (rc == -EAGAIN) {
		r = http_error_response(
			NULL,
			"the run queue is full (%d runs waiting): try again later",
			runner_queued(a->runner));
		if (r)
			MHD_add_response_header(r, "Retry-After", RETRY_AFTER);
		return http_respond(rq, MHD_HTTP_TOO_MANY_REQUESTS, r);
	}
	if (rc == -ESHUTDOWN)
		return http_error(rq, MHD_HTTP_SERVICE_UNAVAILABLE, NULL,
				  "the server is shutting down");
	if (rc)
		return http_error(rq, MHD_HTTP_SERVICE_UNAVAILABLE, NULL, "%s",
				  *perr->msg ? perr->msg : strerror(-rc));
	snprintf(loc, sizeof(loc), "/api/runs/%" PRId64, id);
	r = queued_response(id, loc);
	if (r)
		MHD_add_response_header(r, "Location", loc);
	return http_respond(rq, MHD_HTTP_ACCEPTED, r);
}

/* "name=text" onto args (a format's parse, a dozen times a run, was
 * most of building them). */
static void push_arg(struct strvec *args, const char *name, const char *text)
{
	size_t n = strlen(name), t = strlen(text);
	char buf[512];

	if (n + 1 + t >= sizeof(buf)) {
		strvec_pushf(args, "%s=%s", name, text);
		return;
	}
	memcpy(buf, name, n);
	buf[n] = '=';
	memcpy(buf + n + 1, text, t + 1);
	strvec_push(args, buf);
}

enum MHD_Result api_post_run(struct http_request *rq, void *ctx)
{
	struct api *a = ctx;
	struct run_request req = RUN_REQUEST_INIT;
	const struct experiment *exp;
	struct errinfo perr;
	double estimate_s = -1;
	json_t *root = NULL;
	struct strvec args = STRVEC_INIT;
	char *params_text = NULL, *request_text = NULL;
	char basis[256];
	enum MHD_Result ret;
	int rc;
	int64_t id = 0;

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
				  a->max_run_seconds, &estimate_s, basis,
				  sizeof(basis), &perr)) {
		ret = http_error(rq, MHD_HTTP_BAD_REQUEST, NULL, "%s",
				 perr.msg);
		goto out;
	}
	/* the worker runs exactly the resolved request: every value it reads,
	 * normalised (one it would not read, it refuses) */
	for (int i = 0; i < req.pv->n; i++)
		if (experiment_reads(exp, req.pv->v[i].p, req.pv, NULL))
			push_arg(&args, req.pv->v[i].p->name,
				 req.pv->v[i].text);
	if (args.oom) {
		ret = MHD_NO;
		goto out;
	}
	json_t *pj = schema_params_json(exp, req.pv);
	params_text = pj ? jsondump_text(pj, NULL) : NULL;
	json_decref(pj);
	request_text = jsondump_text(root, NULL);
	if (!params_text || !request_text) {
		ret = MHD_NO;
		goto out;
	}
	errinfo_clear(&perr);
	rc = runner_submit(a->runner, exp->name, args.v, (int)args.n,
			   params_text, request_text, estimate_s, basis, &id,
			   &perr);
	ret = submitted(rq, a, rc, id, &perr);
out:
	run_request_clear(&req);
	strvec_clear(&args);
	free(params_text);
	free(request_text);
	json_decref(root);
	return ret;
}

static void set_str(json_t *doc, const char *key, const char *v)
{
	json_object_set_new(doc, key, v && *v ? json_string(v) : json_null());
}

/* Keeps an ended run's document as the bytes of its answer; NULL when it
 * cannot be kept. */
static struct http_blob *keep_document(struct api *a, int64_t id, json_t *doc,
				       const struct doctext *t)
{
	size_t n;
	char *text = rundoc_dumps(doc, t, &n);

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

enum MHD_Result api_get_run(struct http_request *rq, void *ctx)
{
	struct api *a = ctx;
	struct http_blob *kept;
	struct doctext *text = NULL;
	enum MHD_Result ret;
	int64_t id;
	int ended = 0, touched;
	json_t *doc;

	if (api_run_id(rq, &id, &ret))
		return ret;
	/* the page's download link names the form it saves */
	const char *format = http_query(rq, "format");
	if (format && strcmp(format, "json"))
		return http_error(rq, MHD_HTTP_BAD_REQUEST, "format",
				  "format must be json (a run's samples as CSV "
				  "are at /api/runs/%lld/export.csv)",
				  (long long)id);
	/* a run the class guessed on here may still take guesses */
	touched = api_class_touched(a->cls, id);
	kept = touched ? NULL : doccache_get(a->docs, id);
	if (kept)
		return respond_blob(rq, kept);
	doc = rundoc_build(a->store, a->runner, id, touched, &ended, &text);
	kept = doc && ended && !touched ? keep_document(a, id, doc, text)
					: NULL;
	/* one copy of a finished document: its bytes, not the runner's tree
	 * as well (a fresh server grew by the trees of the 32 runs it keeps,
	 * a page fault at every 4 KiB) */
	if (kept)
		runner_drop_doc(a->runner, id);
	/* served as values: its samples kept as text are filled in */
	if (!kept && doc && doctext_has_unread(doc)) {
		json_t *values = doctext_values(text, doc);
		json_decref(doc);
		doc = values;
		errno = ENOMEM;
	}
	doctext_unref(text);
	if (kept) {
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

enum MHD_Result api_list_runs(struct http_request *rq, void *ctx)
{
	struct api *a = ctx;
	const char *exp = http_query(rq, "experiment");
	const char *machine = http_query(rq, "machine");
	int64_t limit = LIST_DEFAULT, offset = 0, total;
	enum MHD_Result ret;
	json_t *runs, *r;
	size_t i;

	if (api_page(rq, LIST_MAX, &limit, &offset, &ret))
		return ret;
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

enum MHD_Result api_delete_run(struct http_request *rq, void *ctx)
{
	struct api *a = ctx;
	struct run_state st;
	enum MHD_Result ret;
	int64_t id;
	json_t *row;

	if (api_run_id(rq, &id, &ret) || http_body_none(rq, &ret))
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

enum MHD_Result api_get_export(struct http_request *rq, void *ctx)
{
	struct api *a = ctx;
	struct MHD_Response *resp;
	enum MHD_Result ret;
	char disp[96], *csv;
	json_t *doc;
	int64_t id;
	size_t len = 0;
	int ended;

	if (api_run_id(rq, &id, &ret))
		return ret;
	doc = rundoc_build(a->store, a->runner, id,
			   api_class_touched(a->cls, id), &ended, NULL);
	if (!doc)
		return api_run_unread(rq, id);
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

enum MHD_Result api_post_import(struct http_request *rq, void *ctx)
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
