/* test_verdicts_policy.c - what memory_policy_semantics says about canned runs on one, two and four nodes */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

#include <cmocka.h>

#include "run_fixture.h"

#define VM_1NODE "pack:1 numa:1 core:2 pu:1"
#define FOUR_NODES "pack:4 numa:1 l3:1 core:2 pu:1"
#define TEST_DATA "tests/data"

static struct canned *run_on(const struct topo *t, int vm, char *steps)
{
	char *argv[] = {steps, "repeat=3"};
	return canned_new("memory_policy_semantics", t, vm, 2, argv);
}

/* Every step's row as the kernel would record it: agree of total. */
static void step(struct canned *c, const char *name, double agree, double total)
{
	static char keys[16][2][48];
	static int k;
	int i = k++ % 16;

	snprintf(keys[i][0], sizeof(keys[i][0]), "%s_agree", name);
	snprintf(keys[i][1], sizeof(keys[i][1]), "%s_total", name);
	canned_summary(c, keys[i][0], agree, "");
	canned_summary(c, keys[i][1], total, "");
}

static void test_one_node_says_cannot(void **state)
{
	struct topo *t = synthetic(VM_1NODE);
	struct canned *c = run_on(t, 1, "steps=all");
	(void)state;

	canned_summary(c, "node_a", 0, "");
	canned_summary(c, "node_b", 0, "");
	step(c, "after_touch", 1024, 1024);
	step(c, "vma_wins", 2048, 2048);
	step(c, "strict", 3, 3);
	step(c, "get_mempolicy", 65, 65);
	canned_summary(c, "get_mempolicy_policy_ok", 1, "");
	canned_summary(c, "get_mempolicy_nodes", 1, "nodes");
	step(c, "migrate_pages", 1024, 1024);
	step(c, "preferred", 1024, 1024);
	experiment_describe(&c->rr, &c->v);
	assert_true(verdict_has_level(&c->v, "cannot"));
	assert_true(verdict_says(&c->v, "after_touch: with one node"));
	/* 64 of get_mempolicy's 65 checks are trivially right on one node:
	 * not counted */
	assert_false(verdict_says(&c->v, "65 of 65"));
	assert_true(
		verdict_says(&c->v, "get_mempolicy: confirmed the one check"));
	assert_true(verdict_says(&c->v, "64 page predictions need two nodes"));
	assert_true(verdict_says(&c->v, "trivially right here"));
	assert_true(
		strstr(c->v.headline,
		       "the checks that need two could not be made (5 steps and get_mempolicy's 64 page predictions)") !=
		NULL);
	assert_false(verdict_says(&c->v, "every step that could be shown"));
	/* one node: no step may be called confirmed but get_mempolicy's */
	assert_false(verdict_says(&c->v, "vma_wins: confirmed"));
	canned_free(c);
	topo_free(t);
}

static void test_four_nodes_confirm_and_contradict(void **state)
{
	struct topo *t = synthetic(FOUR_NODES);
	struct canned *c = run_on(t, 0, "steps=all");
	(void)state;

	canned_summary(c, "node_a", 0, "");
	canned_summary(c, "node_b", 3, "");
	step(c, "after_touch", 1024, 1024);
	step(c, "vma_wins", 1500, 2048);
	step(c, "strict", 3, 3);
	canned_summary(c, "strict_policy_kept", 1, "");
	step(c, "get_mempolicy", 65, 65);
	canned_summary(c, "get_mempolicy_nodes", 4, "nodes");
	step(c, "migrate_pages", 1024, 1024);
	canned_summary(c, "migrate_pages_gbps", 1.5, "GB/s");
	step(c, "preferred", 1024, 1024);
	canned_summary(c, "preferred_pages", 1024, "pages");
	canned_summary(c, "preferred_many_on_b", 1024, "pages");
	experiment_describe(&c->rr, &c->v);
	assert_true(verdict_says(&c->v, "after_touch: confirmed"));
	assert_true(verdict_says(&c->v,
				 "vma_wins: contradicted: only 1500 of 2048"));
	assert_true(verdict_says(
		&c->v, "1 step went against the article, 5 as it says"));
	assert_true(verdict_says(
		&c->v,
		"MPOL_PREFERRED_MANY over the same two nodes put 1024 of 1024 pages on node 3"));
	assert_true(verdict_says(&c->v, "left the range's policy as it was"));
	assert_true(verdict_says(&c->v, "1.50 GB/s"));
	assert_false(verdict_says(&c->v, "trivially"));
	canned_free(c);
	topo_free(t);
}

static void test_refused_calls_and_old_kernel(void **state)
{
	struct topo *t = xml(TEST_DATA "/two_socket_smt.xml");
	struct canned *c = run_on(t, 0, "steps=migrate_pages,preferred");
	(void)state;

	canned_summary(c, "node_a", 0, "");
	canned_summary(c, "node_b", 1, "");
	canned_summary(c, "migrate_pages_errno", 1, ""); /* EPERM */
	step(c, "preferred", 10, 10);
	canned_summary(c, "preferred_many_errno", 22, "");
	experiment_describe(&c->rr, &c->v);
	if (c->m.nnodes >= 2) {
		assert_true(verdict_says(
			&c->v, "migrate_pages: the kernel refused a call"));
		assert_true(verdict_says(&c->v, "lacks MPOL_PREFERRED_MANY"));
		assert_true(verdict_says(&c->v, "preferred: confirmed"));
	}
	/* steps not asked for are not judged */
	assert_false(verdict_says(&c->v, "after_touch"));
	canned_free(c);
	topo_free(t);
}

/* Linux 6.1 in the guests: pages interleave by offset while MPOL_F_NODE's
 * counter stands still. */
static void test_interleave_by_offset(void **state)
{
	struct topo *t = synthetic(FOUR_NODES);
	struct canned *c = run_on(t, 1, "steps=get_mempolicy");
	(void)state;

	canned_summary(c, "node_a", 0, "");
	canned_summary(c, "node_b", 3, "");
	step(c, "get_mempolicy", 17, 65);
	canned_summary(c, "get_mempolicy_nodes", 4, "nodes");
	canned_summary(c, "get_mempolicy_predicted", 16, "pages");
	canned_summary(c, "get_mempolicy_asked", 64, "pages");
	canned_summary(c, "get_mempolicy_counter_moves", 0, "");
	canned_summary(c, "get_mempolicy_in_order", 63, "pages");
	experiment_describe(&c->rr, &c->v);
	assert_true(verdict_says(&c->v,
				 "get_mempolicy: contradicted: only 17 of 65"));
	assert_true(verdict_says(&c->v, "by its offset in the mapping"));
	/* pages out of order: no explanation is offered */
	c->summary[7].value = 20;
	memset(&c->v, 0, sizeof(c->v));
	experiment_describe(&c->rr, &c->v);
	assert_false(verdict_says(&c->v, "by its offset in the mapping"));
	canned_free(c);
	topo_free(t);
}

static void test_precheck(void **state)
{
	struct topo *one = synthetic(VM_1NODE), *four = synthetic(FOUR_NODES);
	const struct experiment *e = experiment_find("memory_policy_semantics");
	struct canned *c = run_on(one, 1, "steps=all");
	struct verdict v;
	(void)state;

	memset(&v, 0, sizeof(v));
	one->numa_available = four->numa_available = 1;
	e->precheck(c->params, &c->common, one, &v);
	assert_true(verdict_says(&v, "one node only"));
	memset(&v, 0, sizeof(v));
	e->precheck(c->params, &c->common, four, &v);
	assert_int_equal(v.nnotes, 0);
	canned_free(c);
	topo_free(one);
	topo_free(four);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_node_says_cannot),
		cmocka_unit_test(test_four_nodes_confirm_and_contradict),
		cmocka_unit_test(test_refused_calls_and_old_kernel),
		cmocka_unit_test(test_interleave_by_offset),
		cmocka_unit_test(test_precheck),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
