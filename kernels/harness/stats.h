/* stats.h - summary statistics of samples (and the clock they are timed by) */
#ifndef NUMALAB_STATS_H
#define NUMALAB_STATS_H

#include <stdint.h>

#include "clock.h"

struct stats {
	int n;
	double median, min, max, mean, stddev;
	double ci_lo, ci_hi; /* 95% confidence interval of the median */
};

/* Computes stats of v[0..n); n may be 0 (all zero). Does not reorder v. */
void stats_compute(const double *v, int n, struct stats *s);
double stats_median(const double *v, int n);

#endif
