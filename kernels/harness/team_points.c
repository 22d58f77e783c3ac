/* team_points.c - a run's team through the harness, and its rounds as chart points */
#include "team_points.h"

#include <errno.h>
#include <stdlib.h>

#include "stats.h"

int team_points_run(struct run_ctx *ctx, struct team_job *job,
		    struct team_result *res, const char *label,
		    const char *wrong)
{
	int rc;

	job->warmup = (int)ctx->common.warmup;
	if (!job->repeat)
		job->repeat = (int)ctx->common.repeat;
	job->cancel = ctx->cancel;
	rc = team_run(job, ctx->topo, res);
	if (rc && rc != -ECANCELED)
		return rc;
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

int team_points_bw(struct run_ctx *ctx, struct bw_job *job,
		   struct bw_result *res, const char *wrong)
{
	int rc;

	job->warmup = (int)ctx->common.warmup;
	job->repeat = (int)ctx->common.repeat;
	job->cancel = ctx->cancel;
	rc = bw_measure(job, ctx->topo, res);
	if (rc)
		return rc;
	if (res->check_rc) {
		sink_note(ctx->sink, "warn", "%s", wrong);
		bw_result_free(res);
		return -EIO;
	}
	return 0;
}

/* Emits p over v[0..n), y their median; returns it. */
static double emit(struct sink *s, struct point *p, const double *v, int n)
{
	struct stats st;

	stats_compute(v, n, &st);
	p->y = st.median;
	p->samples = v;
	p->nsamples = n;
	sink_point(s, p);
	return st.median;
}

double team_points_time(struct sink *s, struct point p,
			const struct team_result *res, double scale)
{
	double *v, y;

	if (scale == 1)
		return emit(s, &p, res->seconds, res->rounds);
	v = malloc(sizeof(double) * (size_t)(res->rounds + 1));
	if (!v)
		return -ENOMEM;
	for (int r = 0; r < res->rounds; r++)
		v[r] = res->seconds[r] * scale;
	y = emit(s, &p, v, res->rounds);
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
	y = emit(s, &p, v, res->rounds);
	free(v);
	return y;
}
