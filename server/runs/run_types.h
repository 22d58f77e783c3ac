/* run_types.h - what the runner is given and what it says of a run (runner.h, runner_exec.h) */
#ifndef NUMALAB_RUN_TYPES_H
#define NUMALAB_RUN_TYPES_H

struct runner_config {
	const char *exe;     /* the worker binary: "/proc/self/exe" */
	int max_queue;	     /* runs waiting; the running one is not counted */
	int max_run_seconds; /* then the worker is killed */
	int keep_seconds; /* a finished run's log stays in memory this long */
	int keep_max;	  /* ... and at most this many of them */
	/* the worker writes each event as jansson's compact dump (numalab's
	 * own worker, cli/run.c): its lines are the documents' text too */
	int canonical_lines;
};

/* What the runner knows of a run it holds in memory. */
struct run_state {
	char status[16]; /* queued, running, done, failed, cancelled */
	char started_at[32];
	char finished_at[32];
	char error[4096];
};

#endif
