/* runner.c - the bounded run queue: submit, cancel, lookup, and recording how each run ended */
#define _GNU_SOURCE
#include "runner.h"
#include "clock.h"
#include "estimate_now.h"
#include "runner_end.h"
#include "runner_exec.h"

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
#include "jsondump.h"
#include "jsonlimit.h"
#include "strbuf.h"

static void run_free(struct run *run)
{
	if (!run)
		return;
	strvec_clear(&run->argv);
	runlog_unref(run->log);
	json_decref(run->doc);
	doctext_unref(run->text);
	free(run->estimate_basis);
	free(run->experiment);
	free(run->request);
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

/*
 * Records the end of a run: its state, the final event (type = status)
 * in the log and the store, the run row; moves the run to the recent
 * list, then closes the log. Readers see the final event only then: a
 * page that reads the run's document when the final event comes (as
 * web/app.js does) gets the runner's own fold of the finished run, with
 * the row's finish time, not every event parsed again.
 */
static void finalize(struct runner *r, struct run *run, const char *status,
		     const char *error, json_t *summary, const char *headline)
{
	struct errinfo err;
	char now[32];
	json_t *ev;

	store_timestamp(now, sizeof(now));
	pthread_mutex_lock(&r->mu);
	snprintf(run->st.status, sizeof(run->st.status), "%s", status);
	snprintf(run->st.finished_at, sizeof(run->st.finished_at), "%s", now);
	snprintf(run->st.error, sizeof(run->st.error), "%s",
		 error ? error : "");
	pthread_mutex_unlock(&r->mu);

	ev = events_final(status, error, summary, headline);
	if (runner_store_end(r, run, ev, status, now, error, headline, summary,
			     &err))
		fprintf(stderr, "numalab: run %lld: %s\n", (long long)run->id,
			err.msg);

	/* pruning may free the run once it is finished */
	struct runlog *log = runlog_ref(run->log);
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
	runlog_close(log);
	runlog_unref(log);
}

/* Runs one worker to its end and records how it ended. */
static void execute(struct runner *r, struct run *run)
{
	struct strbuf msg = STRBUF_INIT;
	const char *status = runner_execute(r, run, &msg);
	json_t *summary = json_object_get(run->doc, "summary");
	json_t *empty = json_object();

	finalize(r, run, status,
		 strcmp(status, "done") ? strbuf_str(&msg) : NULL,
		 json_is_object(summary) ? summary : empty,
		 json_string_value(json_object_get(run->doc, "headline")));
	json_decref(empty);
	strbuf_release(&msg);
}

static void *runner_main(void *arg)
{
	struct runner *r = arg;

	pthread_mutex_lock(&r->mu);
	for (;;) {
		while (!r->queue && !r->stopping) {
			/* idle: a run that ended with another queued left the
			 * threads moved (or yielding), and that one may not
			 * start */
			if (r->cpus.moved || r->cpus.yielded) {
				pthread_mutex_unlock(&r->mu);
				harness_cpus_restore(&r->cpus);
				pthread_mutex_lock(&r->mu);
				continue;
			}
			pthread_cond_wait(&r->cv, &r->mu);
		}
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
	/* a probe would take cpu from the run being served */
	cpu_room_passive(1);
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
	runner_wake(r);
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
		  double estimate_s, const char *estimate_basis, int64_t *id,
		  struct errinfo *err)
{
	struct run *run = calloc(1, sizeof(*run));
	char now[32];
	int rc;

	if (!run)
		return -ENOMEM;
	run->estimate_s = estimate_s;
	run->estimate_basis = estimate_basis && *estimate_basis
				      ? strdup(estimate_basis)
				      : NULL;
	run->doc = events_doc_new();
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
	/* the row's fields, for its readers once it ended (runner_row);
	 * without them they read the store */
	memcpy(run->created_at, now, sizeof(run->created_at));
	run->experiment = strdup(experiment);
	run->request = strdup(request_json);
	run->log = runlog_new(run->id);
	/* a document without its text is serialised by jansson */
	run->text = run->log ? doctext_new(run->log) : NULL;
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
		runner_wake(r);
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

json_t *runner_doc(struct runner *r, int64_t id, struct doctext **text)
{
	json_t *doc = NULL;
	struct run *run;

	pthread_mutex_lock(&r->mu);
	run = find_run(r, id);
	/* finished: nothing folds into it any more, so it may be shared */
	if (run && run->phase == PHASE_FINISHED && run->doc) {
		doc = json_copy(run->doc);
		*text = doc ? doctext_ref(run->text) : NULL;
	}
	pthread_mutex_unlock(&r->mu);
	return doc;
}

void runner_drop_doc(struct runner *r, int64_t id)
{
	json_t *doc = NULL;
	struct doctext *text = NULL;
	struct run *run;

	pthread_mutex_lock(&r->mu);
	run = find_run(r, id);
	/* finished: the runner thread is done with both */
	if (run && run->phase == PHASE_FINISHED) {
		doc = run->doc;
		text = run->text;
		run->doc = NULL;
		run->text = NULL;
	}
	pthread_mutex_unlock(&r->mu);
	json_decref(doc);
	doctext_unref(text);
}

/* A member of a document that holds something: not null, not {}. */
static int filled(json_t *v)
{
	return v && !json_is_null(v) &&
	       !(json_is_object(v) && json_object_size(v) == 0);
}

/* What the row holds that the run's document has too: the end's summary
 * and headline, the start's params and machine (NULL: the run has none,
 * and readers want the row's). */
static json_t *row_of(const struct run *run)
{
	json_t *doc = run->doc, *summary = json_object_get(doc, "summary");
	json_t *headline = json_object_get(doc, "headline");

	if (!filled(json_object_get(doc, "params")) ||
	    !filled(json_object_get(doc, "machine")))
		return NULL;
	return json_pack(
		"{s:I, s:s, s:s, s:s, s:o, s:s, s:o, s:O, s:O, s:o, s:o}", "id",
		(json_int_t)run->id, "experiment", run->experiment, "status",
		run->st.status, "created_at", run->created_at, "started_at",
		run->st.started_at[0] ? json_string(run->st.started_at)
				      : json_null(),
		"finished_at", run->st.finished_at, "error",
		run->end_error_null ? json_null() : json_string(run->st.error),
		"params", json_object_get(doc, "params"), "machine",
		json_object_get(doc, "machine"), "summary",
		json_is_object(summary) ? json_incref(summary) : json_object(),
		"headline",
		json_is_string(headline) ? json_incref(headline) : json_null());
}

json_t *runner_row(struct runner *r, int64_t id)
{
	/* what the server wrote itself, read as the store reads it back */
	static const struct jsonlimit stored = {.depth =
							JSONLIMIT_DEPTH_STORED};
	json_t *row = NULL, *request;
	char *text = NULL;
	struct run *run;

	pthread_mutex_lock(&r->mu);
	run = find_run(r, id);
	if (run && run->phase == PHASE_FINISHED && run->doc &&
	    run->end_stored && run->experiment && run->request) {
		row = row_of(run);
		text = row ? strdup(run->request) : NULL;
	}
	pthread_mutex_unlock(&r->mu);
	request = text ? jsonlimit_loads(text, JSON_DECODE_ANY, &stored, NULL)
		       : NULL;
	free(text);
	/* unreadable (it was read as the body was) or out of memory: the
	 * store says which */
	if (!request || json_object_set_new(row, "request", request)) {
		json_decref(row);
		return NULL;
	}
	return row;
}

int runner_queued(struct runner *r)
{
	pthread_mutex_lock(&r->mu);
	int n = r->nqueued;
	pthread_mutex_unlock(&r->mu);
	return n;
}
