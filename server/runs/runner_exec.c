/* runner_exec.c - one run from its worker's start to its record: the worker supervisor's hooks */
#define _GNU_SOURCE
#include "runner_exec.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "events.h"
#include "jsondump.h"
#include "jsonfast.h"
#include "jsonlimit.h"
#include "strbuf.h"
#include "worker.h"

void runner_wake(struct runner *r)
{
	char c = 1;
	ssize_t w = write(r->wake[1], &c, 1);

	(void)w; /* a full pipe already wakes it */
}

/* as runner_exec.h says */
void runner_fold(struct run *run, json_t *ev)
{
	if (run->doc &&
	    events_fold(run->doc, ev, EVENTS_FOLD_TAKE) == -ENOMEM) {
		json_decref(run->doc);
		run->doc = NULL;
	}
}

int runner_emit_held(struct runner *r, struct run *run, json_t *ev,
		     struct errinfo *err)
{
	const struct runlog_event *e;
	int rc = 0;

	e = runlog_append_held(run->log, ev, NULL, 0);
	if (e) {
		runner_fold(run, ev);
		rc = store_append_events(r->store, run->id, &e, 1, err);
	}
	json_decref(ev);
	return rc;
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
	json_t *end; /* the worker's end event, when it wrote one */
	/* the worker's machine, stored with the batch it came in (one
	 * transaction, not two); NULL when none waits */
	char *machine;
	int started; /* the row says running */
	int unread;  /* samples the document holds as placeholders */
	const struct runlog_event **batch; /* logged, not yet stored */
	int nbatch, cap;
};

/*
 * The row's start and the "running" event in one transaction; readers see
 * the event once both are stored. 0 or -EIO.
 */
static int store_started(struct live *l, json_t *ev, struct errinfo *err)
{
	struct store *st = l->r->store;
	int rc;

	/* its batches a write each to the journal, not a commit each (or,
	 * where there is none, to the store) */
	store_live_begin(st, l->run->id);
	rc = store_atomic_begin(st, err);

	if (!rc) {
		rc = store_run_started(st, l->run->id, l->run->st.started_at,
				       err);
		if (!rc)
			rc = runner_emit_held(l->r, l->run, ev, err);
		else
			json_decref(ev);
		rc = store_atomic_end(st, !rc, err) ? -EIO : rc;
	} else {
		json_decref(ev);
	}
	l->started = !rc;
	/* stored (or the run fails on rc): now subscribers may see it */
	runlog_publish(l->run->log);
	return rc;
}

static int on_cancelled(void *ctx);

static int on_started(void *ctx, struct errinfo *err)
{
	struct live *l = ctx;

	json_t *ev = event_status("running");

	harness_cpus_avoid(&l->r->cpus, run_arg(l->run, "cpus"));
	/* the page counts the time left down from it */
	if (ev && l->run->estimate_s >= 0)
		json_object_set_new(ev, "estimate_s",
				    json_real(l->run->estimate_s));
	if (ev && l->run->estimate_s >= 0 && l->run->estimate_basis)
		json_object_set_new(ev, "estimate_basis",
				    json_string(l->run->estimate_basis));
	if (store_started(l, ev, err))
		return -EIO;
	/* a cancel that came before the worker existed (one that comes
	 * after this look wakes the loop itself) */
	if (on_cancelled(l))
		runner_wake(l->r);
	return 0;
}

static int on_flush(void *ctx, struct errinfo *err);

/* Room for one more event in the batch: 0, or -ENOMEM (err set). */
static int batch_room(struct live *l, struct errinfo *err)
{
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
	return 0;
}

/* e into the batch; the batch stored when it is full. */
static int batched(struct live *l, const struct runlog_event *e,
		   struct errinfo *err)
{
	l->batch[l->nbatch++] = e;
	/* a read can hold thousands: readers never see more than a batch the
	 * store has not kept (RUNLOG_UNSTORED_MAX) */
	if (l->nbatch >= RUNLOG_BATCH_MAX)
		return on_flush(l, err);
	return 0;
}

/*
 * The samples that came as text (placeholders in the document) parsed
 * into it, before the samples' text stops being kept whole (an item that
 * came otherwise): the document then holds every sample as a value.
 */
static void unread_to_values(struct live *l, enum event_type type)
{
	const char *key = type == EV_SAMPLE ? "samples" : NULL;
	json_t *arr;

	if (!key || !l->unread || !l->run->doc)
		return;
	arr = doctext_filled(l->run->text, type,
			     json_object_get(l->run->doc, key));
	if (!arr || json_object_set_new(l->run->doc, key, arr)) {
		/* as a fold short of memory: no document, the log has all */
		json_decref(l->run->doc);
		l->run->doc = NULL;
	}
	l->unread = 0;
}

/*
 * A sample line the worker wrote as it writes them (its "type" first)
 * and that a walk of it finds whole: logged, stored and shown as its
 * text, kept in the document's text, and a placeholder in the document
 * (doctext.h); no tree is made of it. Any other line is parsed (0).
 */
static int on_event_text(void *ctx, const char *line, size_t len,
			 struct errinfo *err)
{
	static const char head[] = "{\"type\":\"sample\",";
	struct live *l = ctx;
	const struct runlog_event *e;
	int seq;

	if (len < sizeof(head) || memcmp(line, head, sizeof(head) - 1) ||
	    !l->r->cfg.canonical_lines || !l->run->doc ||
	    !doctext_keeps(l->run->text, EV_SAMPLE) ||
	    memchr(line, '\r', len) ||
	    !jsonfast_check_within(line, len, JSONLIMIT_DEPTH, JSONLIMIT_VALUES,
				   &seq) ||
	    seq)
		return 0;
	if (batch_room(l, err))
		return -ENOMEM;
	e = runlog_append_text_held(l->run->log, "sample", line, len);
	if (!e)
		return 1; /* as an event the log no longer takes */
	if (doctext_try_add(l->run->text, EV_SAMPLE, e, 1) ||
	    events_fold_unread(l->run->doc, EV_SAMPLE)) {
		/* its text and its document no longer in step: no document
		 * (as a fold short of memory), the log has every event */
		json_decref(l->run->doc);
		l->run->doc = NULL;
		errinfo_set(err, NULL, "out of memory reading the worker");
		return -ENOMEM;
	}
	l->unread++;
	return batched(l, e, err) ? -EIO : 1;
}

static int on_event(void *ctx, json_t *ev, const char *line, size_t len,
		    struct errinfo *err)
{
	struct live *l = ctx;
	const struct runlog_event *e;
	enum event_type type = event_type_of_event(ev);
	/* a seq of its own: the log numbers it, its line is not the text */
	int canonical =
		l->r->cfg.canonical_lines && !json_object_get(ev, "seq");

	switch (type) {
	case EV_START: {
		json_t *m = json_object_get(ev, "machine");
		free(l->machine);
		l->machine = m ? jsondump_text(m, NULL) : NULL;
		/* the document's machine is m: written once */
		if (l->machine)
			doctext_keep(l->run->text, m, l->machine,
				     strlen(l->machine));
		break;
	}
	case EV_PLACEMENT:
		avoid_point_cpus(l->r, ev);
		break;
	case EV_END:
		json_decref(l->end);
		l->end = json_incref(ev);
		break;
	default:
		break;
	}
	if (batch_room(l, err))
		return -ENOMEM;
	e = runlog_append_held(l->run->log, ev, line, len);
	if (!e)
		return 0;
	if (type == EV_SUMMARY)
		doctext_add_summary(l->run->text, e, canonical);
	if (doctext_keeps(l->run->text, type) &&
	    doctext_try_add(l->run->text, type, e, canonical)) {
		unread_to_values(l, type);
		doctext_break(l->run->text, type);
	}
	runner_fold(l->run, ev);
	return batched(l, e, err);
}

/* The batch, and the machine when it came in it, into the store: inside
 * an atomic step when the machine came (the two kept together), else
 * the batch alone, in store_append_events's own transaction. */
static int store_batch(struct live *l, struct errinfo *err)
{
	int rc = 0;

	if (l->machine)
		rc = store_run_machine(l->r->store, l->run->id, l->machine,
				       err);
	if (!rc && l->nbatch)
		rc = store_append_events(l->r->store, l->run->id, l->batch,
					 l->nbatch, err);
	return rc;
}

/* The events of one read go to the store in one transaction. */
static int on_flush(void *ctx, struct errinfo *err)
{
	struct live *l = ctx;
	int rc = 0;

	if (l->machine) {
		rc = store_atomic_begin(l->r->store, err);
		if (!rc) {
			rc = store_batch(l, err);
			rc = store_atomic_end(l->r->store, !rc, err) ? -EIO
								     : rc;
		}
		free(l->machine);
		l->machine = NULL;
	} else if (l->nbatch) {
		rc = store_batch(l, err);
	}
	l->nbatch = 0;
	/* stored (or the run fails on rc): now subscribers may see them */
	runlog_publish(l->run->log);
	return rc;
}

/* A batch waits longer while the server yields to a run on every cpu. */
static int on_batch_ms(void *ctx)
{
	struct live *l = ctx;

	return l->r->cpus.yielded ? HARNESS_YIELD_BATCH_MS : 0;
}

static int on_cancelled(void *ctx)
{
	struct live *l = ctx;

	pthread_mutex_lock(&l->r->mu);
	int cancel = l->run->cancel != CANCEL_NONE;
	pthread_mutex_unlock(&l->r->mu);
	return cancel;
}

/* What the worker's end event said of the run (NULL if nothing). */
static const char *end_text(struct live *l, const char *key)
{
	return json_string_value(json_object_get(l->end, key));
}

const char *runner_execute(struct runner *r, struct run *run,
			   struct strbuf *msg)
{
	struct live l = {.r = r, .run = run};
	const struct worker_ops ops = {.ctx = &l,
				       .started = on_started,
				       .event = on_event,
				       .event_text = on_event_text,
				       .flush = on_flush,
				       .cancelled = on_cancelled,
				       .batch_ms = on_batch_ms};
	const struct worker_spec spec = {
		.exe = r->cfg.exe,
		.argv = run->argv.v,
		.cpus = &r->cpus.all,
		.policy = harness_cpus_worker_policy(&r->cpus),
		.max_seconds = r->cfg.max_run_seconds,
		.wake_fd = r->wake[0],
		.run_id = run->id};
	struct worker_end end = {0};
	struct errinfo err;
	const char *status = "failed";
	char now[32];
	int rc;

	errinfo_clear(&err);
	store_timestamp(now, sizeof(now));
	pthread_mutex_lock(&r->mu);
	snprintf(run->st.status, sizeof(run->st.status), "running");
	snprintf(run->st.started_at, sizeof(run->st.started_at), "%s", now);
	pthread_mutex_unlock(&r->mu);
	rc = worker_run(&spec, &ops, &end, &err);
	/* no worker, or its start not stored: the row says when it was tried */
	if (!l.started)
		store_run_started(r->store, run->id, now, NULL);
	if (rc) {
		strbuf_addstr(msg, err.msg);
		goto done;
	}
	/* a machine read but not flushed (the worker failed meanwhile) */
	if (l.machine && store_run_machine(r->store, run->id, l.machine, &err))
		fprintf(stderr, "numalab: run %lld: %s\n", (long long)run->id,
			err.msg);
	pthread_mutex_lock(&r->mu);
	enum cancel_kind cancel = run->cancel;
	int next = r->nqueued;
	pthread_mutex_unlock(&r->mu);
	/* a run queued next mostly names the same cpus: its start moves the
	 * threads back when it does not (two passes over every thread saved
	 * a run) */
	if (!next)
		harness_cpus_restore(&r->cpus);
	if (cancel == CANCEL_USER) {
		status = "cancelled";
		strbuf_addstr(msg, "cancelled on request");
	} else if (cancel == CANCEL_SHUTDOWN) {
		status = "cancelled";
		strbuf_addstr(msg, "the server stopped during the run");
	} else {
		status = worker_explain(&end, end_text(&l, "status"),
					end_text(&l, "error"),
					r->cfg.max_run_seconds, msg);
	}
done:
	worker_end_free(&end);
	json_decref(l.end);
	free(l.batch);
	free(l.machine);
	return status;
}
