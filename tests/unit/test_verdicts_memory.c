/* test_verdicts_memory.c - what bandwidth_scaling, cache_sharing, memory_policy and remote_bandwidth say about canned runs */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <stdio.h>

#include <cmocka.h>

#include "experiment.h"
#include "mem_size.h"
#include "registry.h"
#include "run_fixture.h"

#define ARGV(...) ((char *const[]){__VA_ARGS__})
#define ARGC(...) (int)(sizeof((char *const[]){__VA_ARGS__}) / sizeof(char *))

static struct topo *vm_1node(void)
{
	return synthetic("pack:1 numa:1 l3:1 core:2 pu:1");
}

static struct topo *four_nodes(void)
{
	return synthetic("pack:4 numa:1 l3:1 core:2 pu:1");
}

static void set_llc(struct canned *c, int instances, uint64_t bytes)
{
	c->m.llc_level = 3;
	c->m.llc_instances = instances;
	c->m.llc_bytes = bytes;
}

static struct verdict *describe(struct canned *c)
{
	experiment_describe(&c->rr, &c->v);
	return &c->v;
}

static void precheck(const char *name, const struct topo *t, int argc,
		     char *const *argv, struct verdict *v)
{
	const struct experiment *e = experiment_find(name);
	struct param_values *pv = calloc(1, sizeof(*pv));
	void *params = calloc(1, e->params_size);
	struct common_params common;
	struct errinfo err;

	assert_int_equal(experiment_parse_recorded(e, argc, argv, pv, params,
						   &common, &err),
			 0);
	memset(v, 0, sizeof(*v));
	assert_non_null(e->precheck);
	e->precheck(params, &common, t, v);
	free(pv);
	free(params);
}

/* compact == spread on one node, measured as two lines (a stored run): no
 * comparison */
static void scaling_same_cpus_two_lines(void **state)
{
	struct topo *t = vm_1node();
	struct canned *c = canned_new("bandwidth_scaling", t, 1, 2,
				      ARGV("threads=1-2", "ops=read"));
	int one[] = {0}, two[] = {0, 1};

	(void)state;
	canned_point(c, "read", "compact", 1, NULL, 30.5, 0.02, 5);
	canned_point(c, "read", "compact", 2, NULL, 31.0, 0.02, 5);
	canned_point(c, "read", "spread", 1, NULL, 46.8, 0.02, 5);
	canned_point(c, "read", "spread", 2, NULL, 47.0, 0.02, 5);
	canned_placement(c, t, "threads=1 placement=compact", one, 1);
	canned_placement(c, t, "threads=2 placement=compact", two, 2);
	canned_placement(c, t, "threads=1 placement=spread", one, 1);
	canned_placement(c, t, "threads=2 placement=spread", two, 2);
	describe(c);
	assert_true(verdict_has_level(&c->v, "cannot"));
	assert_true(verdict_says(&c->v, "same cpus at every thread count"));
	assert_false(verdict_says(&c->v, "against"));
	canned_free(c);
	topo_free(t);
}

/* the same, as numalab runs it now: one series, a note, no comparison */
static void scaling_same_cpus_one_series(void **state)
{
	struct topo *t = vm_1node();
	struct canned *c =
		canned_new("bandwidth_scaling", t, 1, 1, ARGV("threads=1-2"));
	struct verdict v;

	(void)state;
	canned_point(c, "read", "compact = spread", 1, NULL, 30.5, 0.3, 5);
	canned_point(c, "read", "compact = spread", 2, NULL, 31.0, 0.3, 5);
	describe(c);
	assert_true(verdict_says(&c->v, "read (compact = spread)"));
	assert_true(verdict_says(&c->v, "did no better beyond the noise"));
	assert_true(verdict_says(&c->v, "cannot be compared"));
	assert_false(verdict_says(&c->v, "against"));
	assert_false(verdict_says(&c->v, "at most"));
	precheck("bandwidth_scaling", t, 1, ARGV("threads=1-2"), &v);
	assert_true(verdict_has_level(&v, "cannot"));
	assert_true(verdict_says(&v, "same cpus"));
	canned_free(c);
	topo_free(t);
}

/* two sockets: different cpus, apart beyond the noise: the comparison is stated
 */
static void scaling_two_sockets(void **state)
{
	struct topo *t = xml("tests/data/two_socket_smt.xml");
	/* 256M per thread: 4 times the two 32 MiB L3s, so memory's figures */
	struct canned *c =
		canned_new("bandwidth_scaling", t, 0, 3,
			   ARGV("threads=2", "ops=read", "size=256M"));
	int compact[] = {0, 1}, spread[2];
	struct errinfo err;
	struct verdict v;

	(void)state;
	assert_int_equal(
		topo_plan_nodes(t, PLACE_SPREAD, NULL, 0, 2, spread, &err), 0);
	assert_int_equal(
		topo_plan_nodes(t, PLACE_COMPACT, NULL, 0, 2, compact, &err),
		0);
	canned_point(c, "read", "compact", 2, NULL, 20, 0.02, 5);
	canned_point(c, "read", "spread", 2, NULL, 38, 0.02, 5);
	canned_placement(c, t, "threads=2 placement=compact", compact, 2);
	canned_placement(c, t, "threads=2 placement=spread", spread, 2);
	describe(c);
	assert_true(verdict_says(&c->v,
				 "38.0 GB/s spread against 20.0 GB/s compact"));
	assert_false(verdict_has_level(&c->v, "cannot"));
	canned_free(c);

	/* within the noise: nothing stated, a note says so */
	c = canned_new("bandwidth_scaling", t, 0, 3,
		       ARGV("threads=2", "ops=read", "size=256M"));
	canned_point(c, "read", "compact", 2, NULL, 30, 0.1, 5);
	canned_point(c, "read", "spread", 2, NULL, 32, 0.1, 5);
	canned_placement(c, t, "threads=2 placement=compact", compact, 2);
	canned_placement(c, t, "threads=2 placement=spread", spread, 2);
	describe(c);
	assert_false(verdict_says(&c->v, "against"));
	assert_true(verdict_says(&c->v, "did not differ beyond the noise"));
	precheck("bandwidth_scaling", t, 2, ARGV("threads=2", "size=256M"), &v);
	assert_false(verdict_has_level(&v, "cannot"));
	canned_free(c);
	topo_free(t);
}

/* size=4M with a 32 MiB L3: figures labelled from cache */
static void policy_small_buffer_from_cache(void **state)
{
	struct topo *t = vm_1node();
	struct canned *c = canned_new("memory_policy", t, 1, 2,
				      ARGV("size=4M", "policy=default"));

	(void)state;
	set_llc(c, 1, 32 << 20);
	canned_point(c, "pages", "after first touch", 0, "node 0", 1024, 0, 1);
	canned_point(c, "bandwidth", "read (from cache)", 0, "node 0", 96, 0.02,
		     5);
	describe(c);
	assert_true(
		verdict_says(&c->v, "read from cache 96.0 GB/s from node 0"));
	assert_true(verdict_says(&c->v, "fits in this machine's 32 MiB of L3"));
	assert_true(verdict_has_level(&c->v, "warn"));
	/* one node: what it cannot show, migration included */
	assert_true(verdict_has_level(&c->v, "cannot"));
	assert_true(verdict_says(&c->v, "moving pages cannot be shown"));
	canned_free(c);
	topo_free(t);
}

/* the old 64M default fits a 96 MiB L3: the new default is 4x it */
static void default_outgrows_96mib_l3(void **state)
{
	struct topo *t = vm_1node();
	struct canned *c =
		canned_new("remote_bandwidth", t, 0, 1, ARGV("size=64M"));
	struct machine_facts m = {
		.llc_level = 3, .llc_instances = 1, .llc_bytes = 96 << 20};
	struct param_values *pv = calloc(1, sizeof(*pv));
	const struct experiment *e = experiment_find("remote_bandwidth");
	struct errinfo err;
	char want[32];

	(void)state;
	assert_true(mem_from_cache(&m, 64 << 20));
	assert_int_equal(mem_default_bytes(&m, 0), 384ull << 20);
	assert_false(mem_from_cache(&m, mem_default_bytes(&m, 0)));
	/* held back by free memory: the default says it is from cache */
	assert_true(mem_from_cache(&m, mem_default_bytes(&m, 1ull << 30)));
	set_llc(c, 1, 96 << 20);
	canned_point(c, "mixed", "regular stores (from cache)", 0, "all local",
		     50, 0.02, 5);
	describe(c);
	assert_true(
		verdict_says(&c->v, "64 MiB fits in this machine's 96 MiB"));
	canned_free(c);
	/* parsed on a machine, the default is resolved from its caches and
	 * recorded */
	topo_free(t);
	t = synthetic(
		"pack:1 numa:1(memory=8589934592) l3:1(size=33554432) core:2 pu:1");
	for (int i = 0; i < t->nnodes; i++)
		t->node[i].mem_free =
			t->node[i]
				.mem_total; /* a synthetic node reports none */
	machine_facts_from_topo(t, &m);
	assert_int_equal(machine_llc_total(&m), 32 << 20);
	if (experiment_parse(e, t, 0, NULL, pv, NULL, NULL, &err))
		fail_msg("%s", err.msg);
	uint64_t least = 0;
	for (int i = 0; i < t->nnodes; i++)
		if (t->node[i].mem_free &&
		    (!least || t->node[i].mem_free < least))
			least = t->node[i].mem_free;
	snprintf(want, sizeof(want), "%lluM",
		 (unsigned long long)(mem_default_bytes(&m, least) >> 20));
	assert_string_equal(params_get(pv, "size")->text, want);
	assert_string_equal(want, "128M");
	free(pv);
	topo_free(t);
}

/* A cell of a matrix, its rounds within +-spread of value. */
static void cell(struct canned *c, const char *chart, int row, int col,
		 double value, double spread)
{
	struct result_cell *q = &c->cells[c->rr.ncells++];

	q->chart = chart;
	q->row = row;
	q->col = col;
	q->value = value;
	q->ci_lo = value * (1 - spread);
	q->ci_hi = value * (1 + spread);
	q->n = 5;
}

/* four nodes: remote called slower only from the cells' intervals; preferred
 * names its rule */
static void four_node_remote_and_preferred(void **state)
{
	struct topo *t = four_nodes();
	struct canned *c =
		canned_new("remote_bandwidth", t, 0, 1, ARGV("size=1G"));

	(void)state;
	set_llc(c, 4, 32 << 20);
	canned_summary(c, "read_local_gbps", 20, "GB/s");
	canned_summary(c, "read_remote_gbps", 12, "GB/s");
	canned_summary(c, "write_regular_local_gbps", 10, "GB/s");
	canned_summary(c, "write_regular_remote_gbps", 9.8, "GB/s");
	for (int i = 0; i < 4; i++)
		for (int j = 0; j < 4; j++) {
			cell(c, "read", i, j, i == j ? 20 : 12, 0.02);
			cell(c, "write_regular", i, j, i == j ? 10 : 9.8, 0.05);
		}
	canned_point(c, "mixed", "regular stores", 0, "all local", 40, 0.03, 5);
	canned_point(c, "mixed", "regular stores", 1,
		     "read local, write remote", 41, 0.03, 5);
	describe(c);
	assert_true(verdict_says(
		&c->v,
		"read 20.0 GB/s local, 12.0 GB/s remote (60% (58–62%): every remote cell slower than the local cell of its row)"));
	assert_true(
		verdict_says(&c->v, "remote write was not told from local"));
	assert_true(verdict_says(&c->v,
				 "writing to another node was not told from"));
	assert_non_null(verdict_qualifier_why(
		&c->v, "write_regular_remote_over_local", NULL));
	assert_non_null(verdict_qualifier_why(&c->v, "mixed_gain", NULL));
	assert_null(
		verdict_qualifier_why(&c->v, "read_remote_over_local", NULL));
	/* the ratio of the means, with the interval its sentence gives */
	assert_true(
		verdict_interval_holds(&c->v, "read_remote_over_local", 0.6));
	assert_false(
		verdict_interval_holds(&c->v, "read_remote_over_local", 0.65));
	assert_false(verdict_interval_holds(
		&c->v, "write_regular_remote_over_local", 0.98));
	assert_false(verdict_has_level(&c->v, "cannot"));
	assert_false(verdict_says(&c->v, "from cache"));
	canned_free(c);

	c = canned_new("memory_policy", t, 0, 3,
		       ARGV("size=1G", "policy=preferred", "nodes=1,3"));
	set_llc(c, 4, 32 << 20);
	canned_point(c, "pages", "after first touch", 1, "node 1", 262144, 0,
		     1);
	canned_point(c, "bandwidth", "read", 0, "node 0", 9, 0.02, 5);
	describe(c);
	assert_true(verdict_says(
		&c->v,
		"MPOL_PREFERRED, which prefers only the lowest node of 'nodes' (1)"));
	assert_true(verdict_says(&c->v, "262144 on node 1"));
	assert_true(verdict_says(&c->v, "read 9.0 GB/s from node 0"));
	assert_false(verdict_has_level(&c->v, "cannot"));
	canned_free(c);
	topo_free(t);
}

/* one L3 for all cpus: a cannot badge before the run, and after it */
static void cache_sharing_one_l3(void **state)
{
	struct topo *t = synthetic("pack:1 numa:1 l3:1 core:4 pu:1");
	struct canned *c = canned_new("cache_sharing", t, 0, 0, NULL);
	struct verdict v;

	(void)state;
	precheck("cache_sharing", t, 0, NULL, &v);
	assert_true(verdict_has_level(&v, "cannot"));
	assert_true(verdict_says(&v, "split"));
	assert_true(verdict_says(&v, "one last-level cache for all its cpus"));
	canned_summary(c, "pairs", 2, "pairs");
	canned_summary(c, "working_set", 1 << 20, "bytes");
	canned_summary(c, "cache_level", 3, "");
	canned_point(c, "time", "one data set per pair", 0, "shared", 1.0, 0.01,
		     5);
	canned_point(c, "time", "each thread its own data set", 3,
		     "separate_data", 1.5, 0.01, 5);
	describe(c);
	assert_true(verdict_has_level(&c->v, "cannot"));
	assert_true(verdict_says(
		&c->v,
		"what splitting a pair across caches costs could not be shown"));
	assert_true(verdict_says(&c->v, "no pair was split across caches"));
	assert_true(verdict_says(&c->v, "1.50× (1.47–1.53)"));
	canned_free(c);
	topo_free(t);
}

/* several L3s: no badge, and split against shared is stated when apart */
static void cache_sharing_several_l3(void **state)
{
	struct topo *t = xml("tests/data/two_socket_smt.xml");
	struct canned *c = canned_new("cache_sharing", t, 0, 0, NULL);
	struct verdict v;

	(void)state;
	precheck("cache_sharing", t, 0, NULL, &v);
	assert_false(verdict_has_level(&v, "cannot"));
	canned_summary(c, "pairs", 2, "pairs");
	canned_summary(c, "working_set", 1 << 20, "bytes");
	canned_summary(c, "cache_level", 3, "");
	canned_point(c, "time", "one data set per pair", 0, "shared", 1.0, 0.01,
		     5);
	canned_point(c, "time", "one data set per pair", 1, "split", 2.0, 0.01,
		     5);
	describe(c);
	assert_true(verdict_says(
		&c->v, "2.00× (1.96–2.04) longer split across L3 caches"));
	assert_false(verdict_has_level(&c->v, "cannot"));
	canned_free(c);
	/* apart less than the noise: no "longer" */
	c = canned_new("cache_sharing", t, 0, 0, NULL);
	canned_summary(c, "cache_level", 3, "");
	canned_point(c, "time", "one data set per pair", 0, "shared", 1.0, 0.1,
		     5);
	canned_point(c, "time", "one data set per pair", 1, "split", 1.05, 0.1,
		     5);
	describe(c);
	assert_true(verdict_says(&c->v, "within the noise"));
	assert_false(verdict_says(&c->v, "longer"));
	canned_free(c);
	topo_free(t);
}

/* the migration and remote charts stay empty on one node: the verdict says why
 */
static void one_node_empty_charts_explained(void **state)
{
	struct topo *t = vm_1node();
	struct canned *c =
		canned_new("remote_bandwidth", t, 1, 1, ARGV("size=1G"));
	struct verdict v;

	(void)state;
	set_llc(c, 1, 32 << 20);
	canned_summary(c, "read_local_gbps", 20, "GB/s");
	describe(c);
	assert_true(verdict_has_level(&c->v, "cannot"));
	assert_true(verdict_says(&c->v, "remote cells need 2 nodes"));
	precheck("remote_bandwidth", t, 1, ARGV("size=1G"), &v);
	assert_true(verdict_has_level(&v, "cannot"));
	precheck("memory_policy", t, 1, ARGV("size=1G"), &v);
	assert_true(verdict_says(&v, "migration cannot be shown"));
	canned_free(c);
	topo_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(scaling_same_cpus_two_lines),
		cmocka_unit_test(scaling_same_cpus_one_series),
		cmocka_unit_test(scaling_two_sockets),
		cmocka_unit_test(policy_small_buffer_from_cache),
		cmocka_unit_test(default_outgrows_96mib_l3),
		cmocka_unit_test(four_node_remote_and_preferred),
		cmocka_unit_test(cache_sharing_one_l3),
		cmocka_unit_test(cache_sharing_several_l3),
		cmocka_unit_test(one_node_empty_charts_explained),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
