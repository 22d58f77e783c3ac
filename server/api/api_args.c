/* api_args.c - the routes' numbers: whole numbers, a run's {id}, a page's limit and offset */
#include "api_args.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

int api_parse_num(const char *s, int64_t min, int64_t max, int64_t *out)
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

int api_run_id(struct http_request *rq, int64_t *id, enum MHD_Result *ret)
{
	if (!api_parse_num(rq->capture[0], 1, INT64_MAX, id))
		return 0;
	*ret = http_error(rq, MHD_HTTP_BAD_REQUEST, "id",
			  "'%.40s' is not a run id (a positive whole number)",
			  rq->capture[0]);
	return -EINVAL;
}

enum MHD_Result api_run_unread(struct http_request *rq, int64_t id)
{
	return errno == ENOENT
		       ? http_error(rq, MHD_HTTP_NOT_FOUND, "id",
				    "unknown run id '%" PRId64 "'", id)
		       : http_error(rq, MHD_HTTP_INTERNAL_SERVER_ERROR, NULL,
				    "cannot read run %" PRId64, id);
}

int api_page(struct http_request *rq, int max, int64_t *limit, int64_t *offset,
	     enum MHD_Result *ret)
{
	const char *lim = http_query(rq, "limit"),
		   *off = http_query(rq, "offset");

	if (lim && api_parse_num(lim, 1, max, limit)) {
		*ret = http_error(rq, MHD_HTTP_BAD_REQUEST, "limit",
				  "'%.40s' is not a valid limit (allowed 1-%d)",
				  lim, max);
		return -EINVAL;
	}
	if (off && api_parse_num(off, 0, API_SEQ_MAX, offset)) {
		*ret = http_error(rq, MHD_HTTP_BAD_REQUEST, "offset",
				  "'%.40s' is not a valid offset (a whole "
				  "number from 0 to %" PRId64 ")",
				  off, (int64_t)API_SEQ_MAX);
		return -EINVAL;
	}
	return 0;
}
