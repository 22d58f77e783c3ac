/* test_verdicts_threads.c - what false_sharing, atomic_increment and core_to_core say about canned runs and before a run */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "atomic_increment/ai.h"
#include "compare.h"

#include "contend.h"
#include "experiment.h"
#include "lesson.h"
#include "registry.h"
#include "run_fixture.h"

#define TWO_SOCKET "tests/data/two_socket_smt.xml"
/* a 1-node, 2-CPU virtual machine: one L3 over two cores, or an L3 each */
#define VM_ONE_L3 "pack:1 numa:1 l3:1 core:2 pu:1"
#define VM_TWO_L3 "pack:1 numa:1 l3:2 core:1 pu:1"
#define FOUR_NODES "pack:4 numa:1 l3:1 core:2 pu:1"
#define ONE_CPU "pack:1 numa:1 l3:1 core:1 pu:1"

#define ARGS(...)                                                              \
	(sizeof((char *const[]){__VA_ARGS__}) / sizeof(char *)),               \
		((char *const[]){__VA_ARGS__})

static const int two_cpus[] = {0, 1};
static const int same_cpu[] = {0, 0};

static struct canned *described(struct canned *c)
{
	experiment_describe(&c->rr, &c->v);
	return c;
}

/* The sibling of cpu 0 and a cpu of another package, on the two-socket machine.
 */
static void two_socket_cpus(const struct topo *t, int *sibling, int *remote)
{
	const struct topo_pu *p0 = topo_pu_by_os(t, 0);

	*sibling = *remote = -1;
	for (int i = 0; i < t->npus; i++) {
		const struct topo_pu *p = &t->pu[i];
		if (p->os != 0 && p->core == p0->core)
			*sibling = p->os;
		if (p->package != p0->package && *remote < 0)
			*remote = p->os;
	}
	assert_true(*sibling >= 0 && *remote >= 0);
}

/* A false_sharing run of 2 threads: separate, then shared at each stride. */
static void fs_points(struct canned *c, const struct topo *t, double sep,
		      const char *const *series, const double *shared,
		      const int *strides, int n, double spread, double overlap,
		      const int *cpus)
{
	static char labels[8][64];

	canned_point(c, "time", "separate", 2, NULL, sep, spread, 5);
	canned_extra(c, "overlap", overlap);
	canned_placement(c, t, "threads=2 layout=separate", cpus, 2);
	for (int i = 0; i < n; i++) {
		canned_point(c, "time", series[i], 2, NULL, shared[i], spread,
			     5);
		canned_extra(c, "overlap", overlap);
		snprintf(labels[i], sizeof(labels[i]),
			 "threads=2 layout=shared stride=%d", strides[i]);
		canned_placement(c, t, labels[i], cpus, 2);
	}
}

/* the case: stride=64,128 said "sharing one cache line cost 2 threads
 * only 1.02x" */
static void fs_strides_past_the_line_share_nothing(void **state)
{
	struct topo *t = synthetic(VM_ONE_L3);
	struct canned *c = canned_new("false_sharing", t, 1,
				      ARGS("threads=2", "stride=64,128"));
	const char *series[] = {"shared, stride 64 B", "shared, stride 128 B"};
	const double y[] = {1.02, 1.01};
	const int strides[] = {64, 128};

	(void)state;
	fs_points(c, t, 1.0, series, y, strides, 2, 0.01, 0.95, two_cpus);
	described(c);
	assert_true(verdict_says(
		&c->v,
		"counters 64 and 128 B apart sit in separate lines: no sharing to measure"));
	assert_false(verdict_says(&c->v, "cost"));
	assert_false(verdict_says(&c->v, "slower"));
	canned_free(c);
	topo_free(t);
}

/* the case: threads that took turns were blamed on "rounds this short"
 */
static void fs_threads_that_did_not_overlap(void **state)
{
	struct topo *t = synthetic(VM_ONE_L3);
	struct canned *c = canned_new("false_sharing", t, 1, ARGS("threads=2"));
	const char *series[] = {"shared"};
	const double y[] = {1.0};
	const int strides[] = {4};

	(void)state;
	fs_points(c, t, 1.0, series, y, strides, 1, 0.01, 0.12, two_cpus);
	described(c);
	assert_true(verdict_says(
		&c->v, "ran at the same time for only 12% of a round"));
	assert_true(verdict_says(&c->v, "could not be measured"));
	assert_false(verdict_says(&c->v, "rounds this short"));
	assert_false(verdict_says(&c->v, "increments"));
	canned_free(c);
	topo_free(t);
}

/* the case: 1.02x is within the rounds' spread, not a small penalty */
static void fs_within_noise(void **state)
{
	struct topo *t = synthetic(VM_ONE_L3);
	struct canned *c = canned_new("false_sharing", t, 1, ARGS("threads=2"));
	const char *series[] = {"shared"};
	const double y[] = {1.02};
	const int strides[] = {4};
	int kind = 0;

	(void)state;
	fs_points(c, t, 1.0, series, y, strides, 1, 0.01, 0.95, two_cpus);
	described(c);
	assert_true(verdict_says(&c->v, "did not measurably slow 2 threads"));
	assert_false(verdict_says(&c->v, "slower than separate"));
	/* no share was measured: none is said */
	assert_false(verdict_says(&c->v, "of the increments made"));
	/* no difference is a statement too: the number stays */
	assert_null(verdict_qualifier_why(&c->v, "slowdown_2_threads", &kind));
	canned_free(c);
	topo_free(t);
}

/*
 * Each thread's share of the increments, shared line against separate
 * lines, beside the headline: the time is thread 0's alone.
 */
static void fs_shares_said(void **state)
{
	struct topo *t = synthetic(VM_ONE_L3);
	struct canned *c = canned_new("false_sharing", t, 1, ARGS("threads=2"));
	const char *const series[] = {"separate", "shared"};
	const char *const labels[] = {"threads=2 layout=separate",
				      "threads=2 layout=shared stride=4"};
	const double y[] = {1.0, 4.0}, share0[] = {0.5, 0.7};

	(void)state;
	for (int i = 0; i < 2; i++) {
		canned_point(c, "time", series[i], 2, NULL, y[i], 0.01, 5);
		canned_extra(c, "overlap", 0.95);
		canned_extra(c, "corun", 0.9);
		canned_extra(c, "share_thread_0", share0[i]);
		canned_extra(c, "share_thread_1", 1 - share0[i]);
		canned_placement(c, t, labels[i], two_cpus, 2);
	}
	described(c);
	assert_true(verdict_says(&c->v, "slower than separate lines"));
	assert_true(verdict_says(
		&c->v,
		"2 threads, one shared line: of the increments made while every thread was in the round, thread 0 70%, thread 1 30% (even would be 50% each; the time is thread 0's); on separate lines thread 0 50%, thread 1 50%; all were on a cpu at once for 90% of a round (median)"));
	canned_free(c);
	topo_free(t);
}

/* intervals too wide for "no difference": said, and the number disowned */
static void fs_spread_too_wide(void **state)
{
	struct topo *t = synthetic(VM_ONE_L3);
	struct canned *c = canned_new("false_sharing", t, 1, ARGS("threads=2"));
	const char *series[] = {"shared"};
	const double y[] = {1.02};
	const int strides[] = {4};
	const char *why;
	int kind = 0;

	(void)state;
	fs_points(c, t, 1.0, series, y, strides, 1, 0.05, 0.95, two_cpus);
	described(c);
	assert_true(verdict_says(&c->v, "the rounds varied too much to tell"));
	assert_false(verdict_says(&c->v, "did not measurably slow"));
	why = verdict_qualifier_why(&c->v, "slowdown_2_threads", &kind);
	assert_non_null(why);
	assert_int_equal(kind, VERDICT_DISOWNED);
	assert_non_null(strstr(c->v.headline, why));
	canned_free(c);
	topo_free(t);
}

/*
 * The case: the threads overlapped for only part of a round, yet
 * shared (29 ms) and separate (11 ms) differ far beyond their intervals:
 * above the floor that is a lower bound, stated as one, not a failure.
 */
static void fs_partial_overlap_is_a_lower_bound(void **state)
{
	struct topo *t = synthetic(VM_ONE_L3);
	struct canned *c = canned_new("false_sharing", t, 1, ARGS("threads=2"));
	const char *series[] = {"shared"};
	const double y[] = {0.029};
	const int strides[] = {4};
	const char *why;
	int kind = 0;

	(void)state;
	fs_points(c, t, 0.011, series, y, strides, 1, 0.03, 0.55, two_cpus);
	described(c);
	assert_true(verdict_says(
		&c->v,
		"one shared cache line made 2 threads at least 2.6× (2.5–2.8) slower than separate lines"));
	assert_true(verdict_says(&c->v, "ran together only 55% of a round"));
	assert_false(verdict_says(&c->v, "could not be measured"));
	why = verdict_qualifier_why(&c->v, "slowdown_2_threads", &kind);
	assert_non_null(why);
	assert_int_equal(kind, VERDICT_AT_LEAST);
	assert_non_null(strstr(c->v.headline, why));
	canned_free(c);
	topo_free(t);
}

/* under the floor nothing is stated, and the number is disowned with why */
static void fs_overlap_under_the_floor_disowned(void **state)
{
	struct topo *t = synthetic(VM_ONE_L3);
	struct canned *c = canned_new("false_sharing", t, 1, ARGS("threads=2"));
	const char *series[] = {"shared"};
	const double y[] = {0.029};
	const int strides[] = {4};
	const char *why;
	int kind = 0;

	(void)state;
	fs_points(c, t, 0.011, series, y, strides, 1, 0.03, 0.20, two_cpus);
	described(c);
	assert_true(verdict_says(
		&c->v, "ran at the same time for only 20% of a round"));
	assert_false(verdict_says(&c->v, "slower than separate"));
	why = verdict_qualifier_why(&c->v, "slowdown_2_threads", &kind);
	assert_non_null(why);
	assert_int_equal(kind, VERDICT_DISOWNED);
	assert_non_null(strstr(why, "only 20% of a round"));
	assert_non_null(strstr(c->v.headline, why));
	canned_free(c);
	topo_free(t);
}

/* the case: 2 threads 48 B apart (bytes 0-3 and 48-51) share a line */
static void fs_stride_48_shares_one_line(void **state)
{
	struct topo *t = synthetic(VM_ONE_L3);
	struct canned *c = canned_new("false_sharing", t, 1,
				      ARGS("threads=2", "stride=48"));
	const char *series[] = {"shared"};
	const double y[] = {3.0};
	const int strides[] = {48};

	(void)state;
	fs_points(c, t, 1.0, series, y, strides, 1, 0.02, 0.95, two_cpus);
	described(c);
	assert_true(verdict_says(
		&c->v,
		"made 2 threads 3.0× (2.9–3.1) slower than separate lines"));
	assert_false(verdict_says(&c->v, "span more than one"));
	canned_free(c);
	topo_free(t);
}

/* a real penalty across sockets is stated, with its factor */
static void fs_penalty_across_sockets(void **state)
{
	struct topo *t = xml(TWO_SOCKET);
	struct canned *c = canned_new("false_sharing", t, 0, ARGS("threads=2"));
	const char *series[] = {"shared"};
	const double y[] = {4.0};
	const int strides[] = {4};
	int sib, remote, cpus[2];

	(void)state;
	two_socket_cpus(t, &sib, &remote);
	cpus[0] = 0;
	cpus[1] = remote;
	fs_points(c, t, 1.0, series, y, strides, 1, 0.02, 0.97, cpus);
	described(c);
	assert_true(verdict_says(
		&c->v,
		"made 2 threads 4.0× (3.8–4.2) slower than separate lines"));
	assert_false(verdict_says(&c->v, "smt"));
	canned_free(c);
	topo_free(t);
}

/* threads on smt siblings: the penalty is stated, and where they ran is noted
 */
static void fs_smt_siblings_noted(void **state)
{
	struct topo *t = xml(TWO_SOCKET);
	struct canned *c = canned_new("false_sharing", t, 0, ARGS("threads=2"));
	const char *series[] = {"shared"};
	const double y[] = {1.5};
	const int strides[] = {4};
	int sib, remote, cpus[2];

	(void)state;
	two_socket_cpus(t, &sib, &remote);
	cpus[0] = 0;
	cpus[1] = sib;
	fs_points(c, t, 1.0, series, y, strides, 1, 0.02, 0.97, cpus);
	described(c);
	assert_true(verdict_says(&c->v, "1.5× (1.4–1.6) slower"));
	assert_true(verdict_says_at(&c->v, "info", "smt siblings"));
	canned_free(c);
	topo_free(t);
}

/* both threads observed on one cpu: no line could travel */
static void fs_one_cpu_observed(void **state)
{
	struct topo *t = synthetic(VM_ONE_L3);
	struct canned *c = canned_new("false_sharing", t, 1, ARGS("threads=2"));
	const char *series[] = {"shared"};
	const double y[] = {3.0};
	const int strides[] = {4};

	(void)state;
	fs_points(c, t, 1.0, series, y, strides, 1, 0.01, 0.9, same_cpu);
	described(c);
	assert_true(verdict_says(&c->v, "all ran on one cpu"));
	assert_false(verdict_says(&c->v, "slower"));
	canned_free(c);
	topo_free(t);
}

/* one round per point: nothing can be told apart */
static void fs_too_few_rounds(void **state)
{
	struct topo *t = synthetic(VM_ONE_L3);
	struct canned *c = canned_new("false_sharing", t, 1,
				      ARGS("threads=2", "repeat=1"));

	(void)state;
	canned_point(c, "time", "separate", 2, NULL, 1.0, 0, 1);
	canned_point(c, "time", "shared", 2, NULL, 3.0, 0, 1);
	described(c);
	assert_true(verdict_says(&c->v, "fewer than 2 rounds"));
	assert_false(verdict_says(&c->v, "slower than separate"));
	canned_free(c);
	topo_free(t);
}

static void fs_one_thread(void **state)
{
	struct topo *t = synthetic(VM_ONE_L3);
	struct canned *c = canned_new("false_sharing", t, 1, ARGS("threads=1"));

	(void)state;
	canned_point(c, "time", "separate", 1, NULL, 1.0, 0.01, 5);
	canned_point(c, "time", "shared", 1, NULL, 1.0, 0.01, 5);
	described(c);
	assert_true(verdict_says(&c->v, "needs two or more threads"));
	canned_free(c);
	topo_free(t);
}

/* a sweep: the strides within the line are compared, those past it are a
 * control */
static void fs_sweep_states_inline_strides_only(void **state)
{
	struct topo *t = synthetic(FOUR_NODES);
	struct canned *c = canned_new("false_sharing", t, 0,
				      ARGS("threads=2", "stride=4,128"));
	const char *series[] = {"shared, stride 4 B", "shared, stride 128 B"};
	const double y[] = {5.0, 1.0};
	const int strides[] = {4, 128};

	(void)state;
	fs_points(c, t, 1.0, series, y, strides, 2, 0.02, 0.95, two_cpus);
	described(c);
	assert_true(
		verdict_says(&c->v, "made 2 threads 5.0× (4.8–5.2) slower"));
	assert_true(verdict_says_at(
		&c->v, "info",
		"stride 128 B: counters 128 B apart sit in separate lines"));
	canned_free(c);
	topo_free(t);
}

static void fs_precheck_stride_over_line(void **state)
{
	struct topo *t = synthetic(VM_ONE_L3);
	struct verdict v;

	(void)state;
	canned_precheck("false_sharing", t, ARGS("threads=2", "stride=64"), &v);
	assert_true(verdict_says_at(
		&v, "cannot",
		"stride 64 B: counters 64 B apart sit in separate"));
	/* 2 threads 48 B apart share a line: (2 - 1) x 48 + 4 <= 64 */
	canned_precheck("false_sharing", t, ARGS("threads=2", "stride=48"), &v);
	assert_int_equal(v.nnotes, 0);
	canned_precheck("false_sharing", t, ARGS("threads=2", "stride=60"), &v);
	assert_int_equal(v.nnotes, 0);
	/* 3 threads 32 B apart do not: bytes 64-67 are in the next line */
	topo_free(t);
	t = synthetic(FOUR_NODES);
	canned_precheck("false_sharing", t, ARGS("threads=3", "stride=32"), &v);
	assert_true(verdict_says_at(
		&v, "cannot",
		"stride 32 B: the counters of 3 or more threads span more than one 64 B line: the one-line comparison needs (threads − 1) × stride + 4 ≤ 64"));
	canned_precheck("false_sharing", t, ARGS("threads=2", "stride=4,128"),
			&v);
	assert_false(verdict_has_level(&v, "cannot"));
	assert_true(verdict_says_at(&v, "info", "stride 128 B"));
	canned_precheck("false_sharing", t, ARGS("threads=2", "stride=32"), &v);
	assert_int_equal(v.nnotes, 0);
	topo_free(t);
}

static void fs_precheck_one_cpu(void **state)
{
	struct topo *t = synthetic(ONE_CPU);
	struct verdict v;

	(void)state;
	canned_precheck("false_sharing", t, ARGS("threads=1"), &v);
	assert_true(verdict_says_at(&v, "cannot", "needs 2 or more threads"));
	topo_free(t);
}

static void fs_precheck_smt_siblings(void **state)
{
	struct topo *t = xml(TWO_SOCKET);
	struct verdict v;

	(void)state;
	canned_precheck("false_sharing", t,
			ARGS("threads=2", "placement=compact"), &v);
	assert_true(verdict_says_at(&v, "warn", "smt siblings"));
	canned_precheck("false_sharing", t,
			ARGS("threads=2", "placement=spread"), &v);
	assert_false(verdict_says(&v, "smt siblings"));
	topo_free(t);
}

/*
 * The case: false_sharing kept its separate counters one line
 * apart, atomic_increment and variable_layout two. Now one spacing, two
 * lines (the adjacent-line prefetcher fetches them in pairs), and each
 * experiment's explain text says so.
 */
static void one_spacing_of_two_lines(void **state)
{
	static const char *const names[] = {"false_sharing", "atomic_increment",
					    "variable_layout"};

	(void)state;
	assert_int_equal(CONTEND_APART, 128);
	assert_int_equal(contend_apart(64), 128);
	assert_int_equal(contend_apart(0), 128); /* unknown: 64 B lines */
	assert_int_equal(contend_apart(128), 256);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		const struct experiment *e = experiment_find(names[i]);
		assert_non_null(e);
		assert_non_null(strstr(e->explain, "prefetcher"));
	}
	assert_non_null(strstr(experiment_find("false_sharing")->explain,
			       "two lines apart (128 B"));
}

/* An atomic_increment point on the ns chart with how its loops ran. */
static void ai_point(struct canned *c, const struct topo *t,
		     const char *variant, int n, double ns, double spread,
		     double overlap, double cpu_share, const int *cpus)
{
	static char labels[64][64];
	static int next;
	char *label = labels[next++ % 64];

	canned_point(c, "ns", variant, n, NULL, ns, spread, 5);
	canned_extra(c, "overlap", overlap);
	canned_extra(c, "cpu_share", cpu_share);
	canned_extra(c, "late_start", 0);
	canned_extra(c, "expected", 1e6 * n);
	snprintf(label, 64, "threads=%d variant=%s", n, variant);
	canned_placement(c, t, label, cpus, n);
}

static const int four_cpus[] = {0, 2, 4, 6};

static void ai_cas_slower_on_four_nodes(void **state)
{
	struct topo *t = synthetic(FOUR_NODES);
	struct canned *c =
		canned_new("atomic_increment", t, 0,
			   ARGS("threads=4", "variants=cas,fetch_add"));

	(void)state;
	assert_int_equal(c->m.nnodes, 4);
	ai_point(c, t, "fetch_add", 4, 20, 0.02, 0.95, 1, four_cpus);
	ai_point(c, t, "cas", 4, 70, 0.02, 0.95, 1, four_cpus);
	described(c);
	assert_true(verdict_says(
		&c->v,
		"cas was 3.5× (3.4–3.6) slower than fetch_add with 4 threads"));
	assert_true(
		verdict_says(&c->v, "the article, 2007: 3.5× slower with 4"));
	canned_free(c);
	topo_free(t);
}

/* threads that took turns on a busy host: no contention was measured */
static void ai_took_turns(void **state)
{
	struct topo *t = synthetic(VM_ONE_L3);
	struct canned *c =
		canned_new("atomic_increment", t, 1,
			   ARGS("threads=2", "variants=cas,fetch_add"));
	const char *why;
	int kind = 0;

	(void)state;
	ai_point(c, t, "fetch_add", 2, 20, 0.02, 0.2, 0.2, two_cpus);
	ai_point(c, t, "cas", 2, 30, 0.02, 0.2, 0.2, two_cpus);
	described(c);
	assert_true(verdict_says(&c->v, "could not be measured"));
	assert_true(verdict_says(&c->v, "other processes held the cpus"));
	assert_true(verdict_says_at(&c->v, "warn", "the threads took turns"));
	assert_false(verdict_says(&c->v, "cas was"));
	why = verdict_qualifier_why(&c->v, "cas_over_fetch_add_2_threads",
				    &kind);
	assert_non_null(why);
	assert_int_equal(kind, VERDICT_DISOWNED);
	assert_non_null(strstr(why, "only 20% of a round"));
	canned_free(c);
	topo_free(t);
}

/*
 * A thread's share of a cpu, from its cpu time and the wall time around
 * it: never over 1, and untold over a stretch too short for the clocks.
 */
static void ai_cpu_share_never_over_one(void **state)
{
	(void)state;
	/* a 1 us loop on clocks of 0.1 us: too short to tell, not 324% */
	assert_true(isnan(ai_cpu_share(3.24e-6, 1e-6, 1e-7)));
	assert_true(isnan(ai_cpu_share(0, 1e-6, 1e-7)));
	/* long enough: the share, and a clock's step past the wall time is
	 * the clock's, not the thread's */
	assert_true(ai_cpu_share(0.5e-3, 1e-3, 1e-6) == 0.5);
	assert_true(ai_cpu_share(1.001e-3, 1e-3, 1e-6) == 1);
	assert_true(ai_cpu_share(2e-3, 1e-3, 1e-6) == 1);
	assert_true(ai_cpu_share(1e-3, 1e-3, 1e-5) == 1);
	/* a clock of no known step, or readings that make no sense */
	assert_true(isnan(ai_cpu_share(1e-3, 1e-3, 0)));
	assert_true(isnan(ai_cpu_share(-1e-3, 1e-3, 1e-6)));
	assert_true(isnan(ai_cpu_share(1e-3, NAN, 1e-6)));
}

/* Whether a note of v says a share of a cpu over 100% ("324% of a cpu"). */
static int says_over_a_cpu(const struct verdict *v)
{
	for (int i = 0; i < v->nnotes; i++)
		for (const char *t = v->notes[i].text; *t; t++) {
			char *end;
			double pct;

			if (*t < '0' || *t > '9')
				continue;
			pct = strtod(t, &end);
			if (*end == '%' && pct > 100 &&
			    (!strncmp(end, "% of a cpu", 10) ||
			     strstr(v->notes[i].text, "kept its cpu")))
				return 1;
			t = end - 1;
		}
	return 0;
}

/*
 * Loops that hardly overlapped and were too short for the clocks: a
 * share recorded over 1 (as older runs did: 324%) or none at all is said
 * as untold, never as a number.
 */
static void ai_short_loops_say_no_share(void **state)
{
	const double shares[] = {3.24, NAN};

	(void)state;
	for (int i = 0; i < 2; i++) {
		struct topo *t = synthetic(VM_ONE_L3);
		struct canned *c =
			canned_new("atomic_increment", t, 1,
				   ARGS("threads=2", "variants=cas,fetch_add",
					"increments=1000"));

		ai_point(c, t, "fetch_add", 2, 20, 0.02, 0.2, shares[i],
			 two_cpus);
		ai_point(c, t, "cas", 2, 30, 0.02, 0.2, shares[i], two_cpus);
		described(c);
		assert_false(says_over_a_cpu(&c->v));
		assert_false(verdict_says(&c->v, "324%"));
		assert_true(verdict_says(&c->v, "too short for the cpu clock"));
		assert_false(verdict_says(&c->v, "% or more)"));
		canned_free(c);
		topo_free(t);
	}
}

static void ai_within_noise(void **state)
{
	struct topo *t = synthetic(VM_TWO_L3);
	struct canned *c = canned_new(
		"atomic_increment", t, 1,
		ARGS("threads=2", "variants=cas,fetch_add,add_fetch"));
	int kind = 0;

	(void)state;
	ai_point(c, t, "fetch_add", 2, 20, 0.05, 0.9, 1, two_cpus);
	ai_point(c, t, "add_fetch", 2, 20.2, 0.05, 0.9, 1, two_cpus);
	ai_point(c, t, "cas", 2, 20.4, 0.05, 0.9, 1, two_cpus);
	described(c);
	assert_true(verdict_says(
		&c->v,
		"cas and fetch_add could not be told apart with 2 threads"));
	assert_true(verdict_says_at(
		&c->v, "info",
		"add_fetch against fetch_add with 2 threads: not told apart, the rounds varied too much"));
	assert_int_equal(verdict_qualifier_why(&c->v,
					       "cas_over_fetch_add_2_threads",
					       &kind) != NULL,
			 1);
	assert_int_equal(kind, VERDICT_DISOWNED);
	canned_free(c);
	topo_free(t);
}

/*
 * cas and fetch_add measured in turns: the drift of a busy machine
 * widens each side's interval until they overlap, but the per-pair
 * ratio (each pair's rounds back to back) answers the question.
 */
static void ai_pairs_answer_through_drift(void **state)
{
	struct topo *t = synthetic(VM_TWO_L3);
	struct canned *c =
		canned_new("atomic_increment", t, 1,
			   ARGS("threads=2", "variants=cas,fetch_add"));
	int kind = 0;

	(void)state;
	ai_point(c, t, "fetch_add", 2, 20, 0.3, 0.95, 1, two_cpus);
	ai_point(c, t, "cas", 2, 26, 0.3, 0.95, 1, two_cpus);
	canned_extra(c, CMP_PAIR_RATIO, 1.3);
	canned_extra(c, CMP_PAIR_LO, 1.22);
	canned_extra(c, CMP_PAIR_HI, 1.37);
	canned_extra(c, CMP_PAIRS, 12);
	described(c);
	assert_true(verdict_says(
		&c->v,
		"cas was 1.3× (1.2–1.4) slower than fetch_add with 2 threads"));
	assert_null(verdict_qualifier_why(&c->v, "cas_over_fetch_add_2_threads",
					  &kind));
	canned_free(c);

	/* the pairs' ratio straddles 1 and is wide: not told apart */
	c = canned_new("atomic_increment", t, 1,
		       ARGS("threads=2", "variants=cas,fetch_add"));
	ai_point(c, t, "fetch_add", 2, 20, 0.01, 0.95, 1, two_cpus);
	ai_point(c, t, "cas", 2, 30, 0.01, 0.95, 1, two_cpus);
	canned_extra(c, CMP_PAIR_RATIO, 1.05);
	canned_extra(c, CMP_PAIR_LO, 0.8);
	canned_extra(c, CMP_PAIR_HI, 1.4);
	canned_extra(c, CMP_PAIRS, 12);
	described(c);
	assert_true(verdict_says(
		&c->v,
		"cas and fetch_add could not be told apart with 2 threads"));
	assert_non_null(verdict_qualifier_why(
		&c->v, "cas_over_fetch_add_2_threads", &kind));
	assert_int_equal(kind, VERDICT_DISOWNED);
	canned_free(c);

	/* inside 1 +- the precision: the same time */
	c = canned_new("atomic_increment", t, 1,
		       ARGS("threads=2", "variants=cas,fetch_add"));
	ai_point(c, t, "fetch_add", 2, 20, 0.3, 0.95, 1, two_cpus);
	ai_point(c, t, "cas", 2, 20.4, 0.3, 0.95, 1, two_cpus);
	canned_extra(c, CMP_PAIR_RATIO, 1.02);
	canned_extra(c, CMP_PAIR_LO, 0.97);
	canned_extra(c, CMP_PAIR_HI, 1.06);
	canned_extra(c, CMP_PAIRS, 12);
	described(c);
	assert_true(verdict_says(
		&c->v, "cas and fetch_add took the same time with 2 threads"));
	canned_free(c);
	topo_free(t);
}

/*
 * Each thread's share of the increments while all were in their loops:
 * said beside the article's time where cas and fetch_add measured it,
 * and not at all for a run that did not.
 */
static void ai_fairness_said(void **state)
{
	struct topo *t = synthetic(FOUR_NODES);
	struct canned *c =
		canned_new("atomic_increment", t, 0,
			   ARGS("threads=4", "variants=cas,fetch_add"));

	(void)state;
	ai_point(c, t, "fetch_add", 4, 20, 0.02, 0.95, 1, four_cpus);
	canned_extra(c, "share_most", 0.4);
	canned_extra(c, "share_least", 0.1);
	ai_point(c, t, "cas", 4, 70, 0.02, 0.95, 1, four_cpus);
	canned_extra(c, "share_most", 0.55);
	canned_extra(c, "share_least", 0.05);
	described(c);
	assert_true(verdict_says_at(
		&c->v, "info",
		"with 4 threads, each thread's share of the increments while every thread was in its loop (medians; an even share is 25%): fetch_add 40% for the busiest thread and 10% for the least busy, cas 55% and 5%"));
	canned_free(c);

	c = canned_new("atomic_increment", t, 0,
		       ARGS("threads=4", "variants=cas,fetch_add"));
	ai_point(c, t, "fetch_add", 4, 20, 0.02, 0.95, 1, four_cpus);
	ai_point(c, t, "cas", 4, 70, 0.02, 0.95, 1, four_cpus);
	described(c);
	assert_true(verdict_says(&c->v, "cas was 3.5×"));
	assert_false(verdict_says(&c->v, "share of the increments"));
	canned_free(c);
	topo_free(t);
}

/* the article's 0.21 s is fetch_add's, 0.23 s add_fetch's */
static void ai_article_references(void **state)
{
	const struct experiment *e = experiment_find("atomic_increment");
	struct topo *t = synthetic(VM_ONE_L3);
	struct canned *c =
		canned_new("atomic_increment", t, 1, ARGS("threads=1"));
	int seen = 0;

	(void)state;
	for (const struct reference *r = e->references; r->chart; r++) {
		if (strstr(r->series, "fetch_add")) {
			assert_true(r->y == 0.21);
			seen++;
		}
		if (strstr(r->series, "add_fetch")) {
			assert_true(r->y == 0.23);
			seen++;
		}
	}
	assert_int_equal(seen, 2);
	described(c);
	assert_true(verdict_says_at(&c->v, "info", "fetch_add 0.21 s"));
	assert_true(verdict_says_at(&c->v, "info", "add_fetch 0.23 s"));
	assert_true(verdict_says_at(&c->v, "info", "cas 0.73 s"));
	canned_free(c);
	topo_free(t);
}

/* the lesson, the note and the headline give the article's one ratio */
static void ai_lesson_agrees_with_the_article(void **state)
{
	const struct experiment *e = experiment_find("atomic_increment");
	const struct lesson *l = e->lessons;
	char words[512];
	double value = 0;

	(void)state;
	while (l->id && strcmp(l->id, "cas-or-add"))
		l++;
	assert_non_null(l->id);
	assert_int_equal(lesson_article(e, l, words, sizeof(words), &value), 0);
	assert_true(value > 3.47 && value < 3.48); /* 0.73 / 0.21 */
	assert_non_null(strstr(words, "cas 0.73 s against fetch_add 0.21 s"));
	assert_non_null(strstr(words, "3.5×"));
}

/* loops that overlapped for part of a round: the gap is a lower bound */
static void ai_partial_overlap_is_a_lower_bound(void **state)
{
	struct topo *t = synthetic(FOUR_NODES);
	struct canned *c =
		canned_new("atomic_increment", t, 0,
			   ARGS("threads=4", "variants=cas,fetch_add"));
	const char *why;
	int kind = 0;

	(void)state;
	ai_point(c, t, "fetch_add", 4, 20, 0.02, 0.7, 1, four_cpus);
	ai_point(c, t, "cas", 4, 70, 0.02, 0.7, 1, four_cpus);
	described(c);
	assert_true(verdict_says(
		&c->v,
		"cas was at least 3.5× (3.4–3.6) slower than fetch_add with 4 threads"));
	assert_true(verdict_says(&c->v, "ran together only 70% of a round"));
	why = verdict_qualifier_why(&c->v, "cas_over_fetch_add_4_threads",
				    &kind);
	assert_non_null(why);
	assert_int_equal(kind, VERDICT_AT_LEAST);
	assert_non_null(strstr(c->v.headline, why));
	canned_free(c);
	topo_free(t);
}

/* A one-thread entry ran alone by design: the lower-bound mark, which
 * says the threads ran together only part of a round, is not put on it. */
static void ai_lower_bound_skips_one_thread(void **state)
{
	static const int one_cpu[] = {0};
	struct topo *t = synthetic(FOUR_NODES);
	struct canned *c =
		canned_new("atomic_increment", t, 0,
			   ARGS("threads=1,4", "variants=cas,fetch_add"));
	int kind = 0;

	(void)state;
	ai_point(c, t, "fetch_add", 1, 8, 0.02, 1, 1, one_cpu);
	ai_point(c, t, "cas", 1, 19, 0.02, 1, 1, one_cpu);
	ai_point(c, t, "fetch_add", 4, 20, 0.02, 0.7, 1, four_cpus);
	ai_point(c, t, "cas", 4, 70, 0.02, 0.7, 1, four_cpus);
	canned_summary(c, "cas_over_fetch_add_1_threads", 2.4, "×");
	canned_summary(c, "cas_over_fetch_add_4_threads", 3.5, "×");
	described(c);
	assert_non_null(verdict_qualifier_why(
		&c->v, "cas_over_fetch_add_4_threads", &kind));
	assert_int_equal(kind, VERDICT_AT_LEAST);
	assert_null(verdict_qualifier_why(&c->v, "cas_over_fetch_add_1_threads",
					  NULL));
	canned_free(c);
	topo_free(t);
}

static void ai_one_cpu(void **state)
{
	struct topo *t = synthetic(ONE_CPU);
	struct canned *c =
		canned_new("atomic_increment", t, 0,
			   ARGS("threads=2", "variants=cas,fetch_add"));
	struct verdict v;

	(void)state;
	ai_point(c, t, "fetch_add", 2, 20, 0.02, 0.9, 1, same_cpu);
	ai_point(c, t, "cas", 2, 60, 0.02, 0.9, 1, same_cpu);
	described(c);
	assert_true(verdict_says_at(&c->v, "cannot", "only 1 cpu"));
	assert_true(verdict_says(&c->v, "all ran on one cpu"));
	assert_false(verdict_says(&c->v, "cas was"));
	canned_free(c);
	canned_precheck("atomic_increment", t, ARGS("threads=1"), &v);
	assert_true(verdict_says_at(&v, "cannot", "only 1 cpu"));
	topo_free(t);
}

static void ai_precheck_smt(void **state)
{
	struct topo *t = xml(TWO_SOCKET);
	struct verdict v;

	(void)state;
	canned_precheck("atomic_increment", t,
			ARGS("threads=2", "placement=compact"), &v);
	assert_true(verdict_says_at(&v, "warn", "smt siblings"));
	canned_precheck("atomic_increment", t,
			ARGS("threads=2", "variants=plain"), &v);
	assert_true(verdict_says_at(&v, "info", "needs both in variants"));
	topo_free(t);
}

static void c2c_bar(struct canned *c, const char *relation, double ns,
		    double spread, int pairs)
{
	canned_point(c, "by_relation", "median over pairs", 0, relation, ns,
		     spread, pairs);
}

/* the 2-CPU VM: one kind of pair, said as such */
static void c2c_one_relation(void **state)
{
	struct topo *t = synthetic(VM_ONE_L3);
	struct canned *c = canned_new("core_to_core", t, 1, ARGS("samples=5"));

	(void)state;
	canned_placement(c, t, "cpus measured", two_cpus, 2);
	c2c_bar(c, "shared L3", 60, 0.05, 2);
	described(c);
	assert_true(verdict_says(
		&c->v,
		"60 ns to go there and back between cores sharing an L3"));
	assert_true(verdict_says_at(
		&c->v, "info",
		"every pair measured was between cores sharing an L3"));
	assert_true(verdict_says_at(&c->v, "info", "virtual machine"));
	canned_free(c);
	topo_free(t);
}

/* only the relations that were measured are stated */
static void c2c_two_socket(void **state)
{
	struct topo *t = xml(TWO_SOCKET);
	struct canned *c = canned_new("core_to_core", t, 0, ARGS("samples=5"));
	int sib, remote, cpus[3];

	(void)state;
	two_socket_cpus(t, &sib, &remote);
	cpus[0] = 0;
	cpus[1] = sib;
	cpus[2] = remote;
	canned_placement(c, t, "cpus measured", cpus, 3);
	c2c_bar(c, "smt siblings", 30, 0.05, 2);
	c2c_bar(c, "other package", 200, 0.05, 4);
	described(c);
	assert_true(verdict_says(
		&c->v, "30 ns between smt siblings, 200 ns between packages"));
	assert_false(verdict_says(&c->v, "L3"));
	assert_false(verdict_says(&c->v, "cannot be told apart"));
	canned_free(c);
	topo_free(t);
}

/* by_relation on a machine of nodes: one figure per class, distances named,
 * each with its spread */
static void c2c_by_relation_distances(void **state)
{
	struct topo *t = xml(TWO_SOCKET);
	struct canned *c = canned_new("core_to_core", t, 0,
				      ARGS("samples=5", "pairs=by_relation"));
	int sib, remote, cpus[3];

	(void)state;
	two_socket_cpus(t, &sib, &remote);
	cpus[0] = 0;
	cpus[1] = sib;
	cpus[2] = remote;
	canned_placement(c, t, "cpus measured", cpus, 3);
	canned_point(c, "by_relation", "median over pairs", 0, "smt siblings",
		     30, 0.05, 3);
	canned_point(c, "by_relation", "median over pairs", 1,
		     "other package, distance 21", 200, 0.05, 3);
	described(c);
	assert_true(verdict_says(
		&c->v,
		"30 ns between smt siblings, 200 ns between packages at numa distance 21"));
	assert_true(verdict_says_at(
		&c->v, "info",
		"the spread over the pairs of each relation: smt siblings"));
	assert_true(
		verdict_says_at(&c->v, "info", "other package, distance 21"));
	assert_false(verdict_says(&c->v, "cannot be told apart"));
	canned_free(c);
	topo_free(t);
}

static void c2c_relations_that_overlap(void **state)
{
	struct topo *t = synthetic("pack:2 numa:1 l3:1 core:2 pu:1");
	struct canned *c = canned_new("core_to_core", t, 0, ARGS("samples=5"));
	const int cpus[] = {0, 1, 2};

	(void)state;
	canned_placement(c, t, "cpus measured", cpus, 3);
	c2c_bar(c, "shared L3", 100, 0.2, 2);
	c2c_bar(c, "other package", 110, 0.2, 4);
	described(c);
	assert_true(verdict_says_at(&c->v, "info", "cannot be told apart"));
	canned_free(c);
	topo_free(t);
}

static void c2c_nothing_measured(void **state)
{
	struct topo *t = synthetic(ONE_CPU);
	struct canned *c = canned_new("core_to_core", t, 0, ARGS("samples=5"));
	const int cpus[] = {0};
	struct verdict v;

	(void)state;
	canned_placement(c, t, "cpus measured", cpus, 1);
	described(c);
	assert_true(verdict_says(&c->v, "nothing to measure"));
	canned_free(c);
	canned_precheck("core_to_core", t, ARGS("samples=5"), &v);
	assert_true(verdict_says_at(&v, "cannot", "a round trip needs 2 cpus"));
	topo_free(t);
}

/* one L3 over both cpus, or one each: the precheck names the one kind of pair
 */
static void c2c_precheck_one_l3_or_two(void **state)
{
	struct topo *one = synthetic(VM_ONE_L3), *two = synthetic(VM_TWO_L3);
	struct topo *smt = xml(TWO_SOCKET);
	struct verdict v;

	(void)state;
	canned_precheck("core_to_core", one, ARGS("samples=5"), &v);
	assert_true(verdict_says_at(
		&v, "info",
		"every pair of these cpus is between cores sharing an L3"));
	canned_precheck("core_to_core", two, ARGS("samples=5"), &v);
	assert_true(verdict_says_at(&v, "info", "share no cache"));
	canned_precheck("core_to_core", smt, ARGS("samples=5"), &v);
	assert_int_equal(v.nnotes, 0);
	topo_free(one);
	topo_free(two);
	topo_free(smt);
}

/* A ratio's interval narrower than the digits shown gets a digit more,
 * so it never reads "4.1× (4.1–4.1)"; a wide one keeps its digits. */
static void ratio_text_digits(void **state)
{
	struct comparison c = {.rel = CMP_MORE, .tol = 0.05};
	char buf[128];

	(void)state;
	c.ratio = 4.12, c.lo = 4.10, c.hi = 4.14;
	assert_string_equal(compare_ratio_text(&c, buf, sizeof(buf)),
			    "4.12× (4.10–4.14)");
	c.ratio = 4.0, c.lo = 3.7, c.hi = 4.3;
	assert_string_equal(compare_ratio_text(&c, buf, sizeof(buf)),
			    "4.0× (3.7–4.3)");
	c.ratio = 12.04, c.lo = 12.01, c.hi = 12.06;
	assert_string_equal(compare_ratio_text(&c, buf, sizeof(buf)),
			    "12.0× (12.0–12.1)");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(fs_strides_past_the_line_share_nothing),
		cmocka_unit_test(fs_threads_that_did_not_overlap),
		cmocka_unit_test(fs_within_noise),
		cmocka_unit_test(fs_shares_said),
		cmocka_unit_test(fs_spread_too_wide),
		cmocka_unit_test(fs_partial_overlap_is_a_lower_bound),
		cmocka_unit_test(fs_overlap_under_the_floor_disowned),
		cmocka_unit_test(fs_stride_48_shares_one_line),
		cmocka_unit_test(fs_penalty_across_sockets),
		cmocka_unit_test(fs_smt_siblings_noted),
		cmocka_unit_test(fs_one_cpu_observed),
		cmocka_unit_test(fs_too_few_rounds),
		cmocka_unit_test(fs_one_thread),
		cmocka_unit_test(fs_sweep_states_inline_strides_only),
		cmocka_unit_test(fs_precheck_stride_over_line),
		cmocka_unit_test(fs_precheck_one_cpu),
		cmocka_unit_test(fs_precheck_smt_siblings),
		cmocka_unit_test(one_spacing_of_two_lines),
		cmocka_unit_test(ai_cas_slower_on_four_nodes),
		cmocka_unit_test(ai_took_turns),
		cmocka_unit_test(ai_cpu_share_never_over_one),
		cmocka_unit_test(ai_short_loops_say_no_share),
		cmocka_unit_test(ai_within_noise),
		cmocka_unit_test(ai_pairs_answer_through_drift),
		cmocka_unit_test(ai_fairness_said),
		cmocka_unit_test(ai_article_references),
		cmocka_unit_test(ai_lesson_agrees_with_the_article),
		cmocka_unit_test(ai_partial_overlap_is_a_lower_bound),
		cmocka_unit_test(ai_lower_bound_skips_one_thread),
		cmocka_unit_test(ai_one_cpu),
		cmocka_unit_test(ai_precheck_smt),
		cmocka_unit_test(c2c_one_relation),
		cmocka_unit_test(c2c_two_socket),
		cmocka_unit_test(c2c_by_relation_distances),
		cmocka_unit_test(c2c_relations_that_overlap),
		cmocka_unit_test(c2c_nothing_measured),
		cmocka_unit_test(c2c_precheck_one_l3_or_two),
		cmocka_unit_test(ratio_text_digits),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
