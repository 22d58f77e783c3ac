/* api_campaigns.c - GET/POST /api/campaigns: fleet campaigns over HTTP */
#include "api_campaigns.h"

#include <errno.h>

#include "campaigns.h"

enum MHD_Result api_campaigns_list(struct http_request *rq, struct store *st)
{
	json_t *list = campaigns_list(st);

	if (!list)
		return http_error(rq, MHD_HTTP_INTERNAL_SERVER_ERROR, NULL,
				  "cannot read the campaigns from the store");
	return http_json(rq, MHD_HTTP_OK,
			 json_pack("{s:o}", "campaigns", list));
}

enum MHD_Result api_campaigns_get(struct http_request *rq, struct store *st)
{
	const char *id = rq->capture[0];
	json_t *c = campaigns_get(st, id);

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
	json_error_t jerr;
	struct errinfo err;
	json_t *c;
	int rc;

	c = json_loadb(rq->body ? rq->body : "", rq->body_len,
		       JSON_REJECT_DUPLICATES, &jerr);
	if (!c)
		return http_error(rq, MHD_HTTP_BAD_REQUEST, NULL,
				  "body is not JSON: %s", jerr.text);
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
				  rc == -EINVAL ? MHD_HTTP_BAD_REQUEST
				  : rc == -ESTALE
					  ? MHD_HTTP_SERVICE_UNAVAILABLE
					  : MHD_HTTP_INTERNAL_SERVER_ERROR,
				  *err.field ? err.field : NULL, "%s", err.msg);
	}
	json_t *ans = json_pack("{s:O, s:s+}", "id", json_object_get(c, "id"),
				"url", "/api/campaigns/",
				json_string_value(json_object_get(c, "id")));
	json_decref(c);
	return http_json(rq, MHD_HTTP_CREATED, ans);
}
