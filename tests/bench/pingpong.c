/* pingpong.c - the reference core-to-core round trip: two pinned threads, one cache line, TSC-timed */
/*
 * The way the established tools measure it (c2clat, core-to-core-latency):
 * one 64-byte-aligned line holds a counter; the initiator writes an odd
 * value and spins until the responder has answered with the next even
 * one. A round trip moves the line there and back. Each sample times
 * `rounds` round trips with the TSC (lfence; rdtsc), converted to ns with
 * a frequency calibrated against CLOCK_MONOTONIC. The spin loops have no
 * pause instruction, as in those tools: a pause (up to ~140 cycles on
 * some cores) would be counted in the round trip.
 *
 * usage: pingpong CPU_A CPU_B [samples [rounds [pause]]]
 * ("pause": spin with the pause instruction, as some kernels do; then the
 * figure is comparable with theirs)
 * prints one JSON object: {"cpu_a","cpu_b","samples","rounds",
 * "tsc_ghz","median_ns","min_ns","max_ns"} (ns per round trip).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if !defined(__x86_64__) && !defined(__i386__)
#error "pingpong times round trips with the x86 TSC"
#endif

struct line {
	_Alignas(64) volatile uint64_t v;
	char pad[64 - sizeof(uint64_t)];
};

static struct line shared_line;
static int nsamples = 2000, nrounds = 1000;
static double *sample_ns;
static double tsc_per_ns;
static int use_pause;

static inline void spin_hint(void)
{
	if (use_pause)
		__builtin_ia32_pause();
}

static inline uint64_t tsc(void)
{
	uint32_t lo, hi;

	/* lfence keeps rdtsc from running ahead of the loads before it */
	__asm__ __volatile__("lfence\n\trdtsc" : "=a"(lo), "=d"(hi)::"memory");
	return ((uint64_t)hi << 32) | lo;
}

static double mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static double calibrate(void)
{
	double t0 = mono_ns(), t1;
	uint64_t c0 = tsc(), c1;

	do
		t1 = mono_ns();
	while (t1 - t0 < 100e6);
	c1 = tsc();
	return (double)(c1 - c0) / (t1 - t0);
}

static int pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return -pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

static void *responder(void *arg)
{
	int cpu = *(int *)arg;
	uint64_t total =
		(uint64_t)nsamples * (uint64_t)nrounds + (uint64_t)nrounds;

	if (pin(cpu))
		return (void *)1;
	for (uint64_t i = 0; i < total; i++) {
		uint64_t want = 2 * i + 1;
		while (shared_line.v != want)
			spin_hint();
		shared_line.v = want + 1;
	}
	return NULL;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	int cpu_a, cpu_b;
	pthread_t th;
	void *ret;
	uint64_t next = 0;

	if (argc < 3) {
		fprintf(stderr,
			"usage: pingpong CPU_A CPU_B [samples [rounds [pause]]]\n");
		return 2;
	}
	cpu_a = atoi(argv[1]);
	cpu_b = atoi(argv[2]);
	if (argc > 3)
		nsamples = atoi(argv[3]);
	if (argc > 4)
		nrounds = atoi(argv[4]);
	if (argc > 5)
		use_pause = !strcmp(argv[5], "pause");
	if (nsamples < 1 || nrounds < 1) {
		fprintf(stderr,
			"pingpong: samples and rounds must be positive\n");
		return 2;
	}
	sample_ns = calloc((size_t)nsamples, sizeof(double));
	if (!sample_ns)
		return 1;
	if (pin(cpu_a)) {
		fprintf(stderr, "pingpong: cannot pin to cpu %d: %s\n", cpu_a,
			strerror(errno));
		return 1;
	}
	tsc_per_ns = calibrate();
	if (pthread_create(&th, NULL, responder, &cpu_b)) {
		fprintf(stderr, "pingpong: cannot start the responder\n");
		return 1;
	}
	/* one untimed sample's worth of round trips brings both sides in */
	for (int r = 0; r < nrounds; r++, next++) {
		shared_line.v = 2 * next + 1;
		while (shared_line.v != 2 * next + 2)
			spin_hint();
	}
	for (int s = 0; s < nsamples; s++) {
		uint64_t c0 = tsc();
		for (int r = 0; r < nrounds; r++, next++) {
			shared_line.v = 2 * next + 1;
			while (shared_line.v != 2 * next + 2)
				spin_hint();
		}
		sample_ns[s] = (double)(tsc() - c0) / tsc_per_ns / nrounds;
	}
	pthread_join(th, &ret);
	if (ret) {
		fprintf(stderr,
			"pingpong: cannot pin the responder to cpu %d\n",
			cpu_b);
		return 1;
	}
	qsort(sample_ns, (size_t)nsamples, sizeof(double), cmp_double);
	printf("{\"cpu_a\":%d,\"cpu_b\":%d,\"samples\":%d,\"rounds\":%d,"
	       "\"pause\":%s,\"tsc_ghz\":%.4f,\"median_ns\":%.2f,\"min_ns\":%.2f,\"max_ns\":%.2f}\n",
	       cpu_a, cpu_b, nsamples, nrounds, use_pause ? "true" : "false",
	       tsc_per_ns, sample_ns[nsamples / 2], sample_ns[0],
	       sample_ns[nsamples - 1]);
	free(sample_ns);
	return 0;
}
