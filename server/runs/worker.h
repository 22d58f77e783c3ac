/* worker.h - the worker supervisor: fork/exec, read loop, why it ended */
#ifndef NUMALAB_WORKER_H
#define NUMALAB_WORKER_H

#include <sched.h> /* cpu_set_t: the includer defines _GNU_SOURCE */
#include <stdint.h>

#include <jansson.h>

#include "errinfo.h"
#include "strbuf.h"

/* What the supervisor asks of its caller; every hook runs on the caller's
 * thread. */
struct worker_ops {
	void *ctx;
	/* The worker is running. Nonzero fails the run with err. */
	int (*started)(void *ctx, struct errinfo *err);
	/*
	 * One event the worker wrote: an object whose type a worker may
	 * write (the caller owns a reference for the call only), and the
	 * line it was parsed from (len bytes, no newline). Nonzero fails the
	 * run with err.
	 */
	int (*event)(void *ctx, json_t *ev, const char *line, size_t len,
		     struct errinfo *err);
	/*
	 * Optional, asked first of each line (len bytes, no newline): 1 when
	 * it took the line as it is, unparsed (it checked it as a parse
	 * would); 0 when the line is to be parsed and given to event; < 0
	 * fails the run with err.
	 */
	int (*event_text)(void *ctx, const char *line, size_t len,
			  struct errinfo *err);
	/* The events of one read are all in. Nonzero fails the run with err. */
	int (*flush)(void *ctx, struct errinfo *err);
	/* After a wake-up: nonzero when the worker is to stop (SIGTERM, then
	 * SIGKILL). */
	int (*cancelled)(void *ctx);
	/* Optional: how long events read wait now for those that follow,
	 * in ms (0: WORKER_BATCH_MS); asked as each batch begins. */
	int (*batch_ms)(void *ctx);
};

/*
 * Events read are stored and shown together this long after the first of
 * them: a burst is stored in a few transactions rather than one a read,
 * and the runner thread wakes (and takes a cpu from the run) less often,
 * for at most this much more latency. Meanwhile the pipe is not watched:
 * what the worker writes in that time is read in one go when it is up,
 * not a line a wake-up.
 */
#define WORKER_BATCH_MS 1

struct worker_spec {
	const char *exe;       /* the binary */
	char *const *argv;     /* NULL-terminated */
	const cpu_set_t *cpus; /* where it may run */
	int policy;	       /* its scheduling policy, or -1: the starter's */
	int max_seconds;       /* then it is killed */
	int wake_fd;	       /* readable: look at ops->cancelled */
	int64_t run_id;	       /* names its stderr lines on ours */
};

/* How the worker ended. */
struct worker_end {
	int timed_out;
	int wstatus;   /* waitpid's */
	char *failure; /* garbage, or a hook's failure: the run fails with it */
	char *tail;    /* its last stderr lines, after ": "; "" if none */
};

/*
 * Starts the worker and reads it until it has exited and its pipes are
 * drained. Returns 0 with *end filled (release it with worker_end_free),
 * or -errno with err set when it could not be started.
 */
int worker_run(const struct worker_spec *spec, const struct worker_ops *ops,
	       struct worker_end *end, struct errinfo *err);
void worker_end_free(struct worker_end *end);

/*
 * The run's status from how its worker ended and the status and error
 * its `end` event reported (either may be NULL): "done", or "failed" with
 * why in msg.
 */
const char *worker_explain(const struct worker_end *end, const char *end_status,
			   const char *end_error, int max_seconds,
			   struct strbuf *msg);

#endif
