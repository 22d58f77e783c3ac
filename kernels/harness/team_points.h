/* team_points.h - a run's team through the harness, and its rounds as chart points */
#ifndef NUMALAB_TEAM_POINTS_H
#define NUMALAB_TEAM_POINTS_H

#include "bw.h"
#include "descriptor.h"
#include "sink.h"
#include "stats.h"
#include "team.h"

/*
 * Runs job with the run's warmup and cancel flag, and its repeat unless
 * the job sets one of its own, its rounds kept and redone by the run's
 * account (ctx->adapt, adapt.h), then emits where the threads ran under
 * label (none when label is NULL). A failed result check is said as a
 * warning "<label>: <wrong>" and fails with -EIO. Returns 0 with res to
 * release (team_result_free), or -ECANCELED, -EIO or -errno with res
 * already released.
 */
int team_points_run(struct run_ctx *ctx, struct team_job *job,
		    struct team_result *res, const char *label,
		    const char *wrong);

/*
 * The most rounds, warmup included, a team of this run may call its body
 * for: what a body that keeps something per round allocates for (struct
 * team_job .rounds_most), per arm: a team of two arms (team_job.arms)
 * may run twice as many.
 */
int team_points_rounds_most(const struct run_ctx *ctx);

/*
 * The per-pair ratios of a team run with two arms (team_job.arms: arm
 * 0's time over arm 1's in each pair of rounds measured back to back)
 * as statistics: their median and its 95% interval, st->n pairs (0:
 * none). Returns 0, or -ENOMEM.
 */
int team_points_pairs(const struct team_result *res, struct stats *st);

/*
 * The same for a bandwidth loop, whose placement the caller emits: runs
 * job with the run's warmup, repeat, cancel flag and account; a failed data
 * check is said as the warning wrong and fails with -EIO. Returns 0 with res to
 * release (bw_result_free), or -ECANCELED, -EIO or -errno with nothing
 * to release.
 */
int team_points_bw(struct run_ctx *ctx, struct bw_job *job,
		   struct bw_result *res, const char *wrong);

/* Emits p (chart, series, x, x_label) as what res measured: its median
 * in GB/s, every round's rate a sample. */
void team_points_gbps(struct sink *s, struct point p,
		      const struct bw_result *res);

/*
 * Emits p with one sample per round of res, each round's seconds times
 * scale (1: seconds; 1e9 / ops: ns per op), their median as y, and the
 * extra "redone" after p's own (the rounds measured again).
 * Returns the median (0 when no round completed), or -ENOMEM unsaid.
 */
double team_points_time(struct sink *s, struct point p,
			const struct team_result *res, double scale);

/*
 * The same for a rate: each round's sample is work / its seconds
 * (bytes / 1e9 for GB/s; 0 for a round too short for the clock).
 * Returns the median.
 */
double team_points_rate(struct sink *s, struct point p,
			const struct team_result *res, double work);

/*
 * The same for a count each round made (updates lost, a litmus test's
 * outcome seen): counts[i] is what the round body was called with as
 * round i counted (i < team_job.rounds_most), so a round measured again
 * is left out as its time is; each kept round's count is a sample, their
 * median y, with its interval like a time's. Returns the median.
 */
double team_points_count(struct sink *s, struct point p,
			 const struct team_result *res, const double *counts);

#endif
