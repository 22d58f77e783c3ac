/* stats.h - monotonic clock and summary statistics of samples */
#ifndef NUMALAB_STATS_H
#define NUMALAB_STATS_H

#include <stdint.h>

struct stats {
	int n;
	double median, min, max, mean, stddev;
	double ci_lo, ci_hi; /* 95% confidence interval of the median */
};

/* Seconds from CLOCK_MONOTONIC. */
double clock_now(void);
/*
 * CPU seconds the calling thread has run (CLOCK_THREAD_CPUTIME_ID): set
 * against clock_now it tells running (or stalled) from descheduled.
 */
double clock_thread_cpu(void);
/*
 * CPU seconds the whole process has run, threads that have ended
 * included (CLOCK_PROCESS_CPUTIME_ID): for a body whose work runs in
 * threads it starts and joins.
 */
double clock_process_cpu(void);
/* Smallest step the clock shows, in seconds (STREAM's checktick, ours). */
double clock_granularity(void);

/* Computes stats of v[0..n); n may be 0 (all zero). Does not reorder v. */
void stats_compute(const double *v, int n, struct stats *s);
double stats_median(const double *v, int n);

#endif
