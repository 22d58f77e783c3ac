/* stats.c - summary statistics of samples */
#include "stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double median_sorted(const double *s, int n)
{
	if (n == 0)
		return 0;
	return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

double stats_median(const double *v, int n)
{
	struct stats s;

	stats_compute(v, n, &s);
	return s.median;
}

void stats_compute(const double *v, int n, struct stats *s)
{
	double *sorted;
	double sum = 0, sq = 0;

	memset(s, 0, sizeof(*s));
	s->n = n;
	if (n <= 0)
		return;
	sorted = malloc(sizeof(double) * (size_t)n);
	if (!sorted) {
		s->n = 0;
		return;
	}
	memcpy(sorted, v, sizeof(double) * (size_t)n);
	qsort(sorted, (size_t)n, sizeof(double), cmp_double);
	for (int i = 0; i < n; i++)
		sum += v[i];
	s->mean = sum / n;
	for (int i = 0; i < n; i++)
		sq += (v[i] - s->mean) * (v[i] - s->mean);
	s->stddev = n > 1 ? sqrt(sq / (n - 1)) : 0;
	s->min = sorted[0];
	s->max = sorted[n - 1];
	s->median = median_sorted(sorted, n);
	/*
	 * Distribution-free 95% interval of the median: the order statistics
	 * at n/2 -+ 1.96 sqrt(n)/2 (normal approximation of the binomial).
	 * Below 6 samples no pair of order statistics reaches 95%, so the
	 * interval is the whole range.
	 */
	if (n < 6) {
		s->ci_lo = s->min;
		s->ci_hi = s->max;
	} else {
		double h = 1.96 * sqrt((double)n) / 2;
		int lo = (int)floor(n / 2.0 - h);
		int hi = (int)ceil(n / 2.0 + h);
		if (lo < 0)
			lo = 0;
		if (hi > n - 1)
			hi = n - 1;
		s->ci_lo = sorted[lo];
		s->ci_hi = sorted[hi];
	}
	free(sorted);
}
