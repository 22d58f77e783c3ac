/* test_registry.c - every experiment's descriptor checked, and every id its kernel emits declared */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "experiment.h"
#include "lesson.h"
#include "registry.h"
#include "sink_record.h"
#include "strvec.h"
#include "topo_fixture.h"

static struct topo *topo;

static void test_every_descriptor_valid(void **state)
{
	(void)state;
	for (int i = 0; experiments[i]; i++) {
		struct errinfo err;
		if (experiment_validate(experiments[i], &err))
			fail_msg("%s", err.msg);
		for (int j = 0; j < i; j++)
			if (!strcmp(experiments[i]->name, experiments[j]->name))
				fail_msg("experiment '%s' is registered twice",
					 experiments[i]->name);
	}
}

/*
 * What descriptor.h asks of a registered experiment beyond what the
 * harness needs to run one: all four hooks (EXPERIMENT_PARTS names them)
 * and its lessons (their count is test_lessons's).
 */
static void test_registered_have_every_hook(void **state)
{
	(void)state;
	for (int i = 0; experiments[i]; i++) {
		const struct experiment *e = experiments[i];
		const char *missing = !e->run	     ? "run"
				      : !e->describe ? "describe"
				      : !e->precheck ? "precheck"
				      : !e->estimate ? "estimate"
				      : !e->lessons  ? "lessons"
						     : NULL;
		if (missing)
			fail_msg(
				"experiment '%s' has no %s: a registered experiment has run, describe, precheck, estimate and lessons (descriptor.h)",
				e->name, missing);
	}
}

/* A small descriptor to break one way at a time. */
struct toy_params {
	int64_t n;
	int colour;
};

static const struct param_choice colours[] = {{"red", 1}, {"blue", 2}, {0}};
static const struct param toy_table[] = {
	{.name = "n",
	 .type = PARAM_INT,
	 .def = "3",
	 .min = 1,
	 .max = 10,
	 .offset = offsetof(struct toy_params, n)},
	{.name = "colour",
	 .type = PARAM_ENUM,
	 .def = "red",
	 .choices = colours,
	 .offset = offsetof(struct toy_params, colour)},
	{0}};
static const struct chart toy_charts[] = {
	{.id = "time", .kind = CHART_BAR, .title = "t"},
	{.id = "rate", .kind = CHART_BAR, .title = "r"},
	{0}};
static const struct reference toy_refs[] = {
	{.chart = "rate", .series = "article", .x = 1, .y = 2}, {0}};

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
	.references = toy_refs,
	.smoke = "n=2",
	.run = toy_run,
};

static void expect_invalid(const struct experiment *e, const char *what)
{
	struct errinfo err;

	assert_int_equal(experiment_validate(e, &err), -EINVAL);
	if (!strstr(err.msg, what))
		fail_msg("expected '%s' in: %s", what, err.msg);
}

static void test_toy_valid(void **state)
{
	struct errinfo err;
	(void)state;
	assert_int_equal(experiment_validate(&toy, &err), 0);
}

static void test_chart_problems(void **state)
{
	static const struct chart twice[] = {
		{.id = "time"}, {.id = "rate"}, {.id = "time"}, {0}};
	static const struct chart none[] = {{0}};
	static const struct chart misspelt[] = {
		{.id = "time"}, {.id = "rte"}, {0}};
	struct experiment e = toy;
	(void)state;

	e.charts = twice;
	expect_invalid(&e, "chart 'time' is declared twice");
	e.charts = none;
	expect_invalid(&e, "declares no chart");
	e.charts = NULL;
	expect_invalid(&e, "declares no chart");
	/* the reference names "rate", which the descriptor now spells "rte" */
	e.charts = misspelt;
	expect_invalid(&e, "a reference names chart 'rate'");
}

static void test_param_problems(void **state)
{
	static const struct param_choice dup_name[] = {
		{"red", 1}, {"red", 2}, {0}};
	static const struct param_choice dup_value[] = {
		{"red", 1}, {"blue", 1}, {0}};
	static const struct param_choice big[] = {
		{"red", 1}, {"blue", 40}, {0}};
	struct param table[3];
	struct experiment e = toy;
	(void)state;

	e.params = table;
	memcpy(table, toy_table, sizeof(table));
	table[0].def = "11";
	expect_invalid(&e, "the default of 'n' does not parse");
	memcpy(table, toy_table, sizeof(table));
	table[1].offset = sizeof(struct toy_params);
	expect_invalid(&e, "does not fit its struct");
	memcpy(table, toy_table, sizeof(table));
	table[1].choices = dup_name;
	expect_invalid(&e, "choice 'red' of 'colour' is listed twice");
	memcpy(table, toy_table, sizeof(table));
	table[1].choices = dup_value;
	expect_invalid(&e, "have the same value 1");
	memcpy(table, toy_table, sizeof(table));
	table[1].type = PARAM_SET;
	table[1].def = "all";
	table[1].choices = big;
	expect_invalid(&e, "has value 40");
	memcpy(table, toy_table, sizeof(table));
	table[1].choices = NULL;
	expect_invalid(&e, "needs a choice list");
	memcpy(table, toy_table, sizeof(table));
	table[1].name = "n";
	expect_invalid(&e, "parameter 'n' is declared twice");
	/* a list of values past 5 digits could not be recorded whole */
	memcpy(table, toy_table, sizeof(table));
	e.params_size = sizeof(struct int_list) + sizeof(struct toy_params);
	table[0].type = PARAM_SWEEP;
	table[0].offset = sizeof(struct toy_params);
	table[0].max = PARAM_LIST_VALUE_MAX + 1;
	expect_invalid(&e, "list 'n' allows 1-100000, past 0-99999");
	table[0].max = PARAM_LIST_VALUE_MAX;
	assert_int_equal(experiment_validate(&e, &(struct errinfo){0}), 0);
}

/* A table over PARAM_MAX_PER_EXP is refused, never cut short. */
static void test_over_limit(void **state)
{
	static char names[PARAM_MAX_PER_EXP][8];
	struct param table[PARAM_MAX_PER_EXP + 1];
	struct experiment e = toy;
	struct param_values *pv = calloc(1, sizeof(*pv));
	struct errinfo err;
	int common = 0, own;
	(void)state;

	while (common_params[common].name)
		common++;
	own = PARAM_MAX_PER_EXP + 1 -
	      common; /* with the common ones: one over */

	memset(table, 0, sizeof(table));
	for (int i = 0; i < own; i++) {
		snprintf(names[i], sizeof(names[i]), "p%d", i);
		table[i] = toy_table[0];
		table[i].name = names[i];
	}
	e.params = table;
	e.smoke = "p0=2";
	expect_invalid(&e, "over the limit of");
	assert_int_equal(
		experiment_parse(&e, NULL, 0, NULL, pv, NULL, NULL, &err),
		-EINVAL);
	assert_non_null(strstr(err.msg, "over the limit of"));
	/* one fewer fits */
	table[own - 1].name = NULL;
	assert_int_equal(experiment_validate(&e, &err), 0);
	assert_int_equal(
		experiment_parse(&e, NULL, 0, NULL, pv, NULL, NULL, &err), 0);
	free(pv);
}

/* A run made elsewhere reads back into the typed struct, trusting nothing of
 * this machine. */
static void test_parse_recorded(void **state)
{
	const struct experiment *e = experiment_find("false_sharing");
	struct param_values *pv = calloc(1, sizeof(*pv));
	void *params = calloc(1, e->params_size);
	struct common_params common;
	struct errinfo err;
	char *argv[] = {"threads=1-2000", "increments=5", "layout=shared",
			"stride=4,64",	  "cpus=",	  "placement=compact",
			"repeat=3",	  "warmup=0"};
	(void)state;

	/* 1-2000 is over the element range: the table still applies */
	assert_int_equal(experiment_parse_recorded(e, 8, argv, pv, params,
						   &common, &err),
			 -EINVAL);
	argv[0] = "threads=1-1000";
	assert_int_equal(experiment_parse_recorded(e, 8, argv, pv, params,
						   &common, &err),
			 0);
	assert_int_equal(common.repeat, 3);
	assert_int_equal(common.warmup, 0);
	assert_int_equal(common.placement, PLACE_COMPACT);
	assert_int_equal(common.cpus.n, 0);
	free(params);
	free(pv);
}

static const struct sink_ops quiet = {0};

/*
 * The contract between run() and describe(): what a describe asked of a
 * complete run that the run did not emit, one sentence each.
 */
#define CONTRACT_MAX 32
struct contract {
	int n;
	char missing[CONTRACT_MAX][VERDICT_TEXT_LEN];
};

static void contract_note(void *arg, const char *what)
{
	struct contract *c = arg;

	for (int i = 0; i < c->n; i++)
		if (!strcmp(c->missing[i], what))
			return;
	if (c->n < CONTRACT_MAX)
		snprintf(c->missing[c->n++], VERDICT_TEXT_LEN, "%s", what);
}

/* A hook that changes the recorded run before it is described (a label
 * renamed), or NULL. */
typedef void (*alter_fn)(struct run_result *rr);

/*
 * Describes a run recorded in rec as experiment_run's caller would, with
 * every lookup traced: what describe asked for and the run did not emit
 * goes into c.
 */
static void describe_traced(const struct run_ctx *ctx, const struct record *rec,
			    int complete, alter_fn alter, struct contract *c)
{
	struct machine_facts m;
	struct run_result rr = {0};
	struct verdict *v = calloc(1, sizeof(*v));

	assert_non_null(v);
	machine_facts_from_topo(ctx->topo, &m);
	record_result(rec, &rr);
	rr.exp = ctx->exp;
	rr.params = ctx->params;
	rr.common = &ctx->common;
	rr.machine = &m;
	rr.complete = complete;
	rr.trace = contract_note;
	rr.trace_arg = c;
	if (alter)
		alter(&rr);
	experiment_describe(&rr, v);
	free(v);
}

/*
 * Runs e with argv through experiment_run, whose sink checks every chart
 * id and summary key. With c, the run is also recorded and described
 * again with traced lookups (describe_traced), alter changing the record
 * first. Returns what experiment_run returns, or 1 when this machine
 * refuses the params (then the reason is printed).
 */
static int run_contract(const struct experiment *e, int argc, char **argv,
			struct errinfo *err, alter_fn alter, struct contract *c)
{
	struct param_values *pv = calloc(1, sizeof(*pv));
	void *params = calloc(1, e->params_size ? e->params_size : 1);
	static volatile sig_atomic_t never;
	struct sink sink = {.ops = &quiet};
	struct run_ctx ctx = {
		.exp = e, .topo = topo, .sink = &sink, .cancel = &never};
	struct record rec;
	int rc;

	assert_non_null(pv);
	assert_non_null(params);
	rc = experiment_parse(e, topo, argc, argv, pv, params, &ctx.common,
			      err);
	if (rc) {
		printf("  SKIP %s here: %s\n", e->name, err->msg);
		rc = 1;
		goto out;
	}
	ctx.params = params;
	record_init(&rec, &sink);
	if (c)
		ctx.sink = &rec.sink;
	rc = experiment_run(&ctx, err);
	if (c && !rec.oom && (rc == 0 || rc == -ECANCELED))
		describe_traced(&ctx, &rec, rc == 0, alter, c);
	record_free(&rec);
out:
	free(params);
	free(pv);
	return rc;
}

static int run_checked(const struct experiment *e, int argc, char **argv,
		       struct errinfo *err)
{
	return run_contract(e, argc, argv, err, NULL, NULL);
}

/* Every row an experiment parses is one experiment_param finds, by name or
 * by the k of a "k=v"; a name outside its tables is not. */
static void test_param_lookup(void **state)
{
	(void)state;
	for (int i = 0; experiments[i]; i++) {
		const struct experiment *e = experiments[i];
		struct param_values *pv = calloc(1, sizeof(*pv));
		void *params = calloc(1, e->params_size ? e->params_size : 1);
		struct common_params common;
		struct errinfo err;
		assert_non_null(pv);
		assert_non_null(params);
		assert_int_equal(experiment_parse_recorded(
					 e, 0, NULL, pv, params, &common, &err),
				 0);
		for (int j = 0; j < pv->n; j++) {
			const char *name = pv->v[j].p->name;
			char kv[128];
			assert_ptr_equal(
				experiment_param(e, name, strlen(name)),
				pv->v[j].p);
			snprintf(kv, sizeof(kv), "%s=1", name);
			assert_ptr_equal(experiment_param(e, kv, strlen(name)),
					 pv->v[j].p);
		}
		assert_null(experiment_param(e, "nope", 4));
		assert_null(experiment_param(e, "repeat", 3));
		/* placement's rows only where the experiment takes them */
		const struct param *c = experiment_param(e, "placement", 9);
		if (!e->uses_placement)
			assert_true(!c || (c >= e->params &&
					   c < e->params + PARAM_MAX_PER_EXP));
		free(params);
		free(pv);
	}
}

/*
 * Every experiment's smoke run emits only what its descriptor declares,
 * and its describe asks only for what the run emitted (the contract: a
 * lookup that finds nothing in a complete run is a name the two sides
 * spell differently, or a part the run left out).
 */
static void test_emitted_ids_declared(void **state)
{
	char report[16384] = "";
	size_t used = 0;
	(void)state;
	for (int i = 0; experiments[i]; i++) {
		const struct experiment *e = experiments[i];
		struct strvec argv = STRVEC_INIT;
		struct contract *c = calloc(1, sizeof(*c));
		struct errinfo err;
		int rc;

		assert_non_null(c);
		if (!e->smoke || params_text_argv(e->smoke, &argv))
			fail_msg("'%s' has no smoke run in its descriptor",
				 e->name);
		rc = run_contract(e, (int)argv.n, argv.v, &err, NULL, c);
		strvec_clear(&argv);
		if (rc == -EPROTO)
			fail_msg("%s", err.msg);
		if (rc < 0)
			fail_msg("%s: the smoke run failed: %s", e->name,
				 err.msg[0] ? err.msg : strerror(-rc));
		for (int k = 0; k < c->n && used < sizeof(report); k++)
			used += (size_t)snprintf(
				report + used, sizeof(report) - used,
				"\n  experiment '%s': describe asked for the %s, which its smoke run (%s) did not emit",
				e->name, c->missing[k], e->smoke);
		free(c);
	}
	if (report[0]) {
		/* printed whole: cmocka's own message is cut at 1 KiB */
		fprintf(stderr,
			"describe() asked for what run() did not emit "
			"(use an _opt lookup where it is optional):%s\n",
			report);
		fail();
	}
}

/*
 * Every point's "overlap" set to a full round, in place, so that a
 * describe that states nothing for threads that took turns (a busy
 * machine's smoke run) still reads every point.
 */
static void full_overlap(struct run_result *rr)
{
	for (int i = 0; i < rr->npoints; i++)
		for (int k = 0; k < rr->points[i].nextra; k++)
			if (!strcmp(rr->points[i].extra_keys[k], "overlap"))
				((double *)rr->points[i].extra_vals)[k] = 1;
}

/*
 * The "separate" series of false_sharing renamed "Separate" in the
 * record, in place: the record owns (and frees) its copy of the name.
 */
static void rename_separate(struct run_result *rr)
{
	full_overlap(rr);
	for (int i = 0; i < rr->npoints; i++)
		if (rr->points[i].series &&
		    !strcmp(rr->points[i].series, "separate"))
			*(char *)rr->points[i].series = 'S';
}

/* A label renamed on one side only: the contract check names it. */
static void test_contract_catches_renamed_label(void **state)
{
	char *argv[] = {"threads=1-2", "increments=1000", "stride=4,64",
			"repeat=2", "warmup=0"};
	const struct experiment *e = experiment_find("false_sharing");
	struct contract *c = calloc(1, sizeof(*c));
	struct errinfo err;
	int found = 0, rc;
	(void)state;

	assert_non_null(c);
	rc = run_contract(e, 5, argv, &err, full_overlap, c);
	if (rc == 1) {
		/* a shape of one cpu: two threads do not run, said above */
		free(c);
		skip();
	}
	assert_int_equal(rc, 0);
	for (int k = 0; k < c->n; k++)
		printf("  unexpected: %s\n", c->missing[k]);
	assert_int_equal(c->n, 0);
	assert_int_equal(run_contract(e, 5, argv, &err, rename_separate, c), 0);
	for (int k = 0; k < c->n; k++)
		found |= !strcmp(
			c->missing[k],
			"point of chart 'time', series 'separate' at x = 2");
	if (!found)
		fail_msg(
			"the renamed series was not reported (%d missing, first: %s)",
			c->n, c->n ? c->missing[0] : "none");
	free(c);
}

/* A descriptor with a misspelt chart id or summary key: the run says so. */
static void test_catches_misspelt_ids(void **state)
{
	static const struct chart misspelt[] = {
		{.id = "tme", .kind = CHART_BAR},
		{.id = "overhead", .kind = CHART_BAR},
		{0}};
	static const char *const wrong_keys[] = {"slowdwn_*_threads*", NULL};
	char *argv[] = {"threads=1", "increments=100", "repeat=1", "warmup=0"};
	struct experiment broken = *experiment_find("false_sharing");
	struct errinfo err;
	(void)state;

	broken.charts = misspelt;
	assert_int_equal(run_checked(&broken, 4, argv, &err), -EPROTO);
	assert_string_equal(
		err.msg,
		"experiment 'false_sharing' emitted chart 'time', which its descriptor does not declare");
	broken = *experiment_find("false_sharing");
	broken.summary_keys = wrong_keys;
	assert_int_equal(run_checked(&broken, 4, argv, &err), -EPROTO);
	assert_string_equal(
		err.msg,
		"experiment 'false_sharing' emitted summary key 'slowdown_1_threads', which its descriptor does not declare");
	/* the descriptor as registered passes */
	assert_int_equal(
		run_checked(experiment_find("false_sharing"), 4, argv, &err),
		0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_descriptor_valid),
		cmocka_unit_test(test_registered_have_every_hook),
		cmocka_unit_test(test_toy_valid),
		cmocka_unit_test(test_chart_problems),
		cmocka_unit_test(test_param_problems),
		cmocka_unit_test(test_over_limit),
		cmocka_unit_test(test_parse_recorded),
		cmocka_unit_test(test_param_lookup),
		cmocka_unit_test(test_emitted_ids_declared),
		cmocka_unit_test(test_catches_misspelt_ids),
		cmocka_unit_test(test_contract_catches_renamed_label),
	};
	int rc = 0;

	/* every test, smoke runs included, on each captured shape */
	for (int i = 0; smoke_shapes[i]; i++) {
		topo = smoke_shape(smoke_shapes[i]);
		if (!topo)
			continue;
		printf("shape %s\n", smoke_shapes[i]);
		rc |= cmocka_run_group_tests_name(smoke_shapes[i], tests, NULL,
						  NULL);
		topo_free(topo);
	}
	return rc;
}
