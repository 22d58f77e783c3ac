/* team_points.c - a run's team through the harness, and its rounds as chart points */
#include "team_points.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"

int team_points_rounds_most(const struct run_ctx *ctx)
{
	int repeat = (int)ctx->common.repeat, warmup = (int)ctx->common.warmup;

	if (!ctx->adapt || ctx->adapt->exact)
		return warmup + repeat;
	return warmup + adapt_most_kept(repeat) + adapt_most_redone(repeat);
}

int team_points_run(struct run_ctx *ctx, struct team_job *job,
		    struct team_result *res, const char *label,
		    const char *wrong)
{
	struct adapt_point ap;
	int rc;

	job->warmup = (int)ctx->common.warmup;
	if (!job->repeat)
		job->repeat = (int)ctx->common.repeat;
	job->cancel = ctx->cancel;
	adapt_run_point_steps(ctx->adapt, job->repeat,
			      job->arms > 1 ? job->arms : 1, clock_now(), &ap);
	job->adapt = &ap;
	rc = team_run(job, ctx->topo, res);
	job->adapt = NULL; /* ap ends here */
	if (rc && rc != -ECANCELED)
		return rc;
	adapt_run_count(ctx->adapt, res->rounds, res->redone_apart,
			res->redone_preempted);
	adapt_run_count_gate(ctx->adapt, res->started_apart);
	if (label)
		sink_placement(ctx->sink, label, res->place, res->nthreads);
	if (rc == 0 && res->check_rc) {
		sink_note(ctx->sink, "warn", "%s: %s", label ? label : "team",
			  wrong ? wrong : "the result check failed");
		rc = -EIO;
	}
	if (rc)
		team_result_free(res);
	return rc;
}

int team_points_pairs(const struct team_result *res, struct stats *st)
{
	double *ratio = calloc((size_t)res->rounds / 2 + 1, sizeof(double));
	int n;

	memset(st, 0, sizeof(*st));
	if (!ratio)
		return -ENOMEM;
	n = team_result_ratios(res, ratio);
	if (n > 0)
		stats_compute(ratio, n, st);
	free(ratio);
	return 0;
}

int team_points_bw(struct run_ctx *ctx, struct bw_job *job,
		   struct bw_result *res, const char *wrong)
{
	struct adapt_point ap;
	int rc;

	job->warmup = (int)ctx->common.warmup;
	job->repeat = (int)ctx->common.repeat;
	job->cancel = ctx->cancel;
	adapt_run_point(ctx->adapt, job->repeat, clock_now(), &ap);
	job->adapt = &ap;
	rc = bw_measure(job, ctx->topo, res);
	job->adapt = NULL;
	if (rc)
		return rc;
	adapt_run_count(ctx->adapt, res->team.rounds, res->team.redone_apart,
			res->team.redone_preempted);
	adapt_run_count_gate(ctx->adapt, res->team.started_apart);
	if (res->check_rc) {
		sink_note(ctx->sink, "warn", "%s", wrong);
		bw_result_free(res);
		return -EIO;
	}
	return 0;
}

void team_points_gbps(struct sink *s, struct point p,
		      const struct bw_result *res)
{
	p.y = res->median;
	p.unit = "GB/s";
	p.samples = res->gbps;
	p.nsamples = res->n;
	sink_point(s, &p);
}

/* The most extras a point of these helpers carries, "redone" included. */
#define MOST_EXTRAS 24

/*
 * Emits p over v[0..n), y their median, with the extra "redone": the
 * rounds of res measured again. Returns the median.
 */
static double emit(struct sink *s, struct point *p, const double *v, int n,
		   const struct team_result *res)
{
	const char *keys[MOST_EXTRAS];
	double vals[MOST_EXTRAS];
	struct stats st;
	int k = p->nextra < MOST_EXTRAS - 1 ? p->nextra : MOST_EXTRAS - 1;

	stats_compute(v, n, &st);
	p->y = st.median;
	p->samples = v;
	p->nsamples = n;
	if (k > 0) {
		memcpy(keys, p->extra_keys, sizeof(*keys) * (size_t)k);
		memcpy(vals, p->extra_vals, sizeof(*vals) * (size_t)k);
	}
	keys[k] = "redone";
	vals[k++] = res->redone_apart + res->redone_preempted;
	p->extra_keys = keys;
	p->extra_vals = vals;
	p->nextra = k;
	sink_point(s, p);
	return st.median;
}

double team_points_time(struct sink *s, struct point p,
			const struct team_result *res, double scale)
{
	double *v, y;

	if (scale == 1)
		return emit(s, &p, res->seconds, res->rounds, res);
	v = malloc(sizeof(double) * (size_t)(res->rounds + 1));
	if (!v)
		return -ENOMEM;
	for (int r = 0; r < res->rounds; r++)
		v[r] = res->seconds[r] * scale;
	y = emit(s, &p, v, res->rounds, res);
	free(v);
	return y;
}

double team_points_rate(struct sink *s, struct point p,
			const struct team_result *res, double work)
{
	double *v = malloc(sizeof(double) * (size_t)(res->rounds + 1)), y;

	if (!v)
		return -ENOMEM;
	for (int r = 0; r < res->rounds; r++)
		v[r] = res->seconds[r] > 0 ? work / res->seconds[r] : 0;
	y = emit(s, &p, v, res->rounds, res);
	free(v);
	return y;
}

double team_points_count(struct sink *s, struct point p,
			 const struct team_result *res, const double *counts)
{
	double *v = malloc(sizeof(double) * (size_t)(res->rounds + 1)), y;

	if (!v)
		return -ENOMEM;
	for (int r = 0; r < res->rounds; r++)
		v[r] = counts[res->round ? res->round[r] : r];
	y = emit(s, &p, v, res->rounds, res);
	free(v);
	return y;
}
