/* thread_cpu.c - LD_PRELOAD shim: each worker thread's cpu time, for timing likwid-bench as numalab's rounds are timed */
/*
 * numalab's bandwidth rounds are timed over the stretches their threads
 * were on their cpus; likwid-bench times its kernel over wall time, so
 * beside a busy neighbour the two would not be timed alike. Loaded into
 * likwid-bench, this shim interposes pthread_create: every thread it
 * starts gets a thread-specific key whose destructor, run as the thread
 * ends (by return or pthread_exit), reads the thread's own cpu clock
 * (CLOCK_THREAD_CPUTIME_ID: only the time it was on a cpu) and appends
 * "thread_cpu_ns N start_ns S end_ns E" to $NUMALAB_BENCH_THREAD_CPU,
 * with the CLOCK_MONOTONIC times it started and ended: a thread whose
 * cpu time falls short of its wall time was off its cpu for the rest,
 * while its partners ran without it. likwid-bench's worker
 * threads pin themselves, wait at a barrier and run the kernel (its
 * arrays are allocated and first written by the main thread), so a
 * worker's cpu time is its kernel's time on a cpu, give or take its
 * pinning and printing (microseconds). Inert when the variable is unset.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct start {
	void *(*fn)(void *);
	void *arg;
};

static pthread_key_t key;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static long long ns(clockid_t id)
{
	struct timespec c;

	if (clock_gettime(id, &c))
		return -1;
	return (long long)c.tv_sec * 1000000000LL + c.tv_nsec;
}

/* CLOCK_MONOTONIC when the thread started, its destructor's value */
static _Thread_local long long start_ns;

static void thread_done(void *unused)
{
	const char *path = getenv("NUMALAB_BENCH_THREAD_CPU");
	long long cpu = ns(CLOCK_THREAD_CPUTIME_ID), end = ns(CLOCK_MONOTONIC);
	char line[128];
	int fd, n;

	(void)unused;
	if (!path || cpu < 0 || end < 0)
		return;
	n = snprintf(line, sizeof(line),
		     "thread_cpu_ns %lld start_ns %lld end_ns %lld\n", cpu,
		     start_ns, end);
	fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	/* one write per line: O_APPEND keeps the threads' lines whole */
	if (write(fd, line, (size_t)n) != n)
		(void)0;
	close(fd);
}

static void make_key(void)
{
	(void)pthread_key_create(&key, thread_done);
}

static void *started(void *p)
{
	struct start s = *(struct start *)p;

	free(p);
	start_ns = ns(CLOCK_MONOTONIC);
	pthread_once(&once, make_key);
	/* any non-NULL value: the destructor runs only for those */
	(void)pthread_setspecific(key, &once);
	return s.fn(s.arg);
}

int pthread_create(pthread_t *t, const pthread_attr_t *attr,
		   void *(*fn)(void *), void *arg)
{
	static int (*real)(pthread_t *, const pthread_attr_t *,
			   void *(*)(void *), void *);
	struct start *s;
	int rc;

	if (!real)
		*(void **)&real = dlsym(RTLD_NEXT, "pthread_create");
	if (!real)
		return EAGAIN;
	if (!getenv("NUMALAB_BENCH_THREAD_CPU"))
		return real(t, attr, fn, arg);
	s = malloc(sizeof(*s));
	if (!s)
		return real(t, attr, fn, arg);
	s->fn = fn;
	s->arg = arg;
	rc = real(t, attr, started, s);
	if (rc)
		free(s);
	return rc;
}
