/* team_gate.c - a round's start gate: the team's threads begin their timed work only once all are on their cpus at once */
#define _GNU_SOURCE
#include "team_gate.h"

#include <limits.h>
#include <linux/futex.h>
#include <math.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"

#define COUNT_MASK (TEAM_GATE_FORCED - 1)

void team_gate_init(struct team_gate *g, unsigned n, double wait, double most)
{
	atomic_init(&g->word, 0);
	g->n = n;
	g->wait = wait;
	g->most = most;
}

void team_gate_close(struct team_gate *g)
{
	atomic_store_explicit(&g->word, 0, memory_order_release);
}

/* Sleeps while the word is v, for seconds at most (or until woken). */
static void gate_sleep(struct team_gate *g, unsigned v, double seconds)
{
	struct timespec ts = {.tv_sec = (time_t)seconds,
			      .tv_nsec = (long)(fmod(seconds, 1) * 1e9)};

	syscall(SYS_futex, &g->word, FUTEX_WAIT_PRIVATE, v, &ts, NULL, 0);
}

static void gate_wake(struct team_gate *g)
{
	syscall(SYS_futex, &g->word, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL,
		0);
}

/*
 * What word v says of a thread at the gate: 1 passed together (all
 * there at once, or the gate opened so), 0 forced open, -1 still shut.
 */
static int gate_state(const struct team_gate *g, unsigned v)
{
	if (v & TEAM_GATE_OPEN)
		return !(v & TEAM_GATE_FORCED);
	return (v & COUNT_MASK) >= g->n ? 1 : -1;
}

/*
 * Steps out of the gate: -1 when this thread is no longer counted at it
 * (*left: the word it left), else what the word says now (1: the others
 * all came meanwhile; 0: it was forced open).
 */
static int step_out(struct team_gate *g, unsigned *left)
{
	unsigned v = atomic_load_explicit(&g->word, memory_order_acquire);

	for (;;) {
		int s = gate_state(g, v);
		if (s >= 0)
			return s;
		if (atomic_compare_exchange_weak_explicit(
			    &g->word, &v, v - 1, memory_order_acq_rel,
			    memory_order_acquire)) {
			*left = v - 1;
			return -1;
		}
	}
}

int team_gate_pass(struct team_gate *g)
{
	double start = clock_now();

	if (g->n < 2)
		return 1;
	for (;;) {
		unsigned v = atomic_fetch_add_explicit(&g->word, 1,
						       memory_order_acq_rel) +
			     1;
		unsigned left;
		double t0;
		int s = gate_state(g, v);

		if (s >= 0) {
			/* the last to come: every thread is counted, none
			 * asleep; it stays open for any that looks again */
			if (!(v & TEAM_GATE_OPEN))
				atomic_fetch_or_explicit(&g->word,
							 TEAM_GATE_OPEN,
							 memory_order_release);
			return s;
		}
		/* the others are to come to their cpus now */
		gate_wake(g);
		t0 = clock_now();
		do {
			team_cpu_relax();
			v = atomic_load_explicit(&g->word,
						 memory_order_acquire);
			s = gate_state(g, v);
		} while (s < 0 && clock_now() - t0 < g->wait);
		if (s >= 0 || (s = step_out(g, &left)) >= 0)
			return s;
		if (clock_now() - start >= g->most) {
			atomic_fetch_or_explicit(
				&g->word, TEAM_GATE_OPEN | TEAM_GATE_FORCED,
				memory_order_acq_rel);
			gate_wake(g);
			return 0;
		}
		gate_sleep(g, left, g->wait);
		v = atomic_load_explicit(&g->word, memory_order_acquire);
		if (v & TEAM_GATE_OPEN)
			return gate_state(g, v);
	}
}
