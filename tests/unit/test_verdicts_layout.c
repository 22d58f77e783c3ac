/* test_verdicts_layout.c - variable_layout's describe and precheck on canned runs: a 2-CPU VM, two SMT sockets, four nodes */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "run_fixture.h"

#define VM "pack:1 numa:1 l3:1 core:2 pu:1"
#define FOUR "pack:4 numa:1 l3:1 core:2 pu:1"
#define SMT "tests/data/two_socket_smt.xml"

static const char *const layouts[] = {"global array", "__thread",
				      "padded, one line each",
				      "grouped in one padded line"};

/* overlap: the share of a round the threads ran together (< 0: none recorded)
 */
static struct canned *layout_run_together(const struct topo *t, int vm,
					  const int *cpus, int n,
					  double global_ns, double spread,
					  double overlap)
{
	char threads[32];
	snprintf(threads, sizeof(threads), "threads=%d", n);
	char *argv[] = {threads, "ops=1000000", "repeat=5", "warmup=1"};
	struct canned *c = canned_new("variable_layout", t, vm, 4, argv);
	static const double bytes[] = {16, 16, 128, 64};

	for (int l = 0; l < 4; l++) {
		canned_point(c, "layouts", "time", l, layouts[l],
			     l == 0 ? global_ns : 2.0, spread, 5);
		if (overlap >= 0)
			canned_extra(c, "overlap", overlap);
		canned_point(c, "footprint", "bytes per thread", l, layouts[l],
			     bytes[l], 0, 1);
	}
	canned_placement(c, t, "layouts: global array", cpus, n);
	canned_summary(c, "dso_found", 1, NULL);
	return c;
}

static struct canned *layout_run(const struct topo *t, int vm, const int *cpus,
				 int n, double global_ns, double spread)
{
	return layout_run_together(t, vm, cpus, n, global_ns, spread, -1);
}

/*
 * The case: a busy machine made the threads take turns (they ran
 * together for 20% of a round); that is said, not blamed on the rounds,
 * and the slowdown's number is disowned with the same words.
 */
static void test_threads_that_took_turns_are_named(void **state)
{
	struct topo *t = synthetic(VM);
	int cpus[] = {0, 1};
	struct canned *c = layout_run_together(t, 1, cpus, 2, 12.0, 0.05, 0.2);
	const char *why;
	int kind = 0;
	(void)state;

	experiment_describe(&c->rr, &c->v);
	assert_true(verdict_says(
		&c->v,
		"this run could not tell its layouts apart: the threads ran at the same time for only 20% of a round"));
	assert_false(verdict_says(&c->v, "slower than a padded"));
	assert_false(verdict_says(&c->v, "the rounds varied"));
	why = verdict_qualifier_why(&c->v, "layout_slowdown", &kind);
	assert_non_null(why);
	assert_int_equal(kind, VERDICT_DISOWNED);
	assert_non_null(strstr(c->v.headline, why));
	canned_free(c);
	topo_free(t);
}

/* together for part of a round: the slowdown is a lower bound */
static void test_partial_overlap_is_a_lower_bound(void **state)
{
	struct topo *t = synthetic(VM);
	int cpus[] = {0, 1};
	struct canned *c = layout_run_together(t, 1, cpus, 2, 12.0, 0.05, 0.7);
	const char *why;
	int kind = 0;
	(void)state;

	experiment_describe(&c->rr, &c->v);
	assert_true(verdict_says(
		&c->v,
		"a global array of counters made each update at least 6.0× (5.4–6.6, wider than the 5% precision) slower"));
	assert_true(verdict_says(&c->v, "ran together only 70% of a round"));
	why = verdict_qualifier_why(&c->v, "layout_slowdown", &kind);
	assert_non_null(why);
	assert_int_equal(kind, VERDICT_AT_LEAST);
	assert_non_null(strstr(c->v.headline, why));
	canned_free(c);
	topo_free(t);
}

static void test_vm_false_sharing_shown(void **state)
{
	struct topo *t = synthetic(VM);
	int cpus[] = {0, 1};
	struct canned *c = layout_run(t, 1, cpus, 2, 12.0, 0.05);
	(void)state;

	experiment_describe(&c->rr, &c->v);
	assert_true(verdict_says(
		&c->v,
		"a global array of counters made each update 6.0× (5.4–6.6, wider than the 5% precision) slower"));
	assert_true(verdict_says(&c->v, "64 B per thread instead of 128 B"));
	assert_false(verdict_has_level(&c->v, "cannot"));
	canned_free(c);
	topo_free(t);
}

static void test_overlapping_rounds_not_claimed(void **state)
{
	struct topo *t = synthetic(VM);
	int cpus[] = {0, 1};
	/* 2.4 ns +-20% overlaps 2.0 ns +-20% */
	struct canned *c = layout_run(t, 1, cpus, 2, 2.4, 0.2);
	(void)state;

	experiment_describe(&c->rr, &c->v);
	assert_true(verdict_says(&c->v, "could not be told apart"));
	assert_false(verdict_says(&c->v, "slower than a padded"));
	assert_true(verdict_says(&c->v, "could not tell its layouts apart"));
	canned_free(c);
	topo_free(t);
}

static void test_one_cpu_cannot_race(void **state)
{
	struct topo *t = synthetic(VM);
	int cpus[] = {0, 0};
	struct canned *c = layout_run(t, 1, cpus, 2, 12.0, 0.05);
	(void)state;

	experiment_describe(&c->rr, &c->v);
	assert_true(verdict_has_level(&c->v, "cannot"));
	assert_true(verdict_says(&c->v, "all seen on one cpu"));
	assert_false(verdict_says(&c->v, "slower than a padded"));
	canned_free(c);
	topo_free(t);
}

static void test_smt_siblings_warned(void **state)
{
	struct topo *t = xml(SMT);
	const struct experiment *e = experiment_find("variable_layout");
	char *compact[] = {"threads=2", "placement=compact"};
	char *spread[] = {"threads=2", "placement=spread"};
	struct canned *c = canned_new("variable_layout", t, 0, 2, compact);
	struct canned *d = canned_new("variable_layout", t, 0, 2, spread);
	struct verdict v = {0}, w = {0};
	(void)state;

	e->precheck(c->params, &c->common, t, &v);
	assert_true(verdict_says(&v, "SMT siblings of one core"));
	e->precheck(d->params, &d->common, t, &w);
	assert_int_equal(w.nnotes, 0);
	canned_free(c);
	canned_free(d);
	topo_free(t);
}

static void test_precheck_one_thread(void **state)
{
	struct topo *t = synthetic(VM);
	const struct experiment *e = experiment_find("variable_layout");
	char *argv[] = {"threads=1"};
	char *tls_only[] = {"threads=1", "parts=tls_access,thread_start"};
	struct canned *c = canned_new("variable_layout", t, 1, 1, argv);
	struct canned *d = canned_new("variable_layout", t, 1, 2, tls_only);
	struct verdict v = {0}, w = {0};
	(void)state;

	e->precheck(c->params, &c->common, t, &v);
	assert_true(verdict_has_level(&v, "cannot"));
	assert_true(verdict_says(&v, "threads=2 or more"));
	/* TLS costs need no second thread */
	e->precheck(d->params, &d->common, t, &w);
	assert_int_equal(w.nnotes, 0);
	canned_free(c);
	canned_free(d);
	topo_free(t);
}

static void test_missing_shared_object(void **state)
{
	struct topo *t = synthetic(FOUR);
	char *argv[] = {"threads=2", "parts=tls_access,thread_start"};
	struct canned *c = canned_new("variable_layout", t, 0, 2, argv);
	(void)state;

	canned_summary(c, "dso_found", 0, NULL);
	canned_point(c, "tls_access", "access", 1, "__thread in the program", 2,
		     0.01, 5);
	experiment_describe(&c->rr, &c->v);
	assert_true(verdict_has_level(&c->v, "cannot"));
	assert_true(verdict_says(&c->v, "libnumalab_tls.so"));
	canned_free(c);
	topo_free(t);
}

static void test_tls_costs_on_four_nodes(void **state)
{
	struct topo *t = synthetic(FOUR);
	char *argv[] = {"threads=2", "parts=tls_access,thread_start"};
	struct canned *c = canned_new("variable_layout", t, 0, 2, argv);
	(void)state;

	canned_summary(c, "dso_found", 1, NULL);
	canned_point(c, "tls_access", "access", 1, "__thread in the program", 2,
		     0.01, 5);
	canned_point(c, "tls_access", "access", 2,
		     "__thread in a dlopen'ed object", 5, 0.01, 5);
	canned_point(c, "thread_start", "start", 0, "no thread-local variable",
		     30, 0.05, 5);
	canned_point(c, "thread_start", "start", 2,
		     "TLS of a dlopen'ed object (1 MiB block)", 90, 0.05, 5);
	experiment_describe(&c->rr, &c->v);
	assert_true(verdict_says(&c->v, "__tls_get_addr"));
	assert_true(verdict_says(&c->v, "90 µs instead of 30 µs"));
	assert_false(verdict_has_level(&c->v, "cannot"));
	canned_free(c);
	topo_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vm_false_sharing_shown),
		cmocka_unit_test(test_overlapping_rounds_not_claimed),
		cmocka_unit_test(test_threads_that_took_turns_are_named),
		cmocka_unit_test(test_partial_overlap_is_a_lower_bound),
		cmocka_unit_test(test_one_cpu_cannot_race),
		cmocka_unit_test(test_smt_siblings_warned),
		cmocka_unit_test(test_precheck_one_thread),
		cmocka_unit_test(test_missing_shared_object),
		cmocka_unit_test(test_tls_costs_on_four_nodes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
