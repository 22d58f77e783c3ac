/* accumulate.c - numa_replication's accumulate part: one shared region against a region per node, combined */
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

struct acc_job {
	uint64_t *region[NR_MAX_THREADS]; /* per thread: where it adds */
	uint64_t updates;
	uint64_t buckets;
};

static void acc_body(void *arg, int tid, int round)
{
	struct acc_job *j = arg;
	uint64_t *acc = j->region[tid];
	uint64_t x =
		0x9e3779b97f4a7c15ull * (uint64_t)(tid + 1) + (uint64_t)round;

	/* the same stream of additions per thread and round in both layouts */
	for (uint64_t u = 0; u < j->updates; u++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		__atomic_fetch_add(&acc[x % j->buckets], x & 0xff,
				   __ATOMIC_RELAXED);
	}
}

/* The template of a point of the accumulate chart's updates. */
static struct point updates_point(int x, const char *label)
{
	return (struct point){.chart = CH_ACC,
			      .series = SERIES_UPDATES,
			      .x = x,
			      .x_label = label,
			      .unit = "ms"};
}

/*
 * The per-node regions combined, as the thread that wants the total
 * would do it, timed; whether the sum equals the shared region's; and
 * where each region's pages are.
 */
static void combine_and_count(struct run_ctx *ctx, const struct nr_plan *pl,
			      struct nmem_buf *shared, struct nmem_buf *per,
			      uint64_t *sum, size_t len)
{
	const struct nr_params *p = ctx->params;
	double combine_ms;
	size_t on, off;

	/*
	 * the combine, as the thread that wants the total would do it; its
	 * target's pages are touched first, so the clock times the additions,
	 * not first-touch page faults
	 */
	for (size_t b = 0; b < len; b += 4096)
		((volatile char *)sum)[b] = 0;
	double t0 = clock_now();
	for (int n = 0; n < pl->nnodes; n++) {
		const uint64_t *r = (const uint64_t *)per[n].base;
		for (int64_t b = 0; b < p->buckets; b++)
			sum[b] += r[b];
	}
	combine_ms = (clock_now() - t0) * 1e3;
	sink_point(ctx->sink, &(struct point){.chart = CH_ACC,
					      .series = SERIES_COMBINE,
					      .x = 1,
					      .x_label = ACC_PER_NODE,
					      .y = combine_ms,
					      .unit = "ms"});
	sink_summary(ctx->sink, KEY_COMBINE, combine_ms, "ms");
	sink_summary(ctx->sink, KEY_EQUAL, memcmp(sum, shared->base, len) == 0,
		     NULL);
	if (!node_mem_count(shared, pl->home, &on, &off))
		sink_summary(ctx->sink, "shared_region_pages_home", (double)on,
			     "pages");
	for (int n = 0; n < pl->nnodes; n++) {
		char key[64];
		if (node_mem_count(&per[n], pl->nodes[n], &on, &off))
			continue;
		snprintf(key, sizeof(key), "region_node%d_pages_local",
			 pl->nodes[n]);
		sink_summary(ctx->sink, key, (double)on, "pages");
		snprintf(key, sizeof(key), "region_node%d_pages_elsewhere",
			 pl->nodes[n]);
		sink_summary(ctx->sink, key, (double)off, "pages");
	}
}

/* The additions of one round of job into the regions its threads were
 * given: layout x of the chart, named what. */
static int accumulate_into(struct run_ctx *ctx, struct team_job *job, int x,
			   const char *what)
{
	struct team_result res;
	char step[64];
	int rc;

	snprintf(step, sizeof(step), "accumulate: %s", what);
	sink_progress(ctx->sink, 2 + 0.5 * x, 4, step);
	rc = team_points_run(ctx, job, &res, what, NULL);
	if (rc)
		return rc;
	team_points_time(ctx->sink, updates_point(x, what), &res, 1e3);
	team_result_free(&res);
	return 0;
}

int nr_accumulate_run(struct run_ctx *ctx, const void *state)
{
	const struct nr_plan *pl = state;
	const struct nr_params *p = ctx->params;
	const struct topo *t = ctx->topo;
	size_t len = (size_t)p->buckets * sizeof(uint64_t);
	struct nmem_buf shared, per[TOPO_MAX_NODES];
	struct acc_job *j = calloc(1, sizeof(*j));
	uint64_t *sum = calloc((size_t)p->buckets, sizeof(uint64_t));
	int nper = 0, rc;

	memset(per, 0, sizeof(per));
	if (!j || !sum) {
		free(j);
		free(sum);
		return -ENOMEM;
	}
	j->updates = (uint64_t)p->updates;
	j->buckets = (uint64_t)p->buckets;
	rc = node_mem_alloc(ctx->sink, t, pl->home, len, -1, &shared);
	if (rc)
		goto out_free;
	memset(shared.base, 0, shared.len);
	for (nper = 0; nper < pl->nnodes && !rc; nper++) {
		rc = node_mem_alloc(ctx->sink, t, pl->nodes[nper], len, -1,
				    &per[nper]);
		if (!rc)
			memset(per[nper].base, 0, per[nper].len);
	}
	if (rc) {
		nper--;
		goto out;
	}

	/* both layouts make the same additions: the same rounds, no more */
	struct team_job job = {
		.nthreads = pl->nthreads,
		.cpus = pl->cpus,
		.arg = j,
		.body = acc_body,
		.rounds_most = (int)(ctx->common.warmup + ctx->common.repeat)};

	for (int i = 0; i < pl->nthreads; i++)
		j->region[i] = (uint64_t *)shared.base;
	rc = accumulate_into(ctx, &job, 0, ACC_SHARED);
	if (rc)
		goto out;
	for (int i = 0; i < pl->nthreads; i++)
		for (int n = 0; n < pl->nnodes; n++)
			if (pl->nodes[n] == pl->node_of[i])
				j->region[i] = (uint64_t *)per[n].base;
	rc = accumulate_into(ctx, &job, 1, ACC_PER_NODE);
	if (rc)
		goto out;
	combine_and_count(ctx, pl, &shared, per, sum, len);
out:
	for (int n = 0; n < nper; n++)
		nmem_free(&per[n]);
	nmem_free(&shared);
out_free:
	free(j);
	free(sum);
	return rc;
}

/* --- a writable region: stay remote, or migrate it first --- */

void nr_accumulate_say(const struct run_result *r, struct verdict *v,
		       char *head, size_t len)
{
	const struct result_point *sh =
		result_point_find_label(r, CH_ACC, SERIES_UPDATES, ACC_SHARED);
	const struct result_point *pn = result_point_find_label(
		r, CH_ACC, SERIES_UPDATES, ACC_PER_NODE);
	double combine = 0;
	struct comparison c, total;
	int nnodes;

	if (!sh || !pn)
		return;
	if (!nr_summary_is(r, KEY_EQUAL, 1)) {
		verdict_note(
			v, "warn",
			"the shared region and the combined per-node regions hold different totals: the kernel is wrong");
		return;
	}
	result_summary_get(r, KEY_COMBINE, &combine);
	nr_nodes_seen(r, ACC_PER_NODE, &nnodes);
	if (nnodes < 2) {
		verdict_note(
			v, "cannot",
			"with threads on one node, one shared region and a region per node are the same region: the totals agree, but nothing is compared");
		return;
	}
	compare_points(sh, pn, experiment_precision(r->exp), &c);
	/* the per-node layout's whole cost: its rounds plus the combine */
	compare_values(sh->y, sh->ci_lo, sh->ci_hi, sh->n, pn->y + combine,
		       pn->ci_lo + combine, pn->ci_hi + combine, pn->n,
		       experiment_precision(r->exp), &total);
	if (c.rel == CMP_MORE) {
		verdict_note(
			v, "info",
			"a region per node took %.2f ms a round plus %.3f ms to combine, one shared region %.2f ms; the totals were equal",
			pn->y, combine, sh->y);
		if (!head[0] && total.rel == CMP_MORE)
			snprintf(
				head, len,
				"accumulating into a region per node and combining took %.2f ms against %.2f ms in one shared region",
				pn->y + combine, sh->y);
	} else {
		verdict_note(
			v, "warn",
			"one shared region (%.2f ms) was %s a region per node (%.2f ms, combine %.3f ms)",
			sh->y, compare_words(&c, "faster than", "as fast as"),
			pn->y, combine);
	}
}
