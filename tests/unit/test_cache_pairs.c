/* test_cache_pairs.c - pair placement around shared caches, and spread/compact, on machines we do not have */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "topo.h"
#include "topo_fixture.h"

/*
 * tests/data/two_socket_smt.xml: 2 sockets, each one node and one 32 MiB
 * L3 over 4 cores with private 1 MiB L2s and 2 SMT threads; Linux-style
 * numbering (core k of socket 0 holds cpus k and k+8). Made with
 *   lstopo-no-graphics -i "pack:2 [numa(memory=8GiB)] l3:1(size=32MiB)
 *     l2:4(size=1MiB) l1d:1(size=48KiB) core:1
 *     pu:2(indexes=0,8,1,9,2,10,3,11,4,12,5,13,6,14,7,15)" --of xml
 * plus a distances2 block (10/21).
 */
#ifndef TEST_DATA
#define TEST_DATA "tests/data"
#endif

static void assert_cpus(const int *got, const int *want, int n)
{
	for (int i = 0; i < n; i++)
		assert_int_equal(got[i], want[i]);
}

/* the brief's machine: 2 packages, one L3 each, 2 cores of 2 threads */
#define PACK2 "pack:2 l3:1 core:2 pu:2"

static void test_synthetic_spread_compact(void **state)
{
	struct topo *t = synthetic(PACK2);
	int out[8];
	struct errinfo err;
	(void)state;
	assert_int_equal(t->npus, 8);
	assert_int_equal(topo_plan(t, PLACE_COMPACT, NULL, 0, 4, out, &err), 0);
	assert_cpus(out, (int[]){0, 1, 2, 3}, 4);
	assert_int_equal(topo_plan(t, PLACE_SPREAD, NULL, 0, 8, out, &err), 0);
	/* packages alternate, then cores, then SMT siblings */
	assert_cpus(out, (int[]){0, 4, 2, 6, 1, 5, 3, 7}, 8);
	topo_free(t);
}

static void test_synthetic_pairs(void **state)
{
	struct topo *t = synthetic(PACK2);
	int out[8];
	struct errinfo err;
	(void)state;
	assert_int_equal(topo_pair_level(t), 3);
	/* each pair under one L3, on two cores (not SMT siblings) */
	assert_int_equal(topo_plan_pairs(t, 3, PAIR_SHARED, 2, out, &err), 0);
	assert_cpus(out, (int[]){0, 2, 4, 6}, 4);
	/* each pair across the two L3s */
	assert_int_equal(topo_plan_pairs(t, 3, PAIR_SPLIT, 2, out, &err), 0);
	assert_cpus(out, (int[]){0, 4, 6, 2}, 4);
	for (int k = 0; k < 2; k++)
		assert_int_not_equal(topo_pu_by_os(t, out[2 * k])->l3,
				     topo_pu_by_os(t, out[2 * k + 1])->l3);
	/* 4 pairs fill both L3s: the SMT siblings come last */
	assert_int_equal(topo_plan_pairs(t, 3, PAIR_SHARED, 4, out, &err), 0);
	assert_cpus(out, (int[]){0, 2, 4, 6, 1, 3, 5, 7}, 8);
	assert_int_equal(topo_plan_pairs(t, 3, PAIR_SHARED, 5, out, &err), -22);
	assert_non_null(strstr(err.msg, "do not fit"));
	topo_free(t);
}

static void test_xml_two_sockets(void **state)
{
	struct topo *t = xml(TEST_DATA "/two_socket_smt.xml");
	int out[16];
	struct errinfo err;
	(void)state;
	assert_int_equal(t->npus, 16);
	assert_int_equal(t->nnodes, 2);
	assert_int_equal(t->distance[0][1], 21);
	assert_true(t->smt);
	const struct topo_cache *l3 = topo_cache_find(t, 3, 1);
	assert_non_null(l3);
	assert_int_equal(l3->size, 32u << 20);
	assert_int_equal(topo_pu_cache(topo_pu_by_os(t, 12), 3), 1);
	assert_int_equal(topo_pu_cache(topo_pu_by_os(t, 12), 2), 4);

	/* compact: SMT siblings first, in hardware order (0 and 8 share core 0)
	 */
	assert_int_equal(topo_plan(t, PLACE_COMPACT, NULL, 0, 4, out, &err), 0);
	assert_cpus(out, (int[]){0, 8, 1, 9}, 4);
	/* spread: node 0, node 1, then the other cores, siblings last */
	assert_int_equal(topo_plan(t, PLACE_SPREAD, NULL, 0, 10, out, &err), 0);
	assert_cpus(out, (int[]){0, 4, 1, 5, 2, 6, 3, 7, 8, 12}, 10);

	assert_int_equal(topo_pair_level(t), 3);
	assert_int_equal(topo_plan_pairs(t, 3, PAIR_SHARED, 2, out, &err), 0);
	assert_cpus(out, (int[]){0, 1, 4, 5}, 4);
	assert_int_equal(topo_plan_pairs(t, 3, PAIR_SPLIT, 2, out, &err), 0);
	assert_cpus(out, (int[]){0, 4, 5, 1}, 4);
	for (int k = 0; k < 2; k++) {
		const struct topo_pu *a = topo_pu_by_os(t, out[2 * k]);
		const struct topo_pu *b = topo_pu_by_os(t, out[2 * k + 1]);
		assert_int_not_equal(a->l3, b->l3);
		assert_int_not_equal(a->node, b->node);
	}
	/* around the L2s a shared pair can only be a core's two threads */
	assert_int_equal(topo_plan_pairs(t, 2, PAIR_SHARED, 2, out, &err), 0);
	assert_cpus(out, (int[]){0, 8, 1, 9}, 4);
	topo_free(t);
}

/* this lab VM: 2 cores with private L2s under one L3 */
static void test_one_l3_for_all(void **state)
{
	struct topo *t = synthetic("pack:1 l3:1 l2:2 core:1 pu:1");
	int out[4];
	struct errinfo err;
	(void)state;
	assert_int_equal(topo_pair_level(t), 0);
	assert_int_equal(topo_plan_pairs(t, 3, PAIR_SHARED, 1, out, &err), 0);
	assert_cpus(out, (int[]){0, 1}, 2);
	assert_int_equal(topo_plan_pairs(t, 3, PAIR_SPLIT, 1, out, &err), -22);
	assert_non_null(strstr(err.msg, "needs two L3 caches"));
	assert_non_null(strstr(err.msg, "(0-1)"));
	assert_int_equal(topo_plan_pairs(t, 2, PAIR_SHARED, 1, out, &err), -22);
	assert_int_equal(topo_plan_pairs(t, 3, PAIR_SHARED, 2, out, &err), -22);
	assert_int_equal(topo_plan_pairs(t, 4, PAIR_SHARED, 1, out, &err), -22);
	assert_int_equal(topo_plan_pairs(t, 3, PAIR_SHARED, 0, out, &err), -22);
	topo_free(t);
}

/* one L3, but L2s shared by clusters of 2 cores: the contrast is at L2 */
static void test_l2_clusters(void **state)
{
	struct topo *t = synthetic("pack:1 l3:1 l2:2 core:2 pu:1");
	int out[4];
	struct errinfo err;
	(void)state;
	assert_int_equal(topo_pair_level(t), 2);
	assert_int_equal(topo_plan_pairs(t, 2, PAIR_SHARED, 2, out, &err), 0);
	assert_cpus(out, (int[]){0, 1, 2, 3}, 4);
	assert_int_equal(topo_plan_pairs(t, 2, PAIR_SPLIT, 2, out, &err), 0);
	assert_cpus(out, (int[]){0, 2, 3, 1}, 4);
	topo_free(t);
}

static void test_single_cpu(void **state)
{
	struct topo *t = synthetic("pack:1 l3:1 core:1 pu:1");
	int out[2];
	struct errinfo err;
	(void)state;
	assert_int_equal(topo_pair_level(t), 0);
	assert_int_equal(topo_plan_pairs(t, 3, PAIR_SHARED, 1, out, &err), -22);
	assert_non_null(strstr(err.msg, "do not fit"));
	topo_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_synthetic_spread_compact),
		cmocka_unit_test(test_synthetic_pairs),
		cmocka_unit_test(test_xml_two_sockets),
		cmocka_unit_test(test_one_l3_for_all),
		cmocka_unit_test(test_l2_clusters),
		cmocka_unit_test(test_single_cpu),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
