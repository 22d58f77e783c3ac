/* my_experiment.c - the template of an experiment: threads add to one counter without a lock, and the updates they lose are counted */
#include <errno.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "experiment.h"
#include "rates.h"
#include "team_points.h"
#include "workcost.h"

/* Its params: a struct, and the table that fills it (params.h). */
struct my_params {
	int64_t threads, increments;
};

#define PARAM_STRUCT struct my_params
static const struct param params[] = {
	PARAM_INT(threads, "2", 1, 1024, "threads",
		  "threads adding to the one counter", .flags = PARAM_F_CPUS),
	PARAM_INT(
		increments, "1000000", 1, 1000000000LL, "per thread",
		"how often each thread adds one to the shared counter a round"),
	{0}};

/* What it draws and states, and the words of each (labels.h). */
static const struct chart charts[] = {
	CHART("time", CHART_BAR, "Time per increment", "threads",
	      "time per increment (ns)"),
	CHART("lost", CHART_BAR, "Increments lost per round", "threads",
	      "increments lost"),
	{0}};
static const char *const summary_keys[] = {"lost", NULL};
static const struct key_label summary_labels[] = {
	{"lost", "increments lost a round", "increments"}, {NULL, NULL, NULL}};

/* One counter per round, so that a round counts only its own updates. */
struct my_job {
	int64_t increments;
	_Atomic uint64_t *count;
};

static void my_body(void *arg, int tid, int round)
{
	struct my_job *j = arg;
	_Atomic uint64_t *c = &j->count[round];

	(void)tid;
	/* a relaxed load and store, not fetch_add: another thread's
	 * update between the two is lost (and it is no data race in C) */
	for (int64_t i = 0; i < j->increments; i++)
		atomic_store_explicit(
			c, atomic_load_explicit(c, memory_order_relaxed) + 1,
			memory_order_relaxed);
}

/* Measures only: the time per increment, and the updates each round lost. */
static int my_run(struct run_ctx *ctx)
{
	const struct my_params *mp = ctx->params;
	int n = (int)mp->threads, most = team_points_rounds_most(ctx), rc;
	int *cpus = calloc((size_t)n, sizeof(int));
	double *lost = calloc((size_t)most, sizeof(double));
	struct my_job j = {mp->increments,
			   calloc((size_t)most, sizeof(*j.count))};
	struct team_job job = {.nthreads = n,
			       .cpus = cpus,
			       .arg = &j,
			       .body = my_body,
			       .rounds_most = most};
	struct point time = {"time", "plain", .x = n, .unit = "ns"};
	struct point count = {"lost", "plain", .x = n, .unit = "increments"};
	struct team_result res;
	struct errinfo err;

	rc = !cpus || !lost || !j.count ? -ENOMEM
					: experiment_plan(ctx, n, cpus, &err);
	if (!rc && !(rc = team_points_run(ctx, &job, &res, "plain", NULL))) {
		for (int r = 0; r < most; r++)
			lost[r] = (double)(n * mp->increments) -
				  (double)j.count[r];
		team_points_time(ctx->sink, time, &res,
				 1e9 / (double)mp->increments);
		sink_summary(ctx->sink, "lost",
			     team_points_count(ctx->sink, count, &res, lost),
			     "increments");
		team_result_free(&res);
	}
	free(cpus);
	free(lost);
	free(j.count);
	return rc;
}

/* What the run showed, from the run alone (a stored run is described again). */
static void my_describe(const struct run_result *r, struct verdict *v)
{
	const struct my_params *mp = r->params;
	double lost;

	if (mp->threads < 2 || result_summary_get_opt(r, "lost", &lost))
		verdict_headline(v, "one thread alone loses no update");
	else
		verdict_headline(
			v,
			"%lld threads lost %.0f of their %lld increments a round: an update between one thread's load and its store is overwritten",
			(long long)mp->threads, lost,
			(long long)(mp->threads * mp->increments));
}

/* Before the run: what this machine and placement cannot show. */
static void my_precheck(const void *params, const struct common_params *common,
			const struct topo *t, struct verdict *v)
{
	const struct my_params *mp = params;

	if (mp->threads < 2)
		verdict_note(v, "cannot",
			     "lost updates need 2 or more threads");
	else
		experiment_precheck_placement(
			t, common, (int)mp->threads,
			"they would take turns and lose none",
			"they share a core, and may lose fewer", v);
}

/* Its cost, from this machine's measured rates (workcost.h). */
static void my_estimate(const void *params, const struct common_params *common,
			const struct topo *t, double *seconds, uint64_t *bytes)
{
	const struct my_params *mp = params;
	double rounds = cost_rounds(common);

	*seconds = rounds * (double)mp->increments * rates_get()->bounce_ns *
			   1e-9 * cost_crowd(t, (int)mp->threads) +
		   cost_teams_s(1);
	*bytes = 1 << 20;
}

static const struct lesson lessons[] = {
	LESSON("lost", "Updates without a lock",
	       "2 threads each add one a million times to one counter without a lock: how many of the two million are lost?",
	       "threads=2 increments=1000000 repeat=5 warmup=1", "increments",
	       "lost", "lost"),
	{0}};
/* The rulebook (rules.h): the count needs threads on cpus of their own. */
static const struct rule rules[] = {
	RULE(RULE_CPUS, .param = "threads", .what = "the updates lost"),
	{RULE_END}};
static const char *const compared[] = {"lost", NULL};

const struct experiment exp_my_experiment = {
	.name = "my_experiment",
	.title = "Updates lost without a lock",
	.summary = "threads add to one counter with a load and a store",
	.explain = "Each thread adds one to a shared counter increments times "
		   "a round, with a load and a store instead of an atomic "
		   "add: the updates lost are counted in every round.",
	.section = "6.4.2",
	.smoke = "threads=2 increments=1000 repeat=2 warmup=0",
	.headline_key = "lost",
	.headline_chart = "lost",
	.uses_placement = 1,
	EXPERIMENT_PARTS(my),
};
