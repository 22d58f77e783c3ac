/* stream.c - a run's events to clients as Server-Sent Events or NDJSON: suspended while there is nothing to send, resumed by one pump thread */
#include "stream.h"
#include "deadline.h"

#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define KEEPALIVE_MS 15000
#define PUMP_TICK_MS 1000   /* how often the keepalives are looked at */
#define FILL_MAX (8 * 1024) /* bytes formatted per wake-up */
#define KEEP_BUF (8 * 1024) /* a larger buffer is given back while waiting */
#define BLOCK_SIZE (8 * 1024)
#define COPY_MAX 1024 /* larger events are not copied into the buffer */

struct stream {
	struct runlog *log;
	struct MHD_Connection *conn;
	int64_t after;	 /* the last seq formatted */
	int64_t sent_ms; /* when something was last formatted */
	int ndjson;
	int started;
	int ended;
	int counted;
	char *buf;
	size_t len, off, cap;
	/* a large event is sent from the log itself, not copied */
	const struct runlog_event *cur;
	size_t cur_off;
	/* under hub.mu */
	int suspended;
	int64_t wait_after, wait_since;
	struct stream *prev, *next;
};

/*
 * The suspended streams and the thread that resumes them: woken by every
 * append to any log, and once a second for the keepalives.
 */
static struct {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct stream *head;
	unsigned long gen;
	int started, stopping;
	pthread_t thread;
} hub = {.mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER};

static pthread_mutex_t count_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t count_cv = PTHREAD_COND_INITIALIZER;
static int active;

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

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
		if (pthread_cond_timedwait(&count_cv, &count_mu, &dl) ==
		    ETIMEDOUT)
			break;
	pthread_mutex_unlock(&count_mu);
}

/* Called with hub.mu held. */
static void unlink_stream(struct stream *s)
{
	if (s->prev)
		s->prev->next = s->next;
	else
		hub.head = s->next;
	if (s->next)
		s->next->prev = s->prev;
	s->prev = s->next = NULL;
	s->suspended = 0;
}

/* Called with hub.mu held: something came, the log ended, or a keepalive is
 * due. */
static int wants_resume(struct stream *s, int64_t now)
{
	return runlog_last_seq(s->log) > s->wait_after ||
	       runlog_closed(s->log) || now - s->wait_since >= KEEPALIVE_MS;
}

static void *pump(void *arg)
{
	unsigned long seen;
	struct timespec dl;

	(void)arg;
	pthread_mutex_lock(&hub.mu);
	seen = hub.gen;
	while (!hub.stopping) {
		dl = deadline_in(CLOCK_MONOTONIC, PUMP_TICK_MS);
		while (hub.gen == seen && !hub.stopping)
			if (pthread_cond_timedwait(&hub.cv, &hub.mu, &dl) ==
			    ETIMEDOUT)
				break;
		seen = hub.gen;
		int64_t now = now_ms();
		for (struct stream *s = hub.head, *next; s; s = next) {
			next = s->next;
			if (hub.stopping || wants_resume(s, now)) {
				unlink_stream(s);
				MHD_resume_connection(s->conn);
			}
		}
	}
	for (struct stream *s = hub.head, *next; s; s = next) {
		next = s->next;
		unlink_stream(s);
		MHD_resume_connection(s->conn);
	}
	pthread_mutex_unlock(&hub.mu);
	return NULL;
}

static void on_change(void)
{
	pthread_mutex_lock(&hub.mu);
	hub.gen++;
	pthread_cond_signal(&hub.cv);
	pthread_mutex_unlock(&hub.mu);
}

/* The pump, once; 0 or -errno. */
static int hub_start(void)
{
	pthread_condattr_t ca;
	int rc = 0;

	pthread_mutex_lock(&hub.mu);
	if (hub.started || hub.stopping) {
		rc = hub.stopping ? -ESHUTDOWN : 0;
		goto out;
	}
	/* the pump waits on CLOCK_MONOTONIC, as deadline_in gives */
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_destroy(&hub.cv);
	pthread_cond_init(&hub.cv, &ca);
	pthread_condattr_destroy(&ca);
	rc = -pthread_create(&hub.thread, NULL, pump, NULL);
	if (!rc) {
		hub.started = 1;
		runlog_set_change_hook(on_change);
	}
out:
	pthread_mutex_unlock(&hub.mu);
	return rc;
}

void stream_stop(void)
{
	int started;

	pthread_mutex_lock(&hub.mu);
	hub.stopping = 1;
	started = hub.started;
	pthread_cond_signal(&hub.cv);
	pthread_mutex_unlock(&hub.mu);
	if (started) {
		runlog_set_change_hook(NULL);
		pthread_join(hub.thread, NULL);
	}
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
	n = snprintf(head, sizeof(head),
		     "id: %lld\nevent: %s\ndata: ", (long long)e->seq, e->type);
	if (put(s, head, (size_t)n) || put(s, e->json, e->len) ||
	    put(s, "\n\n", 2))
		return -ENOMEM;
	return 0;
}

/* Fills the buffer with what there is now, never waiting: events, or a
 * keepalive after a quiet while (how a client that left is noticed). */
static int fill(struct stream *s)
{
	const struct runlog_event *e;
	int64_t now = now_ms();

	if (!s->started) {
		s->started = 1;
		s->sent_ms = now;
		if (!s->ndjson) {
			char hello[96];
			int n = snprintf(
				hello, sizeof(hello),
				"retry: 3000\n: events of run %lld\n\n",
				(long long)runlog_run_id(s->log));
			return put(s, hello, (size_t)n);
		}
	}
	while (s->len < FILL_MAX && (e = runlog_next(s->log, s->after))) {
		s->after = e->seq;
		if (e->len > COPY_MAX) {
			/* its head now, its text from the log, its end after */
			char head[96];
			int n = s->ndjson
					? 0
					: snprintf(
						  head, sizeof(head),
						  "id: %lld\nevent: %s\ndata: ",
						  (long long)e->seq, e->type);
			if (put(s, head, (size_t)n))
				return -ENOMEM;
			s->cur = e;
			s->cur_off = 0;
			break;
		}
		if (put_event(s, e))
			return -ENOMEM;
	}
	if (!s->cur && runlog_closed(s->log) && !runlog_next(s->log, s->after))
		s->ended = 1;
	if (!s->len && !s->cur && !s->ended &&
	    now - s->sent_ms >= KEEPALIVE_MS) {
		if (s->ndjson ? put(s, "\n", 1) : put(s, ": keepalive\n\n", 13))
			return -ENOMEM;
	}
	if (s->len || s->cur)
		s->sent_ms = now;
	return 0;
}

/* The rest of the large event being sent, then its end into the buffer. */
static size_t send_cur(struct stream *s, char *out, size_t max)
{
	size_t n = s->cur->len - s->cur_off;

	if (n > max)
		n = max;
	memcpy(out, s->cur->json + s->cur_off, n);
	s->cur_off += n;
	if (s->cur_off == s->cur->len) {
		s->cur = NULL;
		s->off = s->len = 0;
		if (s->ndjson ? put(s, "\n", 1) : put(s, "\n\n", 2))
			return (size_t)-1;
	}
	return n;
}

/*
 * Nothing to send: park the connection until the pump sees something for
 * it. 1 when it was suspended; 0 when something came meanwhile or the
 * server is stopping (s->ended then set).
 */
static int park(struct stream *s)
{
	int parked = 0;

	pthread_mutex_lock(&hub.mu);
	if (hub.stopping) {
		s->ended = 1;
	} else if (runlog_last_seq(s->log) <= s->after &&
		   !runlog_closed(s->log)) {
		s->wait_after = s->after;
		s->wait_since = s->sent_ms;
		s->prev = NULL;
		s->next = hub.head;
		if (hub.head)
			hub.head->prev = s;
		hub.head = s;
		s->suspended = 1;
		MHD_suspend_connection(s->conn);
		parked = 1;
	}
	pthread_mutex_unlock(&hub.mu);
	return parked;
}

static ssize_t on_read(void *cls, uint64_t pos, char *out, size_t max)
{
	struct stream *s = cls;
	size_t n;

	(void)pos;
	while (s->off == s->len) {
		if (s->cur) {
			n = send_cur(s, out, max);
			if (n == (size_t)-1) {
				count(s, 0);
				return MHD_CONTENT_READER_END_WITH_ERROR;
			}
			return (ssize_t)n;
		}
		s->off = s->len = 0;
		if (s->ended) {
			count(s, 0);
			return MHD_CONTENT_READER_END_OF_STREAM;
		}
		if (fill(s)) {
			count(s, 0);
			return MHD_CONTENT_READER_END_WITH_ERROR;
		}
		if (s->len || s->cur || s->ended)
			continue;
		if (s->cap > KEEP_BUF) {
			free(s->buf);
			s->buf = NULL;
			s->cap = 0;
		}
		if (park(s))
			return 0;
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

	pthread_mutex_lock(&hub.mu);
	if (s->suspended)
		unlink_stream(s);
	pthread_mutex_unlock(&hub.mu);
	count(s, 0);
	runlog_unref(s->log);
	free(s->buf);
	free(s);
	/* the last reader of a large stored run gone: give its pages back */
	if (!stream_count())
		malloc_trim(0);
}

enum MHD_Result stream_respond(struct http_request *rq, struct runlog *log,
			       int64_t after, int ndjson)
{
	struct stream *s = calloc(1, sizeof(*s));
	struct MHD_Response *resp;

	if (!s || hub_start()) {
		free(s);
		runlog_unref(log);
		return http_error(rq, MHD_HTTP_SERVICE_UNAVAILABLE, NULL,
				  "the server is shutting down");
	}
	s->log = log;
	s->conn = rq->conn;
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
