/* test_shapes.c - what numalab reads from the captured machines of tests/data: counts, every PU's node, kinds, plans */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "experiment.h"
#include "jsonschema.h"
#include "machine.h"
#include "plan_view.h"
#include "registry.h"
#include "schema.h"
#include "strbuf.h"
#include "topo.h"
#include "topo_fixture.h"

/* The local node of the PU with OS index os. */
static int node_of(const struct topo *t, int os)
{
	const struct topo_pu *p = topo_pu_by_os(t, os);

	assert_non_null(p);
	return p->node;
}

static const struct topo_node *node(const struct topo *t, int os)
{
	int k = topo_node_index(t, os);

	assert_true(k >= 0);
	return &t->node[k];
}

static void counts(const struct topo *t, int packages, int cores, int pus,
		   int nodes)
{
	assert_int_equal(t->npackages, packages);
	assert_int_equal(t->ncores, cores);
	assert_int_equal(t->npus, pus);
	assert_int_equal(t->nnodes, nodes);
}

static void test_shared_l3(void **state)
{
	struct topo *t = xml(TEST_DATA "/shared_l3.xml");
	(void)state;

	counts(t, 1, 2, 2, 1);
	assert_int_equal(node_of(t, 0), 0);
	assert_int_equal(node_of(t, 1), 0);
	/* one L3 over both: a pair can share, not split */
	assert_int_equal(topo_pair_level(t), 0);
	assert_int_equal(t->pu[0].l3, t->pu[1].l3);
	assert_int_not_equal(t->pu[0].l2, t->pu[1].l2);
	assert_false(t->thissystem);
	assert_false(t->node[0].mem_free_known);
	topo_free(t);
}

static void test_l3_per_core(void **state)
{
	struct topo *t = xml(TEST_DATA "/l3_per_core.xml");
	(void)state;

	counts(t, 1, 2, 2, 1);
	assert_int_not_equal(t->pu[0].l3, t->pu[1].l3);
	topo_free(t);
}

static void test_smt8_power(void **state)
{
	struct topo *t = xml(TEST_DATA "/power_smt8.xml");
	(void)state;

	counts(t, 2, 8, 64, 2);
	assert_true(t->smt);
	assert_string_equal(t->arch, "ppc64le");
	/* nodes 0 and 8, as POWER numbers them */
	assert_int_equal(node_of(t, 31), 0);
	assert_int_equal(node_of(t, 32), 8);
	assert_int_equal(t->distance[0][1], 40);
	assert_int_equal(topo_pu_by_os(t, 7)->smt_rank, 7);
	topo_free(t);
}

static void test_four_sockets(void **state)
{
	struct topo *t = xml(TEST_DATA "/four_socket.xml");
	int out[4];
	struct errinfo err;
	(void)state;

	counts(t, 4, 16, 32, 4);
	/* SMT siblings numbered 16 apart, as Linux does */
	assert_int_equal(topo_pu_by_os(t, 16)->core, topo_pu_by_os(t, 0)->core);
	assert_int_equal(node_of(t, 21), 1);
	/* spread: one thread a socket */
	assert_int_equal(topo_plan(t, PLACE_SPREAD, NULL, 0, 4, out, &err), 0);
	for (int i = 0; i < 4; i++)
		assert_int_equal(node_of(t, out[i]), i);
	topo_free(t);
}

static void test_ccx(void **state)
{
	struct topo *t = xml(TEST_DATA "/ccx.xml");
	int pairs[4];
	struct errinfo err;
	(void)state;

	counts(t, 1, 8, 16, 1);
	/* two L3s of 4 cores: pairs share one or split across two */
	assert_int_equal(topo_pair_level(t), 3);
	assert_int_equal(topo_plan_pairs(t, 3, PAIR_SPLIT, 2, pairs, &err), 0);
	assert_int_not_equal(topo_pu_by_os(t, pairs[0])->l3,
			     topo_pu_by_os(t, pairs[1])->l3);
	topo_free(t);
}

static void test_hybrid(void **state)
{
	struct topo *t = xml(TEST_DATA "/hybrid.xml");
	(void)state;

	counts(t, 1, 6, 8, 1);
	/* the little cores share one L2, the big ones have one each */
	assert_int_equal(topo_pu_by_os(t, 4)->l2, topo_pu_by_os(t, 7)->l2);
	assert_int_not_equal(topo_pu_by_os(t, 0)->l2, topo_pu_by_os(t, 2)->l2);
	assert_int_equal(topo_pair_level(t), 2);
	topo_free(t);
}

static void test_dram_hbm_nvm(void **state)
{
	struct topo *t = xml(TEST_DATA "/dram_hbm_nvm.xml");
	int out[8];
	struct errinfo e;
	struct errinfo err;
	int32_t hbm[] = {2};
	(void)state;

	counts(t, 2, 8, 8, 6);
	/* a PU's local node is its package's DRAM, not the HBM beside it */
	for (int os = 0; os < 8; os++)
		assert_int_equal(node_of(t, os), os < 4 ? 0 : 1);
	assert_string_equal(node(t, 0)->kind, "DRAM");
	assert_string_equal(node(t, 2)->kind, "HBM");
	assert_string_equal(node(t, 4)->kind, "NVM");
	assert_string_equal(node(t, 5)->kind, "CXL-DRAM");
	for (int os = 2; os <= 5; os++)
		assert_true(node(t, os)->cpuless);
	assert_false(node(t, 0)->cpuless);
	assert_string_equal(node(t, 2)->initiators, "0-3");
	assert_string_equal(node(t, 4)->initiators, "0-7");
	/* the CXL node sits behind a 4 GiB memory-side cache */
	assert_int_equal(node(t, 5)->nmemcaches, 1);
	assert_int_equal(node(t, 5)->memcache_size, 4ull << 30);
	assert_int_equal(node(t, 0)->nmemcaches, 0);
	/* threads never go to a memory-only node: the default plan over
	 * every node keeps to the DRAM ones */
	assert_int_equal(topo_plan_nodes(t, PLACE_SPREAD, NULL, 0, 8, out, &e),
			 0);
	for (int i = 0; i < 8; i++)
		assert_true(node_of(t, out[i]) == 0 || node_of(t, out[i]) == 1);
	/* ... and asking for one says why */
	assert_int_equal(topo_check_nodes(t, hbm, 1, "nodes", 0, 1, &err),
			 -EINVAL);
	assert_non_null(strstr(err.msg, "node 2"));
	/* memory may go there */
	assert_int_equal(topo_check_nodes(t, hbm, 1, "nodes", 1, 0, &err), 0);
	topo_free(t);
}

static void test_memory_only_node(void **state)
{
	struct topo *t = xml(TEST_DATA "/memory_only_node.xml");
	(void)state;

	counts(t, 1, 2, 2, 2);
	assert_int_equal(node_of(t, 0), 0);
	assert_int_equal(node_of(t, 1), 0);
	assert_true(node(t, 1)->cpuless);
	assert_int_equal(node(t, 1)->npus, 0);
	assert_int_equal(topo_node_ncpus(t, 1), 0);
	assert_true(topo_node_has_memory(t, 1));
	topo_free(t);
}

static void test_cpu_only_node(void **state)
{
	struct topo *t = xml(TEST_DATA "/cpu_only_node.xml");
	struct errinfo err;
	int32_t one[] = {1};
	(void)state;

	counts(t, 2, 4, 4, 2);
	assert_int_equal(node_of(t, 2), 1);
	assert_false(node(t, 1)->cpuless);
	/* memory cannot be bound to it; threads may run there */
	assert_false(topo_node_has_memory(t, 1));
	assert_int_equal(topo_check_nodes(t, one, 1, "nodes", 1, 0, &err),
			 -EINVAL);
	assert_int_equal(topo_check_nodes(t, one, 1, "nodes", 0, 1, &err), 0);
	topo_free(t);
}

static void test_node0_offline(void **state)
{
	struct topo *t = xml(TEST_DATA "/node0_offline.xml");
	(void)state;

	counts(t, 2, 4, 4, 1);
	/* cpus 0-1 belong to no node hwloc lists: not filed under node 0 */
	assert_int_equal(node_of(t, 0), -1);
	assert_int_equal(node_of(t, 1), -1);
	assert_int_equal(node_of(t, 2), 1);
	assert_int_equal(topo_node_index(t, 0), -1);
	assert_int_equal(t->noffline, 2);
	assert_string_equal(t->arch, "aarch64");
	topo_free(t);
}

static void test_cgroup_cpuset(void **state)
{
	struct topo *t = xml(TEST_DATA "/cgroup_cpuset.xml");
	(void)state;

	counts(t, 2, 8, 8, 2);
	/* the file's allowed sets hold as a live cgroup's would */
	assert_int_equal(t->nallowed, 2);
	assert_string_equal(t->allowed_text, "2-3");
	assert_false(topo_pu_by_os(t, 0)->allowed);
	assert_true(topo_pu_by_os(t, 3)->allowed);
	assert_false(topo_node_mem_allowed(t, 0));
	assert_true(topo_node_mem_allowed(t, 1));
	assert_string_equal(t->allowed_mems_text, "1");
	topo_free(t);
}

static void test_72_nodes_refused(void **state)
{
	struct topo *t;
	(void)state;

	setenv("HWLOC_XMLFILE", TEST_DATA "/nodes_72.xml", 1);
	t = topo_load();
	unsetenv("HWLOC_XMLFILE");
	/* never a silent drop: a refusal that names the limit */
	assert_null(t);
	assert_int_equal(errno, E2BIG);
	assert_non_null(strstr(topo_load_error(), "72 NUMA nodes"));
	assert_non_null(strstr(topo_load_error(), "at most 64"));
}

static void test_1024_pus(void **state)
{
	struct topo *t = xml(TEST_DATA "/pus_1024.xml");
	int *out = calloc(1024, sizeof(int));
	struct errinfo err;
	(void)state;

	assert_non_null(out);
	counts(t, 4, 256, 1024, 4);
	assert_int_equal(node_of(t, 1023), 3);
	assert_int_equal(topo_plan(t, PLACE_COMPACT, NULL, 0, 1024, out, &err),
			 0);
	free(out);
	topo_free(t);
}

/* d's value as the API's schema NAME takes it, or the failure said */
static void schema_takes(const char *name, json_t *d)
{
	struct errinfo err;

	if (jsonschema_check(name, d, &err))
		fail_msg("%s refused: %s (field '%s')", name, err.msg,
			 err.field);
}

/*
 * A file without distances (pus_1024.xml) has them unknown: null in the
 * topology and the machine record, which the API's schemas take, never
 * the 0 a reader would take for a distance; a file with them keeps them.
 */
static void test_distances_unknown_are_null(void **state)
{
	struct topo *t = xml(TEST_DATA "/pus_1024.xml");
	json_t *topo = schema_topology(t), *m = machine_json(t);
	json_t *nodes = json_object_get(topo, "nodes");
	size_t i;
	json_t *nd;
	(void)state;

	assert_int_equal(json_array_size(nodes), 4);
	json_array_foreach (nodes, i, nd) {
		json_t *d = json_object_get(nd, "distances");
		assert_int_equal(json_array_size(d), 4);
		for (size_t j = 0; j < 4; j++) {
			assert_true(json_is_null(json_array_get(d, j)));
			assert_true(json_is_null(json_array_get(
				json_array_get(json_object_get(m, "distances"),
					       i),
				j)));
		}
	}
	schema_takes("Topology", topo);
	schema_takes("Machine", m);
	json_decref(topo);
	json_decref(m);
	topo_free(t);

	t = xml(TEST_DATA "/four_socket.xml");
	topo = schema_topology(t);
	nd = json_array_get(json_object_get(topo, "nodes"), 0);
	assert_int_equal(json_integer_value(json_array_get(
				 json_object_get(nd, "distances"), 0)),
			 10);
	assert_int_equal(json_integer_value(json_array_get(
				 json_object_get(nd, "distances"), 1)),
			 21);
	schema_takes("Topology", topo);
	json_decref(topo);
	topo_free(t);
}

static void test_one_cpu(void **state)
{
	struct topo *t = xml(TEST_DATA "/one_cpu.xml");
	(void)state;

	counts(t, 1, 1, 1, 1);
	assert_int_equal(topo_pair_level(t), 0);
	topo_free(t);
}

/* a synthetic machine without a package: none is invented */
static void test_no_package(void **state)
{
	struct topo *t = synthetic("[numa] core:2 pu:1");
	(void)state;

	assert_int_equal(t->npackages, 0);
	assert_int_equal(t->pu[0].package, -1);
	topo_free(t);
}

/* The plan `numalab estimate NAME` shows on t, with the default params. */
static char *plan_of(const struct topo *t, const char *name)
{
	const struct experiment *e = experiment_find(name);
	struct param_values *pv = calloc(1, sizeof(*pv));
	struct strbuf sb = STRBUF_INIT;
	struct common_params c;
	struct errinfo err;
	void *params;
	char *s;

	assert_non_null(e);
	params = calloc(1, e->params_size);
	assert_non_null(pv);
	assert_non_null(params);
	assert_int_equal(experiment_parse(e, t, 0, NULL, pv, params, &c, &err),
			 0);
	experiment_plan_view(e, params, &c, t, &sb);
	s = strdup(strbuf_str(&sb));
	assert_non_null(s);
	strbuf_release(&sb);
	free(params);
	free(pv);
	return s;
}

/* Fails, naming the plan, unless one of its lines is line. */
static void has_line(const char *name, const char *plan, const char *line)
{
	size_t n = strlen(line);

	for (const char *p = plan; *p; p = strchr(p, '\n') + 1) {
		if (!strncmp(p, line, n) && p[n] == '\n')
			return;
		if (!strchr(p, '\n'))
			break;
	}
	fail_msg("%s: no line '%s' in the plan:\n%s", name, line, plan);
}

/* The five experiments whose plans the shapes below check. */
static const char *const five[] = {"false_sharing",
				   "core_to_core",
				   "affinity",
				   "bandwidth_scaling",
				   "memory_policy_semantics",
				   NULL};

/* No line of the plan puts a cpu on node `cpuless`, which has none. */
static void no_thread_on(const char *name, const char *plan, int cpuless)
{
	char bad[32];

	snprintf(bad, sizeof(bad), " on node %d\n", cpuless);
	if (strstr(plan, bad))
		fail_msg("%s: a thread on node %d:\n%s", name, cpuless, plan);
}

/* Each (experiment, line) pair of lines is in that experiment's plan. */
static void check_lines(const struct topo *t, const char *const *lines)
{
	for (int i = 0; lines[i]; i += 2) {
		char *plan = plan_of(t, lines[i]);
		has_line(lines[i], plan, lines[i + 1]);
		free(plan);
	}
}

static void test_plans_two_sockets(void **state)
{
	struct topo *t = xml(TEST_DATA "/two_socket_smt.xml");
	const char *const lines[] = {
		"false_sharing",
		"threads=1-4, each on the first of: cpus 0 4 1 5 on nodes 0-1",
		"core_to_core",
		"cpus measured: cpus 0-15 on nodes 0-1",
		"core_to_core",
		"other package, distance 21: 128 of 128 pairs, the first cpu 0 to 4",
		"affinity",
		"created_pinned (pinned when created), threads=2: cpus 0 4 on nodes 0-1",
		"affinity",
		"cache_split, one cache (L3): cpus 0 1 on node 0",
		"affinity",
		"cache_split, split (L3): cpus 0 4 on nodes 0-1",
		"bandwidth_scaling",
		"compact, threads=1-16, each on the first of: cpus 0 8 1 9 2 10 3 11 4 12 5 13 6 14 7 15 on nodes 0-1",
		"bandwidth_scaling",
		"spread, threads=1-16, each on the first of: cpus 0 4 1 5 2 6 3 7 8 12 9 13 10 14 11 15 on nodes 0-1",
		"memory_policy_semantics",
		"memory: node a 0, node b 1",
		"memory_policy_semantics",
		"preferred: the toucher: cpu 4 on node 1",
		"atomic_increment",
		"threads=1-4, each on the first of: cpus 0 4 1 5 on nodes 0-1",
		"variable_layout",
		"layouts: cpus 0 4 on nodes 0-1",
		"variable_layout",
		"writer: cpu 4 on node 1",
		NULL};
	(void)state;

	check_lines(t, lines);
	topo_free(t);
}

/* Memory may go to node 1; no thread ever does. */
static void test_plans_memory_only_node(void **state)
{
	struct topo *t = xml(TEST_DATA "/memory_only_node.xml");
	const char *const lines[] = {
		"false_sharing",
		"threads=1-2, each on the first of: cpus 0 1 on node 0",
		"core_to_core",
		"cpus measured: cpus 0-1 on node 0",
		"affinity",
		"pinned_after (pinned after its first touch), threads=2: cpus 0 1 on node 0",
		"bandwidth_scaling",
		"compact = spread, threads=1-2, each on the first of: cpus 0 1 on node 0",
		"memory_policy_semantics",
		"memory: node a 0, node b 1 (memory only)",
		"memory_policy_semantics",
		"get_mempolicy: interleave over nodes 0-1",
		"memory_policy_semantics",
		"preferred: not placed: node 1 has no cpu this process may use",
		"atomic_increment",
		"threads=1-2, each on the first of: cpus 0 1 on node 0",
		"variable_layout",
		"readers: cpu 0 on node 0",
		"variable_layout",
		"writer: cpu 1 on node 0",
		NULL};
	const char *const threads[] = {"atomic_increment", "variable_layout",
				       NULL};
	(void)state;

	check_lines(t, lines);
	for (int i = 0; five[i]; i++) {
		char *plan = plan_of(t, five[i]);
		has_line(five[i], plan, "memory only (never a thread): node 1");
		no_thread_on(five[i], plan, 1);
		assert_null(strstr(plan, "on nodes 0-1"));
		free(plan);
	}
	for (int i = 0; threads[i]; i++) {
		char *plan = plan_of(t, threads[i]);
		has_line(threads[i], plan,
			 "memory only (never a thread): node 1");
		no_thread_on(threads[i], plan, 1);
		assert_null(strstr(plan, "on nodes 0-1"));
		assert_non_null(strstr(plan, "\nmemory: not bound: "));
		free(plan);
	}
	topo_free(t);
}

/* Threads may run on node 1; its memory is the nearest node's. */
static void test_plans_cpu_only_node(void **state)
{
	struct topo *t = xml(TEST_DATA "/cpu_only_node.xml");
	const char *const lines[] = {
		"bandwidth_scaling",
		"spread, threads=1-4, each on the first of: cpus 0 2 1 3 on nodes 0-1",
		"memory_policy_semantics",
		"memory: node 0 only, the one node with memory this process may use: no step can send pages to another",
		NULL};
	(void)state;

	check_lines(t, lines);
	for (int i = 0; i < 4; i++) {
		char *plan = plan_of(t, five[i]);
		assert_non_null(strstr(
			plan,
			"(node 1 has no memory: a first touch there takes the nearest node with memory)\n"));
		free(plan);
	}
	topo_free(t);
}

static void test_plans_one_cpu(void **state)
{
	struct topo *t = xml(TEST_DATA "/one_cpu.xml");
	const char *const lines[] = {
		"false_sharing",
		"threads=1: cpu 0 on node 0",
		"core_to_core",
		"pairs: none, a round trip needs 2 cpus",
		"affinity",
		"unpinned, threads=1: where the kernel puts them, on cpus 0",
		"affinity",
		"cache_split: not placed: no cache level has two instances with one over two allowed cpus",
		"bandwidth_scaling",
		"compact = spread, threads=1: cpu 0 on node 0",
		"memory_policy_semantics",
		"preferred: the toucher: cpu 0 on node 0",
		"atomic_increment",
		"threads=1: cpu 0 on node 0",
		NULL};
	(void)state;

	check_lines(t, lines);
	topo_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shared_l3),
		cmocka_unit_test(test_l3_per_core),
		cmocka_unit_test(test_smt8_power),
		cmocka_unit_test(test_four_sockets),
		cmocka_unit_test(test_ccx),
		cmocka_unit_test(test_hybrid),
		cmocka_unit_test(test_dram_hbm_nvm),
		cmocka_unit_test(test_memory_only_node),
		cmocka_unit_test(test_cpu_only_node),
		cmocka_unit_test(test_node0_offline),
		cmocka_unit_test(test_cgroup_cpuset),
		cmocka_unit_test(test_72_nodes_refused),
		cmocka_unit_test(test_1024_pus),
		cmocka_unit_test(test_one_cpu),
		cmocka_unit_test(test_no_package),
		cmocka_unit_test(test_plans_two_sockets),
		cmocka_unit_test(test_plans_memory_only_node),
		cmocka_unit_test(test_plans_cpu_only_node),
		cmocka_unit_test(test_plans_one_cpu),
		cmocka_unit_test(test_distances_unknown_are_null),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
