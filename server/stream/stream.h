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
 * no thread; one pump thread resumes it when its own log grows or ends
 * (an append to another log costs it nothing), and every 15 s for a
 * keepalive, a few dozen streams at a time so that the request threads
 * serve other connections between them. Past the limit (stream_set_limit)
 * it answers 503.
 */
enum MHD_Result stream_respond(struct http_request *rq, struct runlog *log,
			       int64_t after, int ndjson);

/*
 * Streams sent at once, past which a new one is answered 503 (with
 * Retry-After) rather than kept: each costs its connection's pool and a
 * few hundred bytes (README, Request heads), so 12,288 of them hold about
 * 100 MB. Below the server's connection limit, so that the 503 has a
 * connection to be sent on.
 */
#define STREAM_MAX_DEFAULT 12288

/* The most streams at once; n <= 0: STREAM_MAX_DEFAULT. */
void stream_set_limit(int n);
/* Waits until every stream has sent its last event, at most timeout_ms. */
void stream_drain(int timeout_ms);
/* Ends every stream (resumes the suspended ones) and the pump, before the
 * daemon stops; new streams are refused with 503 from then on. */
void stream_stop(void);

#endif
