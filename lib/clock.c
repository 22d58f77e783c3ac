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

/*
 * The smallest non-zero step of read seen over tries: the change, not the
 * wait, so a try that starts late in a tick still sees a whole one.
 */
static double smallest_step(double (*read)(void), int tries)
{
	double best = 1.0;

	for (int i = 0; i < tries; i++) {
		double a = read(), b;
		while ((b = read()) == a)
			;
		if (b - a < best)
			best = b - a;
	}
	return best;
}

double clock_granularity(void)
{
	return smallest_step(clock_now, 20);
}

double clock_thread_cpu_step(void)
{
	/* a few tries: a coarse cpu clock spends a tick on each */
	return smallest_step(clock_thread_cpu, 3);
}
