/* api_campaigns.c - GET/POST /api/campaigns: fleet campaigns over HTTP */
#include "api_campaigns.h"

#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

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

/* A whole number from min to max, all of s: 0, or -EINVAL. */
static int whole(const char *s, int64_t min, int64_t max, int64_t *out)
{
	char *end;
	long long v;

	if (!*s || !isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

enum MHD_Result api_campaigns_get(struct http_request *rq, struct store *st)
{
	const char *id = rq->capture[0];
	const char *lim = http_query(rq, "limit"),
		   *off = http_query(rq, "offset");
	int64_t limit = CAMPAIGN_PAGE_DEFAULT, offset = 0;
	json_t *c;

	if (lim && whole(lim, 1, CAMPAIGN_PAGE_MAX, &limit))
		return http_error(rq, MHD_HTTP_BAD_REQUEST, "limit",
				  "'%.40s' is not a valid limit (allowed 1-%d)",
				  lim, CAMPAIGN_PAGE_MAX);
	if (off && whole(off, 0, INT64_MAX / 2, &offset))
		return http_error(rq, MHD_HTTP_BAD_REQUEST, "offset",
				  "'%.40s' is not a valid offset (a whole "
				  "number, 0 or more)",
				  off);
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
