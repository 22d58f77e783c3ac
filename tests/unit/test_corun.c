/* test_corun.c - the stretch estimator on synthetic marks: a slowdown comes back whole however often the partner is preempted */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "adapt.h"
#include "stats.h"
#include "team.h"
#include "topo_fixture.h"

/* the true slowdown the partner's line bouncing costs thread 0 */
#define SLOWDOWN 3.67
/* a round: long enough to hold hundreds of preemptions */
#define ROUND_S 0.2
#define MOST_MARKS 20000

/* splitmix64, for repeatable draws */
static double draw(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	z ^= z >> 31;
	return (double)(z >> 11) / 9007199254740992.0;
}

/* The partner's life: on and off its cpu in turns, each lasting lo-hi s. */
struct life {
	double edge[4096]; /* edge[k]: the k-th change; on from 0 to edge[0] */
	int n;
};

static void live(struct life *l, double lo, double hi, uint64_t *s)
{
	double t = 0;

	l->n = 0;
	while (t < ROUND_S + 0.01 && l->n < 4096) {
		t += lo + (hi - lo) * draw(s);
		l->edge[l->n++] = t;
	}
}

/* Whether the partner is on its cpu at t, and when that next changes. */
static int on_at(const struct life *l, double t, double *change)
{
	int k = 0;

	while (k < l->n && l->edge[k] <= t)
		k++;
	*change = k < l->n ? l->edge[k] : INFINITY;
	return k % 2 == 0;
}

/* The partner's cpu time from 0 to t. */
static double partner_cpu(const struct life *l, double t)
{
	double cpu = 0, from = 0;

	for (int k = 0; k < l->n && l->edge[k] < t; k++) {
		if (k % 2 == 0)
			cpu += l->edge[k] - from;
		from = l->edge[k];
	}
	return cpu + (on_at(l, t, &(double){0}) ? t - from : 0);
}

/* Thread 0's work from 0 to t: 1 a second alone, 1 / SLOWDOWN beside it. */
static double worker_work(const struct life *l, double t)
{
	double w = 0, at = 0, change;

	while (at < t) {
		int on = on_at(l, at, &change);
		double to = fmin(change, t);
		w += (to - at) * (on ? 1 / SLOWDOWN : 1);
		at = to;
	}
	return w;
}

/*
 * The marks of both threads through a round, as team_mark leaves them:
 * a mark once a slot (about slot s) is over, at the first mark call
 * after it (one every 20-60 us of the thread's work); a thread off its
 * cpu makes none until it is back.
 */
static void mark_round(const struct life *l, double slot, uint64_t *s,
		       struct team_stamp *w, int *nw, struct team_stamp *p,
		       int *np)
{
	double t = 0, change;

	*nw = *np = 0;
	while (t <= ROUND_S && *nw < MOST_MARKS) {
		w[(*nw)++] = (struct team_stamp){t, worker_work(l, t), t};
		t += slot + (20e-6 + 40e-6 * draw(s));
	}
	t = 0;
	while (t <= ROUND_S && *np < MOST_MARKS) {
		if (!on_at(l, t, &change))
			t = change + 5e-6 * draw(s);
		p[(*np)++] = (struct team_stamp){t, 0, partner_cpu(l, t)};
		t += slot + (20e-6 + 40e-6 * draw(s));
	}
}

/* The slowdown the stretches give for a partner on and off every lo-hi s. */
static double slowdown(double lo, double hi, double slot, uint64_t seed)
{
	static struct team_stamp w[MOST_MARKS], p[MOST_MARKS];
	static struct life l;
	const struct team_stamp *both[] = {w, p};
	int n[2];
	struct team_corun c;
	uint64_t s = seed;

	live(&l, lo, hi, &s);
	mark_round(&l, slot, &s, w, &n[0], p, &n[1]);
	assert_int_equal(team_corun(both, n, 2, &c), 0);
	assert_true(c.length > 0 && c.work > 0);
	/* alone, the work takes its own amount of seconds */
	return c.length / c.work;
}

/*
 * A 3.67x slowdown comes back within 5% whether the partner is
 * preempted every 0.15-0.5 ms or every 0.3-1 ms, with slots of 50 us
 * (a fast clock) or 136 us (the lab VM's): a slot that straddles the
 * edge of a stretch brings none of its uncontended work in.
 */
static void test_unbiased(void **state)
{
	static const double period[][2] = {
		{0.15e-3, 0.5e-3}, {0.3e-3, 1e-3}, {0.15e-3, 1e-3}};
	static const double slot[] = {50e-6, 136e-6};
	(void)state;
	for (size_t i = 0; i < sizeof(period) / sizeof(period[0]); i++)
		for (size_t k = 0; k < sizeof(slot) / sizeof(slot[0]); k++)
			for (uint64_t seed = 1; seed <= 3; seed++) {
				double x = slowdown(period[i][0], period[i][1],
						    slot[k], seed);
				printf("# partner off every %.2f-%.2f ms, slots "
				       "of %.0f us: %.2fx\n",
				       period[i][0] * 1e3, period[i][1] * 1e3,
				       slot[k] * 1e6, x);
				assert_true(x > SLOWDOWN * 0.95 &&
					    x < SLOWDOWN * 1.05);
			}
}

/* A partner that never leaves its cpu: every slot is contended. */
static void test_never_preempted(void **state)
{
	(void)state;
	assert_float_equal(slowdown(1, 2, 100e-6, 7), SLOWDOWN, 1e-6);
}

/*
 * A single thread off its cpu for 40 ms in the middle of a round of busy
 * work (asleep: as off it as preempted): with marks, or without them and
 * kept because nothing may be redone (budget 0), the round's time leaves
 * those 40 ms out.
 */
static int nap_marks;

static void nap_body(void *arg, int tid, int round)
{
	volatile double x = 0;
	(void)arg;
	(void)tid;
	(void)round;
	for (int i = 1; i <= 2000; i++) {
		for (int k = 0; k < 2000; k++)
			x = x + k;
		if (i == 1000 && nap_marks >= 0)
			nanosleep(&(struct timespec){0, 40000000}, NULL);
		if (nap_marks)
			team_mark(i);
	}
}

static void test_preempted_single(void **state)
{
	struct topo *t = topo_load();
	struct adapt_point p;
	struct team_job job = {.nthreads = 1,
			       .body = nap_body,
			       .warmup = 0,
			       .repeat = 1,
			       .adapt = &p};
	struct team_result res;
	(void)state;
	for (nap_marks = 1; nap_marks >= 0; nap_marks--) {
		double t0, wall;
		adapt_run_point(NULL, 1, 0, &p); /* exact: nothing redone */
		job.work = nap_marks ? 2000 : 0;
		t0 = clock_now();
		assert_int_equal(team_run(&job, t, &res), 0);
		wall = clock_now() - t0;
		assert_int_equal(res.rounds, 1);
		printf("# marks %d: round %.1f ms of %.1f ms wall\n", nap_marks,
		       res.seconds[0] * 1e3, wall * 1e3);
		assert_true(res.seconds[0] > 0);
		assert_true(res.seconds[0] < wall - 0.030);
		team_result_free(&res);
	}
	topo_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unbiased),
		cmocka_unit_test(test_never_preempted),
		cmocka_unit_test(test_preempted_single),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
