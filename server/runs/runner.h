/* runner.h - the bounded run queue: one run at a time, each in a worker process (worker.h) */
#ifndef NUMALAB_RUNNER_H
#define NUMALAB_RUNNER_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "doctext.h"
#include "errinfo.h"
#include "run_types.h"
#include "runlog.h"
#include "store.h"

/*
 * Threads: runner_new starts the runner thread, the only one that forks,
 * reads and reaps workers and moves the server's CPUs (harness_cpus).
 * runner_submit, runner_cancel, runner_lookup and runner_queued are safe
 * from any thread at once (the HTTP handlers call them); runner_cancel
 * blocks its caller for a few seconds at most. runner_stop and
 * runner_free are called once, from the thread that made the runner,
 * after the HTTP server has stopped calling in.
 */

struct runner;

/* Starts the runner thread. NULL with errno set on failure. */
struct runner *runner_new(const struct runner_config *cfg, struct store *st);
/*
 * The server is stopping: cancels the running run (SIGTERM, SIGKILL after
 * 2 s) and every queued one, records them, closes their logs, and joins
 * the runner thread. Later submits fail with -ESHUTDOWN.
 */
void runner_stop(struct runner *r);
/* Frees it; runner_stop must have run. */
void runner_free(struct runner *r);

/*
 * Records a new queued run and queues it. args are the worker's k=v
 * assignments; estimate_s (the server's estimate of its wall time, < 0
 * when none) goes out with the run's "running" status event. Returns 0 with
 * *id, -EAGAIN when the queue is full, -ESHUTDOWN when stopping, -ENOMEM, or
 * -EIO when the store refused it (err set).
 */
int runner_submit(struct runner *r, const char *experiment, char *const *args,
		  int nargs, const char *params_json, const char *request_json,
		  double estimate_s, const char *estimate_basis, int64_t *id,
		  struct errinfo *err);

/*
 * Cancels a queued or running run and waits (a few seconds at most) until
 * it is recorded. Returns 0 with its state, or -ENOENT when the runner
 * does not hold the run as queued or running.
 */
int runner_cancel(struct runner *r, int64_t id, struct run_state *state);

/*
 * A run the runner holds in memory (queued, running, or recently
 * finished). Returns 0 and fills state (may be NULL) and *log (a new
 * reference; log may be NULL), or -ENOENT.
 */
int runner_lookup(struct runner *r, int64_t id, struct run_state *state,
		  struct runlog **log);

/*
 * The events of a finished run the runner holds, folded as they came
 * (events_fold: the document before the run row's fields), as a new
 * object whose members are shared and must not be changed; NULL when it
 * holds no such run, or its document is incomplete (memory ran out).
 * *text: a reference to the text of its arrays (rundoc_dumps), with it.
 */
json_t *runner_doc(struct runner *r, int64_t id, struct doctext **text);

/*
 * The finished run's document is kept elsewhere now (as the bytes of its
 * answer): the runner lets its own fold go, the largest part of what it
 * holds of a run it keeps for late viewers. runner_doc and runner_row
 * answer NULL for that run from then on, and readers go to the store.
 */
void runner_drop_doc(struct runner *r, int64_t id);

/*
 * The run row of a finished run the runner holds, as the store would give
 * it back (store_get_run) without reading it: its fields as the runner gave
 * them to the store. NULL when it holds no such run, or the run's end did
 * not reach the store, or the row holds what the document lacks (the
 * params or machine of a run that never started): read the store then.
 */
json_t *runner_row(struct runner *r, int64_t id);

/* Runs waiting to start. */
int runner_queued(struct runner *r);

#endif
