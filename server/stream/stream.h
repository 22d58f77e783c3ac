/* stream.h - a run's events to one client: Server-Sent Events or NDJSON */
#ifndef NUMALAB_STREAM_H
#define NUMALAB_STREAM_H

#include <stdint.h>

#include "http.h"
#include "runlog.h"
#include "viewers.h"

/*
 * Answers rq with the events of log after seq `after`, as they come,
 * until the log is closed and every event is sent. Takes over the
 * reference to log. Between events the connection is suspended, costing
 * no thread, and resumed when its own log grows or ends (an append to
 * another log costs it nothing): by the appending thread when the log has
 * a few dozen waiters at most and no others wait, else by one pump
 * thread, a few dozen streams at a time so that the request threads serve
 * other connections between them; and every 15 s for a keepalive. Past the
 * limit (viewers_set_limit) it answers 503.
 */
enum MHD_Result stream_respond(struct http_request *rq, struct runlog *log,
			       int64_t after, int ndjson);

/* Streams sent at once, past which a new one is answered 503 (viewers.h
 * says why so many). */
#define STREAM_MAX_DEFAULT VIEWERS_MAX_DEFAULT

/* Ends every stream (resumes the suspended ones) and the pump, before the
 * daemon stops; new streams are refused with 503 from then on. */
void stream_stop(void);

#endif
