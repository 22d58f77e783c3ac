/* test_adapt.c - the stop and redo rules on synthetic rounds, the budget param, and budget=0 taking exactly repeat rounds */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "adapt.h"
#include "experiment.h"
#include "registry.h"
#include "team.h"
#include "topo_fixture.h"

/* A point's rules as a run with a budget gives them: repeat 5, 5% precision. */
static struct adapt_point growing(void)
{
	return (struct adapt_point){.least = 5,
				    .most = adapt_most_kept(5),
				    .redo_most = adapt_most_redone(5),
				    .half_width = 0.025,
				    .floor = 0.5};
}

/*
 * Feeds rounds (seconds, overlap, cpu share) through the rules as
 * team_run does until the stop rule says enough or the stream ends;
 * returns the rounds kept, and the redos in *apart and *preempted.
 */
static int feed(const struct adapt_point *p, int n, const double *sec,
		const double *ov, const double *share, int *apart,
		int *preempted, double now)
{
	double kept[ADAPT_MOST_ROUNDS];
	int k = 0, clean = 0;

	*apart = *preempted = 0;
	for (int r = 0; r < n; r++) {
		double o = ov ? ov[r] : 1, c = share ? share[r] : 1;
		clean += adapt_flaw(p, o, c) == ADAPT_KEEP;
		enum adapt_fate f =
			adapt_judge(p, o, c, *apart + *preempted, clean, now);
		if (f == ADAPT_REDO_APART)
			(*apart)++;
		else if (f == ADAPT_REDO_PREEMPTED)
			(*preempted)++;
		else
			kept[k++] = sec[r];
		if (adapt_enough(p, kept, k, now))
			break;
	}
	return k;
}

static void test_stop_rule(void **state)
{
	struct adapt_point p = growing();
	double tight[400], wide[400];
	int apart, pre;
	(void)state;
	for (int i = 0; i < 400; i++) {
		tight[i] = 1.0 + 0.001 * (i % 3);
		/* a round in two is twice as long: the interval never narrows
		 */
		wide[i] = i % 2 ? 2.0 : 1.0;
	}
	/* rounds that agree: the least, no more */
	assert_int_equal(feed(&p, 400, tight, NULL, NULL, &apart, &pre, 0), 5);
	/* rounds that disagree: up to the ceiling */
	assert_int_equal(feed(&p, 400, wide, NULL, NULL, &apart, &pre, 0),
			 adapt_most_kept(5));
	assert_int_equal(adapt_most_kept(5), 100);
	assert_int_equal(adapt_most_kept(100), ADAPT_MOST_ROUNDS);
	assert_int_equal(adapt_most_kept(1000), 1000);
	/* the point's share of the budget is spent: the least, no more */
	p.deadline = 10;
	assert_int_equal(feed(&p, 400, wide, NULL, NULL, &apart, &pre, 11), 5);
	/* never under the least, whatever the deadline */
	assert_false(adapt_enough(&p, wide, 4, 11));
	/* a stream that settles: it stops once the interval is narrow */
	p.deadline = 0;
	for (int i = 0; i < 400; i++)
		wide[i] = i < 6 ? (i % 2 ? 2.0 : 1.0) : 1.5;
	int k = feed(&p, 400, wide, NULL, NULL, &apart, &pre, 0);
	assert_true(k > 6 && k < adapt_most_kept(5));
}

static void test_redo_rule(void **state)
{
	struct adapt_point p = growing();
	double sec[80], ov[80], share[80];
	int apart, pre;
	(void)state;
	for (int i = 0; i < 80; i++) {
		sec[i] = 1;
		ov[i] = 1;
		share[i] = 1;
	}
	/* rounds 0-2 ran apart, 3-4 were preempted: redone, 5 kept after */
	ov[0] = ov[1] = ov[2] = 0.1;
	share[3] = share[4] = 0.5;
	assert_int_equal(feed(&p, 40, sec, ov, share, &apart, &pre, 0), 5);
	assert_int_equal(apart, 3);
	assert_int_equal(pre, 2);
	/* no floor declared: an overlap of 0.1 is kept */
	p.floor = 0;
	assert_int_equal(adapt_judge(&p, 0.1, 1, 0, 0, 0), ADAPT_KEEP);
	assert_int_equal(adapt_judge(&p, 0.1, 0.89, 0, 0, 0),
			 ADAPT_REDO_PREEMPTED);
	assert_int_equal(adapt_judge(&p, 0.1, 0.91, 0, 0, 0), ADAPT_KEEP);
	/* the bound: after redo_most, whatever comes is kept (one round
	 * in two apart: flaws are common, but clean rounds come) */
	p.floor = 0.5;
	for (int i = 0; i < 80; i++)
		ov[i] = i % 2 ? 1 : 0;
	p.most = 80;
	p.half_width = 0; /* the least rounds are enough */
	p.least = 40;
	assert_int_equal(feed(&p, 80, sec, ov, NULL, &apart, &pre, 0), 40);
	assert_int_equal(apart, adapt_most_redone(5));
	p = growing();
	/* every round apart: after the least redos, the rest are kept */
	for (int i = 0; i < 80; i++)
		ov[i] = 0;
	assert_int_equal(feed(&p, 40, sec, ov, NULL, &apart, &pre, 0), 5);
	assert_int_equal(apart, 5);
	assert_int_equal(adapt_most_redone(5), ADAPT_REDO_LEAST);
	assert_int_equal(adapt_most_redone(ADAPT_REDO_LEAST + 5),
			 ADAPT_REDO_LEAST + 5);
	/* past the budget's end nothing is redone */
	p.redo_until = 5;
	assert_int_equal(adapt_judge(&p, 0, 1, 0, 0, 4), ADAPT_REDO_APART);
	assert_int_equal(adapt_judge(&p, 0, 1, 0, 0, 6), ADAPT_KEEP);
}

static void test_budget_parse(void **state)
{
	static const char *const bad[] = {
		"",    "abc", "-1", "3601", "1e999", "nan",
		"inf", "2s",  "+3", " 3",   "0x10",  "1e-400",
		"-0",  "5.",  ".5", "\t5",  "1.2.3", NULL};
	char norm[64];
	struct errinfo err;
	double v = 0;
	(void)state;
	assert_int_equal(
		adapt_parse_budget("auto", &v, norm, sizeof(norm), &err), 0);
	assert_true(v == ADAPT_BUDGET_AUTO);
	assert_string_equal(norm, "auto");
	assert_int_equal(adapt_parse_budget("0", &v, norm, sizeof(norm), &err),
			 0);
	assert_true(v == 0);
	assert_int_equal(
		adapt_parse_budget("2.50", &v, norm, sizeof(norm), &err), 0);
	assert_true(v == 2.5);
	assert_string_equal(norm, "2.5");
	/* kept as written, but for the zeros that say nothing */
	static const char *const kept[][2] = {{"1234.5678", "1234.5678"},
					      {"3599.9999999", "3599.9999999"},
					      {"007", "7"},
					      {"00.500", "0.5"},
					      {"3.0", "3"},
					      {"3600", "3600"}};
	for (size_t i = 0; i < sizeof(kept) / sizeof(kept[0]); i++) {
		assert_int_equal(adapt_parse_budget(kept[i][0], &v, norm,
						    sizeof(norm), &err),
				 0);
		assert_string_equal(norm, kept[i][1]);
	}
	for (int i = 0; bad[i]; i++) {
		memset(&err, 0, sizeof(err));
		assert_int_equal(adapt_parse_budget(bad[i], &v, norm,
						    sizeof(norm), &err),
				 -EINVAL);
		assert_non_null(strstr(err.msg, "'auto'"));
		assert_non_null(strstr(err.msg, "0 to 3600"));
	}
}

/* Through the experiment's parser: the common row, its default and its error.
 */
static void test_budget_param(void **state)
{
	const struct experiment *e = experiment_find("false_sharing");
	struct topo *t = synthetic("pack:1 numa:1 l3:1 core:2 pu:1");
	struct param_values *pv = calloc(1, sizeof(*pv));
	void *params = calloc(1, e->params_size);
	struct common_params c;
	struct errinfo err;
	char *ok[] = {"budget=12"}, *no[] = {"budget=soon"};
	(void)state;
	assert_non_null(pv);
	assert_int_equal(experiment_parse(e, t, 0, NULL, pv, params, &c, &err),
			 0);
	assert_true(c.budget == ADAPT_BUDGET_AUTO);
	memset(pv, 0, sizeof(*pv));
	assert_int_equal(experiment_parse(e, t, 1, ok, pv, params, &c, &err),
			 0);
	assert_true(c.budget == 12);
	memset(pv, 0, sizeof(*pv));
	assert_int_equal(experiment_parse(e, t, 1, no, pv, params, &c, &err),
			 -EINVAL);
	assert_string_equal(err.field, "budget");
	assert_non_null(strstr(err.msg, "budget 'soon'"));
	/* the resolved budget: auto is 3x the estimate, within the limit */
	c.budget = ADAPT_BUDGET_AUTO;
	assert_true(adapt_budget(&c, 2, 0) == 6);
	assert_true(adapt_budget(&c, 2, 5) == 4);
	assert_true(adapt_budget(&c, 0, 0) < 0);
	c.budget = 0;
	assert_true(adapt_budget(&c, 2, 4) == 0);
	c.budget = 10;
	assert_true(adapt_budget(&c, 2, 5) == 4);
	free(params);
	free(pv);
	topo_free(t);
}

static void test_exact_point(void **state)
{
	struct adapt_run a;
	struct adapt_point p;
	struct common_params c = {.repeat = 7, .budget = 0};
	struct sink none = {0};
	(void)state;
	adapt_run_init(&a, experiment_find("false_sharing"), &c, 0, &none);
	adapt_run_point(&a, 7, 0, &p);
	assert_int_equal(p.least, 7);
	assert_int_equal(p.most, 7);
	assert_int_equal(p.redo_most, 0);
	/* no account at all: the same */
	adapt_run_point(NULL, 3, 0, &p);
	assert_int_equal(p.most, 3);
	assert_int_equal(p.redo_most, 0);
	/* with a budget: its share is what is left over the steps left */
	adapt_run_init(&a, experiment_find("false_sharing"), &c, 100, &none);
	a.end = 100;
	a.done = 1;
	a.total = 5;
	adapt_run_point(&a, 7, 20, &p);
	assert_int_equal(p.least, 7);
	assert_int_equal(p.most, 140);
	assert_true(p.deadline == 40);
	assert_true(p.redo_until == 100);
}

static void test_words(void **state)
{
	char buf[160];
	(void)state;
	adapt_words(45, 9, 3, buf, sizeof(buf));
	assert_string_equal(
		buf,
		"kept 45 rounds; redid 12: 9 where the threads ran apart, 3 preempted");
	adapt_words(5, 0, 0, buf, sizeof(buf));
	assert_string_equal(buf, "kept 5 rounds; redid none");
	adapt_words(1, 0, 2, buf, sizeof(buf));
	assert_string_equal(buf, "kept 1 round; redid 2 preempted");
	assert_true(adapt_summary_key("rounds_kept"));
	assert_true(experiment_declares_summary(
		experiment_find("false_sharing"), "rounds_redone_preempted"));
	assert_false(adapt_summary_key("rounds"));
}

/* What a run emitted: its points' sample counts and its round summary. */
struct seen {
	int points, samples_wrong, repeat;
	double kept, apart, preempted;
	int info;
};

static void on_point(void *ctx, const struct point *p)
{
	struct seen *s = ctx;

	s->points++;
	if (!strcmp(p->chart, "time") && p->nsamples != s->repeat)
		s->samples_wrong++;
}

static void on_summary(void *ctx, const char *key, double v, const char *unit)
{
	struct seen *s = ctx;

	(void)unit;
	if (!strcmp(key, "rounds_kept"))
		s->kept = v;
	else if (!strcmp(key, "rounds_redone_apart"))
		s->apart = v;
	else if (!strcmp(key, "rounds_redone_preempted"))
		s->preempted = v;
}

static void on_note(void *ctx, const char *level, const char *text)
{
	struct seen *s = ctx;

	if (!strcmp(level, "info") && !strncmp(text, "kept ", 5))
		s->info++;
}

/* What adapt_run_report said: the started_apart summary and the note. */
struct said {
	double started_apart;
	char note[256];
};

static void said_summary(void *ctx, const char *key, double v, const char *unit)
{
	(void)unit;
	if (!strcmp(key, "rounds_started_apart"))
		((struct said *)ctx)->started_apart = v;
}

static void said_note(void *ctx, const char *level, const char *text)
{
	(void)level;
	snprintf(((struct said *)ctx)->note, sizeof(((struct said *)ctx)->note),
		 "%s", text);
}

/* Rounds whose start gate was forced open are counted and said; a run
 * without any says nothing of them. */
static void test_report_started_apart(void **state)
{
	static const struct sink_ops ops = {.summary = said_summary,
					    .note = said_note};
	struct said said = {.started_apart = -1};
	struct sink sink = {.ops = &ops, .ctx = &said};
	struct adapt_run a;
	(void)state;
	memset(&a, 0, sizeof(a));
	adapt_run_count(&a, 10, 1, 0);
	adapt_run_count_gate(&a, 2);
	adapt_run_count_gate(&a, 1);
	adapt_run_report(&a, &sink);
	assert_true(said.started_apart == 3);
	assert_string_equal(
		said.note,
		"kept 10 rounds; redid 1 where the threads ran apart; 3 rounds "
		"started before every thread was on its cpu (the gate gave up "
		"waiting for them)");
	assert_true(adapt_summary_key("rounds_started_apart"));
	said.started_apart = -1;
	a.started_apart = 0;
	adapt_run_report(&a, &sink);
	assert_true(said.started_apart == -1);
	assert_string_equal(
		said.note,
		"kept 10 rounds; redid 1 where the threads ran apart");
}

/* budget=0 keeps exactly repeat rounds per point and redoes none. */
static void test_budget_zero_is_exact(void **state)
{
	static const struct sink_ops ops = {
		.point = on_point, .summary = on_summary, .note = on_note};
	const struct experiment *e = experiment_find("false_sharing");
	struct topo *t = topo_load();
	struct param_values *pv = calloc(1, sizeof(*pv));
	void *params = calloc(1, e->params_size);
	struct seen seen = {.repeat = 3};
	struct sink sink = {.ops = &ops, .ctx = &seen};
	static volatile sig_atomic_t never;
	struct run_ctx ctx = {
		.exp = e, .topo = t, .sink = &sink, .cancel = &never};
	struct errinfo err;
	char *argv[] = {"threads=1", "increments=1000", "layout=both",
			"repeat=3",  "warmup=0",	"budget=0"};
	(void)state;
	assert_non_null(t);
	assert_int_equal(
		experiment_parse(e, t, 6, argv, pv, params, &ctx.common, &err),
		0);
	ctx.params = params;
	assert_int_equal(experiment_run(&ctx, &err), 0);
	assert_true(seen.points >= 2);
	assert_int_equal(seen.samples_wrong, 0);
	/* two time points (separate, shared) of 3 rounds */
	assert_true(seen.kept == 6);
	assert_true(seen.apart == 0 && seen.preempted == 0);
	assert_int_equal(seen.info, 1);
	free(params);
	free(pv);
	topo_free(t);
}

/* A team with exact rules runs exactly repeat rounds; its rounds are
 * numbered after the warmup. */
static int calls;
static void count_body(void *arg, int tid, int round)
{
	(void)arg;
	(void)round;
	if (tid == 0)
		calls++;
}

static void test_team_exact(void **state)
{
	struct topo *t = topo_load();
	struct adapt_point p;
	struct team_job job = {.nthreads = 1,
			       .body = count_body,
			       .warmup = 2,
			       .repeat = 4,
			       .adapt = &p};
	struct team_result res;
	(void)state;
	adapt_run_point(NULL, 4, 0, &p);
	calls = 0;
	assert_int_equal(team_run(&job, t, &res), 0);
	assert_int_equal(res.rounds, 4);
	assert_int_equal(calls, 6);
	assert_int_equal(res.round[0], 2);
	assert_int_equal(res.round[3], 5);
	assert_int_equal(res.redone_apart + res.redone_preempted, 0);
	team_result_free(&res);
	/* a body that keeps per round less than warmup + repeat: refused */
	job.rounds_most = 5;
	assert_int_equal(team_run(&job, t, &res), -EINVAL);
	topo_free(t);
}

/* Two arms in turns: each round's arm as the body saw it. */
static int seen_arm[64];
static int *arm_table;

static void arm_body(void *arg, int tid, int round)
{
	(void)arg;
	if (tid == 0 && round < 64)
		seen_arm[round] = arm_table[round];
}

/*
 * Two arms run AB BA AB ...: warmup and repeat count per arm, the
 * kept rounds split by arm, and the pairs' ratios are arm 0 over arm 1.
 */
static void test_team_arms(void **state)
{
	struct topo *t = topo_load();
	struct adapt_point p;
	int arm_of[16];
	struct team_job job = {.nthreads = 1,
			       .body = arm_body,
			       .warmup = 1,
			       .repeat = 3,
			       .adapt = &p,
			       .arms = 2,
			       .arm_of = arm_of,
			       .rounds_most = 8};
	struct team_result res, a0, a1;
	static const int want[] = {0, 1, 0, 1, 1, 0, 0, 1};
	double ratio[4];
	(void)state;
	arm_table = arm_of;
	adapt_run_point(NULL, 3, 0, &p);
	assert_int_equal(team_run(&job, t, &res), 0);
	assert_int_equal(res.rounds, 6);
	for (int r = 0; r < 8; r++)
		assert_int_equal(seen_arm[r], want[r]);
	for (int k = 0; k < 6; k++) {
		assert_int_equal(res.round[k], k + 2);
		assert_int_equal(res.arm[k], want[k + 2]);
	}
	/* the pairs' ratios: arm 0 over arm 1, whichever ran first */
	for (int k = 0; k < 6; k++)
		res.seconds[k] = res.arm[k] ? 2 : 1 + k;
	assert_int_equal(team_result_ratios(&res, ratio), 3);
	assert_float_equal(ratio[0], 0.5, 1e-12); /* rounds 0 (A), 1 (B) */
	assert_float_equal(ratio[1], 2, 1e-12);	  /* 2 (B), 3 (A: 4 s) */
	assert_float_equal(ratio[2], 2.5, 1e-12); /* 4 (A: 5 s), 5 (B) */
	assert_int_equal(team_result_arm(&res, 0, &a0), 0);
	assert_int_equal(team_result_arm(&res, 1, &a1), 0);
	assert_int_equal(a0.rounds, 3);
	assert_int_equal(a1.rounds, 3);
	assert_float_equal(a0.seconds[2], 5, 1e-12);
	assert_int_equal(a0.round[1], 5);
	team_result_free(&a0);
	team_result_free(&a1);
	team_result_free(&res);
	/* arms without the table, or a table too short for both arms */
	job.arm_of = NULL;
	assert_int_equal(team_run(&job, t, &res), -EINVAL);
	job.arm_of = arm_of;
	job.rounds_most = 7;
	assert_int_equal(team_run(&job, t, &res), -EINVAL);
	topo_free(t);
}

/* The pairs' ratios are enough at twice a point's width. */
static void test_enough_ratios(void **state)
{
	struct adapt_point p = growing();
	double r[8] = {1.5, 1.53, 1.56, 1.5, 1.53, 1.56, 1.5, 1.53};
	(void)state;
	/* within 2 x 2.5% of 1.53, not within 2.5% */
	p.half_width = 0.012;
	assert_false(adapt_enough(&p, r, 6, 0));
	assert_true(adapt_enough_ratios(&p, r, 6, 0));
	assert_false(adapt_enough_ratios(&p, r, 4, 0)); /* under the least */
}

/* The overlap a point reports counts only the time every thread ran. */
static void test_overlap(void **state)
{
	/* thread a alone on its cpu for 10 ms; b shares its cpu half the
	 * time, so it takes 20 ms for the same work */
	struct team_span a = {0, 0.010, 0.010}, b = {0, 0.020, 0.010};
	const struct team_span *both[] = {&a, &b}, *one[] = {&a};
	(void)state;
	/* in a's 10 ms b ran 5: together a quarter of the 20 ms round */
	assert_float_equal(team_overlap(both, 2, 0), 0.25, 1e-9);
	/* the cpu time not read: in their bodies at once, half the round */
	b.cpu = -1;
	assert_float_equal(team_overlap(both, 2, 0), 0.5, 1e-9);
	/* both ran the whole time, together from start to end */
	b = (struct team_span){0, 0.010, 0.010};
	assert_float_equal(team_overlap(both, 2, 0), 1, 1e-9);
	/* one after the other: never together */
	b = (struct team_span){0.010, 0.020, 0.010};
	assert_float_equal(team_overlap(both, 2, 0), 0, 1e-9);
	/* off the cpu most of the time: never below 0 */
	a = (struct team_span){0, 0.010, 0.001};
	b = (struct team_span){0, 0.010, 0.001};
	assert_float_equal(team_overlap(both, 2, 0), 0, 1e-9);
	assert_float_equal(team_overlap(one, 1, 0), 1, 0);
}

/* Marks every ms from 0 to 10 ms: cpu advances with wall time unless off. */
static void marks(struct team_stamp *s, double per_ms_on, double per_ms_off,
		  double off_a, double off_b, int partner_off)
{
	double work = 0, cpu = 0;

	for (int k = 0; k <= 10; k++) {
		double t = k * 1e-3;
		s[k] = (struct team_stamp){.t = t, .work = work, .cpu = cpu};
		/* the slot [t, t + 1 ms): on the cpu unless inside off */
		int off = t >= off_a && t < off_b;
		cpu += off && partner_off ? 0 : 1e-3;
		work += off ? per_ms_off : per_ms_on;
	}
}

/*
 * A round is timed over the stretches every thread was on a cpu: the
 * partner off its cpu from 4 to 6 ms while thread 0 ran alone, four times
 * as fast; those 2 ms and their work are left out, and so is the slot
 * after them, when the partner refilled its caches.
 */
static void test_corun(void **state)
{
	struct team_stamp a[11], b[11], c[3];
	const struct team_stamp *both[] = {a, b}, *three[] = {a, b, c};
	int n[] = {11, 11, 3};
	struct team_corun r;
	(void)state;
	marks(a, 100, 400, 0.004, 0.006, 0); /* thread 0: the round's work */
	marks(b, 0, 0, 0.004, 0.006, 1);     /* the partner, off 4-6 ms */
	assert_int_equal(team_corun(both, n, 2, &r), 0);
	assert_float_equal(r.span, 0.010, 1e-12);
	assert_float_equal(r.length, 0.007, 1e-12);
	assert_float_equal(r.work, 700,
			   1e-9); /* 100 per ms, the contended pace */
	/* one thread: its own time on the cpu, all of it */
	assert_int_equal(team_corun(both, n, 1, &r), 0);
	assert_float_equal(r.length, 0.010, 1e-12);
	assert_float_equal(r.work, 1600, 1e-9);
	/* a slot at 95% of a cpu (2-3 ms) counts as off it, and 3-4 ms
	 * as its refill */
	b[3].cpu -= 0.05e-3;
	assert_int_equal(team_corun(both, n, 2, &r), 0);
	assert_float_equal(r.length, 0.005, 1e-12);
	assert_float_equal(r.work, 500, 1e-9);
	/* a third thread whose body ran from 2.5 to 7.5 ms in two slots on
	   its cpu: the stretches are cut to 7-7.5 ms, where no slot of
	   thread 0 fits whole: its slot's work is taken as even */
	c[0] = (struct team_stamp){.t = 0.0025, .work = 0, .cpu = 0};
	c[1] = (struct team_stamp){.t = 0.005, .work = 0, .cpu = 0.0025};
	c[2] = (struct team_stamp){.t = 0.0075, .work = 0, .cpu = 0.005};
	assert_int_equal(team_corun(three, n, 3, &r), 0);
	assert_float_equal(r.length, 0.0005, 1e-12);
	assert_float_equal(r.work, 50, 1e-9);
	/* no overlap at all: nothing to time */
	c[0].t = 0.020;
	c[1].t = 0.021;
	c[2].t = 0.022;
	assert_int_equal(team_corun(three, n, 3, &r), 0);
	assert_float_equal(r.length, 0, 0);
	assert_float_equal(r.work, 0, 0);
}

/* A body that marks its work as it goes: 2000 steps of busy work. */
static void mark_body(void *arg, int tid, int round)
{
	volatile double x = 0;
	(void)arg;
	(void)round;
	for (int i = 1; i <= 2000; i++) {
		for (int k = 0; k < 200; k++)
			x = x + k;
		team_mark(tid == 0 ? i : 0);
	}
}

/*
 * A team whose body marks its work: every kept round knows how much of
 * it all threads ran together, and one timed over its stretches says
 * the threads ran together all the time it was timed.
 */
static void test_team_marks(void **state)
{
	struct topo *t = topo_load();
	struct adapt_point p;
	struct team_job job = {.nthreads = 2,
			       .body = mark_body,
			       .warmup = 0,
			       .repeat = 3,
			       .adapt = &p,
			       .work = 2000};
	struct team_result res;
	(void)state;
	team_mark(1); /* outside a team: nothing */
	adapt_run_point(NULL, 3, 0, &p);
	assert_int_equal(team_run(&job, t, &res), 0);
	assert_int_equal(res.rounds, 3);
	assert_true(res.stretched >= 0 && res.stretched <= 3);
	for (int r = 0; r < res.rounds; r++) {
		assert_true(res.corun[r] >= 0 && res.corun[r] <= 1);
		assert_true(res.seconds[r] > 0);
	}
	if (res.stretched == res.rounds)
		assert_float_equal(team_overlap_median(&res), 1, 0);
	team_result_free(&res);
	topo_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stop_rule),
		cmocka_unit_test(test_redo_rule),
		cmocka_unit_test(test_budget_parse),
		cmocka_unit_test(test_budget_param),
		cmocka_unit_test(test_exact_point),
		cmocka_unit_test(test_words),
		cmocka_unit_test(test_report_started_apart),
		cmocka_unit_test(test_budget_zero_is_exact),
		cmocka_unit_test(test_team_exact),
		cmocka_unit_test(test_team_arms),
		cmocka_unit_test(test_enough_ratios),
		cmocka_unit_test(test_overlap),
		cmocka_unit_test(test_corun),
		cmocka_unit_test(test_team_marks),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
