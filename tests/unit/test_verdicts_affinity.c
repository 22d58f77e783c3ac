/* test_verdicts_affinity.c - what affinity says about canned runs, and its precheck, on a 1-node VM, two SMT sockets and four nodes */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

#include <cmocka.h>

#include "run_fixture.h"

#define VM_1NODE "pack:1 numa:1 core:2 pu:1"
#define FOUR_NODES "pack:4 numa:1 l3:1 core:2 pu:1"
#define TEST_DATA "tests/data"

static struct canned *run_on(const struct topo *t, int vm, char *modes)
{
	char *argv[] = {modes, "repeat=3"};
	return canned_new("affinity", t, vm, 2, argv);
}

static void test_one_node_vm(void **state)
{
	struct topo *t = synthetic(VM_1NODE);
	struct canned *c = run_on(t, 1, "modes=all");
	(void)state;

	canned_summary(c, "created_pinned_changes", 0, "");
	canned_summary(c, "created_pinned_outside_cpus", 0, "samples");
	canned_summary(c, "created_pinned_pages", 2048, "pages");
	canned_summary(c, "created_pinned_local_pages", 2048, "pages");
	canned_summary(c, "created_pinned_outside_mems", 0, "pages");
	canned_summary(c, "unpinned_changes", 7, "");
	canned_summary(c, "cache_split_level", 0, "");
	experiment_describe(&c->rr, &c->v);
	assert_true(verdict_says(&c->v,
				 "unpinned: sched_getcpu saw 7 cpu changes"));
	assert_true(verdict_says(&c->v, "one memory node"));
	assert_true(verdict_says(
		&c->v, "cache_split: this machine has no two caches"));
	assert_true(verdict_says(
		&c->v, "every thread ran inside the cpuset (2 cpus)"));
	/* one node: no claim about where pages landed */
	assert_false(verdict_says(&c->v, "of the pages are on the node"));
	canned_free(c);
	topo_free(t);
}

static void test_four_nodes_pages_and_strays(void **state)
{
	struct topo *t = synthetic(FOUR_NODES);
	struct canned *c = run_on(t, 0, "modes=created_pinned,pinned_after");
	(void)state;

	canned_summary(c, "created_pinned_changes", 0, "");
	canned_summary(c, "created_pinned_pages", 1000, "pages");
	canned_summary(c, "created_pinned_local_pages", 1000, "pages");
	canned_summary(c, "pinned_after_changes", 1, "");
	canned_summary(c, "pinned_after_pages", 1000, "pages");
	canned_summary(c, "pinned_after_local_pages", 250, "pages");
	canned_summary(c, "pinned_after_outside_mems", 3, "pages");
	experiment_describe(&c->rr, &c->v);
	assert_true(verdict_says(
		&c->v, "created_pinned: 100% of the pages are on the node"));
	assert_true(verdict_says(&c->v, "pinned_after: 25% of the pages"));
	assert_true(verdict_says(
		&c->v, "3 pages landed outside the cpuset's memory nodes"));
	assert_true(verdict_says(&c->v, "outside this process's cpuset"));
	canned_free(c);
	topo_free(t);
}

/*
 * The case: pinned at creation every page was local, pinned
 * afterwards 83% (as in the 2-node guest): the headline says the
 * article's point, not the cpuset, which moves to a note.
 */
static void test_article_point_is_the_headline(void **state)
{
	struct topo *t = synthetic(FOUR_NODES);
	struct canned *c = run_on(t, 0, "modes=created_pinned,pinned_after");
	(void)state;

	canned_summary(c, "created_pinned_pages", 2048, "pages");
	canned_summary(c, "created_pinned_local_pages", 2048, "pages");
	canned_summary(c, "pinned_after_pages", 2048, "pages");
	canned_summary(c, "pinned_after_local_pages", 1700, "pages");
	canned_point(c, "local", "first touch", 0, "created_pinned", 100, 0, 3);
	canned_point(c, "local", "first touch", 1, "pinned_after", 83, 0.02, 3);
	experiment_describe(&c->rr, &c->v);
	assert_true(verdict_says(
		&c->v,
		"a thread pinned when it was created had 100% of its pages on its own node, one pinned after its first touch 83%: choose the cpu when the thread is created, as the article advises"));
	assert_false(verdict_says(&c->v, "outside this process's cpuset"));
	assert_true(verdict_says_at(&c->v, "info",
				    "every thread ran inside the cpuset"));
	canned_free(c);
	topo_free(t);
}

/* one round each: the numbers are given, the difference is not claimed */
static void test_article_point_needs_rounds(void **state)
{
	struct topo *t = synthetic(FOUR_NODES);
	struct canned *c = run_on(t, 0, "modes=created_pinned,pinned_after");
	(void)state;

	canned_point(c, "local", "first touch", 0, "created_pinned", 100, 0, 1);
	canned_point(c, "local", "first touch", 1, "pinned_after", 83, 0, 1);
	experiment_describe(&c->rr, &c->v);
	assert_true(
		verdict_says(&c->v, "one pinned after its first touch 83%"));
	assert_true(verdict_says(&c->v, "fewer than 2 rounds"));
	assert_false(verdict_says(&c->v, "as the article advises"));
	canned_free(c);
	topo_free(t);
}

static void test_cache_split_compared(void **state)
{
	struct topo *t = xml(TEST_DATA "/two_socket_smt.xml");
	struct canned *c = run_on(t, 0, "modes=cache_split");
	(void)state;

	canned_summary(c, "cache_split_level", 3, "");
	canned_summary(c, "cache_split_shared_gbps", 20, "GB/s");
	canned_summary(c, "cache_split_split_gbps", 40, "GB/s");
	canned_point(c, "cache", "separate data", 0, "one cache", 20, 0.05, 3);
	canned_point(c, "cache", "separate data", 1, "split", 40, 0.05, 3);
	experiment_describe(&c->rr, &c->v);
	assert_true(
		verdict_says(&c->v, "split is faster, as the article says"));
	/* the intervals overlap: no side is named */
	c->points[1].y = 21;
	c->points[1].ci_lo = 19;
	c->summary[2].value = 21;
	memset(&c->v, 0, sizeof(c->v));
	experiment_describe(&c->rr, &c->v);
	assert_true(verdict_says(&c->v, "cannot tell them apart"));
	canned_free(c);
	topo_free(t);
}

static void test_precheck(void **state)
{
	struct topo *vm = synthetic(VM_1NODE),
		    *smt = xml(TEST_DATA "/two_socket_smt.xml");
	const struct experiment *e = experiment_find("affinity");
	struct canned *c = run_on(vm, 1, "modes=all");
	struct verdict v;
	(void)state;

	memset(&v, 0, sizeof(v));
	e->precheck(c->params, &c->common, vm, &v);
	assert_true(verdict_says(&v, "one memory node"));
	assert_true(verdict_says(&v, "cache_split: no cache level"));
	memset(&v, 0, sizeof(v));
	e->precheck(c->params, &c->common, smt, &v);
	assert_false(verdict_says(&v, "cache_split"));
	canned_free(c);
	topo_free(vm);
	topo_free(smt);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_node_vm),
		cmocka_unit_test(test_four_nodes_pages_and_strays),
		cmocka_unit_test(test_article_point_is_the_headline),
		cmocka_unit_test(test_article_point_needs_rounds),
		cmocka_unit_test(test_cache_split_compared),
		cmocka_unit_test(test_precheck),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
