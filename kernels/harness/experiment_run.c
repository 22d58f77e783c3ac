/* experiment_run.c - running an experiment, and describing and prechecking what it shows */
#include "adapt.h"
#include "clock.h"
#include "experiment.h"
#include "rates.h"
#include "sink_record.h"

#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * Whether params select exp's part p: its wanted hook, else the choice of
 * exp's parts_param named as it, else always.
 */
static int part_wanted(const struct experiment *exp, const struct part *p,
		       const void *params)
{
	const struct param *row;

	if (p->wanted)
		return p->wanted(params);
	if (!exp->parts_param)
		return 1;
	/* its own table's: the row's offset is into params */
	row = params_find(&exp->params, 1, exp->parts_param,
			  strlen(exp->parts_param));
	return !row || param_chosen(row, params, p->name);
}

void experiment_estimate_parts(const struct experiment *exp, const void *params,
			       const struct common_params *common,
			       const struct topo *t, double *seconds,
			       uint64_t *bytes)
{
	*seconds = 0;
	*bytes = 0;
	for (const struct part *p = exp->parts; p && p->name; p++) {
		double s = 0;
		uint64_t b = 0;

		if (!p->estimate || !part_wanted(exp, p, params))
			continue;
		p->estimate(params, common, t, &s, &b);
		*seconds += s;
		*bytes += b;
	}
}

/*
 * exp's own estimate of a run of params; an experiment of parts without
 * one: the sum of its selected parts'. Returns 0, or -ENOENT when it has
 * neither.
 */
static int estimate_of(const struct experiment *exp, const void *params,
		       const struct common_params *common, const struct topo *t,
		       double *seconds, uint64_t *bytes)
{
	if (exp->estimate)
		exp->estimate(params, common, t, seconds, bytes);
	else if (exp->parts)
		experiment_estimate_parts(exp, params, common, t, seconds,
					  bytes);
	else
		return -ENOENT;
	return 0;
}

/*
 * The account of ctx's rounds, its budget resolved (auto: from the run's
 * own estimate), passing events on to next; NULL when out of memory (the
 * run then takes exactly repeat rounds).
 */
static struct adapt_run *adapt_start(const struct run_ctx *ctx,
				     struct sink *next)
{
	struct adapt_run *a = calloc(1, sizeof(*a));
	double est = 0;
	uint64_t bytes = 0;

	if (!a)
		return NULL;
	if (ctx->common.budget == ADAPT_BUDGET_AUTO)
		estimate_of(ctx->exp, ctx->params, &ctx->common, ctx->topo,
			    &est, &bytes);
	adapt_run_init(a, ctx->exp, &ctx->common,
		       adapt_budget(&ctx->common, est, ctx->max_seconds), next);
	return a;
}

int experiment_run(struct run_ctx *ctx, struct errinfo *err)
{
	struct sink *s = ctx->sink;
	int rc;

	struct record rec;
	struct run_ctx rctx = *ctx;
	struct machine_facts m;
	struct run_result rr = {0};
	struct verdict *v;
	struct adapt_run *ad;

	memset(err, 0, sizeof(*err));
	if (!s)
		return ctx->exp->run(ctx);
	s->declared = ctx->exp;
	s->undeclared[0] = '\0';
	record_init(&rec, s);
	rctx.sink = &rec.sink;
	ad = adapt_start(ctx, &rec.sink);
	if (ad) {
		rctx.sink = &ad->sink;
		rctx.adapt = ad;
	}
	rc = ctx->exp->run(&rctx);
	/* recorded before the verdict, which may read it */
	adapt_run_report(ad, &rec.sink);
	free(ad);
	if ((rc == 0 || rc == -ECANCELED) && ctx->exp->describe) {
		v = calloc(1, sizeof(*v));
		if (v) {
			machine_facts_from_topo(ctx->topo, &m);
			record_result(&rec, &rr);
			rr.exp = ctx->exp;
			rr.params = ctx->params;
			rr.common = &ctx->common;
			rr.machine = &m;
			rr.complete = rc == 0;
			experiment_describe(&rr, v);
			verdict_emit(v, s, &rr);
			free(v);
		}
	}
	record_free(&rec);
	s->declared = NULL;
	if (s->undeclared[0] && rc != -ECANCELED) {
		errinfo_set(
			err, NULL,
			"experiment '%s' emitted %s, which its descriptor does not declare",
			ctx->exp->name, s->undeclared);
		return -EPROTO;
	}
	return rc;
}

/*
 * Drops the notes from first on that repeat an earlier note word for
 * word: the rulebook and a hook may say the same sentence.
 */
static void drop_repeats(struct verdict *v, int first)
{
	int k = first;

	for (int i = first; i < v->nnotes; i++) {
		int seen = 0;
		for (int j = 0; j < k && !seen; j++)
			seen = !strcmp(v->notes[j].text, v->notes[i].text);
		if (!seen && k != i)
			v->notes[k] = v->notes[i];
		k += !seen;
	}
	v->nnotes = k;
}

/* A summary key of one thread: nobody ran with it, so no together qualifier. */
static int one_thread_key(const char *key)
{
	return !fnmatch("*_1_threads", key, 0) ||
	       !fnmatch("*_1_threads_*", key, 0);
}

/*
 * The lower-bound qualifier for one compared pattern: on each key of a
 * team (never a one-thread key: it ran alone by design), or on the
 * pattern itself when the keys would not fit in the verdict's qualifiers.
 */
static void qualify_lower_bound(const struct run_result *r, const char *pattern,
				const struct rule_findings *f,
				struct verdict *v)
{
	int teams = 0, alone = 0;

	for (int i = 0; i < r->nsummary; i++) {
		if (fnmatch(pattern, r->summary[i].key, 0))
			continue;
		if (one_thread_key(r->summary[i].key))
			alone++;
		else
			teams++;
	}
	if (!alone || teams > VERDICT_MAX_QUALIFIERS - v->nqualifiers) {
		verdict_qualify(
			v, pattern, VERDICT_AT_LEAST,
			"a lower bound: the threads ran together only %.0f%% of a round",
			f->together * 100);
		return;
	}
	for (int i = 0; i < r->nsummary; i++)
		if (!fnmatch(pattern, r->summary[i].key, 0) &&
		    !one_thread_key(r->summary[i].key) &&
		    !verdict_qualifier_why(v, r->summary[i].key, NULL))
			verdict_qualify(
				v, r->summary[i].key, VERDICT_AT_LEAST,
				"a lower bound: the threads ran together only %.0f%% of a round",
				f->together * 100);
}

/* Qualifies every compared key the way the rulebook's findings say. */
static void qualify_compared(const struct run_result *r,
			     const struct rule_findings *f, struct verdict *v)
{
	for (const char *const *k = r->exp->compared; k && *k; k++) {
		if (f->failed)
			verdict_qualify(v, *k, VERDICT_DISOWNED, "%s", f->why);
		else if (f->lower_bound && !verdict_qualifier_why(v, *k, NULL))
			qualify_lower_bound(r, *k, f, v);
	}
}

/* Whether the run states a time, a rate or a ratio of them. */
static int states_times(const struct run_result *r)
{
	static const char *const units[] = {"ns",   "µs",   "us", "ms", "s",
					    "GB/s", "MB/s", "x",  "×",	NULL};

	for (int i = 0; i < r->nsummary; i++)
		for (const char *const *u = units; *u; u++)
			if (r->summary[i].unit &&
			    !strcmp(r->summary[i].unit, *u))
				return 1;
	return 0;
}

/*
 * Under an emulator (qemu TCG) a time is the emulator's: the headline
 * says so first, a note says why, and every compared key is disowned, so
 * no comparison stands on it.
 */
static void qualify_emulated(const struct run_result *r, struct verdict *v)
{
	static const char why[] =
		"timed under an emulator (qemu's software emulation, TCG), which has no caches' or memory's costs to show: its times and their ratios are the emulator's, not a machine's";
	char head[VERDICT_TEXT_LEN];

	if (!r->machine || r->machine->emulator != 1 || !states_times(r))
		return;
	snprintf(head, sizeof(head), "%s", v->headline);
	verdict_headline(v, "the emulator's times, not a machine's: %s", head);
	verdict_note(v, "warn", "%s; no comparison is stated from them", why);
	for (const char *const *k = r->exp->compared; k && *k; k++) {
		int seen = 0;
		for (int i = 0; i < v->nqualifiers; i++)
			if (!strcmp(v->qualifiers[i].key, *k)) {
				v->qualifiers[i].kind = VERDICT_DISOWNED;
				snprintf(v->qualifiers[i].why, VERDICT_TEXT_LEN,
					 "%s", why);
				seen = 1;
			}
		if (!seen)
			verdict_qualify(v, *k, VERDICT_DISOWNED, "%s", why);
	}
}

void experiment_describe(const struct run_result *r, struct verdict *v)
{
	struct run_result rr = *r;
	struct rule_findings f;

	memset(v, 0, sizeof(*v));
	if (!r->exp)
		return;
	/* the rules first, so the hook reads their findings */
	rules_describe(r, &f, v);
	rr.rules = &f;
	if (r->exp->describe)
		r->exp->describe(&rr, v);
	drop_repeats(v, 0);
	qualify_compared(r, &f, v);
	qualify_emulated(r, v);
}

void experiment_precheck(const struct experiment *exp, const void *params,
			 const struct common_params *common,
			 const struct topo *t, struct verdict *v)
{
	memset(v, 0, sizeof(*v));
	if (!t)
		return;
	rules_precheck(exp, params, common, t, v);
	if (exp->precheck)
		exp->precheck(params, common, t, v);
	drop_repeats(v, 0);
}

void experiment_precheck_placement(const struct topo *t,
				   const struct common_params *common,
				   int nthreads, const char *same_cpu,
				   const char *siblings, struct verdict *v)
{
	int *plan = calloc((size_t)(nthreads > 0 ? nthreads : 1), sizeof(int));
	struct errinfo err;
	int a, b;

	if (plan && !topo_plan(t, common->placement, common->cpus.v,
			       common->cpus.n, nthreads, plan, &err)) {
		if (common->placement != PLACE_OS &&
		    topo_plan_distinct(plan, nthreads) < 2)
			verdict_note(
				v, "cannot",
				"the placement puts every thread on cpu %d: %s",
				plan[0], same_cpu);
		else if (topo_plan_siblings(t, plan, nthreads, &a, &b))
			verdict_note(
				v, "warn",
				"the placement puts threads on smt siblings (cpu %d and %d share a core): %s",
				a, b, siblings);
	}
	free(plan);
}

int experiment_plan(const struct run_ctx *ctx, int nthreads, int *cpus,
		    struct errinfo *err)
{
	int rc;

	memset(err, 0, sizeof(*err));
	rc = topo_plan(ctx->topo, ctx->common.placement, ctx->common.cpus.v,
		       ctx->common.cpus.n, nthreads, cpus, err);
	snprintf(err->field, sizeof(err->field), "cpus");
	return rc;
}

int experiment_estimate(const struct experiment *exp, const void *params,
			const struct common_params *common,
			const struct topo *t, double *seconds, uint64_t *bytes)
{
	double budget;

	*seconds = 0;
	*bytes = 0;
	if (estimate_of(exp, params, common, t, seconds, bytes))
		return -ENOENT;
	/*
	 * The rounds grow into the budget only while a point's interval is
	 * wide: a quiet machine stops near the least rounds, a busy one
	 * near the budget. The geometric middle of the two is within
	 * sqrt(budget / least) of either, 1.73x for auto's 3x: closer than
	 * the arithmetic middle (2x of the least).
	 */
	budget = adapt_budget(common, *seconds, 0);
	if (budget > *seconds && *seconds > 0)
		*seconds += *seconds * (sqrt(budget / *seconds) - 1) *
			    (1 - exp->fixed_share);
	*seconds += rates_get()->start_s;
	return 0;
}

/* A part's sink: passes every event on, its progress naming the part. */
struct part_sink {
	struct sink sink; /* its .next: the run's own */
	const char *name;
};

static void progress_of_part(void *ctx, double done, double total,
			     const char *what, const char *part)
{
	const struct part_sink *ps = ctx;

	(void)part;
	sink_progress_part(ps->sink.next, done, total, what, ps->name);
}

static const struct sink_ops part_ops = {.progress = progress_of_part};

/* How ctx's selected parts split the budget (struct part's .steps). */
enum part_split {
	SPLIT_NONE,	 /* a part without steps: the run's steps share it */
	SPLIT_EQUAL,	 /* a part without an estimate: equal shares */
	SPLIT_ESTIMATES, /* by each part's estimate */
};

static double part_seconds(const struct run_ctx *ctx, const struct part *p)
{
	double s = 0;
	uint64_t b = 0;

	if (p->estimate)
		p->estimate(ctx->params, &ctx->common, ctx->topo, &s, &b);
	return s;
}

static enum part_split part_split(const struct run_ctx *ctx)
{
	enum part_split how = SPLIT_ESTIMATES;

	if (!ctx->adapt)
		return SPLIT_NONE;
	for (const struct part *p = ctx->exp->parts; p && p->name; p++) {
		if (!part_wanted(ctx->exp, p, ctx->params))
			continue;
		if (p->steps <= 0)
			return SPLIT_NONE;
		if (!(part_seconds(ctx, p) > 0))
			how = SPLIT_EQUAL;
	}
	return how;
}

static double part_weight(const struct run_ctx *ctx, enum part_split how,
			  const struct part *p)
{
	return how == SPLIT_ESTIMATES ? part_seconds(ctx, p)
	       : how == SPLIT_EQUAL   ? 1
				      : 0;
}

int experiment_run_parts(struct run_ctx *ctx, const void *state)
{
	struct part_sink ps = {.sink = {.ops = &part_ops, .next = ctx->sink}};
	struct run_ctx pctx = *ctx;
	enum part_split how = part_split(ctx);
	double rest = 0; /* the weight of the selected parts not yet run */
	int rc = 0;

	ps.sink.ctx = &ps;
	pctx.sink = ctx->sink ? &ps.sink : NULL;
	for (const struct part *p = ctx->exp->parts; p && p->name; p++)
		if (part_wanted(ctx->exp, p, ctx->params))
			rest += part_weight(ctx, how, p);
	for (const struct part *p = ctx->exp->parts; !rc && p && p->name; p++)
		if (part_wanted(ctx->exp, p, ctx->params)) {
			double w = part_weight(ctx, how, p);

			/* its share of what is left, the parts before it
			 * having spent what they spent */
			adapt_run_part(ctx->adapt, rest > 0 ? w / rest : 0,
				       p->steps, clock_now());
			rest -= w;
			ps.name = p->name;
			rc = p->run(&pctx, state);
		}
	adapt_run_part(ctx->adapt, 0, 0, 0);
	return rc;
}

void experiment_describe_parts(const struct run_result *r, struct verdict *v,
			       char *head, size_t len)
{
	for (const struct part *p = r->exp->parts; p && p->name; p++)
		if (part_wanted(r->exp, p, r->params))
			p->describe(r, v, head, len);
}
