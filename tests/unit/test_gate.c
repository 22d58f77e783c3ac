/* test_gate.c - a round's start gate: passed together when every thread comes, forced open when one never does, none left waiting */
#define _GNU_SOURCE
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <cmocka.h>

#include "team.h"
#include "team_gate.h"
#include "topo_fixture.h"

/* generous: the tests assert what the gate says, never how fast */
#define WAIT 200e-6
#define MOST 10.0

struct walker {
	struct team_gate *g;
	double late; /* seconds it sleeps before it comes */
	int rounds;
	int passed[4];		    /* what team_gate_pass said, per round */
	pthread_barrier_t *between; /* rounds apart: close between them */
};

static void nap(double s)
{
	struct timespec ts = {.tv_sec = (time_t)s,
			      .tv_nsec = (long)((s - (double)(time_t)s) * 1e9)};

	nanosleep(&ts, NULL);
}

static void *walk(void *arg)
{
	struct walker *w = arg;

	for (int r = 0; r < w->rounds; r++) {
		nap(w->late);
		w->passed[r] = team_gate_pass(w->g);
		if (w->between) {
			/* all through: one closes it, none is at it */
			if (pthread_barrier_wait(w->between) ==
			    PTHREAD_BARRIER_SERIAL_THREAD)
				team_gate_close(w->g);
			pthread_barrier_wait(w->between);
		}
	}
	return NULL;
}

/* n threads walk rounds through g, thread i late[i] s each round. */
static void walk_all(struct team_gate *g, int n, const double *late, int rounds,
		     struct walker *w)
{
	pthread_t th[8];
	pthread_barrier_t between;

	pthread_barrier_init(&between, NULL, (unsigned)n);
	for (int i = 0; i < n; i++) {
		w[i] = (struct walker){.g = g,
				       .late = late[i],
				       .rounds = rounds,
				       .between = rounds > 1 ? &between : NULL};
		assert_int_equal(pthread_create(&th[i], NULL, walk, &w[i]), 0);
	}
	for (int i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	pthread_barrier_destroy(&between);
}

/* One thread alone passes at once. */
static void one_passes(void **state)
{
	struct team_gate g;

	(void)state;
	team_gate_init(&g, 1, WAIT, MOST);
	assert_int_equal(team_gate_pass(&g), 1);
}

/*
 * Threads that all come pass together, round after round once closed.
 * Two: a team has a cpu a thread (more threads than cpus take turns and
 * never use the gate), and this machine may have two.
 */
static void all_come(void **state)
{
	struct team_gate g;
	struct walker w[2];
	const double late[2] = {0, 0};

	(void)state;
	team_gate_init(&g, 2, WAIT, MOST);
	walk_all(&g, 2, late, 3, w);
	for (int i = 0; i < 2; i++)
		for (int r = 0; r < 3; r++)
			assert_int_equal(w[i].passed[r], 1);
}

/*
 * One thread comes long after the others' wait on their cpus is over:
 * they step out and sleep, and it wakes them, so all still pass
 * together.
 */
static void a_late_one_is_waited_for(void **state)
{
	struct team_gate g;
	struct walker w[2];
	const double late[2] = {0, 50e-3};

	(void)state;
	team_gate_init(&g, 2, WAIT, MOST);
	walk_all(&g, 2, late, 2, w);
	for (int i = 0; i < 2; i++)
		for (int r = 0; r < 2; r++)
			assert_int_equal(w[i].passed[r], 1);
}

/*
 * A thread that never comes: the others try for the gate's most, then
 * open it and go, saying the round started apart.
 */
static void a_missing_one_forces_it_open(void **state)
{
	struct team_gate g;
	struct walker w[2];
	const double late[2] = {0, 0};

	(void)state;
	team_gate_init(&g, 3, WAIT, 20e-3);
	walk_all(&g, 2, late, 1, w);
	assert_int_equal(w[0].passed[0], 0);
	assert_int_equal(w[1].passed[0], 0);
	/* one that comes after it opened goes through too, apart */
	assert_int_equal(team_gate_pass(&g), 0);
	/* closed again, it waits for all once more */
	team_gate_close(&g);
	walk_all(&g, 2, late, 1, w);
	assert_int_equal(w[0].passed[0], 0);
}

/* A team with together runs its rounds through the gate. */
static void body(void *arg, int tid, int round)
{
	(void)arg;
	(void)tid;
	(void)round;
}

static void a_team_starts_together(void **state)
{
	struct topo *t = synthetic("pack:1 l3:1 core:2 pu:1");
	const int cpus[2] = {-1, -1};
	struct team_job job = {.nthreads = 2,
			       .cpus = cpus,
			       .body = body,
			       .repeat = 5,
			       .spin = 1,
			       .together = 1};
	struct team_result res;

	(void)state;
	assert_non_null(t);
	assert_int_equal(team_run(&job, t, &res), 0);
	/* through the gate and out, round after round: how many started
	 * apart is the machine's to say */
	assert_int_equal(res.rounds, 5);
	assert_in_range(res.started_apart, 0, 5);
	team_result_free(&res);
	topo_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(one_passes),
		cmocka_unit_test(all_come),
		cmocka_unit_test(a_late_one_is_waited_for),
		cmocka_unit_test(a_missing_one_forces_it_open),
		cmocka_unit_test(a_team_starts_together),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
