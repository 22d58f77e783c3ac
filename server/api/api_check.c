/* api_check.c - POST /api/runs/check: what a request would measure here, judged before it runs */
#include "api_check.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <jansson.h>

#include "experiment.h"
#include "schema.h"
#include "strbuf.h"
#include "strvec.h"

#define CHECK_MAX_ARGS 64

static int is_json(const char *ct)
{
	size_t n = strlen("application/json");

	return ct && !strncasecmp(ct, "application/json", n) &&
	       (ct[n] == '\0' || ct[n] == ';' || ct[n] == ' ');
}

/* The names of every experiment, for an error that names the choices. */
static void known(struct strbuf *sb)
{
	for (int i = 0; experiments[i]; i++)
		strbuf_addf(sb, "%s%s", i ? ", " : "", experiments[i]->name);
}

/* {"experiment", "notes": [{level, text}], "estimate_s", "estimate_bytes"} */
static json_t *check_document(const struct experiment *exp, const void *params,
			      const struct common_params *common,
			      const struct topo *t)
{
	struct verdict *v = calloc(1, sizeof(*v));
	json_t *doc, *notes;
	double seconds = 0;
	uint64_t bytes = 0;

	if (!v)
		return NULL;
	experiment_precheck(exp, params, common, t, v);
	notes = json_array();
	for (int i = 0; notes && i < v->nnotes; i++)
		json_array_append_new(notes,
				      json_pack("{s:s, s:s}", "level",
						v->notes[i].level, "text",
						v->notes[i].text));
	free(v);
	int have =
		!experiment_estimate(exp, params, common, t, &seconds, &bytes);
	doc = json_pack("{s:s, s:o, s:o, s:o}", "experiment", exp->name,
			"notes", notes ? notes : json_array(), "estimate_s",
			have ? json_real(seconds) : json_null(),
			"estimate_bytes",
			have ? json_integer((json_int_t)bytes) : json_null());
	return doc;
}

enum MHD_Result api_post_check(struct http_request *rq, void *ctx)
{
	const struct topo *t = api_topology(ctx);
	const struct experiment *exp;
	struct param_values *pv = NULL;
	struct common_params common;
	struct errinfo perr;
	json_error_t jerr;
	json_t *root = NULL, *params = NULL, *doc;
	const char *name = NULL, *key;
	struct strvec argv = STRVEC_INIT;
	void *typed = NULL;
	int argc = 0;
	enum MHD_Result ret;
	json_t *val;

	if (!is_json(http_header(rq, "Content-Type")))
		return http_error(rq, MHD_HTTP_UNSUPPORTED_MEDIA_TYPE, NULL,
				  "send the request as 'application/json'");
	if (!rq->body_len)
		return http_error(
			rq, MHD_HTTP_BAD_REQUEST, NULL,
			"empty request body (send {\"experiment\": NAME, \"params\": {...}})");
	root = http_body_json(rq, &ret);
	if (!root)
		goto out;
	if (!json_is_object(root)) {
		ret = http_error(rq, MHD_HTTP_BAD_REQUEST, NULL,
				 "the request body must be a JSON object");
		goto out;
	}
	json_object_foreach (root, key, val) {
		if (strcmp(key, "experiment") && strcmp(key, "params")) {
			ret = http_error(
				rq, MHD_HTTP_BAD_REQUEST, key,
				"unknown field '%.60s' (allowed: experiment, params)",
				key);
			goto out;
		}
	}
	if (json_unpack_ex(root, &jerr, 0, "{s:s, s?o}", "experiment", &name,
			   "params", &params)) {
		ret = http_error(
			rq, MHD_HTTP_BAD_REQUEST, "experiment",
			"'experiment' must be a string naming an experiment");
		goto out;
	}
	exp = experiment_find(name);
	if (!exp) {
		struct strbuf sb = STRBUF_INIT;
		known(&sb);
		ret = http_error(rq, MHD_HTTP_BAD_REQUEST, "experiment",
				 "unknown experiment '%.60s' (known: %s)", name,
				 strbuf_str(&sb));
		strbuf_release(&sb);
		goto out;
	}
	argc = schema_params_to_argv(params, &argv, CHECK_MAX_ARGS, &perr);
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
	if (experiment_parse(exp, t, argc, argv.v, pv, typed, &common, &perr)) {
		ret = http_error(rq, MHD_HTTP_BAD_REQUEST, perr.field, "%s",
				 perr.msg);
		goto out;
	}
	doc = check_document(exp, typed, &common, t);
	ret = doc ? http_json(rq, MHD_HTTP_OK, doc) : MHD_NO;
out:
	strvec_clear(&argv);
	free(typed);
	free(pv);
	json_decref(root);
	return ret;
}
