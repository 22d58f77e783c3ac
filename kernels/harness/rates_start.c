/* rates_start.c - a worker's start for the estimates: numalab-worker started and timed here, else this process's own start */
#define _GNU_SOURCE
#include "rates.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "selfpath.h"
#include "stats.h"

extern char **environ;

/* a start that took this many times its cpu time waited for a cpu */
#define START_WAITED 2.0
/* the worker's starts timed; their median is the rate */
#define START_TRIES 5
/* and those timed for an estimate, with the machine as it is now */
#define START_NOW_TRIES 3

/*
 * One start of the worker the server execs for each run: `numalab-worker
 * --start` does what a run does before its experiment (exec, its
 * libraries, the topology, the rates' cache, the machine record) and
 * exits. Seconds from the spawn to its reaping; with own, its cpu time
 * instead where the wall time waited for a cpu (a busy machine's, which
 * estimate_now counts itself). -1 when it could not be started or failed.
 */
static double worker_start_once(const char *path, int own)
{
	char *argv[] = {(char *)SELFPATH_WORKER, (char *)"--start", NULL};
	posix_spawn_file_actions_t fa;
	struct rusage ru;
	double t0, wall, cpu;
	pid_t pid;
	int st, rc;

	if (posix_spawn_file_actions_init(&fa))
		return -1;
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	t0 = clock_now();
	rc = posix_spawn(&pid, path, &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (rc)
		return -1;
	while (wait4(pid, &st, 0, &ru) < 0)
		if (errno != EINTR)
			return -1;
	wall = clock_now() - t0;
	if (!WIFEXITED(st) || WEXITSTATUS(st))
		return -1;
	cpu = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
	      (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
	return own && cpu > 0 && wall > START_WAITED * cpu ? cpu : wall;
}

/* The median of n starts of numalab-worker (own: as worker_start_once
 * says), or -1 where there is none to start (a binary alone, the unit
 * tests) or it fails. */
static double worker_starts(int n, int own)
{
	char path[4096];
	double v[START_TRIES];

	if (n > START_TRIES || selfpath_worker(path, sizeof(path)))
		return -1;
	for (int i = 0; i < n; i++)
		if ((v[i] = worker_start_once(path, own)) <= 0)
			return -1;
	return stats_median(v, n);
}

double rates_start_now(void)
{
	return worker_starts(START_NOW_TRIES, 0);
}

/*
 * Seconds since this process started (exec, libraries, the topology it
 * read): a worker pays the same before its first measurement. From
 * /proc/self/stat's start time, in clock ticks since boot; -1 when unknown.
 */
static double process_age(void)
{
	FILE *f = fopen("/proc/self/stat", "re");
	char buf[1024], *p;
	unsigned long long start = 0;
	struct timespec now;
	long hz = sysconf(_SC_CLK_TCK);
	size_t n;

	if (!f)
		return -1;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	p = strrchr(buf, ')'); /* the command name may hold spaces */
	/* after ") ": state is field 3; starttime is field 22 */
	if (!p || hz <= 0 ||
	    sscanf(p + 2,
		   "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d %*d %*d %llu",
		   &start) != 1 ||
	    clock_gettime(CLOCK_BOOTTIME, &now))
		return -1;
	return (double)now.tv_sec + now.tv_nsec * 1e-9 -
	       (double)start / (double)hz;
}

/*
 * Without a numalab-worker to start, what a worker costs before its first
 * measurement: a fresh topology read, or this process's own start where
 * that took longer (taken first, so the age is the start's and not the
 * calibration's own). An age past a quarter of a second (a server that has run
 * a while, or a start that waited long for a cpu) says nothing about a start:
 * then the topology read alone. It used to be capped at a quarter of a second
 * instead, which made every estimate 0.25 s long at least, where a
 * whole run of cache_sharing takes 0.07 s on a quiet lab VM.
 */
static double own_start_cost(void)
{
	double t0 = clock_now(), dt, age = process_age();
	double cpu = clock_process_cpu();
	struct topo *t = topo_load();

	if (!t)
		return -1;
	topo_free(t);
	dt = clock_now() - t0;
	/* an age much past the cpu the start used waited for a cpu: a busy
	 * machine's, which estimate_now counts itself; the start's own cost
	 * is then its cpu time */
	if (cpu > 0 && age > START_WAITED * cpu)
		age = cpu;
	if (age > dt && age < 0.25)
		dt = age;
	return dt;
}

double rates_start_cost(void)
{
	double own = own_start_cost(), worker = worker_starts(START_TRIES, 1);

	return worker > 0 ? worker : own;
}
