/* migrate.c - numa_replication's migrate part: passes over remote pages against passes after moving them */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bw.h"
#include "compare.h"
#include "experiment.h"
#include "mem_size.h"
#include "node_mem.h"
#include "numa_mem.h"
#include "page_census.h"
#include "rates.h"
#include "stats.h"
#include "team.h"
#include "team_points.h"
#include "workcost.h"

#include "nr.h"

struct pass_job {
	char *base;
	size_t len;
	int passes;
};

static void pass_body(void *arg, int tid, int round)
{
	struct pass_job *j = arg;
	enum bw_isa isa = bw_isa_best();

	(void)tid;
	for (int p = 0; p < j->passes; p++)
		bw_kernel_isa(isa, BW_WRITE, j->base, NULL, j->len,
			      (uint64_t)(round * 1000 + p));
}

/* Times passes over pj's region; *st gets the ms per pass of each round. */
static int time_passes(struct run_ctx *ctx, struct pass_job *pj, int cpu,
		       const char *label, struct stats *st)
{
	struct team_job job = {
		.nthreads = 1, .cpus = &cpu, .arg = pj, .body = pass_body};
	struct team_result res;
	int rc = team_points_run(ctx, &job, &res, label, NULL);
	double scale = 1e3 / pj->passes;
	double *ms;

	if (rc)
		return rc;
	team_points_time(ctx->sink,
			 (struct point){.chart = CH_PASS,
					.series = SERIES_PASS,
					.x = strcmp(label, PASS_REMOTE) ? 1 : 0,
					.x_label = label,
					.unit = "ms"},
			 &res, scale);
	ms = calloc((size_t)res.rounds + 1, sizeof(double));
	if (!ms) {
		team_result_free(&res);
		return -ENOMEM;
	}
	for (int i = 0; i < res.rounds; i++)
		ms[i] = res.seconds[i] * scale;
	stats_compute(ms, res.rounds, st);
	free(ms);
	team_result_free(&res);
	return 0;
}

/*
 * The break-even of migrating: stated, and drawn, only when a pass on
 * the remote node was told slower than on the local one (their rounds'
 * intervals apart); otherwise the two lines are drawn without a crossing.
 */
static void emit_break_even(struct run_ctx *ctx, const struct nr_params *p,
			    const struct stats *remote,
			    const struct stats *local, double mig_ms)
{
	struct comparison c;
	double be, xmax;

	compare_values(remote->median, remote->ci_lo, remote->ci_hi, remote->n,
		       local->median, local->ci_lo, local->ci_hi, local->n,
		       experiment_precision(ctx->exp), &c);
	be = c.rel == CMP_MORE ? mig_ms / (remote->median - local->median) : -1;
	xmax = be > 0 ? 2 * be : 10.0 * (double)p->passes;
	if (xmax < 4)
		xmax = 4;
	/* without one, the verdict says why (say_migration) */
	if (be > 0)
		sink_summary(ctx->sink, KEY_BREAK_EVEN, be, "passes");
	for (int k = 0; k <= 10; k++) {
		double x = xmax * k / 10;
		sink_xy(ctx->sink, CH_MIGRATION, "stay remote", x,
			x * remote->median, "ms");
		sink_xy(ctx->sink, CH_MIGRATION, "migrate first", x,
			mig_ms + x * local->median, "ms");
	}
	if (be > 0)
		sink_xy(ctx->sink, CH_MIGRATION, SERIES_BREAK_EVEN, be,
			be * remote->median, "ms");
}

int nr_migrate_run(struct run_ctx *ctx, const void *state)
{
	const struct nr_plan *pl = state;
	const struct nr_params *p = ctx->params;
	const struct topo *t = ctx->topo;
	int local = pl->nnodes ? pl->nodes[0] : -1;
	int remote = local >= 0 ? nr_farthest(t, pl, local) : -1;
	struct nmem_buf b;
	struct pass_job pj;
	struct nmem_migration m;
	struct stats remote_ms, local_ms;
	size_t on, off;
	struct errinfo err;
	int rc, cpu = pl->cpus[0];

	sink_summary(ctx->sink, KEY_MIG_POSSIBLE, remote >= 0, NULL);
	if (remote < 0)
		return 0;
	sink_summary(ctx->sink, "local_node", local, NULL);
	sink_summary(ctx->sink, "remote_node", remote, NULL);
	rc = node_mem_alloc(ctx->sink, t, remote, (size_t)p->size, -1, &b);
	if (rc)
		return rc;
	memset(b.base, 1, b.len);
	pj = (struct pass_job){.base = b.base,
			       .len = b.len / BW_CHUNK * BW_CHUNK,
			       .passes = (int)p->passes};
	if (!node_mem_count(&b, remote, &on, &off))
		sink_summary(ctx->sink, "migration_pages_before_remote",
			     (double)on, "pages");
	sink_progress(ctx->sink, 3, 4,
		      "writable region: remote, then migrated");
	rc = time_passes(ctx, &pj, cpu, PASS_REMOTE, &remote_ms);
	if (rc)
		goto out;
	int *dest = malloc(sizeof(int) * b.npages);
	if (!dest) {
		rc = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < b.npages; i++)
		dest[i] = local;
	rc = nmem_migrate_pages(&b, dest, &m, &err);
	free(dest);
	if (rc) {
		sink_note(ctx->sink, "warn", "%s", err.msg);
		goto out;
	}
	sink_summary(ctx->sink, "migration_moved", (double)m.moved, "pages");
	sink_summary(ctx->sink, KEY_MIG_FAILED, (double)m.failed, "pages");
	sink_summary(ctx->sink, KEY_MIG_MS, m.seconds * 1e3, "ms");
	if (!node_mem_count(&b, local, &on, &off))
		sink_summary(ctx->sink, "migration_pages_after_local",
			     (double)on, "pages");
	rc = time_passes(ctx, &pj, cpu, PASS_LOCAL, &local_ms);
	if (!rc)
		emit_break_even(ctx, p, &remote_ms, &local_ms, m.seconds * 1e3);
out:
	nmem_free(&b);
	return rc;
}

void nr_migrate_say(const struct run_result *r, struct verdict *v, char *head,
		    size_t len)
{
	const struct result_point *rem = result_point_find_label_opt(
		r, CH_PASS, SERIES_PASS, PASS_REMOTE);
	const struct result_point *loc = result_point_find_label_opt(
		r, CH_PASS, SERIES_PASS, PASS_LOCAL);
	double be = -1, mig = 0, failed = 0, remote = 0, local = 0;
	struct comparison c;

	if (nr_summary_is(r, KEY_MIG_POSSIBLE, 0)) {
		verdict_note(
			v, "cannot",
			"migrating a writable region to the local node needs a second node with memory; this run had one");
		return;
	}
	if (!rem || !loc)
		return;
	result_summary_get(r, KEY_BREAK_EVEN, &be);
	result_summary_get(r, KEY_MIG_MS, &mig);
	result_summary_get(r, KEY_MIG_FAILED, &failed);
	result_summary_get(r, "remote_node", &remote);
	result_summary_get(r, "local_node", &local);
	if (failed > 0) {
		verdict_note(
			v, "cannot",
			"%.0f pages stayed on node %.0f after the migration: the passes after it were not all local",
			failed, remote);
		verdict_qualify(
			v, KEY_BREAK_EVEN, VERDICT_DISOWNED,
			"%.0f pages stayed on node %.0f after the migration: the passes after it were not all local",
			failed, remote);
		return;
	}
	compare_points(rem, loc, experiment_precision(r->exp), &c);
	if (c.rel == CMP_MORE && be > 0) {
		verdict_note(
			v, "info",
			"moving the region from node %.0f to node %.0f took %.2f ms; each pass then took %.3f ms instead of %.3f ms, so it paid for itself after %.1f passes",
			remote, local, mig, loc->y, rem->y, be);
		if (!head[0])
			snprintf(
				head, len,
				"migrating the writable region took %.2f ms and paid for itself after %.1f passes",
				mig, be);
	} else {
		verdict_note(
			v, "warn",
			"%s (%.2f ms): a pass on node %.0f took %.3f ms, on the local node %.3f ms%s%s",
			NO_BREAK_EVEN, mig, remote, rem->y, loc->y,
			c.rel == CMP_FEW || c.rel == CMP_UNSURE ? "; " : "",
			compare_why_not(&c));
		verdict_qualify(v, KEY_BREAK_EVEN, VERDICT_DISOWNED, "%s",
				NO_BREAK_EVEN);
	}
}
