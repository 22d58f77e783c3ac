/* test_verdicts_remote.c - remote_bandwidth and bandwidth_scaling on canned runs: cells compared by their intervals, the idle-remote run, distance ranks, overlap and the cache floor of their lessons */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "experiment.h"
#include "labels.h"
#include "lesson.h"
#include "mem_size.h"
#include "registry.h"
#include "run_fixture.h"
#include "strvec.h"

#define ARGV(...) ((char *const[]){__VA_ARGS__})
#define ARGC(...) (int)(sizeof((char *const[]){__VA_ARGS__}) / sizeof(char *))
#define TWO "pack:2 numa:1 l3:1 core:2 pu:1"
#define ONE "pack:1 numa:1 l3:1 core:2 pu:1"

static void set_llc(struct canned *c, int instances, uint64_t bytes)
{
	c->m.llc_level = 3;
	c->m.llc_instances = instances;
	c->m.llc_bytes = bytes;
}

/* The precheck of a recorded request (no machine check: a synthetic node
 * reports no free memory). */
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
	experiment_precheck(e, params, &common, t, v);
	free(pv);
	free(params);
}

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

/*
 * A guest without a real NUMA cost: the remote mean is lower, but one
 * remote cell is the fastest of all. "remote is slower" was said from a
 * 5% cut on the means; now the cells' intervals decide, and the ratio
 * is disowned with the reason the headline gives.
 */
static void remote_not_slower_when_a_cell_is_fastest(void **state)
{
	struct topo *t = synthetic(TWO);
	struct canned *c =
		canned_new("remote_bandwidth", t, 1, 1, ARGV("size=1G"));
	int kind = 0;
	const char *why;

	(void)state;
	set_llc(c, 2, 32 << 20);
	canned_summary(c, "read_local_gbps", 20, "GB/s");
	canned_summary(c, "read_remote_gbps", 18, "GB/s");
	cell(c, "read", 0, 0, 20, 0.02);
	cell(c, "read", 1, 1, 20, 0.02);
	cell(c, "read", 0, 1, 22, 0.02);
	cell(c, "read", 1, 0, 14, 0.02);
	experiment_describe(&c->rr, &c->v);
	assert_false(verdict_says(&c->v, "remote is slower"));
	assert_false(verdict_says(&c->v, "every remote cell slower"));
	assert_true(verdict_says(
		&c->v,
		"remote read was not told from local: of 2 remote cells, 1 slower, 1 faster"));
	why = verdict_qualifier_why(&c->v, "read_remote_over_local", &kind);
	assert_non_null(why);
	assert_int_equal(kind, VERDICT_DISOWNED);
	assert_non_null(strstr(c->v.headline, why));
	canned_free(c);
	topo_free(t);
}

/* §6.5.8 with the node written to idle: stated from the two points'
 * intervals; needs two nodes before the run */
static void idle_remote_run(void **state)
{
	struct topo *t = synthetic(TWO);
	struct topo *one = synthetic(ONE);
	struct canned *c =
		canned_new("remote_bandwidth", t, 0, 1, ARGV("size=1G"));
	struct verdict v;

	(void)state;
	set_llc(c, 2, 32 << 20);
	canned_summary(c, "read_local_gbps", 20, "GB/s");
	canned_point(c, "idle_remote", "regular stores", 0,
		     "one node, all local", 10, 0.02, 5);
	canned_point(c, "idle_remote", "regular stores", 1,
		     "read local, write to an idle node", 15, 0.02, 5);
	experiment_describe(&c->rr, &c->v);
	assert_true(verdict_says(
		&c->v,
		"one node alone, the node written to idle, writing to another node made the copies 1.5× (1.4–1.6) as fast as keeping them local"));
	assert_null(verdict_qualifier_why(&c->v, "idle_gain", NULL));
	canned_free(c);

	/* overlapping rounds: not stated, the gain disowned */
	c = canned_new("remote_bandwidth", t, 0, 1, ARGV("size=1G"));
	set_llc(c, 2, 32 << 20);
	canned_point(c, "idle_remote", "regular stores", 0,
		     "one node, all local", 10, 0.1, 5);
	canned_point(c, "idle_remote", "regular stores", 1,
		     "read local, write to an idle node", 10.5, 0.1, 5);
	experiment_describe(&c->rr, &c->v);
	assert_true(verdict_says(&c->v, "was not told from keeping"));
	assert_non_null(verdict_qualifier_why(&c->v, "idle_gain", NULL));
	canned_free(c);

	precheck("remote_bandwidth", one, 1, ARGV("mixed=idle"), &v);
	assert_true(
		verdict_says_at(&v, "cannot", "(mixed=idle) needs 2 nodes"));
	precheck("remote_bandwidth", t, 1, ARGV("mixed=idle"), &v);
	assert_false(verdict_says(&v, "mixed=idle"));
	topo_free(one);
	topo_free(t);
}

/* a SLIT distance rank is not a hop count: the note says rank, and reads the
 * key older runs recorded */
static void distance_ranks_not_hops(void **state)
{
	struct topo *t = synthetic(TWO);
	struct canned *c =
		canned_new("remote_bandwidth", t, 0, 1, ARGV("size=1G"));

	(void)state;
	set_llc(c, 2, 32 << 20);
	canned_summary(c, "read_local_gbps", 20, "GB/s");
	canned_summary(c, "read_rank_1_gbps", 15, "GB/s");
	canned_summary(c, "read_hops_2_gbps", 11, "GB/s");
	experiment_describe(&c->rr, &c->v);
	assert_true(
		verdict_says(&c->v, "local 20.0, rank 1 15.0, rank 2 11.0"));
	assert_true(verdict_says(&c->v, "not a count of links"));
	assert_false(verdict_says(&c->v, "hop"));
	/* the older key's label says rank too */
	{
		char words[128];
		const struct experiment *e =
			experiment_find("remote_bandwidth");
		assert_int_equal(label_lookup(e->summary_labels,
					      "read_hops_2_gbps", words,
					      sizeof(words), NULL),
				 0);
		assert_null(strstr(words, "hop"));
		assert_non_null(strstr(words, "distance rank 2"));
	}
	canned_free(c);
	topo_free(t);
}

/*
 * Two threads that ran together half of each round and read no more than
 * one: a busy cpu, not the memory bus; the saturation is disowned.
 */
static void scaling_busy_cpu_not_the_bus(void **state)
{
	struct topo *t = synthetic(ONE);
	struct canned *c =
		canned_new("bandwidth_scaling", t, 1, 3,
			   ARGV("threads=1-2", "ops=read", "size=256M"));
	int kind = 0;

	(void)state;
	set_llc(c, 1, 32 << 20);
	canned_point(c, "read", "compact = spread", 1, NULL, 15.8, 0.02, 5);
	canned_extra(c, "overlap", 1);
	canned_point(c, "read", "compact = spread", 2, NULL, 15.9, 0.02, 5);
	canned_extra(c, "overlap", 0.54);
	experiment_describe(&c->rr, &c->v);
	assert_true(verdict_says(&c->v,
				 "ran together only 54% of a round (other work "
				 "held the cpus), so this says nothing of the "
				 "memory bus"));
	assert_non_null(verdict_qualifier_why(
		&c->v, "read_compact_saturation_threads", &kind));
	assert_int_equal(kind, VERDICT_DISOWNED);
	assert_false(verdict_says(&c->v, "from cache"));
	canned_free(c);

	/* together all the time: where it stops growing is the bus */
	c = canned_new("bandwidth_scaling", t, 1, 3,
		       ARGV("threads=1-2", "ops=read", "size=256M"));
	set_llc(c, 1, 32 << 20);
	canned_point(c, "read", "compact = spread", 1, NULL, 10, 0.02, 5);
	canned_extra(c, "overlap", 1);
	canned_point(c, "read", "compact = spread", 2, NULL, 19, 0.02, 5);
	canned_extra(c, "overlap", 0.98);
	experiment_describe(&c->rr, &c->v);
	assert_true(verdict_says(&c->v, "at most 19.0 GB/s with 2 (1.9×"));
	assert_true(verdict_says(&c->v, "not told below that from 2 threads"));
	assert_null(verdict_qualifier_why(
		&c->v, "read_compact_saturation_threads", NULL));
	canned_free(c);
	topo_free(t);
}

/* 16M against a 32 MiB cache: bandwidth_scaling's old lesson read from cache
 * (62 GB/s against 11.7 at 1G) */
static void scaling_from_cache_labelled(void **state)
{
	struct topo *t = synthetic(ONE);
	struct canned *c = canned_new("bandwidth_scaling", t, 1, 2,
				      ARGV("threads=1-2", "size=16M"));

	(void)state;
	set_llc(c, 1, 32 << 20);
	canned_point(c, "read", "compact = spread", 1, NULL, 62, 0.02, 5);
	canned_point(c, "read", "compact = spread", 2, NULL, 62, 0.02, 5);
	experiment_describe(&c->rr, &c->v);
	assert_non_null(strstr(c->v.headline, "from cache: "));
	assert_true(verdict_says_at(&c->v, "warn", "came from cache"));
	canned_free(c);
	topo_free(t);
}

/*
 * Every lesson of the memory experiments streams from memory on a 2-core
 * machine of plausible cache (16 MiB a core): at least 4 x 32 MiB.
 */
static void lessons_above_the_cache_floor(void **state)
{
	static const char *const names[] = {
		"bandwidth_scaling", "remote_bandwidth", "numa_replication"};
	struct machine_facts m = {
		.llc_level = 3, .llc_instances = 1, .llc_bytes = 32 << 20};

	(void)state;
	for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++) {
		const struct experiment *e = experiment_find(names[k]);
		for (const struct lesson *l = e->lessons; l && l->id; l++) {
			struct strvec argv = STRVEC_INIT;
			struct param_values *pv = calloc(1, sizeof(*pv));
			void *params = calloc(1, e->params_size);
			struct common_params common;
			struct errinfo err;
			const struct param_value *size;

			assert_int_equal(params_text_argv(l->params, &argv), 0);
			assert_int_equal(experiment_parse_recorded(
						 e, (int)argv.n, argv.v, pv,
						 params, &common, &err),
					 0);
			size = params_get(pv, "size");
			assert_non_null(size);
			if (mem_from_cache(&m, (uint64_t)size->i))
				fail_msg("%s lesson %s: size %s reads from "
					 "cache",
					 e->name, l->id, size->text);
			strvec_clear(&argv);
			free(params);
			free(pv);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(remote_not_slower_when_a_cell_is_fastest),
		cmocka_unit_test(idle_remote_run),
		cmocka_unit_test(distance_ranks_not_hops),
		cmocka_unit_test(scaling_busy_cpu_not_the_bus),
		cmocka_unit_test(scaling_from_cache_labelled),
		cmocka_unit_test(lessons_above_the_cache_floor),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
