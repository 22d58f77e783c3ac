/* test_memory_latency.c - memory_latency's describe on canned runs: remote slower only when intervals separate, cache labelled, one node says what it cannot show */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "experiment.h"
#include "registry.h"
#include "run_fixture.h"

#define ARGV(...) ((char *const[]){__VA_ARGS__})
#define TWO "pack:2 numa:1 l3:1 core:2 pu:1"
#define ONE "pack:1 numa:1 l3:1 core:2 pu:1"
#define EXP "memory_latency"

static void set_llc(struct canned *c)
{
	c->m.llc_level = 3;
	c->m.llc_instances = 2;
	c->m.llc_bytes = 32 << 20;
}

static void put_cell(struct canned *c, const char *chart, int row, int col,
		     double value, double lo, double hi, int n)
{
	struct result_cell *q = &c->cells[c->rr.ncells++];

	q->chart = chart;
	q->row = row;
	q->col = col;
	q->value = value;
	q->ci_lo = lo;
	q->ci_hi = hi;
	q->n = n;
}

static void cell(struct canned *c, int row, int col, double ns, double spread)
{
	put_cell(c, "latency", row, col, ns, ns * (1 - spread),
		 ns * (1 + spread), 5);
}

/* The firmware's distance of a cell, as a run records it. */
static void dist_cell(struct canned *c, int row, int col, double d)
{
	put_cell(c, "distance", row, col, d, d, d, 1);
}

/* A sizes run from 8 KiB to 1 GiB, described (the caller frees it). */
static struct canned *sizes_run(const struct topo *t, double small_ns,
				double large_ns, double spread)
{
	struct canned *c =
		canned_new(EXP, t, 0, 2, ARGV("mode=sizes", "size=1G"));

	set_llc(c);
	canned_point(c, "sizes", "chase", 8192, NULL, small_ns, spread, 5);
	canned_point(c, "sizes", "chase", 1 << 30, NULL, large_ns, spread, 5);
	experiment_describe(&c->rr, &c->v);
	return c;
}

/* A loaded run: idle, then one loader streaming gbs, described. */
static struct canned *loaded_run(const struct topo *t, double idle_ns,
				 double gbs, double loaded_ns, double spread)
{
	struct canned *c =
		canned_new(EXP, t, 0, 2, ARGV("mode=loaded", "size=1G"));

	set_llc(c);
	canned_point(c, "loaded", "chase while others read", 0, NULL, idle_ns,
		     spread, 5);
	canned_extra(c, "loaders", 0);
	canned_point(c, "loaded", "chase while others read", gbs, NULL,
		     loaded_ns, spread, 5);
	canned_extra(c, "loaders", 1);
	experiment_describe(&c->rr, &c->v);
	return c;
}

static struct canned *two_nodes(const struct topo *t, const char *size,
				double remote, double spread)
{
	struct canned *c = canned_new(EXP, t, 0, 1, ARGV((char *)size));

	set_llc(c);
	canned_summary(c, "local_ns", 100, "ns");
	canned_summary(c, "remote_ns", remote, "ns");
	canned_summary(c, "remote_over_local", remote / 100, "x");
	cell(c, 0, 0, 100, spread);
	cell(c, 1, 1, 100, spread);
	cell(c, 0, 1, remote, spread);
	cell(c, 1, 0, remote, spread);
	return c;
}

/* Intervals apart: remote is called slower, with its ratio. */
static void remote_slower_when_intervals_separate(void **state)
{
	struct topo *t = synthetic(TWO);
	struct canned *c = two_nodes(t, "size=1G", 150, 0.02);

	(void)state;
	experiment_describe(&c->rr, &c->v);
	assert_true(verdict_says(
		&c->v,
		"remote 150 ns (1.5× (1.4–1.6): every remote cell slower than the local cell of its row)"));
	assert_null(verdict_qualifier_why(&c->v, "remote_over_local", NULL));
	/* the JSON, the CLI and the page get the headline's interval */
	assert_true(verdict_interval_holds(&c->v, "remote_over_local", 1.5));
	assert_false(verdict_interval_holds(&c->v, "remote_over_local", 1.3));
	assert_false(verdict_says(&c->v, "from cache"));
	canned_free(c);
	topo_free(t);
}

/*
 * Under an emulator no remote is called slower, nor set against the
 * firmware's distance: the headline says the times are the emulator's,
 * and the ratio is disowned.
 */
static void emulator_states_no_comparison(void **state)
{
	struct topo *t = synthetic(TWO);
	struct canned *c = two_nodes(t, "size=1G", 150, 0.02);
	int kind = 0;

	(void)state;
	c->m.vm = 1;
	c->m.emulator = 1;
	experiment_describe(&c->rr, &c->v);
	assert_true(
		verdict_says(&c->v, "the emulator's times, not a machine's"));
	assert_false(verdict_says(&c->v, "slower"));
	assert_false(verdict_says(&c->v, "distance says"));
	assert_non_null(
		verdict_qualifier_why(&c->v, "remote_over_local", &kind));
	assert_int_equal(kind, VERDICT_DISOWNED);
	canned_free(c);
	topo_free(t);
}

/* Intervals overlapping: nothing is said slower, and the ratio is
 * disowned with the reason the headline gives. */
static void not_slower_when_intervals_overlap(void **state)
{
	struct topo *t = synthetic(TWO);
	struct canned *c = two_nodes(t, "size=1G", 104, 0.1);
	const char *why;
	int kind = 0;

	(void)state;
	experiment_describe(&c->rr, &c->v);
	assert_false(verdict_says(&c->v, "every remote cell slower"));
	assert_true(verdict_says(&c->v, "remote was not told from local"));
	why = verdict_qualifier_why(&c->v, "remote_over_local", &kind);
	assert_non_null(why);
	assert_int_equal(kind, VERDICT_DISOWNED);
	canned_free(c);
	topo_free(t);
}

/* A buffer inside the caches: labelled from cache, its ratio disowned. */
static void in_cache_labelled(void **state)
{
	struct topo *t = synthetic(TWO);
	struct canned *c = two_nodes(t, "size=1M", 150, 0.02);

	(void)state;
	experiment_describe(&c->rr, &c->v);
	assert_true(verdict_says(&c->v, "from cache"));
	assert_true(strncmp(c->v.headline, "from cache: ", 12) == 0);
	assert_non_null(
		verdict_qualifier_why(&c->v, "remote_over_local", NULL));
	canned_free(c);
	topo_free(t);
}

/* One node: the local cell, and the remote cells said to need two nodes. */
static void one_node_says_what_it_cannot(void **state)
{
	struct topo *t = synthetic(ONE);
	struct canned *c = canned_new(EXP, t, 0, 1, ARGV("size=1G"));
	struct verdict v;

	(void)state;
	set_llc(c);
	canned_summary(c, "local_ns", 100, "ns");
	cell(c, 0, 0, 100, 0.02);
	experiment_describe(&c->rr, &c->v);
	assert_true(verdict_says_at(&c->v, "cannot", "needs 2 nodes"));
	assert_true(verdict_says(
		&c->v, "the remote cells need 2 nodes, this machine has 1"));
	assert_true(verdict_says(&c->v, "local memory 100 ns per load"));
	canned_free(c);

	/* before the run, from the recorded request (a synthetic node has no
	 * free memory to check) */
	c = canned_new(EXP, t, 0, 1, ARGV("mode=nodes"));
	experiment_precheck(c->rr.exp, c->params, &c->common, t, &v);
	canned_free(c);
	assert_true(verdict_says_at(&v, "cannot", "at least 2"));
	topo_free(t);
}

/* The sweep: the largest working set slower than the smallest only when
 * their intervals separate. */
static void sizes_step_from_intervals(void **state)
{
	struct topo *t = synthetic(ONE);
	struct canned *c = sizes_run(t, 1, 100, 0.02);

	(void)state;
	assert_true(verdict_says(&c->v, "as long"));
	assert_null(
		verdict_qualifier_why(&c->v, "largest_over_smallest", NULL));
	assert_true(verdict_says(&c->v, "labelled from cache"));
	canned_free(c);

	c = sizes_run(t, 1, 1.2, 0.5);
	assert_non_null(
		verdict_qualifier_why(&c->v, "largest_over_smallest", NULL));
	canned_free(c);
	topo_free(t);
}

/* Loaded: the curve's last point against the idle one, by intervals. */
static void loaded_against_idle(void **state)
{
	struct topo *t = synthetic(ONE);
	struct canned *c = loaded_run(t, 100, 10, 130, 0.02);

	(void)state;
	assert_true(verdict_says(&c->v, "1.3× (1.2–1.4) as long"));
	canned_free(c);

	c = loaded_run(t, 100, 10, 103, 0.2);
	assert_true(verdict_says(&c->v, "not told from idle"));
	assert_non_null(verdict_qualifier_why(&c->v, "loaded_over_idle", NULL));
	canned_free(c);
	topo_free(t);
}

/* Every value a headline or a note gives, at three significant digits:
 * "148 ns", "14.4 GB/s", "3.91 ns", never "148.4 ns" or "3.9 ns". */
static void three_significant_digits(void **state)
{
	struct topo *t = synthetic("pack:3 numa:1 core:1 pu:1");
	struct canned *c = canned_new(EXP, t, 0, 1, ARGV("size=1G"));

	(void)state;
	set_llc(c);
	canned_summary(c, "local_ns", 148.37, "ns");
	canned_summary(c, "remote_ns", 231.26, "ns");
	canned_summary(c, "rank_1_ns", 231.26, "ns");
	canned_summary(c, "rank_0_distance", 10, "SLIT");
	canned_summary(c, "rank_1_distance", 21, "SLIT");
	cell(c, 0, 0, 148.37, 0.02);
	cell(c, 0, 1, 231.26, 0.02);
	experiment_describe(&c->rr, &c->v);
	assert_true(verdict_says(&c->v, "local memory 148 ns per load"));
	assert_true(verdict_says(&c->v, ", remote 231 ns ("));
	assert_true(verdict_says(
		&c->v,
		"local 148 ns (distance 10); rank 1 231 ns (1.56× local, the firmware's distance says 2.1×)"));
	assert_false(verdict_says(&c->v, "148.4"));
	canned_free(c);

	c = sizes_run(t, 3.9137, 148.37, 0.02);
	assert_true(verdict_says(&c->v,
				 "3.91 ns per load at 8 KiB, 148 ns at 1 GiB"));
	canned_free(c);

	c = loaded_run(t, 148.37, 14.3545, 342.06, 0.02);
	assert_true(verdict_says(
		&c->v,
		"idle 148 ns per load; with 1 loader streaming 14.4 GB/s, 342 ns ("));
	canned_free(c);
	topo_free(t);
}

/* A size the chain cannot be built on is refused with what is allowed. */
static void size_not_whole_pages_refused(void **state)
{
	const struct experiment *e = experiment_find(EXP);
	struct param_values *pv = calloc(1, sizeof(*pv));
	void *params = calloc(1, e->params_size);
	struct common_params common;
	struct errinfo err = {0};
	struct topo *t = synthetic(ONE);

	(void)state;
	assert_int_equal(experiment_parse(e, t, 1, ARGV("size=10000"), pv,
					  params, &common, &err),
			 -EINVAL);
	assert_string_equal(err.field, "size");
	assert_non_null(strstr(err.msg, "multiple of 4K"));
	free(pv);
	free(params);
	topo_free(t);
}

/* Does the firmware's table order the cells as measured? Only from the
 * cells' intervals. */
static void distances_against_cells(void **state)
{
	struct topo *t = synthetic("pack:3 numa:1 core:1 pu:1");
	double far[] = {200, 152, 120};
	const char *says[] = {
		"the firmware's distances order these nodes as their latency does",
		"whether the firmware's distances order these nodes as their latency does was not told",
		"do not order these nodes as their latency was measured"};

	(void)state;
	for (int k = 0; k < 3; k++) {
		struct canned *c = canned_new(EXP, t, 0, 1, ARGV("size=1G"));
		set_llc(c);
		canned_summary(c, "local_ns", 100, "ns");
		canned_summary(c, "remote_ns", 175, "ns");
		canned_summary(c, "rank_1_ns", 150, "ns");
		canned_summary(c, "rank_2_ns", far[k], "ns");
		cell(c, 0, 0, 100, 0.02);
		cell(c, 0, 1, 150, 0.02);
		cell(c, 0, 2, far[k], 0.02);
		dist_cell(c, 0, 1, 16);
		dist_cell(c, 0, 2, 22);
		experiment_describe(&c->rr, &c->v);
		assert_true(verdict_says(&c->v, says[k]));
		canned_free(c);
	}
	topo_free(t);
}

/* 64 nodes: by_distance measures a few cells of each distance, not 4,096 */
static void by_distance_is_a_few_cells(void **state)
{
	struct topo *t = synthetic("pack:64 numa:1 core:1 pu:1");
	struct canned *full =
		canned_new(EXP, t, 0, 2, ARGV("cells=full", "size=64M"));
	struct canned *few =
		canned_new(EXP, t, 0, 2, ARGV("cells=by_distance", "size=64M"));
	double s_full = 0, s_few = 0;
	uint64_t bytes = 0;

	(void)state;
	assert_int_equal(t->nnodes, 64);
	full->rr.exp->estimate(full->params, &full->common, t, &s_full, &bytes);
	few->rr.exp->estimate(few->params, &few->common, t, &s_few, &bytes);
	assert_true(s_few > 0);
	assert_true(s_few * 10 < s_full);
	canned_free(full);
	canned_free(few);
	topo_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(remote_slower_when_intervals_separate),
		cmocka_unit_test(not_slower_when_intervals_overlap),
		cmocka_unit_test(emulator_states_no_comparison),
		cmocka_unit_test(in_cache_labelled),
		cmocka_unit_test(one_node_says_what_it_cannot),
		cmocka_unit_test(sizes_step_from_intervals),
		cmocka_unit_test(loaded_against_idle),
		cmocka_unit_test(size_not_whole_pages_refused),
		cmocka_unit_test(by_distance_is_a_few_cells),
		cmocka_unit_test(distances_against_cells),
		cmocka_unit_test(three_significant_digits),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
