/* clock.c - the one monotonic clock, and the cpu time of a thread and of the process */
#include "clock.h"

#include <time.h>

double clock_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

double clock_thread_cpu(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

double clock_process_cpu(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

double clock_granularity(void)
{
	double best = 1.0;

	/* the smallest non-zero step seen over a few tries */
	for (int i = 0; i < 20; i++) {
		double a = clock_now(), b;
		while ((b = clock_now()) == a)
			;
		if (b - a < best)
			best = b - a;
	}
	return best;
}

double clock_thread_cpu_step(void)
{
	double best = 1.0;

	/*
	 * The change, not the wait: a try that starts late in a tick still
	 * sees a whole one. A few tries, as a coarse clock spends a tick on
	 * each.
	 */
	for (int i = 0; i < 3; i++) {
		double a = clock_thread_cpu(), b;
		while ((b = clock_thread_cpu()) == a)
			;
		if (b - a < best)
			best = b - a;
	}
	return best;
}
