/* runlog.c - the in-memory event log of a run: append, wait, replay */
#include "runlog.h"
#include "deadline.h"
#include "jsondump.h"
#include "strbuf.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct runlog {
	pthread_mutex_t mu;
	pthread_cond_t cv; /* on CLOCK_MONOTONIC: an append or the close */
	int refs;	   /* atomic */
	int64_t run_id;
	struct runlog_event **ev; /* seq increasing */
	int64_t n, cap;
	/*
	 * Readers see ev[0..npub): an event the runner holds back until the
	 * store has it (runlog_append_held) is not shown to a subscriber, so
	 * nothing a client saw is missing after a crash.
	 */
	int64_t npub;
	int closed;
	void (*on_free)(struct runlog *, void *);
	void *on_free_arg;
};

static void (*change_hook)(struct runlog *);

void runlog_set_change_hook(void (*fn)(struct runlog *))
{
	__atomic_store_n(&change_hook, fn, __ATOMIC_RELEASE);
}

/* After the lock is let go: the hook may look at any log. */
static void changed(struct runlog *log)
{
	void (*fn)(struct runlog *) =
		__atomic_load_n(&change_hook, __ATOMIC_ACQUIRE);

	if (fn)
		fn(log);
}

struct runlog *runlog_new(int64_t run_id)
{
	struct runlog *log = calloc(1, sizeof(*log));
	pthread_condattr_t ca;

	if (!log)
		return NULL;
	pthread_mutex_init(&log->mu, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&log->cv, &ca);
	pthread_condattr_destroy(&ca);
	log->refs = 1;
	log->run_id = run_id;
	return log;
}

struct runlog *runlog_ref(struct runlog *log)
{
	if (log)
		__atomic_add_fetch(&log->refs, 1, __ATOMIC_RELAXED);
	return log;
}

struct runlog *runlog_ref_live(struct runlog *log)
{
	int n = __atomic_load_n(&log->refs, __ATOMIC_RELAXED);

	while (n > 0)
		if (__atomic_compare_exchange_n(&log->refs, &n, n + 1, 0,
						__ATOMIC_ACQ_REL,
						__ATOMIC_RELAXED))
			return log;
	return NULL;
}

void runlog_on_free(struct runlog *log, void (*fn)(struct runlog *, void *),
		    void *arg)
{
	log->on_free = fn;
	log->on_free_arg = arg;
}

int runlog_unref(struct runlog *log)
{
	if (!log || __atomic_sub_fetch(&log->refs, 1, __ATOMIC_ACQ_REL))
		return 0;
	if (log->on_free)
		log->on_free(log, log->on_free_arg);
	for (int64_t i = 0; i < log->n; i++) {
		free(log->ev[i]->json);
		free(log->ev[i]);
	}
	free(log->ev);
	pthread_cond_destroy(&log->cv);
	pthread_mutex_destroy(&log->mu);
	free(log);
	return 1;
}

int64_t runlog_run_id(const struct runlog *log)
{
	return log->run_id;
}

/* Called with mu held. Takes ownership of e on success. */
static int push(struct runlog *log, struct runlog_event *e, int held)
{
	if (log->closed)
		return -EPIPE;
	if (log->n == log->cap) {
		int64_t cap = log->cap ? log->cap * 2 : 64;
		struct runlog_event **v =
			realloc(log->ev, (size_t)cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		log->ev = v;
		log->cap = cap;
	}
	log->ev[log->n++] = e;
	if (!held) {
		log->npub = log->n;
		pthread_cond_broadcast(&log->cv);
	}
	return 0;
}

static struct runlog_event *event_new(int64_t seq, const char *type, char *json)
{
	struct runlog_event *e = calloc(1, sizeof(*e));

	if (!e)
		return NULL;
	e->seq = seq;
	memcpy(e->type, type, strnlen(type, sizeof(e->type) - 1));
	e->json = json;
	e->len = strlen(json);
	return e;
}

/*
 * The text of ev numbered seq: the worker's own line (text, len) with the
 * seq put first, so that it is not serialised again, when that line is one
 * object on one line that has no seq of its own; else ev serialised.
 * Malloc'd; NULL on ENOMEM.
 */
static char *event_text(json_t *ev, int64_t seq, const char *text, size_t len)
{
	char head[32], *out;
	int n;

	while (text && len && (text[len - 1] == ' ' || text[len - 1] == '\t'))
		len--;
	/* JSON may put a carriage return between tokens: an event stream
	 * would take it for the end of a line */
	if (!text || len < 3 || text[0] != '{' || text[len - 1] != '}' ||
	    memchr(text, '\r', len) || memchr(text, '\n', len)) {
		if (!ev) {
			errno = EINVAL;
			return NULL;
		}
		json_object_set_new(ev, "seq", json_integer(seq));
		return jsondump_text(ev, NULL);
	}
	memcpy(head, "{\"seq\":", 7);
	n = 7 + (int)strbuf_int_text(head + 7, (long long)seq);
	head[n++] = ',';
	out = malloc((size_t)n + len);
	if (!out)
		return NULL;
	memcpy(out, head, (size_t)n);
	memcpy(out + n, text + 1, len - 1);
	out[n + len - 1] = '\0';
	return out;
}

/* ev numbered, or (ev NULL) the text of an event of this type that has
 * no seq of its own, which must then be one object on one line */
static const struct runlog_event *append(struct runlog *log, json_t *ev,
					 const char *type, const char *text,
					 size_t len, int held)
{
	struct runlog_event *e = NULL;
	char *json = NULL;
	int rc;

	if (ev)
		type = json_string_value(json_object_get(ev, "type"));
	if (!type || !*type || (!ev && !text)) {
		errno = EINVAL;
		return NULL;
	}
	/* a line that names its own seq is not the worker's to number */
	if (ev && json_object_get(ev, "seq"))
		text = NULL;
	pthread_mutex_lock(&log->mu);
	if (log->closed) {
		rc = -EPIPE;
		goto fail;
	}
	int64_t seq = log->n ? log->ev[log->n - 1]->seq + 1 : 1;
	json = event_text(ev, seq, text, len);
	e = json ? event_new(seq, type, json) : NULL;
	if (!e) {
		rc = json || errno != EINVAL ? -ENOMEM : -EINVAL;
		goto fail;
	}
	rc = push(log, e, held);
	if (rc)
		goto fail;
	pthread_mutex_unlock(&log->mu);
	if (!held)
		changed(log);
	return e;
fail:
	pthread_mutex_unlock(&log->mu);
	if (e)
		free(e);
	free(json);
	errno = -rc;
	return NULL;
}

const struct runlog_event *runlog_append(struct runlog *log, json_t *ev)
{
	return append(log, ev, NULL, NULL, 0, 0);
}

const struct runlog_event *runlog_append_held(struct runlog *log, json_t *ev,
					      const char *text, size_t len)
{
	return append(log, ev, NULL, text, len, 1);
}

const struct runlog_event *runlog_append_text_held(struct runlog *log,
						   const char *type,
						   const char *text, size_t len)
{
	return append(log, NULL, type, text, len, 1);
}

void runlog_publish(struct runlog *log)
{
	int more;

	pthread_mutex_lock(&log->mu);
	more = log->npub != log->n;
	log->npub = log->n;
	if (more)
		pthread_cond_broadcast(&log->cv);
	pthread_mutex_unlock(&log->mu);
	if (more)
		changed(log);
}

int runlog_append_raw(struct runlog *log, int64_t seq, const char *type,
		      const char *json, size_t len)
{
	char *copy = strndup(json, len);
	struct runlog_event *e = copy ? event_new(seq, type, copy) : NULL;
	int rc;

	if (!e) {
		free(copy);
		return -ENOMEM;
	}
	pthread_mutex_lock(&log->mu);
	if (log->n && seq <= log->ev[log->n - 1]->seq)
		rc = -EINVAL;
	else
		rc = push(log, e, 0);
	pthread_mutex_unlock(&log->mu);
	if (rc) {
		free(e->json);
		free(e);
	}
	return rc;
}

void runlog_close(struct runlog *log)
{
	pthread_mutex_lock(&log->mu);
	log->closed = 1;
	log->npub = log->n;
	pthread_cond_broadcast(&log->cv);
	pthread_mutex_unlock(&log->mu);
	changed(log);
}

int runlog_closed(struct runlog *log)
{
	pthread_mutex_lock(&log->mu);
	int c = log->closed;
	pthread_mutex_unlock(&log->mu);
	return c;
}

static int64_t last_seq(const struct runlog *log)
{
	return log->npub ? log->ev[log->npub - 1]->seq : 0;
}

int64_t runlog_last_seq(struct runlog *log)
{
	pthread_mutex_lock(&log->mu);
	int64_t s = last_seq(log);
	pthread_mutex_unlock(&log->mu);
	return s;
}

/* Events with seq > after: seqs are increasing but may have gaps (replay). */
static int64_t count_after(const struct runlog *log, int64_t after)
{
	int64_t lo = 0, hi = log->npub;

	while (lo < hi) {
		int64_t mid = lo + (hi - lo) / 2;
		if (log->ev[mid]->seq <= after)
			lo = mid + 1;
		else
			hi = mid;
	}
	return log->npub - lo;
}

const struct runlog_event *runlog_next(struct runlog *log, int64_t after)
{
	const struct runlog_event *e = NULL;

	pthread_mutex_lock(&log->mu);
	int64_t k = count_after(log, after);
	if (k)
		e = log->ev[log->npub - k];
	pthread_mutex_unlock(&log->mu);
	return e;
}
