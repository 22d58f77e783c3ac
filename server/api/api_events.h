/* api_events.h - the event streams: a run's, and the classroom's */
#ifndef NUMALAB_API_EVENTS_H
#define NUMALAB_API_EVENTS_H

#include "http.h"

/* GET /api/runs/{id}/events: the run's events as SSE or NDJSON, from
 * after the one a reconnecting client names; 204 to an EventSource once
 * the run is over. ctx is a struct api. */
enum MHD_Result api_get_events(struct http_request *rq, void *ctx);
/* GET /api/class/events: the room's state for the phones, from its newest
 * event, or after the one a reconnecting phone names. ctx is a struct
 * api. */
enum MHD_Result api_get_class_events(struct http_request *rq, void *ctx);

#endif
