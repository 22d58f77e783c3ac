/* runner_exec.h - a run as the runner holds it, and running one from its worker's start to its end */
#ifndef NUMALAB_RUNNER_EXEC_H
#define NUMALAB_RUNNER_EXEC_H

#include <pthread.h>

#include <jansson.h>

#include "doctext.h"
#include "errinfo.h"
#include "harness_cpus.h"
#include "run_types.h"
#include "runlog.h"
#include "store.h"
#include "strbuf.h"
#include "strvec.h"

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
	double estimate_s;    /* < 0: none */
	char *estimate_basis; /* what it was made of, or NULL */
	/* its events folded as they are appended (events_fold): the
	 * document, whole once the run is finished, NULL when memory ran out */
	json_t *doc;
	struct doctext *text; /* the text of doc's arrays of events */
	/* what its row in the store was given (runner_row): */
	char created_at[32];
	char *experiment, *request;
	int end_stored;	    /* the end went into the row */
	int end_error_null; /* with no error (NULL, not "") */
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

/* Folds ev into the run's document (ev is given to it: nothing reads its
 * "type" or "seq" after); drops the document when memory ran out, so that
 * readers build it from the log instead. */
void runner_fold(struct run *run, json_t *ev);
/* Appends ev to the log and the store and folds it; steals ev. Readers
 * see it at the next runlog_publish or runlog_close, once it is stored.
 * 0 or -EIO. */
int runner_emit_held(struct runner *r, struct run *run, json_t *ev,
		     struct errinfo *err);
/*
 * Runs one worker to its end: returns the run's status ("done",
 * "failed", "cancelled"), why in msg when it is not done.
 */
const char *runner_execute(struct runner *r, struct run *run,
			   struct strbuf *msg);
/* Wakes the read loop (a cancel). */
void runner_wake(struct runner *r);

#endif
