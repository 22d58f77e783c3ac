/* stream.c - a run's events to clients as Server-Sent Events or NDJSON, copied from the shared log: suspended while there is nothing to send, resumed by one pump thread, per log and in batches */
#include "stream.h"
#include "clock.h"
#include "deadline.h"
#include "strbuf.h"

#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define KEEPALIVE_MS 15000
#define PUMP_TICK_MS 1000 /* how often the keepalives are looked at */
/*
 * libmicrohttpd's own buffer for a response; a chunked stream (HTTP/1.1) is
 * written into the connection's pool instead, so it only serves HTTP/1.0.
 */
#define BLOCK_SIZE 128

struct waitq;

struct stream {
	struct runlog *log;
	struct MHD_Connection *conn;
	int64_t after;	 /* the last seq formatted */
	int64_t sent_ms; /* when something was last formatted */
	int ndjson;
	int started;
	int ended;
	int counted;
	/*
	 * No buffer of its own: what is sent next is a short text (greeting,
	 * an event's head or end, keepalive) and the event's text, read from
	 * the log that every subscriber shares.
	 */
	char small[96];
	size_t small_len, small_off;
	const struct runlog_event *cur;
	size_t cur_off;
	/* under hub.mu */
	int suspended;	     /* on a list: its log's waiters, or hub.ready */
	unsigned long batch; /* the batch it was resumed in, until served; 0 */
	struct waitq *q;     /* the list it is on: q's, or hub.ready (NULL) */
	int64_t wait_after, wait_since;
	struct stream *prev, *next;
};

/* The streams suspended on one log, resumed only when that log changes. */
struct waitq {
	struct runlog *log;
	struct stream *head;
	int changed; /* appended to or closed since the pump last looked */
	struct waitq *next;
};

#define WAITQ_BUCKETS 64
/*
 * Resumed at once, at most: libmicrohttpd serves them (writes each) before
 * it looks at its other connections again, so a crowd resumed in batches
 * lets a request that comes meanwhile wait one batch, not the crowd.
 */
#define RESUME_BATCH 32
#define BATCH_WAIT_MS 2 /* the longest the pump waits on a batch's writes */

/*
 * The suspended streams, by log, and the thread that resumes them: woken
 * by an append to a log someone waits on, and once a second for the
 * keepalives.
 */
static struct {
	pthread_mutex_t mu;
	pthread_cond_t cv;	  /* a log changed, or stopping */
	pthread_cond_t served_cv; /* a resumed stream of this batch served */
	struct waitq *qs[WAITQ_BUCKETS];
	struct stream *ready, *ready_tail; /* to be resumed, in order */
	unsigned long batch;		   /* the batch being served */
	int unserved;			   /* of that batch */
	int changed, started, stopping;
	int resuming; /* taken off the lists by on_change, not yet resumed */
	pthread_t thread;
} hub = {.mu = PTHREAD_MUTEX_INITIALIZER,
	 .cv = PTHREAD_COND_INITIALIZER,
	 .served_cv = PTHREAD_COND_INITIALIZER};

/* Counts s in (up: 1 when there was room under the limit, else 0) or out. */
static int count(struct stream *s, int up)
{
	if (up && !s->counted) {
		s->counted = viewers_enter();
	} else if (!up && s->counted) {
		viewers_leave();
		s->counted = 0;
	}
	return !up || s->counted;
}

static int64_t now_ms(void)
{
	return (int64_t)(clock_now() * 1000);
}

static struct waitq **bucket(struct runlog *log)
{
	return &hub.qs[((uintptr_t)log >> 6) % WAITQ_BUCKETS];
}

/* Called with hub.mu held: the waiters on log; made when make is set and
 * there are none (NULL on ENOMEM), else NULL. */
static struct waitq *waitq_of(struct runlog *log, int make)
{
	struct waitq **b = bucket(log), *q;

	for (q = *b; q; q = q->next)
		if (q->log == log)
			return q;
	if (!make || !(q = calloc(1, sizeof(*q))))
		return NULL;
	q->log = log;
	q->next = *b;
	*b = q;
	return q;
}

/* Called with hub.mu held: takes s off its list (a log's waiters, emptied
 * then freed, or hub.ready). */
static void unlink_stream(struct stream *s)
{
	struct waitq *q = s->q, **p;

	if (s->prev)
		s->prev->next = s->next;
	else if (q)
		q->head = s->next;
	else
		hub.ready = s->next;
	if (s->next)
		s->next->prev = s->prev;
	else if (!q)
		hub.ready_tail = s->prev;
	s->prev = s->next = NULL;
	s->q = NULL;
	s->suspended = 0;
	if (q && !q->head) {
		for (p = bucket(q->log); *p != q; p = &(*p)->next)
			;
		*p = q->next;
		free(q);
	}
}

/* Called with hub.mu held: s (still suspended) to the end of hub.ready. */
static void to_ready(struct stream *s)
{
	unlink_stream(s);
	s->suspended = 1;
	s->prev = hub.ready_tail;
	if (hub.ready_tail)
		hub.ready_tail->next = s;
	else
		hub.ready = s;
	hub.ready_tail = s;
}

/* Called with hub.mu held: moves q's waiters that have something to send
 * (an event, the end, a keepalive) to hub.ready; q may be freed. */
static void collect_q(struct waitq *q, int64_t now)
{
	int64_t last = runlog_last_seq(q->log);
	int end = hub.stopping || runlog_closed(q->log);

	q->changed = 0;
	for (struct stream *s = q->head, *ns; s; s = ns) {
		ns = s->next;
		if (end || last > s->wait_after ||
		    now - s->wait_since >= KEEPALIVE_MS)
			to_ready(s);
	}
}

/*
 * Called with hub.mu held: collect_q for the logs that changed, or for
 * every log when all is set (the keepalives' tick).
 */
static void collect(int all)
{
	int64_t now = now_ms();

	for (int i = 0; i < WAITQ_BUCKETS; i++) {
		for (struct waitq *q = hub.qs[i], *nq; q; q = nq) {
			nq = q->next; /* q is freed when its last waiter goes */
			if (all || q->changed)
				collect_q(q, now);
		}
	}
	hub.changed = 0;
}

/* Called with hub.mu held: whether more than n streams are in s's list. */
static int more_than(const struct stream *s, int n)
{
	for (; s && n >= 0; s = s->next)
		n--;
	return n < 0;
}

/*
 * Called with hub.mu held: resumes hub.ready a batch at a time, waiting
 * (at most BATCH_WAIT_MS) until libmicrohttpd has served one before the
 * next, so that its threads look at their other connections in between.
 */
static void resume_ready(void)
{
	struct timespec dl;

	while (hub.ready) {
		/* a crowd's last batch, or its only one, is not waited on:
		 * nothing waits for its turn after it */
		int wait = !hub.stopping && more_than(hub.ready, RESUME_BATCH);

		if (wait && !++hub.batch)
			hub.batch = 1;
		if (wait)
			hub.unserved = 0;
		for (int n = 0; n < RESUME_BATCH && hub.ready; n++) {
			struct stream *s = hub.ready;
			unlink_stream(s);
			if (wait) {
				__atomic_store_n(&s->batch, hub.batch,
						 __ATOMIC_RELAXED);
				hub.unserved++;
			}
			MHD_resume_connection(s->conn);
		}
		if (!wait)
			continue;
		dl = deadline_in(CLOCK_MONOTONIC, BATCH_WAIT_MS);
		while (hub.unserved > 0 && !hub.stopping)
			if (pthread_cond_timedwait(&hub.served_cv, &hub.mu,
						   &dl) == ETIMEDOUT)
				break;
		if (hub.changed || hub.stopping)
			collect(hub.stopping);
	}
}

/* Called with hub.mu held: s was resumed in a batch and is now served. */
static void served(struct stream *s)
{
	if (s->batch == hub.batch && --hub.unserved <= 0)
		pthread_cond_signal(&hub.served_cv);
	__atomic_store_n(&s->batch, 0, __ATOMIC_RELAXED);
}

static void *pump(void *arg)
{
	struct timespec dl;
	int64_t tick = now_ms(), now;

	(void)arg;
	pthread_mutex_lock(&hub.mu);
	while (!hub.stopping) {
		now = now_ms();
		if (now - tick < PUMP_TICK_MS) {
			dl = deadline_in(CLOCK_MONOTONIC,
					 (int)(PUMP_TICK_MS - (now - tick)));
			while (!hub.changed && !hub.stopping)
				if (pthread_cond_timedwait(&hub.cv, &hub.mu,
							   &dl) == ETIMEDOUT)
					break;
			now = now_ms();
		}
		int all = hub.stopping || now - tick >= PUMP_TICK_MS;
		if (all)
			tick = now;
		collect(all);
		resume_ready();
	}
	collect(1);
	resume_ready();
	pthread_mutex_unlock(&hub.mu);
	return NULL;
}

/*
 * The runlog's hook: log was appended to or closed. A few waiters, when
 * no others wait to be resumed, are resumed by the appender once hub.mu is
 * let go (a viewer's thread woken on its cpu would find it held when it
 * parks again); the pump is woken for a crowd.
 */
static void on_change(struct runlog *log)
{
	struct MHD_Connection *conns[RESUME_BATCH + 1];
	int n = 0;

	pthread_mutex_lock(&hub.mu);
	struct waitq *q = waitq_of(log, 0);
	if (q && !q->changed && !hub.ready && !hub.stopping &&
	    !more_than(q->head, RESUME_BATCH)) {
		collect_q(q, now_ms());
		/* off every list: only this thread resumes them now */
		while (hub.ready && n <= RESUME_BATCH) {
			struct stream *s = hub.ready;
			unlink_stream(s);
			conns[n++] = s->conn;
		}
		__atomic_add_fetch(&hub.resuming, n, __ATOMIC_RELAXED);
	} else if (q && !q->changed) {
		q->changed = 1;
		hub.changed = 1;
		pthread_cond_signal(&hub.cv);
	}
	pthread_mutex_unlock(&hub.mu);
	for (int i = 0; i < n; i++)
		MHD_resume_connection(conns[i]);
	if (n)
		__atomic_sub_fetch(&hub.resuming, n, __ATOMIC_RELEASE);
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
	pthread_cond_destroy(&hub.served_cv);
	pthread_cond_init(&hub.served_cv, &ca);
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
	pthread_cond_signal(&hub.served_cv);
	pthread_mutex_unlock(&hub.mu);
	if (started) {
		runlog_set_change_hook(NULL);
		pthread_join(hub.thread, NULL);
	}
	/* libmicrohttpd must stop with no connection suspended */
	while (__atomic_load_n(&hub.resuming, __ATOMIC_ACQUIRE))
		sched_yield();
}

/* Queues a short text (a head, a tail, a keepalive) before anything else. */
static void set_small(struct stream *s, const char *a, size_t n)
{
	memcpy(s->small, a, n);
	s->small_len = n;
	s->small_off = 0;
}

/* An event's head, "id: SEQ\nevent: TYPE\ndata: ", into out (of the size
 * of a stream's small text: a type is 31 bytes at most); its length. */
static size_t event_head(char *out, const struct runlog_event *e)
{
	size_t n = 4 + strbuf_int_text(stpcpy(out, "id: "), (long long)e->seq);
	char *p = stpcpy(stpcpy(out + n, "\nevent: "), e->type);

	return (size_t)(stpcpy(p, "\ndata: ") - out);
}

/*
 * Queues what there is to send next, never waiting: the greeting, the next
 * event (its head here, its text from the log), or a keepalive after a
 * quiet while (how a client that left is noticed). 1 when something was
 * queued; 0 when there is nothing now (s->ended set when nothing more
 * will come).
 */
static int next(struct stream *s)
{
	const struct runlog_event *e;
	int64_t now = now_ms();
	int closed, n;

	if (!s->started) {
		s->started = 1;
		s->sent_ms = now;
		if (!s->ndjson) {
			/* a campaign's or the class's feed is of no run (a
			 * precision of 0 writes no digit for a 0) */
			long long id = (long long)runlog_run_id(s->log);
			n = snprintf(s->small, sizeof(s->small),
				     "retry: 3000\n: events %s%.0lld\n\n",
				     id > 0 ? "of run " : "follow", id);
			s->small_len = (size_t)n;
			s->small_off = 0;
			return 1;
		}
	}
	/* closed first: every event appended before the close is seen */
	closed = runlog_closed(s->log);
	e = runlog_next(s->log, s->after);
	if (e) {
		s->after = e->seq;
		s->cur = e;
		s->cur_off = 0;
		s->sent_ms = now;
		s->small_len = s->ndjson ? 0 : event_head(s->small, e);
		s->small_off = 0;
		return 1;
	}
	if (closed) {
		s->ended = 1;
		return 0;
	}
	if (now - s->sent_ms >= KEEPALIVE_MS) {
		s->sent_ms = now;
		if (s->ndjson)
			set_small(s, "\n", 1);
		else
			set_small(s, ": keepalive\n\n", 13);
		return 1;
	}
	return 0;
}

/* Copies what is queued into out, up to max bytes; how many it copied. */
static size_t copy_out(struct stream *s, char *out, size_t max)
{
	size_t n = 0, k;

	while (n < max) {
		if (s->small_off < s->small_len) {
			k = s->small_len - s->small_off;
			k = k < max - n ? k : max - n;
			memcpy(out + n, s->small + s->small_off, k);
			s->small_off += k;
		} else if (s->cur) {
			k = s->cur->len - s->cur_off;
			k = k < max - n ? k : max - n;
			memcpy(out + n, s->cur->json + s->cur_off, k);
			s->cur_off += k;
			if (s->cur_off == s->cur->len) {
				s->cur = NULL;
				if (s->ndjson)
					set_small(s, "\n", 1);
				else
					set_small(s, "\n\n", 2);
			}
		} else if (next(s)) {
			k = 0;
		} else {
			break;
		}
		n += k;
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
	struct waitq *q;
	int parked = 0;

	pthread_mutex_lock(&hub.mu);
	if (hub.stopping) {
		s->ended = 1;
	} else if (runlog_last_seq(s->log) <= s->after &&
		   !runlog_closed(s->log)) {
		q = waitq_of(s->log, 1);
		if (!q) {
			/* no memory to wait in: end, the client comes back */
			s->ended = 1;
			goto out;
		}
		s->wait_after = s->after;
		s->wait_since = s->sent_ms;
		s->q = q;
		s->prev = NULL;
		s->next = q->head;
		if (q->head)
			q->head->prev = s;
		q->head = s;
		s->suspended = 1;
		MHD_suspend_connection(s->conn);
		parked = 1;
	}
out:
	pthread_mutex_unlock(&hub.mu);
	return parked;
}

static ssize_t on_read(void *cls, uint64_t pos, char *out, size_t max)
{
	struct stream *s = cls;
	size_t n;

	(void)pos;
	if (__atomic_load_n(&s->batch, __ATOMIC_RELAXED)) {
		pthread_mutex_lock(&hub.mu);
		served(s);
		pthread_mutex_unlock(&hub.mu);
	}
	for (;;) {
		n = copy_out(s, out, max);
		if (n || !max)
			return (ssize_t)n;
		if (s->ended) {
			count(s, 0);
			return MHD_CONTENT_READER_END_OF_STREAM;
		}
		if (park(s))
			return 0;
	}
}

static void on_free(void *cls)
{
	struct stream *s = cls;
	int freed;

	pthread_mutex_lock(&hub.mu);
	if (s->suspended)
		unlink_stream(s);
	if (s->batch)
		served(s);
	pthread_mutex_unlock(&hub.mu);
	count(s, 0);
	freed = runlog_unref(s->log);
	free(s);
	/* the last reader of a stored run gone: give its pages back (a live
	 * run's log stays with the runner: nothing to give back, and a trim
	 * at each run's end costs its pages' faults again) */
	if (freed && !viewers_active())
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
	if (!count(s, 1)) {
		on_free(s);
		resp = http_error_response(
			NULL,
			"the server is sending its limit of %d event streams "
			"(serve --max-viewers): try again later",
			viewers_limit());
		if (resp)
			MHD_add_response_header(resp, "Retry-After", "10");
		return http_respond(rq, MHD_HTTP_SERVICE_UNAVAILABLE, resp);
	}
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
