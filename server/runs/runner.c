/* runner.c - the bounded run queue: submit, cancel, lookup, and recording how each run ended */
#define _GNU_SOURCE
#include "runner.h"
#include "clock.h"
#include "harness_cpus.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "events.h"
#include "strbuf.h"
#include "strvec.h"
#include "worker.h"

#define CANCEL_WAIT_MS 10000 /* how long DELETE waits for the record */

/* ENDING: off the queue, on the recent list, being recorded as cancelled */
enum run_phase { PHASE_QUEUED, PHASE_RUNNING, PHASE_ENDING, PHASE_FINISHED };
enum cancel_kind { CANCEL_NONE, CANCEL_USER, CANCEL_SHUTDOWN };

struct run {
	int64_t id;
	struct strvec argv; /* the worker's */
	enum run_phase phase;
	enum cancel_kind cancel;
	struct run_state st;
	struct runlog *log;
	double estimate_s; /* < 0: none */
	double finished_mono;
	int in_recent;
	struct run *next;
};

struct runner {
	struct runner_config cfg;
	struct store *store;
	pthread_mutex_t mu;
	pthread_cond_t cv; /* queue non-empty, stopping, a run finished */
	pthread_t thread;
	int wake[2]; /* a byte here wakes the read loop: cancel */
	struct run *queue, *queue_tail;
	int nqueued;
	struct run *current;
	struct run *recent; /* finished, newest first */
	int stopping;
	struct harness_cpus cpus; /* only the runner thread moves them */
};

static void run_free(struct run *run)
{
	if (!run)
		return;
	strvec_clear(&run->argv);
	runlog_unref(run->log);
	free(run);
}

/* Drops finished runs kept too long, or beyond keep_max. mu held. */
static void prune_recent(struct runner *r)
{
	double now = clock_now();
	struct run **pp = &r->recent;
	int kept = 0;

	while (*pp) {
		struct run *run = *pp;
		if (run->phase == PHASE_FINISHED &&
		    (kept >= r->cfg.keep_max ||
		     now - run->finished_mono > r->cfg.keep_seconds)) {
			*pp = run->next;
			run_free(run);
			continue;
		}
		kept++;
		pp = &run->next;
	}
}

/* The run with this id among queued, current, recent. mu held. */
static struct run *find_run(struct runner *r, int64_t id)
{
	if (r->current && r->current->id == id)
		return r->current;
	for (struct run *q = r->queue; q; q = q->next)
		if (q->id == id)
			return q;
	for (struct run *q = r->recent; q; q = q->next)
		if (q->id == id)
			return q;
	return NULL;
}

static void wake_loop(struct runner *r)
{
	char c = 1;
	ssize_t w = write(r->wake[1], &c, 1);

	(void)w; /* a full pipe already wakes it */
}

/* Appends ev to the log and the store; steals ev. Returns 0 or -EIO. */
static int emit(struct runner *r, struct run *run, json_t *ev,
		struct errinfo *err)
{
	const struct runlog_event *e = runlog_append(run->log, ev);
	int rc = 0;

	if (e)
		rc = store_append_events(r->store, run->id, &e, 1, err);
	json_decref(ev);
	return rc;
}

/*
 * Records the end of a run: its state, the final event (type = status)
 * in the log and the store, the run row; closes the log and moves the
 * run to the recent list.
 */
static void finalize(struct runner *r, struct run *run, const char *status,
		     const char *error, json_t *summary, const char *headline)
{
	struct errinfo err;
	char now[32];
	char *sum = NULL;
	json_t *ev;

	store_timestamp(now, sizeof(now));
	pthread_mutex_lock(&r->mu);
	snprintf(run->st.status, sizeof(run->st.status), "%s", status);
	snprintf(run->st.finished_at, sizeof(run->st.finished_at), "%s", now);
	snprintf(run->st.error, sizeof(run->st.error), "%s",
		 error ? error : "");
	pthread_mutex_unlock(&r->mu);

	ev = events_final(status, error, summary, headline);
	if (emit(r, run, ev, &err))
		fprintf(stderr, "numalab: run %lld: %s\n", (long long)run->id,
			err.msg);
	sum = json_dumps(summary, JSON_COMPACT);
	if (store_run_finished(r->store, run->id, status, now, error, headline,
			       sum, &err))
		fprintf(stderr, "numalab: run %lld: %s\n", (long long)run->id,
			err.msg);
	free(sum);
	runlog_close(run->log);

	pthread_mutex_lock(&r->mu);
	run->phase = PHASE_FINISHED;
	run->finished_mono = clock_now();
	if (r->current == run)
		r->current = NULL;
	if (!run->in_recent) {
		run->next = r->recent;
		r->recent = run;
		run->in_recent = 1;
	}
	prune_recent(r);
	pthread_cond_broadcast(&r->cv);
	pthread_mutex_unlock(&r->mu);
}

/*
 * A point's placement arrives once it has run: the next points of a sweep
 * mostly run on the same CPUs, so the server's threads leave them (a run
 * that named its cpus has them moved from the start).
 */
static void avoid_point_cpus(struct runner *r, json_t *ev)
{
	json_t *threads = json_object_get(ev, "threads"), *t;
	int32_t cpus[CPU_SETSIZE];
	size_t i;
	int n = 0;

	json_array_foreach (threads, i, t) {
		json_t *c = json_object_get(t, "cpu");
		if (json_is_integer(c) && n < CPU_SETSIZE)
			cpus[n++] = (int32_t)json_integer_value(c);
	}
	if (n)
		harness_cpus_avoid_list(&r->cpus, cpus, n);
}

/* The value of a worker argument "name=value", or NULL. */
static const char *run_arg(const struct run *run, const char *name)
{
	size_t n = strlen(name);

	for (char **a = run->argv.v; *a; a++)
		if (!strncmp(*a, name, n) && (*a)[n] == '=')
			return *a + n + 1;
	return NULL;
}

/* The running run, as the worker supervisor's hooks see it. */
struct live {
	struct runner *r;
	struct run *run;
	json_t *outcome; /* the worker's events folded: summary, headline, end
			  */
	const struct runlog_event **batch; /* logged, not yet stored */
	int nbatch, cap;
};

static int on_started(void *ctx, struct errinfo *err)
{
	struct live *l = ctx;

	json_t *ev = event_status("running");

	harness_cpus_avoid(&l->r->cpus, run_arg(l->run, "cpus"));
	/* the page counts the time left down from it */
	if (ev && l->run->estimate_s >= 0)
		json_object_set_new(ev, "estimate_s",
				    json_real(l->run->estimate_s));
	if (emit(l->r, l->run, ev, err))
		return -EIO;
	/* a cancel that came before the worker existed */
	wake_loop(l->r);
	return 0;
}

static int on_flush(void *ctx, struct errinfo *err);

static int on_event(void *ctx, json_t *ev, const char *line, size_t len,
		    struct errinfo *err)
{
	struct live *l = ctx;
	const struct runlog_event *e;

	switch (event_type_of_event(ev)) {
	case EV_START: {
		json_t *m = json_object_get(ev, "machine");
		char *text = m ? json_dumps(m, JSON_COMPACT) : NULL;
		int rc = text ? store_run_machine(l->r->store, l->run->id, text,
						  err)
			      : 0;
		free(text);
		if (rc)
			return rc;
		break;
	}
	case EV_PLACEMENT:
		avoid_point_cpus(l->r, ev);
		break;
	default:
		break;
	}
	events_fold(l->outcome, ev, EVENTS_FOLD_OUTCOME);
	if (l->nbatch == l->cap) {
		int cap = l->cap ? l->cap * 2 : 64;
		const struct runlog_event **b =
			realloc(l->batch, (size_t)cap * sizeof(*b));
		if (!b)
			return errinfo_set(err, NULL,
					   "out of memory reading the worker");
		l->batch = b;
		l->cap = cap;
	}
	e = runlog_append_held(l->run->log, ev, line, len);
	if (e)
		l->batch[l->nbatch++] = e;
	/* a read can hold thousands: readers never see more than a batch the
	 * store has not kept (RUNLOG_UNSTORED_MAX) */
	if (l->nbatch >= RUNLOG_BATCH_MAX)
		return on_flush(l, err);
	return 0;
}

/* The events of one read go to the store in one transaction. */
static int on_flush(void *ctx, struct errinfo *err)
{
	struct live *l = ctx;
	int rc = 0;

	if (l->nbatch)
		rc = store_append_events(l->r->store, l->run->id, l->batch,
					 l->nbatch, err);
	l->nbatch = 0;
	/* stored (or the run fails on rc): now subscribers may see them */
	runlog_publish(l->run->log);
	return rc;
}

static int on_cancelled(void *ctx)
{
	struct live *l = ctx;

	pthread_mutex_lock(&l->r->mu);
	int cancel = l->run->cancel != CANCEL_NONE;
	pthread_mutex_unlock(&l->r->mu);
	return cancel;
}

static const char *outcome_text(struct live *l, const char *key)
{
	return json_string_value(json_object_get(l->outcome, key));
}

/* Runs one worker to its end and records how it ended. */
static void execute(struct runner *r, struct run *run)
{
	struct live l = {.r = r, .run = run, .outcome = events_doc_new()};
	const struct worker_ops ops = {.ctx = &l,
				       .started = on_started,
				       .event = on_event,
				       .flush = on_flush,
				       .cancelled = on_cancelled};
	const struct worker_spec spec = {.exe = r->cfg.exe,
					 .argv = run->argv.v,
					 .cpus = &r->cpus.all,
					 .max_seconds = r->cfg.max_run_seconds,
					 .wake_fd = r->wake[0],
					 .run_id = run->id};
	struct worker_end end = {0};
	struct strbuf msg = STRBUF_INIT;
	struct errinfo err;
	const char *status = "failed";
	char now[32];

	errinfo_clear(&err);
	store_timestamp(now, sizeof(now));
	pthread_mutex_lock(&r->mu);
	snprintf(run->st.status, sizeof(run->st.status), "running");
	snprintf(run->st.started_at, sizeof(run->st.started_at), "%s", now);
	pthread_mutex_unlock(&r->mu);
	if (!l.outcome) {
		strbuf_addstr(&msg, "out of memory");
		goto done;
	}
	if (store_run_started(r->store, run->id, now, &err) ||
	    worker_run(&spec, &ops, &end, &err)) {
		strbuf_addstr(&msg, err.msg);
		goto done;
	}
	harness_cpus_restore(&r->cpus);

	pthread_mutex_lock(&r->mu);
	enum cancel_kind cancel = run->cancel;
	pthread_mutex_unlock(&r->mu);
	if (cancel == CANCEL_USER) {
		status = "cancelled";
		strbuf_addstr(&msg, "cancelled on request");
	} else if (cancel == CANCEL_SHUTDOWN) {
		status = "cancelled";
		strbuf_addstr(&msg, "the server stopped during the run");
	} else {
		status = worker_explain(&end, outcome_text(&l, "status"),
					outcome_text(&l, "error"),
					r->cfg.max_run_seconds, &msg);
	}
done : {
	json_t *summary = json_object_get(l.outcome, "summary");
	json_t *empty = json_object();
	finalize(r, run, status,
		 strcmp(status, "done") ? strbuf_str(&msg) : NULL,
		 json_is_object(summary) ? summary : empty,
		 outcome_text(&l, "headline"));
	json_decref(empty);
}
	strbuf_release(&msg);
	worker_end_free(&end);
	json_decref(l.outcome);
	free(l.batch);
}

static void *runner_main(void *arg)
{
	struct runner *r = arg;

	pthread_mutex_lock(&r->mu);
	for (;;) {
		while (!r->queue && !r->stopping)
			pthread_cond_wait(&r->cv, &r->mu);
		if (r->stopping)
			break;
		struct run *run = r->queue;
		r->queue = run->next;
		if (!r->queue)
			r->queue_tail = NULL;
		r->nqueued--;
		run->next = NULL;
		run->phase = PHASE_RUNNING;
		r->current = run;
		pthread_mutex_unlock(&r->mu);
		execute(r, run);
		pthread_mutex_lock(&r->mu);
	}
	pthread_mutex_unlock(&r->mu);
	return NULL;
}

struct runner *runner_new(const struct runner_config *cfg, struct store *st)
{
	struct runner *r = calloc(1, sizeof(*r));
	int rc;

	if (!r)
		return NULL;
	r->cfg = *cfg;
	r->store = st;
	pthread_mutex_init(&r->mu, NULL);
	pthread_cond_init(&r->cv, NULL);
	if (pipe2(r->wake, O_CLOEXEC | O_NONBLOCK)) {
		rc = errno;
		goto fail;
	}
	rc = -harness_cpus_init(&r->cpus);
	if (rc)
		goto fail;
	rc = pthread_create(&r->thread, NULL, runner_main, r);
	if (rc)
		goto fail;
	return r;
fail:
	if (r->wake[0] > 0) {
		close(r->wake[0]);
		close(r->wake[1]);
	}
	pthread_cond_destroy(&r->cv);
	pthread_mutex_destroy(&r->mu);
	free(r);
	errno = rc;
	return NULL;
}

/* Takes a queued run off the queue onto the recent list. mu held. */
static void dequeue(struct runner *r, struct run *run)
{
	struct run **pp;

	for (pp = &r->queue; *pp != run; pp = &(*pp)->next)
		;
	*pp = run->next;
	r->queue_tail = NULL;
	for (struct run *q = r->queue; q; q = q->next)
		r->queue_tail = q;
	r->nqueued--;
	run->phase = PHASE_ENDING;
	run->next = r->recent;
	r->recent = run;
	run->in_recent = 1;
}

/* Records a run taken off the queue as cancelled. mu not held. */
static void cancel_queued(struct runner *r, struct run *run, const char *why)
{
	json_t *summary = json_object();

	finalize(r, run, "cancelled", why, summary, NULL);
	json_decref(summary);
}

void runner_stop(struct runner *r)
{
	pthread_mutex_lock(&r->mu);
	r->stopping = 1;
	if (r->current)
		r->current->cancel = CANCEL_SHUTDOWN;
	pthread_cond_broadcast(&r->cv);
	pthread_mutex_unlock(&r->mu);
	wake_loop(r);
	for (;;) {
		pthread_mutex_lock(&r->mu);
		struct run *q = r->queue;
		if (q) {
			q->cancel = CANCEL_SHUTDOWN;
			dequeue(r, q);
		}
		pthread_mutex_unlock(&r->mu);
		if (!q)
			break;
		cancel_queued(r, q,
			      "the server stopped before the run started");
	}
	pthread_join(r->thread, NULL);
}

void runner_free(struct runner *r)
{
	if (!r)
		return;
	while (r->recent) {
		struct run *next = r->recent->next;
		run_free(r->recent);
		r->recent = next;
	}
	close(r->wake[0]);
	close(r->wake[1]);
	pthread_cond_destroy(&r->cv);
	pthread_mutex_destroy(&r->mu);
	free(r);
}

int runner_submit(struct runner *r, const char *experiment, char *const *args,
		  int nargs, const char *params_json, const char *request_json,
		  double estimate_s, int64_t *id, struct errinfo *err)
{
	struct run *run = calloc(1, sizeof(*run));
	char now[32];
	int rc;

	if (!run)
		return -ENOMEM;
	run->estimate_s = estimate_s;
	/* numalab run --ndjson [--max-seconds=N] NAME k=v ... */
	strvec_push(&run->argv, "numalab");
	strvec_push(&run->argv, "run");
	strvec_push(&run->argv, "--ndjson");
	if (r->cfg.max_run_seconds > 0)
		strvec_pushf(&run->argv, "--max-seconds=%d",
			     r->cfg.max_run_seconds);
	strvec_push(&run->argv, experiment);
	for (int i = 0; i < nargs; i++)
		strvec_push(&run->argv, args[i]);
	if (run->argv.oom) {
		rc = -ENOMEM;
		goto fail;
	}
	pthread_mutex_lock(&r->mu);
	if (r->stopping) {
		rc = -ESHUTDOWN;
		goto fail_locked;
	}
	if (r->nqueued >= r->cfg.max_queue) {
		rc = -EAGAIN;
		goto fail_locked;
	}
	/* under mu, so the queue cannot fill between the check and the insert
	 */
	store_timestamp(now, sizeof(now));
	rc = store_create_run(r->store, experiment, params_json, request_json,
			      now, &run->id, err);
	if (rc)
		goto fail_locked;
	run->log = runlog_new(run->id);
	if (!run->log) {
		/* the row stays queued: the next start marks it interrupted */
		rc = -ENOMEM;
		goto fail_locked;
	}
	run->phase = PHASE_QUEUED;
	snprintf(run->st.status, sizeof(run->st.status), "queued");
	if (r->queue_tail)
		r->queue_tail->next = run;
	else
		r->queue = run;
	r->queue_tail = run;
	r->nqueued++;
	*id = run->id;
	pthread_cond_broadcast(&r->cv);
	pthread_mutex_unlock(&r->mu);
	return 0;
fail_locked:
	pthread_mutex_unlock(&r->mu);
fail:
	run_free(run);
	return rc;
}

int runner_cancel(struct runner *r, int64_t id, struct run_state *state)
{
	struct run *run;
	struct timespec dl;

	pthread_mutex_lock(&r->mu);
	run = find_run(r, id);
	if (!run || run->phase == PHASE_FINISHED) {
		pthread_mutex_unlock(&r->mu);
		return -ENOENT;
	}
	if (run->phase == PHASE_QUEUED) {
		run->cancel = CANCEL_USER;
		dequeue(r, run);
		pthread_mutex_unlock(&r->mu);
		cancel_queued(r, run, "cancelled on request");
		pthread_mutex_lock(&r->mu);
	} else {
		if (run->cancel == CANCEL_NONE)
			run->cancel = CANCEL_USER;
		wake_loop(r);
		clock_gettime(CLOCK_REALTIME, &dl);
		dl.tv_sec += CANCEL_WAIT_MS / 1000;
		while (run->phase != PHASE_FINISHED)
			if (pthread_cond_timedwait(&r->cv, &r->mu, &dl) ==
			    ETIMEDOUT)
				break;
	}
	/* pruning may have freed it meanwhile: look again */
	run = find_run(r, id);
	if (state && !run) {
		memset(state, 0, sizeof(*state));
		snprintf(state->status, sizeof(state->status), "cancelled");
	} else if (state) {
		*state = run->st;
		if (run->phase != PHASE_FINISHED)
			snprintf(state->status, sizeof(state->status),
				 "cancelling");
	}
	pthread_mutex_unlock(&r->mu);
	return 0;
}

int runner_lookup(struct runner *r, int64_t id, struct run_state *state,
		  struct runlog **log)
{
	struct run *run;

	pthread_mutex_lock(&r->mu);
	prune_recent(r);
	run = find_run(r, id);
	if (run) {
		if (state)
			*state = run->st;
		if (log)
			*log = runlog_ref(run->log);
	}
	pthread_mutex_unlock(&r->mu);
	return run ? 0 : -ENOENT;
}

int runner_queued(struct runner *r)
{
	pthread_mutex_lock(&r->mu);
	int n = r->nqueued;
	pthread_mutex_unlock(&r->mu);
	return n;
}
