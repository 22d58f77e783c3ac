/* rates_calibrate.c - the measurements behind the rates: each timed so that a busy machine's waits stay out of them */
#define _GNU_SOURCE
#include "rates.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "bw.h"
#include "clock.h"
#include "stats.h"
#include "team.h"

/* rounds of each per-operation rate (two threads: some may not run
 * together on a busy machine) */
#define RATE_ROUNDS 15

struct spin_job {
	void *line; /* 64-byte aligned */
	long n;
	int atomic;
	int stride; /* bytes between the two threads' counters (0: one counter)
		     */
};

static void spin_body(void *arg, int tid, int round)
{
	const struct spin_job *j = arg;
	char *base = j->line;

	(void)round;
	if (j->atomic) {
		uint64_t *c = (uint64_t *)(base + (size_t)tid * j->stride);
		for (long i = 0; i < j->n; i++)
			__atomic_fetch_add(c, 1, __ATOMIC_SEQ_CST);
	} else {
		volatile uint32_t *c =
			(volatile uint32_t *)(base + (size_t)tid * j->stride);
		for (long i = 0; i < j->n; i++)
			*c = *c + 1;
	}
}

static double min_of(const double *v, int n)
{
	double m = v[0];

	for (int i = 1; i < n; i++)
		if (v[i] < m)
			m = v[i];
	return m;
}

/* Rounds whose threads ran at once this much of the time ran together. */
#define TOGETHER 0.8

/* The best of res's rounds whose threads ran together, or the one that
 * ran most together when none did. */
static double together_best(const struct team_result *res)
{
	double best = -1;
	int most = 0;

	for (int i = 0; i < res->rounds; i++) {
		if (res->overlap && res->overlap[i] >= TOGETHER &&
		    (best < 0 || res->seconds[i] < best))
			best = res->seconds[i];
		if (res->overlap && res->overlap[i] > res->overlap[most])
			most = i;
	}
	return best > 0 ? best : res->seconds[most];
}

/* Seconds per operation of n ops on each of nthreads threads, or -1. */
static double per_op(const struct topo *t, const int *cpus, int nthreads,
		     int atomic, int stride, long n)
{
	struct spin_job j = {.n = n, .atomic = atomic, .stride = stride};
	struct team_job job = {.nthreads = nthreads,
			       .cpus = cpus,
			       .arg = &j,
			       .body = spin_body,
			       .warmup = 1,
			       .repeat = RATE_ROUNDS};
	struct team_result res;
	double best = -1;

	j.line = aligned_alloc(4096, 4096);
	if (!j.line)
		return -1;
	memset(j.line, 0, 4096);
	/*
	 * One thread: the best round (nothing it waits for can only slow it
	 * down). Two: the best of the rounds they ran together. On a busy
	 * machine the best of all rounds is often one where the threads took
	 * turns and nothing bounced (their median read 0.33 ns for 1.1 ns
	 * beside a load of 15 on 2 cpus), and the median of the rounds run
	 * together took in preemptions inside them (5.5 ns beside a load of
	 * 10, and false_sharing's estimates 2.6-3.2x).
	 */
	if (team_run(&job, t, &res) == 0 && res.rounds > 0)
		best = nthreads > 1 ? together_best(&res)
				    : min_of(res.seconds, res.rounds);
	team_result_free(&res);
	free(j.line);
	return best > 0 ? best / (double)n : -1;
}

static void noop_body(void *arg, int tid, int round)
{
	(void)arg;
	(void)tid;
	(void)round;
}

/*
 * Seconds to start, run one empty round of and join a pinned team: the best
 * of TEAM_TRIES (each waits for its threads to be scheduled: the best of 3
 * read 1-4 ms beside a load of 8-15 on 2 cpus, 0.11 ms quiet). A try whose
 * wall time is over TEAM_WAITED times the cpu time the process spent on it
 * waited for a cpu, which estimate_now counts itself: it counts its cpu
 * time (beside a spinner on each of 2 cpus every try took 3.5-4.0 ms and
 * 0.12-0.15 ms of cpu; quiet, 0.08-0.12 ms both; the bench's estimates of
 * affinity, mostly team starts, were 2.1x its runs from rates measured
 * so).
 */
#define TEAM_TRIES 9
#define TEAM_WAITED 2.0
static double team_cost(const struct topo *t, const int *cpus, int nthreads)
{
	struct team_job job = {.nthreads = nthreads,
			       .cpus = cpus,
			       .body = noop_body,
			       .repeat = 1};
	double best = -1;

	for (int i = 0; i < TEAM_TRIES; i++) {
		struct team_result res;
		double t0 = clock_now(), c0 = clock_process_cpu(), dt, cpu;
		int rc = team_run(&job, t, &res);

		dt = clock_now() - t0;
		cpu = clock_process_cpu() - c0;
		if (cpu > 0 && dt > TEAM_WAITED * cpu)
			dt = cpu;
		team_result_free(&res);
		if (rc)
			return -1;
		if (best < 0 || dt < best)
			best = dt;
	}
	return best;
}

static void *empty_thread(void *arg)
{
	return arg;
}

/* Nanoseconds to create and join a thread: the best of 20, or -1. */
static double spawn_cost(void)
{
	double best = -1;

	for (int i = 0; i < 20; i++) {
		pthread_t th;
		double t0 = clock_now(), dt;

		if (pthread_create(&th, NULL, empty_thread, NULL))
			return -1;
		pthread_join(th, NULL);
		dt = clock_now() - t0;
		if (best < 0 || dt < best)
			best = dt;
	}
	return best * 1e9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

struct trip_job {
	_Atomic uint64_t *line;
	long trips;
	/*
	 * A hand-over needs both threads on a cpu at once: beside a machine's
	 * worth of other runnable threads each trip can wait a time slice, and
	 * 20,000 of them took minutes (64 runs started at once on 2 cpus).
	 * Past this clock reading the threads give up and the default stays.
	 */
	double give_up_at;
	_Atomic int gave_up;
	/* thread 0's time for each TRIP_WINDOW trips, every round's */
	double *window_s;
	int nwindows, most_windows;
};

/*
 * The trips timed together: short enough that most windows saw both
 * threads on their cpus on a busy machine (one where a thread was off its
 * cpu takes a time slice and is an outlier), long enough that the clock's
 * read is a few percent of it.
 */
#define TRIP_WINDOW 250
#define TRIP_WINDOWS_LEAST 20
#define TRIP_QUANTILE 0.2

/* Whether to stop waiting: looked at once every 4,096 spins. */
static int trip_late(struct trip_job *j, unsigned *spins)
{
	if ((++*spins & 4095) != 0)
		return 0;
	if (atomic_load_explicit(&j->gave_up, memory_order_relaxed))
		return 1;
	if (clock_now() < j->give_up_at)
		return 0;
	atomic_store_explicit(&j->gave_up, 1, memory_order_relaxed);
	return 1;
}

/* Thread 0 hands the line over with an odd value, thread 1 answers with the
 * next even one. */
static void trip_body(void *arg, int tid, int round)
{
	struct trip_job *j = arg;
	uint64_t base = (uint64_t)round * 2 * (uint64_t)j->trips;
	unsigned spins = 0;

	double w0 = tid == 0 ? clock_now() : 0;

	for (long i = 0; i < j->trips; i++) {
		uint64_t v = base + 2 * (uint64_t)i;
		if (tid == 0 && i && i % TRIP_WINDOW == 0) {
			double w1 = clock_now();
			if (j->nwindows < j->most_windows)
				j->window_s[j->nwindows++] = w1 - w0;
			w0 = w1;
		}
		if (tid == 0) {
			atomic_store_explicit(j->line, v + 1,
					      memory_order_release);
			while (atomic_load_explicit(
				       j->line, memory_order_acquire) != v + 2)
				if (trip_late(j, &spins))
					return;
		} else {
			while (atomic_load_explicit(
				       j->line, memory_order_acquire) != v + 1)
				if (trip_late(j, &spins))
					return;
			atomic_store_explicit(j->line, v + 2,
					      memory_order_release);
		}
	}
}

/* The whole round-trip calibration may take this long, in seconds; quiet,
 * its 6 rounds of 20,000 trips take about 10 ms. */
#define TRIP_GIVE_UP_S 1.0

/*
 * Seconds per round trip of one line between the two cpus (a low window),
 * or -1; paced (may be NULL) gets the wall time of the whole team over
 * its trips: its start, each round's gate and every wait for a cpu in.
 */
static double round_trip(const struct topo *t, const int *cpus, long trips,
			 double *paced)
{
	struct trip_job j = {.trips = trips};
	struct team_job job = {.nthreads = 2,
			       .cpus = cpus,
			       .arg = &j,
			       .body = trip_body,
			       .warmup = 1,
			       .repeat = 5,
			       .spin = 1};
	struct team_result res;
	double best = -1;

	j.most_windows =
		(int)((job.warmup + job.repeat) * (trips / TRIP_WINDOW));
	j.window_s = calloc((size_t)j.most_windows + 1, sizeof(double));
	j.line = aligned_alloc(4096, 4096);
	if (!j.line || !j.window_s) {
		free((void *)j.line);
		free(j.window_s);
		return -1;
	}
	atomic_store(j.line, 0);
	atomic_init(&j.gave_up, 0);
	j.give_up_at = clock_now() + TRIP_GIVE_UP_S;
	/*
	 * A low window (the TRIP_QUANTILE-th): one where both threads were on
	 * their cpus throughout. A round's median took in the time slices its
	 * threads waited on a busy machine (1 us a trip against 56 ns quiet
	 * on the lab VM), and so did the median window beside a load of 11
	 * on 2 cpus (320 ns). The windows it got when it gave up count too,
	 * if enough; none at all when too few went through.
	 */
	double t0 = clock_now();
	int rc = team_run(&job, t, &res);
	if (paced)
		*paced = rc == 0 && !atomic_load(&j.gave_up)
				 ? (clock_now() - t0) /
					   ((double)(job.warmup + job.repeat) *
					    (double)trips)
				 : -1;
	if (j.nwindows >= TRIP_WINDOWS_LEAST ||
	    (rc == 0 && res.rounds > 0 && !atomic_load(&j.gave_up) &&
	     j.nwindows > 0)) {
		qsort(j.window_s, (size_t)j.nwindows, sizeof(double),
		      cmp_double);
		best = j.window_s[(int)(TRIP_QUANTILE * (j.nwindows - 1))] /
		       TRIP_WINDOW;
	}
	team_result_free(&res);
	free((void *)j.line);
	free(j.window_s);
	return best > 0 ? best : -1;
}

/* The first two cpus this process may use, into cpus: how many (0-2). */
static int first_two_cpus(const struct topo *t, int cpus[2])
{
	int n = 0;

	for (int i = 0; t && i < t->npus && n < 2; i++)
		if (t->pu[i].allowed)
			cpus[n++] = t->pu[i].os;
	return n;
}

double rates_round_trip_now(const struct topo *t, double *paced)
{
	int cpus[2] = {-1, -1}, n = first_two_cpus(t, cpus);

	/* a tenth of the calibration's trips: a few ms on a quiet machine */
	if (paced)
		*paced = -1;
	return n == 2 ? round_trip(t, cpus, 2000, paced) : -1;
}

int rates_contended_now(const struct topo *t, struct rates *r)
{
	int cpus[2] = {-1, -1}, n = first_two_cpus(t, cpus);
	double b, a;

	if (n < 2)
		return -1;
	/* as rates_calibrate measures them, on a fifth of the increments:
	 * a few ms */
	b = per_op(t, cpus, 2, 0, 4, 100000);
	a = per_op(t, cpus, 2, 1, 0, 12000);
	if (b <= 0 || a <= 0)
		return -1;
	r->bounce_ns = b * 1e9;
	r->atomic_shared_ns = a * 1e9;
	return 0;
}

/*
 * The buffer the memory rates stream over: 64 MiB, past the last-level
 * cache of most machines; a larger one would make the calibration cost
 * more than the quarter of a second it is allowed (first touch alone runs
 * at 5-20 us a page in a VM). On a machine whose caches hold it, the
 * rates come out high and estimates low: the bench row of estimate over
 * actual shows by how much.
 */
static size_t memory_bytes(const struct topo *t)
{
	(void)t;
	return (size_t)64 << 20;
}

#define TOUCH_PARTS 16

static void memory_rates(const struct topo *t, struct rates *r)
{
	size_t len = memory_bytes(t);
	enum bw_isa isa = bw_isa_best();
	double t0, best_r = -1, best_w = -1;
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return;
	/*
	 * First touch in TOUCH_PARTS parts, each timed: the median part is
	 * the rate. One timing of the whole took in whatever preemption a
	 * busy machine dealt it (4x between two calibrations a minute apart
	 * on the lab VM). Each part and pass below is timed on this thread's
	 * cpu clock (a fault's kernel time counts, a wait for the cpu does
	 * not): the rates are the machine's, and estimate_now adds what a
	 * busy machine costs now. On the wall clock a busy minute's rates
	 * came out 2x slow, and the estimates made of them counted the load
	 * twice (2.6-3.5x the actual).
	 */
	double part_s[TOUCH_PARTS];
	size_t part = len / TOUCH_PARTS;

	for (int k = 0; k < TOUCH_PARTS; k++) {
		t0 = clock_thread_cpu();
		for (size_t off = 0; off < part; off += 4096)
			p[(size_t)k * part + off] = 1;
		part_s[k] = clock_thread_cpu() - t0;
	}
	qsort(part_s, TOUCH_PARTS, sizeof(double), cmp_double);
	r->touch_page_ns =
		part_s[TOUCH_PARTS / 2] / (double)(part / 4096) * 1e9;
	/* the best of 8 passes each way (a pass is a few ms): a preempted
	 * pass gave 179 MB/s once, and the host's other guests slow some
	 * even on the cpu clock */
	for (int i = 0; i < 8; i++) {
		double dt;
		t0 = clock_thread_cpu();
		bw_kernel_isa(isa, BW_WRITE, p, NULL, len, 7);
		dt = clock_thread_cpu() - t0;
		if (best_w < 0 || dt < best_w)
			best_w = dt;
		t0 = clock_thread_cpu();
		bw_kernel_isa(isa, BW_READ, NULL, p, len, 0);
		dt = clock_thread_cpu() - t0;
		if (best_r < 0 || dt < best_r)
			best_r = dt;
	}
	if (best_r > 0)
		r->read_gbs = (double)len / best_r / 1e9;
	if (best_w > 0)
		r->write_gbs = (double)len / best_w / 1e9;
	munmap(p, len);
}

int rates_calibrate(const struct topo *t, struct rates *r)
{
	int cpus[2] = {-1, -1}, n = first_two_cpus(t, cpus);
	double v;

	if (n == 0)
		return -ENODEV;
	/* first: the process's age is still its start's (rates_start.c) */
	if ((v = rates_start_cost()) > 0)
		r->start_s = v;
	if ((v = per_op(t, cpus, 1, 0, 0, 2000000)) > 0)
		r->inc_ns = v * 1e9;
	if ((v = per_op(t, cpus, 1, 1, 0, 1000000)) > 0)
		r->atomic_ns = v * 1e9;
	if (n == 2) {
		/* two counters in one line: false sharing's worst case */
		if ((v = per_op(t, cpus, 2, 0, 4, 500000)) > 0)
			r->bounce_ns = v * 1e9;
		/* rounds of about 1 ms: one of 5 ms rarely went without a
		 * preemption beside a load of 11 (41 ns for 7-17) */
		if ((v = per_op(t, cpus, 2, 1, 0, 60000)) > 0)
			r->atomic_shared_ns = v * 1e9;
		if ((v = round_trip(t, cpus, 20000, NULL)) > 0)
			r->rtt_ns = v * 1e9;
	} else {
		/* one CPU: nothing bounces; the threads take turns */
		r->bounce_ns = r->inc_ns;
		r->atomic_shared_ns = r->atomic_ns;
	}
	if ((v = team_cost(t, cpus, n)) > 0)
		r->team_s = v;
	if ((v = spawn_cost()) > 0)
		r->spawn_ns = v;
	memory_rates(t, r);
	r->measured = 1;
	snprintf(r->source, sizeof(r->source), "calibrated");
	return 0;
}
