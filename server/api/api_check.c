/* api_check.c - POST /api/runs/check: what a request would measure here, judged before it runs */
#include "api_check.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "estimate_now.h"
#include "experiment.h"
#include "plan_view.h"
#include "run_limits.h"
#include "schema.h"
#include "strbuf.h"

/* The plan's lines (plan_view.h) as an array of strings. */
static json_t *plan_json(const struct experiment *exp, const void *params,
			 const struct common_params *common,
			 const struct topo *t)
{
	struct strbuf sb = STRBUF_INIT;
	json_t *a = json_array();
	const char *p;

	experiment_plan_view(exp, params, common, t, &sb);
	for (p = strbuf_str(&sb); a && *p;) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		json_array_append_new(a, json_stringn(p, n));
		p += n + (nl != NULL);
	}
	strbuf_release(&sb);
	return a;
}

/* {"experiment", "notes": [{level, text}], "estimate_s", "estimate_bytes",
 * "plan": [line]} */
static json_t *check_document(const struct experiment *exp, const void *params,
			      const struct common_params *common,
			      const struct topo *t, int max_run_seconds)
{
	struct verdict *v = calloc(1, sizeof(*v));
	struct errinfo err;
	json_t *doc, *notes;
	double seconds = 0;
	uint64_t bytes = 0;

	if (!v)
		return NULL;
	experiment_precheck(exp, params, common, t, v);
	/* what POST /api/runs would answer 400 to */
	if (limits_check_estimate(exp, params, common, t, max_run_seconds, NULL,
				  NULL, 0, &err))
		verdict_note(v, "cannot",
			     "this server would refuse the run: %s", err.msg);
	notes = json_array();
	for (int i = 0; notes && i < v->nnotes; i++)
		json_array_append_new(notes,
				      json_pack("{s:s, s:s}", "level",
						v->notes[i].level, "text",
						v->notes[i].text));
	free(v);
	char basis[256];
	int have = !experiment_estimate_now(exp, params, common, t, &seconds,
					    &bytes, basis, sizeof(basis));
	doc = json_pack(
		"{s:s, s:o, s:o, s:o, s:o}", "experiment", exp->name, "notes",
		notes ? notes : json_array(), "estimate_s",
		have ? json_real(seconds) : json_null(), "estimate_bytes",
		have ? json_integer((json_int_t)bytes) : json_null(),
		"estimate_basis", have ? json_string(basis) : json_null());
	if (doc) {
		json_t *plan = plan_json(exp, params, common, t);
		if (plan)
			json_object_set_new(doc, "plan", plan);
	}
	return doc;
}

static const char *const check_fields[] = {"experiment", "params", NULL};
static const struct request_rules check_rules = {
	.fields = check_fields,
	.not_object = "the request body must be a JSON object",
	.bad_experiment = "'experiment' must be a string naming an experiment",
	.list_known = 1,
};

enum MHD_Result api_check_run(struct http_request *rq, const struct topo *t,
			      int max_run_seconds)
{
	struct run_request req = RUN_REQUEST_INIT;
	struct errinfo perr;
	enum MHD_Result ret;
	json_t *root, *doc;
	int rc;

	/* a body that is not JSON never gets here: trust_check_head answers
	 * 415 for it before the body is read */
	if (!rq->body_len)
		return http_error(
			rq, MHD_HTTP_BAD_REQUEST, NULL,
			"empty request body (send {\"experiment\": NAME, \"params\": {...}})");
	root = http_body_json(rq, &ret);
	if (!root)
		return ret;
	rc = schema_run_request(root, &check_rules, t, &req, &perr);
	if (rc == -ENOMEM)
		ret = MHD_NO;
	else if (rc)
		ret = http_error(rq, MHD_HTTP_BAD_REQUEST, req.field, "%s",
				 perr.msg);
	else {
		doc = check_document(req.exp, req.typed, &req.common, t,
				     max_run_seconds);
		ret = doc ? http_json(rq, MHD_HTTP_OK, doc) : MHD_NO;
	}
	run_request_clear(&req);
	json_decref(root);
	return ret;
}
