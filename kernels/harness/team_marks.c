/* team_marks.c - a team thread's progress marks: team_mark's log, its slots and the clocks they read */
#include "team_marks.h"

#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

#include "clock.h"

/*
 * The marks a marked log holds before every other one is dropped: a
 * round of 0.5 s in slots of 136 us, and for a large team no more than
 * STAMP_TEAM_BYTES in all (at least STAMP_LEAST a thread).
 */
#define STAMP_CAP 4096
#define STAMP_LEAST 256
#define STAMP_TEAM_BYTES (16u << 20)

static _Thread_local struct stamp_log *tl_log;

double team_cpu_clock_cost(void)
{
	static _Atomic double cost;
	double c = atomic_load_explicit(&cost, memory_order_relaxed);

	if (c > 0)
		return c;
	c = INFINITY;
	for (int i = 0; i < 32; i++) {
		double t0 = clock_now();
		(void)clock_thread_cpu();
		c = fmin(c, clock_now() - t0);
	}
	c = c > 0 ? c : 1e-9;
	atomic_store_explicit(&cost, c, memory_order_relaxed);
	return c;
}

/*
 * Appends a mark; a full log keeps every other mark (the first, at the
 * body's start, among them) and cuts slots twice as long from then on.
 */
static void log_put(struct stamp_log *l, double t, double work, double cpu)
{
	if (l->n == l->cap) {
		int k = 0;
		for (int i = 0; i < l->n; i += 2)
			l->v[k++] = l->v[i];
		l->n = k;
		l->slot *= 2;
	}
	l->v[l->n++] = (struct team_stamp){.t = t, .work = work, .cpu = cpu};
}

/*
 * A cheap clock that says when a slot is over: the time stamp counter
 * where there is one, read without a fence. clock_now() goes through the
 * vDSO, which fences before it reads the counter: with a mark every 8 MiB
 * (every 50 us) it made an L2-sized AVX-512 write loop 13% slower (173
 * and 179 GB/s against 199 and 204 without marks, 12 runs each in turns
 * of tests/bench/bw_alone write 1 131072), where this costs 2% (196 and
 * 200). What is recorded comes from clock_now(); a counter that drifts
 * only makes slots longer or shorter.
 */
static inline uint64_t tick(void)
{
#if defined(__x86_64__) || defined(__i386__)
	return __rdtsc();
#else
	return (uint64_t)(clock_now() * 1e9);
#endif
}

/* Ticks a second, measured once over a millisecond. */
static double ticks_per_second(void)
{
	static _Atomic double rate;
	double r = atomic_load_explicit(&rate, memory_order_relaxed), t0;
	uint64_t k0;

	if (r > 0)
		return r;
	t0 = clock_now();
	k0 = tick();
	while (clock_now() - t0 < 1e-3)
		;
	r = (double)(tick() - k0) / (clock_now() - t0);
	r = r > 0 ? r : 1e9;
	atomic_store_explicit(&rate, r, memory_order_relaxed);
	return r;
}

void team_mark(double work)
{
	struct stamp_log *l = tl_log;
	double cpu;

	if (!l)
		return;
	l->work = work;
	if (tick() < l->next)
		return;
	cpu = l->cpu_clock();
	log_put(l, clock_now(), work, cpu);
	l->next = tick() + (uint64_t)(l->slot * l->rate);
}

void stamp_log_start(struct stamp_log *l, double slot)
{
	double cpu = l->cpu_clock();

	l->n = 0;
	l->work = 0;
	l->slot = slot;
	log_put(l, clock_now(), 0, cpu);
	l->next = tick() + (uint64_t)(l->slot * l->rate);
	tl_log = l;
}

void stamp_log_end(struct stamp_log *l)
{
	double cpu = l->cpu_clock();

	tl_log = NULL;
	log_put(l, clock_now(), l->work, cpu);
}

/* A log per thread for a job with work, and the slot its marks start at. */
struct stamp_log *stamp_logs_alloc(int n, int process_clock, double *slot)
{
	size_t cap = STAMP_TEAM_BYTES / sizeof(struct team_stamp) / (size_t)n;
	struct stamp_log *logs;

	cap = cap > STAMP_CAP	  ? STAMP_CAP
	      : cap < STAMP_LEAST ? STAMP_LEAST
				  : cap;
	*slot = fmin(fmax(TEAM_SLOT_CLOCKS * team_cpu_clock_cost(), 50e-6),
		     5e-3);
	logs = aligned_alloc(_Alignof(struct stamp_log),
			     (size_t)n * sizeof(*logs));
	if (!logs)
		return NULL;
	memset(logs, 0, (size_t)n * sizeof(*logs));
	for (int i = 0; i < n; i++) {
		logs[i].cap = (int)cap;
		logs[i].rate = ticks_per_second();
		logs[i].cpu_clock =
			process_clock ? clock_process_cpu : clock_thread_cpu;
		logs[i].v = calloc(cap, sizeof(struct team_stamp));
		if (!logs[i].v) {
			stamp_logs_free(logs, n);
			return NULL;
		}
	}
	return logs;
}

void stamp_logs_free(struct stamp_log *logs, int n)
{
	for (int i = 0; logs && i < n; i++)
		free(logs[i].v);
	free(logs);
}
