/* test_placement.c - placement plans on synthetic topologies of machines we do not have */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "topo.h"
#include "topo_fixture.h"

/* 2 sockets, each one node with one L3 over 2 cores of 2 SMT threads */
#define TWO_SOCKETS "pack:2 numa:1 l3:1 core:2 pu:2"

static void test_shape(void **state)
{
	struct topo *t = synthetic(TWO_SOCKETS);
	(void)state;
	assert_int_equal(t->npus, 8);
	assert_int_equal(t->nallowed, 8);
	assert_int_equal(t->ncores, 4);
	assert_int_equal(t->npackages, 2);
	assert_int_equal(t->nnodes, 2);
	assert_true(t->smt);
	assert_int_equal(t->pu[1].smt_rank, 1);
	assert_int_equal(t->pu[4].node, 1);
	topo_free(t);
}

static void test_compact(void **state)
{
	struct topo *t = synthetic(TWO_SOCKETS);
	int out[8];
	struct errinfo err;
	(void)state;
	assert_int_equal(topo_plan(t, PLACE_COMPACT, NULL, 0, 4, out, &err), 0);
	/* SMT siblings first, then the other core of the same L3 */
	for (int i = 0; i < 4; i++)
		assert_int_equal(out[i], i);
	topo_free(t);
}

static void test_spread(void **state)
{
	struct topo *t = synthetic(TWO_SOCKETS);
	int out[8];
	struct errinfo err;
	(void)state;
	assert_int_equal(topo_plan(t, PLACE_SPREAD, NULL, 0, 8, out, &err), 0);
	/* node 0, node 1, then the other cores, then the SMT siblings */
	int want[8] = {0, 4, 2, 6, 1, 5, 3, 7};
	for (int i = 0; i < 8; i++)
		assert_int_equal(out[i], want[i]);
	const struct topo_pu *a = topo_pu_by_os(t, out[0]),
			     *b = topo_pu_by_os(t, out[1]);
	assert_int_not_equal(a->package, b->package);
	topo_free(t);
}

static void test_explicit_and_errors(void **state)
{
	struct topo *t = synthetic(TWO_SOCKETS);
	int out[8];
	struct errinfo err;
	int32_t cpus[] = {1, 6};
	int32_t bad[] = {9};
	(void)state;
	assert_int_equal(topo_plan(t, PLACE_SPREAD, cpus, 2, 2, out, &err), 0);
	assert_int_equal(out[0], 1);
	assert_int_equal(out[1], 6);
	assert_int_equal(topo_plan(t, PLACE_SPREAD, bad, 1, 1, out, &err), -22);
	assert_non_null(strstr(err.msg, "cpu 9 is not available"));
	assert_non_null(strstr(err.msg, "allowed: 0-7"));
	assert_int_equal(topo_plan(t, PLACE_SPREAD, cpus, 2, 3, out, &err),
			 -22);
	assert_int_equal(topo_plan(t, PLACE_COMPACT, NULL, 0, 9, out, &err),
			 -22);
	assert_non_null(strstr(err.msg, "only 8 cpus"));
	assert_int_equal(topo_plan(t, PLACE_OS, NULL, 0, 2, out, &err), 0);
	assert_int_equal(out[0], -1);
	topo_free(t);
}

static void test_this_machine(void **state)
{
	struct topo *t = topo_load();
	int *out = calloc((size_t)t->nallowed, sizeof(int));
	struct errinfo err;
	(void)state;
	assert_true(t->nallowed >= 1);
	assert_int_equal(
		topo_plan(t, PLACE_SPREAD, NULL, 0, t->nallowed, out, &err), 0);
	for (int i = 0; i < t->nallowed; i++)
		assert_true(topo_pu_by_os(t, out[i])->allowed);
	free(out);
	topo_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shape),
		cmocka_unit_test(test_compact),
		cmocka_unit_test(test_spread),
		cmocka_unit_test(test_explicit_and_errors),
		cmocka_unit_test(test_this_machine),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
