/* test_verdicts_replication.c - numa_replication's describe and precheck on canned runs: a 1-node VM, two SMT sockets, four nodes */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

#include <cmocka.h>

#include "run_fixture.h"

#define VM "pack:1 numa:1(memory=1GB) l3:1 core:2 pu:1"
#define FOUR "pack:4 numa:1(memory=1GB) l3:1 core:2 pu:1"
#define SMT "tests/data/two_socket_smt.xml"

static const char *const local_keys[] = {
	"replica_node0_pages_elsewhere", "replica_node1_pages_elsewhere",
	"replica_node2_pages_elsewhere", "replica_node3_pages_elsewhere"};

/*
 * A four-node run: one reader per node (CPUs 0, 2, 4, 6), local copies
 * read at local_gbps, node 0's single copy at 10 GB/s from the others.
 */
static struct canned *four_node_run_of(const struct topo *t, char *size,
				       double local_gbps, double spread,
				       int misplaced)
{
	char *argv[] = {size, "repeat=5", "warmup=1"};
	struct canned *c = canned_new("numa_replication", t, 0, 3, argv);
	int cpus[] = {0, 2, 4, 6};

	canned_summary(c, "nodes_used", 4, "nodes");
	canned_summary(c, "home_node", 0, NULL);
	canned_summary(c, "replicas", 4, "copies");
	canned_summary(c, "single_bytes", 16 << 20, "B");
	canned_summary(c, "replica_bytes", 64 << 20, "B");
	for (int n = 0; n < 4; n++) {
		canned_point(c, "read", "one copy", n, NULL,
			     n ? 10 : local_gbps, spread, 5);
		canned_point(c, "read", "a copy per node", n, NULL, local_gbps,
			     spread, 5);
		canned_summary(c, local_keys[n], n == misplaced ? 12 : 0,
			       "pages");
	}
	canned_placement(c, t, "a copy per node", cpus, 4);
	canned_placement(c, t, "a region per node", cpus, 4);
	/* four L3s of 32 MiB: 1G streams from memory, 16M does not */
	c->m.llc_level = 3;
	c->m.llc_instances = 4;
	c->m.llc_bytes = 32 << 20;
	return c;
}

static struct canned *four_node_run(const struct topo *t, double local_gbps,
				    double spread, int misplaced)
{
	return four_node_run_of(t, "size=1G", local_gbps, spread, misplaced);
}

static void test_one_node_vm(void **state)
{
	struct topo *t = synthetic(VM);
	const struct experiment *e = experiment_find("numa_replication");
	char *argv[] = {"size=16M"};
	struct canned *c = canned_new("numa_replication", t, 1, 1, argv);
	struct verdict pre = {0};
	int cpus[] = {0};
	(void)state;

	e->precheck(c->params, &c->common, t, &pre);
	assert_int_equal(pre.nnotes, 3);
	assert_true(verdict_has_level(&pre, "cannot"));
	assert_true(verdict_says(&pre, "second node"));

	canned_summary(c, "nodes_used", 1, "nodes");
	canned_summary(c, "home_node", 0, NULL);
	canned_summary(c, "replicas", 1, "copies");
	canned_summary(c, "single_bytes", 16 << 20, "B");
	canned_summary(c, "replica_bytes", 16 << 20, "B");
	canned_summary(c, "accumulate_equal", 1, NULL);
	canned_summary(c, "migration_possible", 0, NULL);
	canned_point(c, "read", "one copy", 0, NULL, 10, 0.01, 5);
	canned_point(c, "read", "a copy per node", 0, NULL, 20, 0.01, 5);
	canned_point(c, "accumulate", "updates", 0, "one shared region", 30,
		     0.01, 5);
	canned_point(c, "accumulate", "updates", 1, "a region per node", 10,
		     0.01, 5);
	canned_placement(c, t, "a copy per node", cpus, 1);
	canned_placement(c, t, "a region per node", cpus, 1);
	experiment_describe(&c->rr, &c->v);
	/* even a difference between the two reads is not claimed on one node */
	assert_false(verdict_says(&c->v, "read their own copy"));
	assert_true(verdict_says(
		&c->v, "with one node there is nothing to replicate"));
	assert_true(verdict_says(&c->v, "readers on two nodes"));
	assert_true(verdict_says(&c->v, "same region"));
	assert_true(verdict_says(&c->v, "needs a second node"));
	/* one copy is no cost: said as such, not as "1 copies" */
	assert_false(verdict_says(&c->v, "1 copies"));
	assert_true(verdict_says(
		&c->v,
		"one copy of 16.0 MiB: with one node a replica is the original"));
	canned_free(c);
	topo_free(t);
}

/* Two nodes, one of them memory only: one node to use, and the sentence says
 * which of the machine's nodes it had, not that the machine has one. */
static void test_memory_only_node(void **state)
{
	struct topo *t = xml(TEST_DATA "/memory_only_node.xml");
	char *argv[] = {"size=16M"};
	struct canned *c = canned_new("numa_replication", t, 1, 1, argv);
	(void)state;

	canned_summary(c, "nodes_used", 1, "nodes");
	canned_summary(c, "home_node", 0, NULL);
	canned_summary(c, "replicas", 1, "copies");
	canned_summary(c, "single_bytes", 16 << 20, "B");
	canned_summary(c, "replica_bytes", 16 << 20, "B");
	canned_summary(c, "accumulate_equal", 1, NULL);
	canned_summary(c, "migration_possible", 0, NULL);
	experiment_describe(&c->rr, &c->v);
	assert_true(verdict_says(
		&c->v,
		"only one of this machine's 2 nodes has both cpus and memory"));
	assert_false(verdict_says(&c->v, "with one node there is nothing"));
	canned_free(c);
	topo_free(t);
}

static void test_four_nodes_local_copies(void **state)
{
	struct topo *t = synthetic(FOUR);
	const struct experiment *e = experiment_find("numa_replication");
	struct canned *c = four_node_run(t, 20, 0.05, -1);
	struct verdict pre = {0};
	(void)state;

	e->precheck(c->params, &c->common, t, &pre);
	assert_int_equal(pre.nnotes, 0);
	experiment_describe(&c->rr, &c->v);
	assert_true(verdict_says(
		&c->v,
		"threads on node 1 read their own copy at 20.0 GB/s against 10.0 GB/s from node 0's single copy: 2.0×"));
	assert_true(verdict_says(&c->v, "64.0 MiB instead of 16.0 MiB"));
	assert_false(verdict_has_level(&c->v, "cannot"));
	canned_free(c);
	topo_free(t);
}

static void test_misplaced_copy_not_compared(void **state)
{
	struct topo *t = synthetic(FOUR);
	struct canned *c = four_node_run(t, 20, 0.05, 2);
	(void)state;

	experiment_describe(&c->rr, &c->v);
	assert_true(verdict_has_level(&c->v, "cannot"));
	assert_true(verdict_says(&c->v, "pages off their node"));
	canned_free(c);
	topo_free(t);
}

static void test_overlap_not_claimed(void **state)
{
	struct topo *t = synthetic(FOUR);
	/* 11 GB/s +-20% overlaps 10 GB/s +-20% */
	struct canned *c = four_node_run(t, 11, 0.2, -1);
	(void)state;

	experiment_describe(&c->rr, &c->v);
	assert_false(verdict_says(&c->v, "read their own copy"));
	assert_true(verdict_says(&c->v, "could not be told apart"));
	canned_free(c);
	topo_free(t);
}

/*
 * 16M on four 32 MiB L3s: the old default read one copy against a copy
 * per node from cache (74.6 GB/s against 37.4 at 512M): not stated.
 */
static void test_from_cache_not_compared(void **state)
{
	struct topo *t = synthetic(FOUR);
	struct canned *c = four_node_run_of(t, "size=16M", 74.6, 0.02, -1);
	struct rule_findings f = {.checked = 1, .from_cache = 1};
	(void)state;

	experiment_describe(&c->rr, &c->v);
	assert_false(verdict_says(&c->v, "read their own copy"));
	assert_true(verdict_says_at(&c->v, "cannot",
				    "was compared from cache, not memory"));
	assert_non_null(strstr(c->v.headline,
			       "was read from cache, not memory, "
			       "so this run does not compare"));
	/* the hook follows the rulebook's finding it is handed */
	memset(&c->v, 0, sizeof(c->v));
	c->rr.rules = &f;
	c->rr.exp->describe(&c->rr, &c->v);
	assert_true(verdict_says(&c->v, "compared from cache"));
	f.from_cache = 0;
	memset(&c->v, 0, sizeof(c->v));
	c->rr.exp->describe(&c->rr, &c->v);
	assert_true(verdict_says(&c->v, "read their own copy"));
	canned_free(c);
	topo_free(t);
}

/* the size defaults to memory: 4 x the cache, not 16M */
static void test_size_default_streams_from_memory(void **state)
{
	struct topo *t = synthetic("pack:1 numa:1(memory=8589934592) "
				   "l3:1(size=33554432) core:2 pu:1");
	const struct experiment *e = experiment_find("numa_replication");
	struct param_values *pv = calloc(1, sizeof(*pv));
	struct errinfo err;
	(void)state;

	for (int i = 0; i < t->nnodes; i++)
		t->node[i].mem_free = t->node[i].mem_total;
	if (experiment_parse(e, t, 0, NULL, pv, NULL, NULL, &err))
		fail_msg("%s", err.msg);
	assert_string_equal(params_get(pv, "size")->text, "128M");
	free(pv);
	topo_free(t);
}

/*
 * A stored run that reported a break-even of 214 passes while its passes
 * overlapped: no break-even is said, and the number is disowned.
 */
static void test_break_even_needs_apart_passes(void **state)
{
	struct topo *t = synthetic(FOUR);
	struct canned *c = four_node_run(t, 20, 0.05, -1);
	int kind = 0;
	const char *why;
	(void)state;

	canned_summary(c, "migration_possible", 1, NULL);
	canned_summary(c, "local_node", 0, NULL);
	canned_summary(c, "remote_node", 3, NULL);
	canned_summary(c, "migration_failed", 0, "pages");
	canned_summary(c, "migration_ms", 6, "ms");
	canned_summary(c, "break_even_passes", 214, "passes");
	canned_point(c, "pass_time", "pass", 0, "remote node (before)", 1.03,
		     0.1, 5);
	canned_point(c, "pass_time", "pass", 1, "local node (after migrating)",
		     1.0, 0.1, 5);
	experiment_describe(&c->rr, &c->v);
	assert_false(verdict_says(&c->v, "paid for itself"));
	assert_false(verdict_says(&c->v, "214"));
	assert_true(verdict_says(&c->v, "no break-even can be claimed"));
	why = verdict_qualifier_why(&c->v, "break_even_passes", &kind);
	assert_non_null(why);
	assert_int_equal(kind, VERDICT_DISOWNED);
	assert_non_null(strstr(why, "no break-even can be claimed"));
	canned_free(c);
	topo_free(t);
}

static void test_accumulate_and_migration(void **state)
{
	struct topo *t = synthetic(FOUR);
	struct canned *c = four_node_run(t, 11, 0.2, -1);
	(void)state;

	canned_summary(c, "accumulate_equal", 1, NULL);
	canned_summary(c, "combine_ms", 0.5, "ms");
	canned_point(c, "accumulate", "updates", 0, "one shared region", 30,
		     0.02, 5);
	canned_point(c, "accumulate", "updates", 1, "a region per node", 10,
		     0.02, 5);
	canned_summary(c, "migration_possible", 1, NULL);
	canned_summary(c, "local_node", 0, NULL);
	canned_summary(c, "remote_node", 3, NULL);
	canned_summary(c, "migration_failed", 0, "pages");
	canned_summary(c, "migration_ms", 6, "ms");
	canned_summary(c, "break_even_passes", 12, "passes");
	canned_point(c, "pass_time", "pass", 0, "remote node (before)", 1.5,
		     0.02, 5);
	canned_point(c, "pass_time", "pass", 1, "local node (after migrating)",
		     1.0, 0.02, 5);
	experiment_describe(&c->rr, &c->v);
	assert_true(verdict_says(
		&c->v,
		"accumulating into a region per node and combining took 10.50 ms against 30.00 ms"));
	assert_true(verdict_says(&c->v, "from node 3 to node 0 took 6.00 ms"));
	assert_true(verdict_says(&c->v, "after 12.0 passes"));
	canned_free(c);
	topo_free(t);
}

static void test_unequal_totals_and_failed_pages(void **state)
{
	struct topo *t = synthetic(FOUR);
	struct canned *c = four_node_run(t, 20, 0.05, -1);
	(void)state;

	canned_summary(c, "accumulate_equal", 0, NULL);
	canned_point(c, "accumulate", "updates", 0, "one shared region", 30,
		     0.02, 5);
	canned_point(c, "accumulate", "updates", 1, "a region per node", 10,
		     0.02, 5);
	canned_summary(c, "migration_possible", 1, NULL);
	canned_summary(c, "remote_node", 3, NULL);
	canned_summary(c, "migration_failed", 40, "pages");
	canned_point(c, "pass_time", "pass", 0, "remote node (before)", 1.5,
		     0.02, 5);
	canned_point(c, "pass_time", "pass", 1, "local node (after migrating)",
		     1.0, 0.02, 5);
	experiment_describe(&c->rr, &c->v);
	assert_true(verdict_says(&c->v, "different totals"));
	assert_true(verdict_says(&c->v, "40 pages stayed on node 3"));
	assert_false(verdict_says(&c->v, "paid for itself"));
	canned_free(c);
	topo_free(t);
}

static void test_two_smt_sockets_precheck(void **state)
{
	struct topo *t = xml(SMT);
	const struct experiment *e = experiment_find("numa_replication");
	char *argv[] = {"threads=2"};
	char *one[] = {"nodes=1"};
	struct canned *c = canned_new("numa_replication", t, 0, 1, argv);
	struct canned *d = canned_new("numa_replication", t, 0, 1, one);
	struct verdict v = {0}, w = {0};
	(void)state;

	e->precheck(c->params, &c->common, t, &v);
	assert_int_equal(v.nnotes, 0);
	/* asking for one node of two: the run cannot compare anything */
	e->precheck(d->params, &d->common, t, &w);
	assert_int_equal(w.nnotes, 3);
	canned_free(c);
	canned_free(d);
	topo_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_node_vm),
		cmocka_unit_test(test_memory_only_node),
		cmocka_unit_test(test_four_nodes_local_copies),
		cmocka_unit_test(test_misplaced_copy_not_compared),
		cmocka_unit_test(test_overlap_not_claimed),
		cmocka_unit_test(test_accumulate_and_migration),
		cmocka_unit_test(test_unequal_totals_and_failed_pages),
		cmocka_unit_test(test_two_smt_sockets_precheck),
		cmocka_unit_test(test_from_cache_not_compared),
		cmocka_unit_test(test_size_default_streams_from_memory),
		cmocka_unit_test(test_break_even_needs_apart_passes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
