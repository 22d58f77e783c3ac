/* api_campaigns.c - GET/POST /api/campaigns: fleet campaigns over HTTP */
#include "api_campaigns.h"
#include "api_args.h"
#include "api_events.h"

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "campaign_deliver.h"
#include "campaign_live.h"
#include "campaign_nodes.h"
#include "campaign_notes.h"
#include "campaign_read.h"
#include "campaigns.h"

enum MHD_Result api_campaigns_list(struct http_request *rq, struct store *st,
				   const struct fleet_start *fs)
{
	json_t *list = campaigns_list(st);

	if (!list)
		return http_error(rq, MHD_HTTP_INTERNAL_SERVER_ERROR, NULL,
				  "cannot read the campaigns from the store");
	/* the page offers to start one only where this server can */
	return http_json(rq, MHD_HTTP_OK,
			 json_pack("{s:o, s:s?}", "campaigns", list, "fleet",
				   fs ? fs->engine : NULL));
}

enum MHD_Result api_campaigns_get(struct http_request *rq, struct store *st)
{
	const char *id = rq->capture[0];
	int64_t limit = CAMPAIGN_PAGE_DEFAULT, offset = 0;
	enum MHD_Result ret;
	json_t *c;

	if (api_page(rq, CAMPAIGN_PAGE_MAX, &limit, &offset, &ret))
		return ret;
	c = campaigns_get(st, id, offset, limit);

	if (!c)
		return errno == ENOENT
			       ? http_error(rq, MHD_HTTP_NOT_FOUND, "id",
					    "unknown campaign id '%.80s'", id)
			       : http_error(
					 rq, MHD_HTTP_INTERNAL_SERVER_ERROR,
					 NULL,
					 "cannot read campaign '%.80s' from the store",
					 id);
	return http_json(rq, MHD_HTTP_OK, c);
}

enum MHD_Result api_campaigns_post(struct http_request *rq, struct store *st)
{
	enum MHD_Result ret;
	struct errinfo err;
	json_t *c;
	int rc;

	c = http_body_json(rq, &ret);
	if (!c)
		return ret;
	if (store_readonly(st)) {
		json_decref(c);
		return http_error(
			rq, MHD_HTTP_CONFLICT, NULL,
			"the store is read-only: campaigns cannot be recorded");
	}
	rc = campaigns_record(st, c, &err);
	if (rc) {
		json_decref(c);
		return http_error(rq,
				  rc == -EINVAL	  ? MHD_HTTP_BAD_REQUEST
				  : rc == -EEXIST ? MHD_HTTP_CONFLICT
				  : rc == -ESTALE
					  ? MHD_HTTP_SERVICE_UNAVAILABLE
					  : MHD_HTTP_INTERNAL_SERVER_ERROR,
				  *err.field ? err.field : NULL, "%s", err.msg);
	}
	api_campaigns_recorded(st, json_string_value(json_object_get(c, "id")));
	json_t *ans = json_pack("{s:O, s:s+}", "id", json_object_get(c, "id"),
				"url", "/api/campaigns/",
				json_string_value(json_object_get(c, "id")));
	json_decref(c);
	return http_json(rq, MHD_HTTP_CREATED, ans);
}

static const char *const node_states[] = {"pending", "running",	  "done",
					  "failed",  "cancelled", NULL};

/* Field key of body, when present and not null, as text of at most max
 * bytes into *out (NULL otherwise). 0, or -EINVAL with err set. */
static int opt_text(json_t *body, const char *key, size_t max, const char **out,
		    struct errinfo *err)
{
	json_t *v = json_object_get(body, key);

	if (v && !json_is_null(v) &&
	    (!json_is_string(v) || strlen(json_string_value(v)) > max))
		return errinfo_set(err, key,
				   "'%s' must be text of at most %zu bytes, "
				   "or null",
				   key, max);
	*out = json_string_value(v);
	return 0;
}

/* The body of a node's delivery: its state and reason, its run. */
static int node_body(json_t *body, struct campaign_node_update *u, json_t **run,
		     struct errinfo *err)
{
	const char *key;
	json_t *v;
	int ok = 0;

	json_object_foreach (body, key, v)
		if (strcmp(key, "state") && strcmp(key, "reason") &&
		    strcmp(key, "job_id") && strcmp(key, "run"))
			return errinfo_set(err, key,
					   "unknown field '%.60s' (allowed: "
					   "state, reason, job_id, run)",
					   key);
	u->state = json_string_value(json_object_get(body, "state"));
	for (int i = 0; u->state && node_states[i]; i++)
		ok |= !strcmp(node_states[i], u->state);
	if (!ok)
		return errinfo_set(err, "state",
				   "'state' must be one of pending, running, "
				   "done, failed, cancelled");
	if (opt_text(body, "reason", 1024, &u->reason, err) ||
	    opt_text(body, "job_id", 64, &u->job_id, err))
		return -EINVAL;
	*run = json_object_get(body, "run");
	if (json_is_null(*run))
		*run = NULL;
	return 0;
}

enum MHD_Result api_campaigns_node(struct http_request *rq, struct store *st)
{
	const char *id = rq->capture[0], *node = rq->capture[1];
	struct campaign_node_update u;
	struct errinfo err;
	enum MHD_Result ret;
	char client[64];
	json_t *body, *run = NULL, *s;
	int64_t rid = 0;
	int stored = 0, rc;

	body = http_body_json(rq, &ret);
	if (!body)
		return ret;
	errinfo_clear(&err);
	if (!json_is_object(body) || node_body(body, &u, &run, &err)) {
		ret = http_error(rq, MHD_HTTP_BAD_REQUEST,
				 *err.field ? err.field : NULL, "%s",
				 json_is_object(body)
					 ? err.msg
					 : "body is not a JSON object");
		goto out;
	}
	rc = campaign_deliver_node(
		st, id, node, &u, run,
		*http_client_address(rq, client, sizeof(client)) ? client
								 : NULL,
		&rid, &stored, &err);
	if (rc) {
		ret = http_error(
			rq,
			rc == -ENOENT || rc == -ESRCH ? MHD_HTTP_NOT_FOUND
			: rc == -EINVAL		      ? MHD_HTTP_BAD_REQUEST
			: rc == -EEXIST		      ? MHD_HTTP_CONFLICT
			: rc == -ESTALE ? MHD_HTTP_SERVICE_UNAVAILABLE
					: MHD_HTTP_INTERNAL_SERVER_ERROR,
			*err.field ? err.field : NULL, "%s", err.msg);
		goto out;
	}
	s = campaign_summary(st, id);
	json_t *changed =
		json_pack("{s:s, s:s, s:s?, s:o}", "node", node, "state",
			  u.state, "reason", u.reason, "run_id",
			  rid ? json_integer(rid) : json_null());
	campaign_live_note(id, s, changed);
	json_decref(changed);
	ret = http_json(rq, MHD_HTTP_OK,
			json_pack("{s:s, s:s, s:o, s:b, s:b}", "node", node,
				  "state", u.state, "run_id",
				  rid ? json_integer(rid) : json_null(),
				  "stored", stored, "cancel",
				  json_is_true(json_object_get(
					  s, "cancel_requested"))));
	json_decref(s);
out:
	json_decref(body);
	return ret;
}

/* The answer when campaign id's summary could not be read (errno says
 * why): 404 for an id the store does not hold, else 500. */
static enum MHD_Result summary_unread(struct http_request *rq, const char *id)
{
	return errno == ENOENT
		       ? http_error(rq, MHD_HTTP_NOT_FOUND, "id",
				    "unknown campaign id '%.80s'", id)
		       : http_error(rq, MHD_HTTP_INTERNAL_SERVER_ERROR, NULL,
				    "cannot read campaign '%.80s'", id);
}

enum MHD_Result api_campaigns_cancel(struct http_request *rq, struct store *st,
				     const struct fleet_start *fs)
{
	const char *id = rq->capture[0];
	struct errinfo err;
	json_t *s = campaign_summary(st, id);
	const char *state = json_string_value(json_object_get(s, "state"));
	int rc;

	if (!s)
		return summary_unread(rq, id);
	if (state && strcmp(state, "running")) {
		enum MHD_Result ret = http_error(
			rq, MHD_HTTP_CONFLICT, "id",
			"campaign '%.80s' is %s already: there is nothing to "
			"cancel",
			id, state);
		json_decref(s);
		return ret;
	}
	json_decref(s);
	rc = campaigns_cancel(st, id, &err);
	if (rc)
		return http_error(rq,
				  rc == -ENOENT ? MHD_HTTP_NOT_FOUND
				  : rc == -ESTALE
					  ? MHD_HTTP_SERVICE_UNAVAILABLE
					  : MHD_HTTP_INTERNAL_SERVER_ERROR,
				  *err.field ? err.field : NULL, "%s", err.msg);
	/* started here: its coordinator is told at once; another reads it
	 * in the answer to its next delivery */
	int here = fleet_start_cancel(fs, id);
	campaign_note(st, id, NULL);
	return http_json(rq, MHD_HTTP_ACCEPTED,
			 json_pack("{s:s, s:s, s:b}", "id", id, "state",
				   "cancelling", "signalled", here));
}

enum MHD_Result api_campaigns_events(struct http_request *rq, struct store *st)
{
	const char *id = rq->capture[0];
	const char *format = http_query(rq, "format");
	const char *last = http_header(rq, "Last-Event-ID");
	const char *after_q = http_query(rq, "after");
	int64_t after = 0, v;
	int ndjson = format && !strcmp(format, "ndjson");
	struct runlog *log;
	json_t *s;

	if (format && !ndjson && strcmp(format, "sse"))
		return http_error(
			rq, MHD_HTTP_BAD_REQUEST, "format",
			"unknown format '%.40s' (allowed: sse, ndjson)",
			format);
	/* as a run's stream: a bad one is said, not taken for none */
	if (last && *last && api_parse_num(last, 0, API_SEQ_MAX, &v))
		return http_error(rq, MHD_HTTP_BAD_REQUEST, "Last-Event-ID",
				  "'Last-Event-ID' must be the seq of an event "
				  "(a whole number from 0 to %" PRId64 ")",
				  (int64_t)API_SEQ_MAX);
	if (last && *last)
		after = v;
	if (after_q && api_parse_num(after_q, 0, API_SEQ_MAX, &after))
		return http_error(rq, MHD_HTTP_BAD_REQUEST, "after",
				  "'after' must be the seq of an event (a "
				  "whole number from 0 to %" PRId64 ")",
				  (int64_t)API_SEQ_MAX);
	s = campaign_summary(st, id);
	if (!s)
		return summary_unread(rq, id);
	log = campaign_live_log(id, s);
	json_decref(s);
	if (!log)
		return MHD_NO;
	return api_stream_log(rq, log, after, ndjson);
}
