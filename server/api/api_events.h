/* api_events.h - the event streams: a run's, and the classroom's */
#ifndef NUMALAB_API_EVENTS_H
#define NUMALAB_API_EVENTS_H

#include <stdint.h>

#include "http.h"

struct runlog; /* runlog.h */

/* GET /api/runs/{id}/events: the run's events as SSE or NDJSON, from
 * after the one a reconnecting client names; 204 to an EventSource once
 * the run is over. ctx is a struct api. */
enum MHD_Result api_get_events(struct http_request *rq, void *ctx);
/* GET /api/class/events: the room's state for the phones, from its newest
 * event, or after the one a reconnecting phone names. ctx is a struct
 * api. */
enum MHD_Result api_get_class_events(struct http_request *rq, void *ctx);
/*
 * log's events after seq `after` (stream_respond), or 204 to an
 * EventSource (not ndjson) when log is closed with nothing after: the
 * 204 tells it the run or campaign is over, so it stops reconnecting.
 * Takes over the reference to log.
 */
enum MHD_Result api_stream_log(struct http_request *rq, struct runlog *log,
			       int64_t after, int ndjson);

#endif
