/* api_events.c - the event streams: a run's, and the classroom's */
#include "api_events.h"
#include "api_args.h"
#include "api_class.h"
#include "api_internal.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "rundoc.h"
#include "runlog.h"
#include "stream.h"

/* The seq a reconnecting client last saw; -1 when the header is bad. */
static int64_t resume_after(struct http_request *rq, const char **bad)
{
	const char *h = http_header(rq, "Last-Event-ID");
	const char *q = http_query(rq, "after");
	int64_t a = 0, b = 0;

	if (h && *h && api_parse_num(h, 0, API_SEQ_MAX, &a)) {
		*bad = "Last-Event-ID";
		return -1;
	}
	if (q && api_parse_num(q, 0, API_SEQ_MAX, &b)) {
		*bad = "after";
		return -1;
	}
	return a > b ? a : b;
}

enum MHD_Result api_get_class_events(struct http_request *rq, void *ctx)
{
	struct api *a = ctx;
	const char *bad = NULL;
	int64_t after = resume_after(rq, &bad);
	struct runlog *log;

	if (after < 0)
		return http_error(rq, MHD_HTTP_BAD_REQUEST, bad,
				  "'%s' must be the seq of an event (a whole "
				  "number from 0 to %" PRId64 ")",
				  bad, (int64_t)API_SEQ_MAX);
	log = api_class_feed(a->cls);
	if (!log)
		return http_error(rq, MHD_HTTP_SERVICE_UNAVAILABLE, NULL,
				  "the server is shutting down");
	if (!after)
		after = runlog_last_seq(log) - 1;
	return stream_respond(rq, log, after, 0);
}

enum MHD_Result api_get_events(struct http_request *rq, void *ctx)
{
	struct api *a = ctx;
	const char *format = http_query(rq, "format");
	const char *accept = http_header(rq, "Accept");
	const char *bad = NULL;
	struct run_state st;
	struct runlog *log;
	enum MHD_Result ret;
	int64_t id, after;
	int ndjson = 0, mem, rc;

	if (api_run_id(rq, &id, &ret))
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
				  "number from 0 to %" PRId64 ")",
				  bad, (int64_t)API_SEQ_MAX);
	/* a run the runner holds is in the store: it was put there first */
	rc = runner_lookup(a->runner, id, NULL, NULL)
		     ? store_has_run(a->store, id)
		     : 0;
	if (rc) {
		errno = -rc;
		return api_run_unread(rq, id);
	}
	log = rundoc_events(a->store, a->runner, id, after, &st, &mem);
	if (!log)
		return http_error(rq, MHD_HTTP_INTERNAL_SERVER_ERROR, NULL,
				  "cannot read the events of run %" PRId64, id);
	return api_stream_log(rq, log, after, ndjson);
}

enum MHD_Result api_stream_log(struct http_request *rq, struct runlog *log,
			       int64_t after, int ndjson)
{
	if (!ndjson && runlog_closed(log) && !runlog_next(log, after)) {
		runlog_unref(log);
		return http_respond(rq, MHD_HTTP_NO_CONTENT,
				    MHD_create_response_from_buffer(
					    0, NULL, MHD_RESPMEM_PERSISTENT));
	}
	return stream_respond(rq, log, after, ndjson);
}
