/* test_numa.c - page-node census, interleave pattern, node checks and node plans (page_census, placement) */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "topo_fixture.h"

#include "numa_mem.h"
#include "page_census.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static void test_all_on_one_node(void **state)
{
	int status[] = {1, 1, 1, 1, 1, 1};
	int allowed[] = {1};
	struct page_census c;
	(void)state;
	page_census_of(status, N(status), allowed, 1, &c);
	assert_int_equal(c.npages, 6);
	assert_int_equal(c.on_node[1], 6);
	assert_int_equal(c.on_node[0], 0);
	assert_int_equal(c.forbidden, 0);
	assert_int_equal(c.first_forbidden_node, -1);
	assert_int_equal(c.nused, 1);
	assert_int_equal(c.runs, 1);
	/* interleave over one node: one run, nothing to alternate, nothing
	 * wrong */
	assert_int_equal(c.interleaved, 1);
}

static void test_forbidden_and_holes(void **state)
{
	int status[] = {1, 1, 0, 1, -ENOENT, -EFAULT, 70};
	int allowed[] = {1};
	struct page_census c;
	(void)state;
	page_census_of(status, N(status), allowed, 1, &c);
	assert_int_equal(c.on_node[1], 3);
	assert_int_equal(c.on_node[0], 1);
	assert_int_equal(c.on_other, 1); /* node 70: beyond the histogram */
	assert_int_equal(c.absent, 1);
	assert_int_equal(c.failed, 1);
	assert_int_equal(c.forbidden, 2);
	assert_int_equal(c.first_forbidden_node, 0);
	assert_int_equal(c.first_forbidden_page, 2);
	assert_int_equal(c.interleaved, 0);
}

static void test_interleave_pairs(void **state)
{
	int a[] = {0, 1, 0, 1, 0, 1, 0, 1};
	int b[] = {1, 0, 1, 0, 1}; /* starting on the second node is fine */
	int allowed[] = {0, 1};
	struct page_census c;
	struct strbuf pattern = STRBUF_INIT;
	(void)state;
	page_census_of(a, N(a), allowed, 2, &c);
	assert_int_equal(c.interleaved, 1);
	assert_int_equal(c.run_len, 1);
	assert_int_equal(c.runs, 8);
	assert_int_equal(c.on_node[0], 4);
	assert_int_equal(c.on_node[1], 4);
	page_census_pattern(&c, a, N(a), &pattern);
	assert_non_null(strstr(strbuf_str(&pattern), "0,1,0,1,0,1,0,1"));
	assert_non_null(strstr(strbuf_str(&pattern), "runs of 1-1 page"));
	strbuf_release(&pattern);
	page_census_of(b, N(b), allowed, 2, &c);
	assert_int_equal(c.interleaved, 1);
}

static void test_interleave_sets(void **state)
{
	int three[] = {2, 0, 1, 2, 0, 1, 2};
	int subset[] = {3, 1, 3, 1, 3};
	int wrong_order[] = {0, 2, 1, 0, 2, 1};
	int s3[] = {0, 1, 2}, s13[] = {1, 3};
	struct page_census c;
	(void)state;
	page_census_of(three, N(three), s3, 3, &c);
	assert_int_equal(c.interleaved, 1);
	page_census_of(subset, N(subset), s13, 2, &c);
	assert_int_equal(c.interleaved, 1);
	assert_int_equal(c.on_node[3], 3);
	page_census_of(wrong_order, N(wrong_order), s3, 3, &c);
	assert_int_equal(c.interleaved, 0);
	/* with no set given the cycle is the nodes seen, ascending */
	page_census_of(three, N(three), NULL, 0, &c);
	assert_int_equal(c.interleaved, 1);
	assert_int_equal(c.forbidden, 0);
}

static void test_interleave_huge_runs(void **state)
{
	/* 2 MiB pages interleave whole: runs of 512 base pages, the ends cut
	 * short */
	size_t n = 100 + 512 + 512 + 300;
	int *s = malloc(sizeof(int) * n);
	int allowed[] = {0, 1};
	struct page_census c;
	(void)state;
	for (size_t i = 0; i < n; i++)
		s[i] = i < 100 ? 1 : i < 612 ? 0 : i < 1124 ? 1 : 0;
	page_census_of(s, n, allowed, 2, &c);
	assert_int_equal(c.interleaved, 1);
	assert_int_equal(c.run_len, 512);
	assert_int_equal(c.run_min, 100);
	assert_int_equal(c.run_max, 512);
	/* an inner run of another length breaks the pattern: 100, 256, 768, 300
	 */
	for (size_t i = 0; i < n; i++)
		s[i] = i < 100 ? 1 : i < 356 ? 0 : i < 1124 ? 1 : 0;
	page_census_of(s, n, allowed, 2, &c);
	assert_int_equal(c.interleaved, 0);
	free(s);
}

static void test_not_interleaved(void **state)
{
	int stuck[] = {0, 0, 0, 0};
	int uneven[] = {0, 1, 1, 0, 1, 0};
	int hole[] = {0, 1, -ENOENT, 1, 0};
	int missing[] = {0, 1, 0, 1, 0, 1}; /* node 2 of the set never used */
	int s2[] = {0, 1}, s3[] = {0, 1, 2};
	struct page_census c;
	(void)state;
	page_census_of(stuck, N(stuck), s2, 2, &c);
	assert_int_equal(c.interleaved, 0);
	page_census_of(uneven, N(uneven), s2, 2, &c);
	assert_int_equal(c.interleaved, 0);
	page_census_of(hole, N(hole), s2, 2, &c);
	assert_int_equal(c.interleaved, 0);
	assert_int_equal(c.absent, 1);
	page_census_of(missing, N(missing), s3, 3, &c);
	assert_int_equal(c.interleaved, 0);
}

static struct topo *fake(int nnodes, uint64_t mem_free)
{
	struct topo *t = calloc(1, sizeof(*t));
	assert_non_null(t);
	t->nnodes = nnodes;
	for (int i = 0; i < nnodes; i++) {
		t->node[i].os = i;
		t->node[i].mem_total = mem_free ? 2 * mem_free : 0;
		t->node[i].mem_free = mem_free;
		t->node[i].mem_free_known = mem_free > 0;
	}
	return t;
}

static void test_check_nodes(void **state)
{
	struct topo *one = fake(1, 1ull << 30), *two = fake(2, 1ull << 30);
	struct errinfo err;
	int32_t three[] = {3}, zero[] = {0}, both[] = {0, 1};
	(void)state;
	memset(&err, 0, sizeof(err));
	assert_int_equal(topo_check_nodes(one, three, 1, "nodes", 0, 0, &err),
			 -EINVAL);
	assert_string_equal(err.msg,
			    "node 3 does not exist (this machine has nodes 0)");
	assert_string_equal(err.field, "nodes");
	assert_int_equal(topo_check_nodes(one, zero, 1, "nodes", 1, 0, &err),
			 0);
	assert_int_equal(
		topo_check_nodes(two, three, 1, "from_nodes", 0, 0, &err),
		-EINVAL);
	assert_string_equal(
		err.msg, "node 3 does not exist (this machine has nodes 0-1)");
	assert_string_equal(err.field, "from_nodes");
	/* a node without memory, and one without cpus */
	two->node[1].mem_total = 0;
	assert_int_equal(topo_check_nodes(two, both, 2, "nodes", 1, 0, &err),
			 -EINVAL);
	assert_string_equal(err.msg, "node 1 has no memory (in 'nodes')");
	assert_int_equal(topo_check_nodes(two, zero, 1, "toucher", 0, 1, &err),
			 -EINVAL);
	assert_string_equal(
		err.msg,
		"node 0 has no cpus this process may use (in 'toucher')");
	/* no topology (validating without a machine): nothing to refuse */
	assert_int_equal(topo_check_nodes(NULL, three, 1, "nodes", 1, 1, &err),
			 0);
	free(one);
	free(two);
}

static void test_check_free(void **state)
{
	struct topo *two = fake(2, 1ull << 30), *unknown = fake(1, 0);
	struct errinfo err;
	int32_t zero[] = {0};
	(void)state;
	assert_int_equal(
		topo_check_free(two, zero, 1, 512ull << 20, "size", &err), 0);
	assert_int_equal(
		topo_check_free(two, zero, 1, 2ull << 30, "size", &err),
		-EINVAL);
	assert_string_equal(
		err.msg,
		"'size' asks for 2048.0 MiB, more than the 1024.0 MiB free on node 0");
	/* every node together */
	assert_int_equal(
		topo_check_free(two, NULL, 0, 2ull << 30, "size", &err), 0);
	assert_int_equal(
		topo_check_free(two, NULL, 0, 3ull << 30, "size", &err),
		-EINVAL);
	assert_non_null(strstr(err.msg, "on nodes 0-1 together"));
	/* memory the topology does not know is not held against a request */
	assert_int_equal(
		topo_check_free(unknown, zero, 1, 1ull << 40, "size", &err), 0);
	/* unknown free memory is not zero: a size is judged by the total */
	two->node[1].mem_free_known = 0;
	two->node[1].mem_free = 0;
	assert_int_equal(
		topo_check_free(two, NULL, 0, 3ull << 30, "size", &err), 0);
	assert_int_equal(
		topo_check_free(two, NULL, 0, 5ull << 30, "size", &err),
		-EINVAL);
	assert_string_equal(
		err.msg,
		"'size' asks for 5120.0 MiB, more than the 4096.0 MiB nodes 0-1 have in all (free memory is unknown here)");
	assert_string_equal(err.field, "size");
	free(two);
	free(unknown);
}

static void test_plan_on_nodes(void **state)
{
	struct topo *t = synthetic("pack:2 numa:1 l3:1 core:2 pu:2");
	int out[8];
	struct errinfo err;
	int32_t one[] = {1};
	(void)state;
	assert_int_equal(topo_cpu_node(t, 5), 1);
	assert_int_equal(topo_cpu_node(t, 99), -1);
	assert_int_equal(topo_node_ncpus(t, 1), 4);
	/* compact on node 1: its first core's two PUs */
	assert_int_equal(
		topo_plan_nodes(t, PLACE_COMPACT, one, 1, 2, out, &err), 0);
	assert_int_equal(out[0], 4);
	assert_int_equal(out[1], 5);
	/* spread over node 1: two cores before an SMT sibling */
	assert_int_equal(topo_plan_nodes(t, PLACE_SPREAD, one, 1, 2, out, &err),
			 0);
	assert_int_equal(topo_cpu_node(t, out[0]), 1);
	assert_int_equal(topo_cpu_node(t, out[1]), 1);
	assert_int_not_equal(out[0] / 2, out[1] / 2);
	/* spread over every node alternates the nodes; compact fills node 0
	 * first */
	assert_int_equal(
		topo_plan_nodes(t, PLACE_SPREAD, NULL, 0, 2, out, &err), 0);
	assert_int_not_equal(topo_cpu_node(t, out[0]),
			     topo_cpu_node(t, out[1]));
	assert_int_equal(
		topo_plan_nodes(t, PLACE_COMPACT, NULL, 0, 4, out, &err), 0);
	for (int i = 0; i < 4; i++)
		assert_int_equal(topo_cpu_node(t, out[i]), 0);
	assert_int_equal(topo_plan_nodes(t, PLACE_SPREAD, one, 1, 5, out, &err),
			 -EINVAL);
	assert_non_null(strstr(err.msg, "node 1 has only 4"));
	topo_free(t);
}

static void test_names_match_enums(void **state)
{
	(void)state;
	assert_string_equal(nmem_policy_names[NMEM_DEFAULT], "default");
	assert_string_equal(nmem_policy_names[NMEM_BIND], "bind");
	assert_string_equal(nmem_policy_names[NMEM_PREFERRED], "preferred");
	assert_string_equal(nmem_policy_names[NMEM_INTERLEAVE], "interleave");
	assert_string_equal(nmem_policy_names[NMEM_LOCAL], "local");
	assert_string_equal(nmem_policy_names[NMEM_LOCAL + 1],
			    "preferred_many");
	assert_string_equal(nmem_policy_names[NMEM_PREFERRED_MANY],
			    "preferred_many");
	assert_null(nmem_policy_names[NMEM_PREFERRED_MANY + 1]);
	assert_string_equal(nmem_scope_names[NMEM_TASK], "task");
}

/* On this machine, whatever its nodes: bind to the first node, touch, ask. */
static void test_bind_here(void **state)
{
	const struct mem_caps *caps = mem_caps();
	struct topo *t = topo_load();
	struct nmem_buf b;
	struct page_census c;
	struct errinfo err;
	int checked = 0;
	(void)state;
	assert_non_null(t);
	if (!caps->policy || !caps->move_pages) {
		print_message("SKIP test_bind_here: %s\n", caps->why);
		topo_free(t);
		return;
	}
	int32_t node = t->node[0].os;
	struct nmem_spec s = {.len = 1 << 20,
			      .policy = NMEM_BIND,
			      .scope = NMEM_VMA,
			      .nodes = &node,
			      .nnodes = 1,
			      .thp = -1};
	assert_int_equal(nmem_alloc(&s, t, &b, &err), 0);
	int *status = malloc(sizeof(int) * b.npages);
	assert_int_equal(nmem_where(&b, status), 0);
	page_census_of(status, b.npages, &b.nodes[0], 1, &c);
	assert_int_equal(c.absent, b.npages); /* nothing touched yet */
	memset(b.base, 1, b.len);
	assert_int_equal(nmem_where(&b, status), 0);
	page_census_of(status, b.npages, &b.nodes[0], 1, &c);
	assert_int_equal(c.on_node[node], b.npages);
	assert_int_equal(c.forbidden, 0);
	assert_int_equal(nmem_sample_check(&b, status, 16, &checked), 16);
	assert_int_equal(checked, 16);
	/* migrating onto the node the pages are on moves nothing */
	struct nmem_migration m;
	assert_int_equal(nmem_migrate_mbind(&b, NMEM_MOVE_MBIND_STRICT,
					    &b.nodes[0], 1, &m, &err),
			 0);
	assert_int_equal(m.stayed, b.npages);
	assert_int_equal(m.moved, 0);
	free(status);
	nmem_free(&b);
	topo_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_all_on_one_node),
		cmocka_unit_test(test_forbidden_and_holes),
		cmocka_unit_test(test_interleave_pairs),
		cmocka_unit_test(test_interleave_sets),
		cmocka_unit_test(test_interleave_huge_runs),
		cmocka_unit_test(test_not_interleaved),
		cmocka_unit_test(test_check_nodes),
		cmocka_unit_test(test_check_free),
		cmocka_unit_test(test_plan_on_nodes),
		cmocka_unit_test(test_names_match_enums),
		cmocka_unit_test(test_bind_here),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
