/* test_rules.c - the rulebook on canned runs: lower bounds, disowned keys, sizes from cache, a machine that misreports its cache */
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
#include "mem_size.h"
#include "registry.h"
#include "run_fixture.h"

/* A toy experiment that declares every kind of rule. */
struct toy_params {
	struct int_list threads;
	int64_t size;
};

#define PARAM_STRUCT struct toy_params
static const struct param toy_table[] = {
	PARAM_SWEEP(threads, "1-2", 1, 64, "threads", "threads"),
	PARAM_SIZE(size, "1G", 1 << 20, 1LL << 40, "bytes", "buffer"),
	{0}};
#undef PARAM_STRUCT

static const struct chart toy_charts[] = {
	CHART("time", CHART_BAR, "t", "threads", "s"), {0}};
static const char *const toy_keys[] = {"slowdown_*_threads", "gbps", NULL};
static const struct key_label toy_labels[] = {
	{"slowdown_*_threads", "slowdown with %s threads", "×"},
	{"gbps", "bandwidth", "GB/s"},
	{NULL, NULL, NULL}};
static const char *const toy_compared[] = {"slowdown_*", NULL};
static const struct rule toy_rules[] = {
	RULE(RULE_TOGETHER, .param = "threads", .floor = 0.5,
	     .what = "the toy slowdown"),
	RULE(RULE_CPUS, .param = "threads", .what = "the toy slowdown"),
	RULE(RULE_MEMORY, .param = "size", .what = "the toy bandwidth"),
	RULE(RULE_NODES, .floor = 1, .what = "the toy placement"),
	RULE(RULE_PLACEMENTS_DIFFER, .param = "place=*",
	     .what = "one place against another"),
	{RULE_END}};

/* What the hook saw of the findings, to check it is handed them. */
static struct rule_findings seen;
static int hook_ran;

static void toy_describe(const struct run_result *r, struct verdict *v)
{
	(void)v;
	hook_ran = 1;
	memset(&seen, 0, sizeof(seen));
	if (r->rules)
		seen = *r->rules;
}

static int toy_run(struct run_ctx *ctx)
{
	(void)ctx;
	return 0;
}

static const struct experiment toy = {
	.name = "toy",
	.title = "toy",
	.summary = "toy",
	.params = toy_table,
	.params_size = sizeof(struct toy_params),
	.charts = toy_charts,
	.summary_keys = toy_keys,
	.summary_labels = toy_labels,
	.smoke = "threads=1-2",
	.run = toy_run,
	.describe = toy_describe,
	.rules = toy_rules,
	.compared = toy_compared,
	.precision = 0.05,
};

/* A run of toy, described by hand: points, placements and a machine. */
struct toy_run {
	struct toy_params params;
	struct common_params common;
	struct machine_facts m;
	struct result_point points[4];
	const char *keys[1];
	double overlap[4];
	struct thread_place threads[2][2];
	struct result_placement places[2];
	struct run_result rr;
	struct verdict v;
};

/* A plausible machine: 8 cores under one 32 MiB L3, one node. */
static void plausible(struct machine_facts *m)
{
	memset(m, 0, sizeof(*m));
	m->npus = m->nallowed = m->ncores = 8;
	m->npackages = m->nnodes = 1;
	m->vm = 0;
	m->line_size = 64;
	m->llc_level = 3;
	m->llc_instances = 1;
	m->llc_bytes = 32ull << 20;
}

/* This lab's VM: 2 cores, each under an L3 of 508 MiB of its own. */
static void lab_vm(struct machine_facts *m)
{
	plausible(m);
	m->npus = m->nallowed = m->ncores = 2;
	m->vm = 1;
	m->llc_instances = 2;
	m->llc_bytes = 508ull << 20;
}

static struct toy_run *toy_new(double overlap, int64_t size)
{
	struct toy_run *t = calloc(1, sizeof(*t));

	assert_non_null(t);
	t->params.threads.n = 2;
	t->params.threads.v[0] = 1;
	t->params.threads.v[1] = 2;
	t->params.size = size;
	plausible(&t->m);
	t->keys[0] = "overlap";
	for (int i = 0; i < 2; i++) {
		struct result_point *p = &t->points[i];
		p->chart = "time";
		p->series = "toy";
		p->x = i + 1;
		p->y = p->ci_lo = p->ci_hi = 1 + i;
		p->n = 5;
		t->overlap[i] = i ? overlap : 1;
		p->extra_keys = t->keys;
		p->extra_vals = &t->overlap[i];
		p->nextra = 1;
	}
	t->rr.exp = &toy;
	t->rr.params = &t->params;
	t->rr.common = &t->common;
	t->rr.machine = &t->m;
	t->rr.points = t->points;
	t->rr.npoints = 2;
	t->rr.placements = t->places;
	t->rr.complete = 1;
	return t;
}

/* A placement of two threads seen on cpus a and b. */
static void toy_place(struct toy_run *t, const char *label, int a, int b)
{
	int k = t->rr.nplacements++;

	for (int i = 0; i < 2; i++) {
		struct thread_place *p = &t->threads[k][i];
		p->thread = i;
		p->cpu_requested = p->cpu_observed = i ? b : a;
		p->core = p->cpu_observed;
		p->l2 = p->l3 = -1;
	}
	t->places[k] = (struct result_placement){
		.label = label, .t = t->threads[k], .n = 2};
}

static void describe(struct toy_run *t)
{
	hook_ran = 0;
	experiment_describe(&t->rr, &t->v);
	assert_true(hook_ran);
}

static void test_toy_is_valid(void **state)
{
	struct errinfo err;
	(void)state;
	if (experiment_validate(&toy, &err))
		fail_msg("%s", err.msg);
}

/* A partial overlap is a lower bound: noted, and the compared keys marked
 * "at least", not disowned. */
static void test_partial_overlap_lower_bound(void **state)
{
	struct toy_run *t = toy_new(0.7, 1LL << 30);
	const char *why;
	int kind = 0;
	(void)state;

	describe(t);
	assert_true(seen.checked);
	assert_false(seen.failed);
	assert_true(seen.lower_bound);
	assert_true(seen.together > 0.69 && seen.together < 0.71);
	assert_true(verdict_says_at(
		&t->v, "warn",
		"a lower bound: the threads ran together only 70% of a round"));
	why = verdict_qualifier_why(&t->v, "slowdown_2_threads", &kind);
	assert_non_null(why);
	assert_int_equal(kind, VERDICT_AT_LEAST);
	assert_non_null(strstr(why, "only 70% of a round"));
	/* a key the experiment does not compare stays unmarked */
	assert_null(verdict_qualifier_why(&t->v, "gbps", NULL));
	free(t);
}

/* Under the floor: every compared key is disowned, with the rule's why. */
static void test_overlap_under_floor_disowns(void **state)
{
	struct toy_run *t = toy_new(0.3, 1LL << 30);
	const char *why;
	int kind = 0;
	(void)state;

	describe(t);
	assert_true(seen.failed);
	assert_false(seen.lower_bound);
	assert_non_null(strstr(seen.why, "the toy slowdown cannot be stated"));
	assert_non_null(strstr(seen.why, "only 30% of a round"));
	assert_true(verdict_says_at(&t->v, "cannot", seen.why));
	why = verdict_qualifier_why(&t->v, "slowdown_2_threads", &kind);
	assert_non_null(why);
	assert_int_equal(kind, VERDICT_DISOWNED);
	assert_string_equal(why, seen.why);
	free(t);

	/* full overlap: nothing said, nothing marked */
	t = toy_new(0.95, 1LL << 30);
	describe(t);
	assert_false(seen.failed);
	assert_false(seen.lower_bound);
	assert_int_equal(t->v.nqualifiers, 0);
	assert_int_equal(t->v.nnotes, 0);
	free(t);
}

/*
 * Rounds timed over the stretches every thread ran (overlap 1, corun
 * the share of a round those were): a full comparison, with a note that
 * the rest of each round was left out, and nothing marked.
 */
static void test_stretches_are_full(void **state)
{
	static const char *const keys[] = {"overlap", "corun"};
	double vals[2][2] = {{1, 1}, {1, 0.12}};
	struct toy_run *t = toy_new(1, 1LL << 30);
	(void)state;

	for (int i = 0; i < 2; i++) {
		t->points[i].extra_keys = keys;
		t->points[i].extra_vals = vals[i];
		t->points[i].nextra = 2;
	}
	describe(t);
	assert_false(seen.failed);
	assert_false(seen.lower_bound);
	assert_int_equal(t->v.nqualifiers, 0);
	assert_true(verdict_says_at(
		&t->v, "info",
		"the toy slowdown is timed over the stretches of each round when every thread was on a cpu at once: the least share of a round every thread was on a cpu at once was 12% (a round stands on at least 8 spans between its progress marks, or is measured again)"));
	/* stretches of nearly every round: nothing to say */
	vals[1][1] = 0.95;
	memset(&t->v, 0, sizeof(t->v));
	describe(t);
	assert_int_equal(t->v.nnotes, 0);
	free(t);
}

/* A mark the hook set first is kept over the rulebook's "at least". */
static void hook_marks(const struct run_result *r, struct verdict *v)
{
	(void)r;
	verdict_qualify(v, "slowdown_*", VERDICT_DISOWNED, "the hook's reason");
}

static void test_hook_mark_kept(void **state)
{
	struct toy_run *t = toy_new(0.7, 1LL << 30);
	struct experiment own = toy;
	int kind = 0;
	(void)state;

	own.describe = hook_marks;
	t->rr.exp = &own;
	experiment_describe(&t->rr, &t->v);
	assert_string_equal(
		verdict_qualifier_why(&t->v, "slowdown_2_threads", &kind),
		"the hook's reason");
	assert_int_equal(kind, VERDICT_DISOWNED);
	free(t);
}

/* A size under 4x the cache is labelled from cache and its comparison
 * disowned; one above it is not. */
static void test_size_from_cache(void **state)
{
	struct toy_run *t = toy_new(1, 64ll << 20);
	(void)state;

	describe(t);
	assert_int_equal(seen.from_cache, 1);
	assert_int_equal(seen.mem_floor, 128ull << 20);
	assert_true(verdict_says_at(&t->v, "warn", "from cache"));
	assert_true(verdict_says(&t->v, "64 MiB is less than 4 times"));
	assert_true(seen.failed);
	assert_non_null(strstr(seen.why, "the toy bandwidth cannot be stated"));
	free(t);

	t = toy_new(1, 128ll << 20);
	describe(t);
	assert_int_equal(seen.from_cache, 0);
	assert_false(seen.failed);
	assert_false(verdict_says(&t->v, "from cache"));
	free(t);
}

/* A VM that passes no cache on (its topology names none): said, and
 * sizes judged against a plausible 16 MiB a core, so a buffer that may be
 * in a cache nobody named is never stated as memory. */
static void test_no_cache_named(void **state)
{
	struct toy_run *t = toy_new(1, 2ll << 20);
	(void)state;

	t->m.llc_level = t->m.llc_instances = 0;
	t->m.llc_bytes = 0;
	t->m.ncores = t->m.npus = 2;
	assert_true(machine_cache_unknown(&t->m));
	assert_false(machine_cache_implausible(&t->m));
	assert_int_equal(machine_llc_judged(&t->m), 32ull << 20);
	describe(t);
	assert_int_equal(seen.from_cache, 1);
	assert_true(seen.failed);
	assert_true(verdict_says(
		&t->v,
		"this machine's topology names no cache: sizes are judged against a plausible 32 MiB of cache in all (16 MiB per core)"));
	assert_true(verdict_says(&t->v, "fits in the plausible 32 MiB of "
					"cache this machine is judged by"));
	free(t);
}

/* The lab's VM reports 508 MiB of L3 per core: named, and sizes judged
 * against a plausible 32 MiB. */
static void test_implausible_cache(void **state)
{
	struct machine_facts m;
	struct toy_run *t;
	(void)state;

	plausible(&m);
	assert_false(machine_cache_implausible(&m));
	assert_int_equal(machine_llc_judged(&m), 32ull << 20);
	/* 96 MiB for 8 cores is a real (stacked) cache, and so is 96 MiB
	 * over 2 cores (an EPYC 9184X's) */
	m.llc_bytes = 96ull << 20;
	assert_false(machine_cache_implausible(&m));
	m.ncores = 2;
	assert_false(machine_cache_implausible(&m));
	assert_int_equal(machine_llc_judged(&m), 96ull << 20);
	lab_vm(&m);
	assert_true(machine_cache_implausible(&m));
	assert_int_equal(machine_llc_judged(&m), 32ull << 20);
	assert_int_equal(mem_llc_floor(&m), 128ull << 20);
	/* unknown cores: nothing to judge by */
	m.ncores = m.npus = 0;
	assert_false(machine_cache_implausible(&m));

	t = toy_new(1, 256ll << 20);
	lab_vm(&t->m);
	describe(t);
	assert_true(seen.cache_implausible);
	assert_int_equal(seen.from_cache, 0);
	assert_true(verdict_says(
		&t->v,
		"this machine reports 508 MiB of L3 per core, which no real cache has (a virtual machine's report): sizes are judged against a plausible 32 MiB"));
	assert_false(verdict_says(&t->v, "from cache"));
	free(t);

	t = toy_new(1, 64ll << 20);
	lab_vm(&t->m);
	describe(t);
	assert_true(verdict_says(
		&t->v,
		"the buffer of 64 MiB is less than 4 times the plausible 32 MiB of L3 cache this machine is judged by"));
	assert_true(verdict_says(&t->v, "from cache"));
	free(t);
}

/* Before the run, on a machine that reports such a cache: said once. */
static void test_implausible_precheck(void **state)
{
	struct topo *t = synthetic(
		"pack:1 numa:1(memory=8589934592) l3:2(size=532676608) core:1 pu:1");
	struct param_values *pv = calloc(1, sizeof(*pv));
	struct toy_params params;
	struct common_params common;
	struct verdict v;
	struct errinfo err;
	char *argv[] = {"size=64M"};
	int said = 0;
	(void)state;

	assert_int_equal(
		experiment_parse(&toy, t, 1, argv, pv, &params, &common, &err),
		0);
	experiment_precheck(&toy, &params, &common, t, &v);
	for (int i = 0; i < v.nnotes; i++)
		said += strstr(v.notes[i].text, "which no real cache has") !=
			NULL;
	assert_int_equal(said, 1);
	assert_true(verdict_says_at(&v, "cannot",
				    "'size' of 64 MiB is under 128 MiB"));
	/* a size over the judged floor: only the machine is named */
	argv[0] = "size=128M";
	assert_int_equal(
		experiment_parse(&toy, t, 1, argv, pv, &params, &common, &err),
		0);
	experiment_precheck(&toy, &params, &common, t, &v);
	assert_false(verdict_has_level(&v, "cannot"));
	free(pv);
	topo_free(t);
}

/*
 * The default of a PARAM_F_MEMORY param is at or above the floor where
 * memory allows, and the default run does not call itself "from cache".
 */
static void check_default(const char *desc, const char *want)
{
	struct topo *t = synthetic(desc);
	const struct experiment *e = experiment_find("remote_bandwidth");
	struct param_values *pv = calloc(1, sizeof(*pv));
	struct machine_facts m;
	struct errinfo err;
	const struct param_value *size;
	char arg[64];
	char *argv[] = {arg};
	struct canned *c;

	assert_non_null(e);
	assert_non_null(pv);
	/* a synthetic node reports no free memory: all of it is */
	for (int i = 0; i < t->nnodes; i++)
		t->node[i].mem_free = t->node[i].mem_total;
	if (experiment_parse(e, t, 0, NULL, pv, NULL, NULL, &err))
		fail_msg("%s", err.msg);
	size = params_get(pv, "size");
	assert_non_null(size);
	assert_string_equal(size->text, want);
	machine_facts_from_topo(t, &m);
	assert_true((uint64_t)size->i >= mem_llc_floor(&m));
	assert_false(mem_from_cache(&m, (uint64_t)size->i));
	/* its run, described: nothing said of cache */
	snprintf(arg, sizeof(arg), "size=%s", size->text);
	c = canned_new("remote_bandwidth", t, 0, 1, argv);
	experiment_describe(&c->rr, &c->v);
	assert_false(verdict_says(&c->v, "from cache"));
	canned_free(c);
	free(pv);
	topo_free(t);
}

static void test_default_not_from_cache(void **state)
{
	(void)state;
	/* this lab's VM: 23.5 GiB, 508 MiB of L3 per core: 4 x 32 MiB */
	check_default(
		"pack:1 numa:1(memory=25232932864) l3:2(size=532676608) core:1 pu:1",
		"128M");
	/* a real 32 MiB L3 over 8 cores, 8 GiB */
	check_default(
		"pack:1 numa:1(memory=8589934592) l3:1(size=33554432) core:8 pu:1",
		"128M");
	/* two sockets of 64 MiB of L3 and 8 GiB each: 4 x 128 MiB, within
	 * an eighth of a node (divided twice, the default was 128M) */
	check_default(
		"pack:2 numa:1(memory=8589934592) l3:1(size=67108864) core:8 pu:1",
		"512M");
}

/*
 * Every PARAM_F_MEMORY row says what its default is in mem_size.h's one
 * sentence, the words of the rule it gets, not in a copy of its own.
 */
static void test_memory_help_says_default(void **state)
{
	size_t tail = strlen(MEM_DEFAULT_HELP);
	int rows = 0;
	(void)state;

	for (const struct experiment *const *e = experiments; *e; e++)
		for (const struct param *p = (*e)->params; p && p->name; p++) {
			size_t n;

			if (!(p->flags & PARAM_F_MEMORY))
				continue;
			n = strlen(p->help);
			if (n < tail ||
			    strcmp(p->help + n - tail, MEM_DEFAULT_HELP))
				fail_msg(
					"%s %s=: its help does not end with MEM_DEFAULT_HELP: %s",
					(*e)->name, p->name, p->help);
			rows++;
		}
	assert_true(rows >= 5);
}

/* Two threads seen on one cpu: disowned. Same cpus for the placements
 * compared: disowned. */
static void test_cpus_and_placements(void **state)
{
	struct toy_run *t = toy_new(1, 1LL << 30);
	(void)state;

	toy_place(t, "place=a", 3, 3);
	describe(t);
	assert_true(seen.one_cpu);
	assert_true(seen.failed);
	assert_non_null(strstr(seen.why, "all ran on cpu 3"));
	free(t);

	t = toy_new(1, 1LL << 30);
	toy_place(t, "place=a", 0, 1);
	toy_place(t, "place=b", 1, 0);
	describe(t);
	assert_false(seen.one_cpu);
	assert_true(seen.same_placement);
	assert_non_null(strstr(seen.why, "ran on the same cpus"));
	free(t);

	t = toy_new(1, 1LL << 30);
	toy_place(t, "place=a", 0, 1);
	toy_place(t, "place=b", 2, 3);
	describe(t);
	assert_false(seen.failed);
	free(t);
}

/* Before the run: one cpu allowed cannot show threads together; SMT
 * siblings are distinct cpus, the experiment's own to weigh. */
static void test_cpus_precheck(void **state)
{
	struct topo *one = synthetic("pack:1 numa:1 core:1 pu:1");
	struct topo *smt = synthetic("pack:1 numa:1 l3:1 core:2 pu:2");
	struct param_values *pv = calloc(1, sizeof(*pv));
	struct toy_params params;
	struct common_params common;
	struct verdict v;
	struct errinfo err;
	char *argv[] = {"threads=1-2"};
	char *compact[] = {"threads=2", "placement=compact"};
	(void)state;

	assert_int_equal(experiment_parse(&toy, one, 1, argv, pv, &params,
					  &common, &err),
			 0);
	experiment_precheck(&toy, &params, &common, one, &v);
	assert_true(verdict_says_at(
		&v, "cannot",
		"this process may use only cpu 0: the threads would take turns on it instead of running together, so the toy slowdown cannot be shown"));
	canned_precheck("false_sharing", smt, 2, compact, &v);
	assert_false(verdict_says(&v, "is then measured between threads"));
	assert_false(verdict_has_level(&v, "cannot"));
	free(pv);
	topo_free(one);
	topo_free(smt);
}

/* Too few nodes: disowned, the machine named. */
static void test_nodes(void **state)
{
	struct toy_run *t = toy_new(1, 1LL << 30);
	static const struct rule two_nodes[] = {
		RULE(RULE_NODES, .floor = 2, .what = "local against remote"),
		{RULE_END}};
	struct experiment own = toy;
	(void)state;

	own.rules = two_nodes;
	t->rr.exp = &own;
	describe(t);
	assert_true(seen.few_nodes);
	assert_string_equal(
		seen.why,
		"local against remote cannot be shown: this machine has 1 NUMA node and it needs at least 2");
	t->m.nnodes = 2;
	describe(t);
	assert_false(seen.failed);
	free(t);
}

static void expect_invalid(const struct experiment *e, const char *what)
{
	struct errinfo err;

	assert_int_equal(experiment_validate(e, &err), -EINVAL);
	if (!strstr(err.msg, what))
		fail_msg("expected '%s' in: %s", what, err.msg);
}

/* The descriptor's rulebook is checked against its own tables. */
static void test_validate_rules(void **state)
{
	static const struct rule misnamed[] = {
		RULE(RULE_MEMORY, .param = "sise"), {RULE_END}};
	static const struct rule on_text[] = {
		RULE(RULE_TOGETHER, .param = "threads", .floor = 2),
		{RULE_END}};
	static const char *const stray[] = {"slowdown_*", "speedup", NULL};
	struct experiment e = toy;
	(void)state;

	e.rules = misnamed;
	expect_invalid(
		&e,
		"experiment 'toy': its RULE_MEMORY rule names param 'sise', which it does not declare");
	e.rules = on_text;
	expect_invalid(&e, "its RULE_TOGETHER rule has floor 2");
	e = toy;
	e.compared = stray;
	expect_invalid(
		&e,
		"experiment 'toy': compared key 'speedup' matches none of its summary keys");
	e = toy;
	e.rules = NULL;
	expect_invalid(&e, "names compared keys but declares no rules");
	/* every registered experiment passes */
	for (int i = 0; experiments[i]; i++) {
		struct errinfo err;
		if (experiment_validate(experiments[i], &err))
			fail_msg("%s", err.msg);
	}
}

/* A live topology knows whether a hypervisor runs it; a captured one
 * does not. */
static void test_vm_flag(void **state)
{
	struct topo *live = topo_load();
	struct topo *t = synthetic("pack:1 numa:1 l3:1 core:2 pu:1");
	struct machine_facts m;
	(void)state;

	assert_non_null(live);
	machine_facts_from_topo(live, &m);
	assert_int_equal(m.vm, topo_hypervisor());
	assert_true(m.vm >= -1 && m.vm <= 1);
	machine_facts_from_topo(t, &m);
	assert_int_equal(m.vm, -1);
	topo_free(t);
	topo_free(live);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_toy_is_valid),
		cmocka_unit_test(test_partial_overlap_lower_bound),
		cmocka_unit_test(test_overlap_under_floor_disowns),
		cmocka_unit_test(test_stretches_are_full),
		cmocka_unit_test(test_hook_mark_kept),
		cmocka_unit_test(test_size_from_cache),
		cmocka_unit_test(test_implausible_cache),
		cmocka_unit_test(test_no_cache_named),
		cmocka_unit_test(test_implausible_precheck),
		cmocka_unit_test(test_default_not_from_cache),
		cmocka_unit_test(test_memory_help_says_default),
		cmocka_unit_test(test_cpus_and_placements),
		cmocka_unit_test(test_cpus_precheck),
		cmocka_unit_test(test_nodes),
		cmocka_unit_test(test_validate_rules),
		cmocka_unit_test(test_vm_flag),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
