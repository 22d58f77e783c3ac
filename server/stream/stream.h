/* stream.h - a run's events to one client: Server-Sent Events or NDJSON */
#ifndef NUMALAB_STREAM_H
#define NUMALAB_STREAM_H

#include <stdint.h>

#include "http.h"
#include "runlog.h"

/*
 * Answers rq with the events of log after seq `after`, as they come,
 * until the log is closed and every event is sent. Takes over the
 * reference to log. Between events the connection is suspended, costing
 * no thread; one pump thread resumes it when its log grows or ends, and
 * every 15 s for a keepalive.
 */
enum MHD_Result stream_respond(struct http_request *rq, struct runlog *log,
			       int64_t after, int ndjson);

/* Streams still sending. */
int stream_count(void);
/* Waits until every stream has sent its last event, at most timeout_ms. */
void stream_drain(int timeout_ms);
/* Ends every stream (resumes the suspended ones) and the pump, before the
 * daemon stops; new streams are refused with 503 from then on. */
void stream_stop(void);

#endif
