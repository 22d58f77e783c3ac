/* team.h - N pinned threads behind a barrier, and the one timing harness */
#ifndef NUMALAB_TEAM_H
#define NUMALAB_TEAM_H

#include <signal.h>

#include "sink.h"
#include "topo.h"

/*
 * The measurement harness: every thread is created already pinned, calls
 * setup (first touch of its own data), then for each of warmup + repeat
 * rounds: barrier, clock, body, barrier, clock. Round times of the warmup
 * rounds are discarded. check runs once after timing, on thread 0.
 * Every thread also reads the clock right before and after its body, so
 * the harness can tell how much of a round all threads ran at once.
 */
struct team_job {
	int nthreads;
	const int *cpus; /* one per thread; -1 = not pinned */
	void *arg;
	/* per-thread hooks; setup and check may be NULL */
	void (*setup)(void *arg, int tid);
	void (*body)(void *arg, int tid, int round);
	int (*check)(void *arg); /* 0 if results are right, -EIO if not */
	int warmup, repeat;
	volatile sig_atomic_t *cancel;
	/*
	 * Wait at the round barriers by spinning instead of sleeping: a
	 * sleeping thread needs a futex wake-up to start (about 3 us per
	 * round on the 2-CPU lab VM), which swamps rounds of a few
	 * microseconds. Every thread then needs a CPU of its own.
	 */
	int spin;
};

struct team_result {
	int nthreads;
	struct thread_place *place; /* nthreads entries */
	double *seconds; /* repeat entries: wall time of each round */
	/*
	 * repeat entries: the share (0..1) of each round during which every
	 * thread was inside its body at once: from the latest body start to
	 * the earliest body end, over the first start to the last end. 1 for
	 * one thread; near 0 when the threads took turns (other processes
	 * held the cpus, or one thread started late).
	 */
	double *overlap;
	int rounds; /* rounds completed (< repeat if cancelled) */
	int check_rc;
};

/*
 * Runs the job. Returns 0, -ECANCELED, or -errno when threads cannot be
 * created or pinned (e.g. -EINVAL for a CPU outside the affinity mask).
 * res must be released with team_result_free.
 */
int team_run(const struct team_job *job, const struct topo *t,
	     struct team_result *res);
void team_result_free(struct team_result *res);

/* The median of res->overlap (1 when no round completed). */
double team_overlap_median(const struct team_result *res);

/* Fills place for cpu/observed cpu from the topology. */
void team_describe(const struct topo *t, int thread, int requested,
		   int observed, struct thread_place *place);

#endif
