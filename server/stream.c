/* stream.c - a run's events to one client as Server-Sent Events or NDJSON, blocking on its log */
#include "stream.h"
#include "deadline.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define KEEPALIVE_MS 15000
#define FILL_MAX (64 * 1024) /* bytes formatted per wake-up */
#define BLOCK_SIZE (8 * 1024)

struct stream {
	struct runlog *log;
	int64_t after; /* the last seq formatted */
	int ndjson;
	int started;
	int ended;
	int counted;
	char *buf;
	size_t len, off, cap;
};

static pthread_mutex_t count_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t count_cv = PTHREAD_COND_INITIALIZER;
static int active;

static void count(struct stream *s, int up)
{
	pthread_mutex_lock(&count_mu);
	if (up && !s->counted) {
		active++;
		s->counted = 1;
	} else if (!up && s->counted) {
		active--;
		s->counted = 0;
		pthread_cond_broadcast(&count_cv);
	}
	pthread_mutex_unlock(&count_mu);
}

int stream_count(void)
{
	pthread_mutex_lock(&count_mu);
	int n = active;
	pthread_mutex_unlock(&count_mu);
	return n;
}

void stream_drain(int timeout_ms)
{
	struct timespec dl;

	dl = deadline_in(CLOCK_REALTIME, timeout_ms);
	pthread_mutex_lock(&count_mu);
	while (active > 0)
		if (pthread_cond_timedwait(&count_cv, &count_mu, &dl) == ETIMEDOUT)
			break;
	pthread_mutex_unlock(&count_mu);
}

static int put(struct stream *s, const char *a, size_t n)
{
	if (s->len + n > s->cap) {
		size_t cap = s->cap ? s->cap : 4096;
		while (cap < s->len + n)
			cap *= 2;
		char *b = realloc(s->buf, cap);
		if (!b)
			return -ENOMEM;
		s->buf = b;
		s->cap = cap;
	}
	memcpy(s->buf + s->len, a, n);
	s->len += n;
	return 0;
}

static int put_event(struct stream *s, const struct runlog_event *e)
{
	char head[96];
	int n;

	if (s->ndjson)
		return put(s, e->json, e->len) ? -ENOMEM : put(s, "\n", 1);
	n = snprintf(head, sizeof(head), "id: %lld\nevent: %s\ndata: ",
		     (long long)e->seq, e->type);
	if (put(s, head, (size_t)n) || put(s, e->json, e->len) ||
	    put(s, "\n\n", 2))
		return -ENOMEM;
	return 0;
}

/* Fills the buffer: events, or a keepalive after a quiet while. */
static int fill(struct stream *s)
{
	const struct runlog_event *e;
	int closed = 0;

	if (!s->started) {
		s->started = 1;
		if (!s->ndjson) {
			char hello[96];
			int n = snprintf(hello, sizeof(hello),
					 "retry: 3000\n: events of run %lld\n\n",
					 (long long)runlog_run_id(s->log));
			return put(s, hello, (size_t)n);
		}
	}
	if (!runlog_wait(s->log, s->after, KEEPALIVE_MS, &closed)) {
		if (closed) {
			s->ended = 1;
			return 0;
		}
		/* also how a client that left is noticed: the write fails */
		return s->ndjson ? put(s, "\n", 1) : put(s, ": keepalive\n\n", 13);
	}
	while (s->len < FILL_MAX && (e = runlog_next(s->log, s->after))) {
		if (put_event(s, e))
			return -ENOMEM;
		s->after = e->seq;
	}
	if (runlog_closed(s->log) && !runlog_next(s->log, s->after))
		s->ended = 1;
	return 0;
}

static ssize_t on_read(void *cls, uint64_t pos, char *out, size_t max)
{
	struct stream *s = cls;
	size_t n;

	(void)pos;
	if (s->off == s->len) {
		s->off = s->len = 0;
		if (s->ended) {
			count(s, 0);
			return MHD_CONTENT_READER_END_OF_STREAM;
		}
		if (fill(s)) {
			count(s, 0);
			return MHD_CONTENT_READER_END_WITH_ERROR;
		}
		if (s->len == 0) {
			count(s, 0);
			return MHD_CONTENT_READER_END_OF_STREAM;
		}
	}
	n = s->len - s->off;
	if (n > max)
		n = max;
	memcpy(out, s->buf + s->off, n);
	s->off += n;
	return (ssize_t)n;
}

static void on_free(void *cls)
{
	struct stream *s = cls;

	count(s, 0);
	runlog_unref(s->log);
	free(s->buf);
	free(s);
}

enum MHD_Result stream_respond(struct http_request *rq, struct runlog *log,
			       int64_t after, int ndjson)
{
	struct stream *s = calloc(1, sizeof(*s));
	struct MHD_Response *resp;

	if (!s) {
		runlog_unref(log);
		return MHD_NO;
	}
	s->log = log;
	s->after = after;
	s->ndjson = ndjson;
	count(s, 1);
	resp = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, BLOCK_SIZE,
						 on_read, s, on_free);
	if (!resp) {
		on_free(s);
		return MHD_NO;
	}
	MHD_add_response_header(resp, "Content-Type",
				ndjson ? "application/x-ndjson"
				       : "text/event-stream; charset=utf-8");
	MHD_add_response_header(resp, "Cache-Control", "no-store");
	MHD_add_response_header(resp, "X-Accel-Buffering", "no");
	return http_respond(rq, MHD_HTTP_OK, resp);
}
