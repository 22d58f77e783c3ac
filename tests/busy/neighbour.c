/* neighbour.c - a process that shares a cpu: busy for a few milliseconds, asleep for as many, until its time is up */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
	double busy, idle, until;
	volatile unsigned long spins = 0;

	if (argc != 4 || (busy = atof(argv[1])) <= 0 ||
	    (idle = atof(argv[2])) <= 0 || atof(argv[3]) <= 0) {
		fprintf(stderr,
			"usage: neighbour BUSY_MS IDLE_MS SECONDS (each over 0)\n");
		return 2;
	}
	until = now() + atof(argv[3]);
	while (now() < until) {
		double stop = now() + busy / 1e3;
		struct timespec nap = {.tv_sec = 0,
				       .tv_nsec = (long)(idle * 1e6)};
		while (now() < stop)
			spins++;
		nanosleep(&nap, NULL);
	}
	return 0;
}
