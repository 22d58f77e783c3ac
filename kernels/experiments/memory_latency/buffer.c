/* buffer.c - memory_latency's chased buffer: bound to a node, its pages checked, and rounds of the chase through it */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chase.h"
#include "node_mem.h"
#include "stats.h"
#include "team_points.h"
#include "workcost.h"

#include "ml.h"

int ml_buf_alloc(struct run_ctx *ctx, int node, size_t len,
		 struct chase_buf *cb)
{
	const struct ml_params *mp = ctx->params;
	int thp = mp->pages == PAGES_HUGE ? 1 : -1;
	uintptr_t a;
	int rc;

	memset(cb, 0, sizeof(*cb));
	/* whole huge pages past an aligned start, so that even a working
	 * set of a few KiB can sit on one */
	size_t whole = (len + ML_HUGE - 1) / ML_HUGE * ML_HUGE;

	rc = node_mem_alloc(ctx->sink, ctx->topo, node, whole + ML_HUGE, thp,
			    &cb->map);
	if (rc)
		return rc;
	cb->use = cb->map;
	a = ((uintptr_t)cb->map.base + ML_HUGE - 1) & ~(uintptr_t)(ML_HUGE - 1);
	cb->use.base = (char *)a;
	cb->use.len = len;
	cb->use.npages = (len + cb->use.page - 1) / cb->use.page;
	return 0;
}

double ml_huge_share(const struct chase_buf *cb, size_t len)
{
	long long h = chase_huge_bytes(cb->use.base, len);

	if (h < 0)
		return -1;
	return (double)(h > (long long)len ? (long long)len : h) / (double)len;
}

void ml_say_pages(struct run_ctx *ctx, double share)
{
	const struct ml_params *mp = ctx->params;

	if (share < 0) {
		sink_note(
			ctx->sink, "info",
			"which page size the buffer got could not be read (/proc/self/smaps)");
		return;
	}
	sink_summary(ctx->sink, KEY_HUGE, 100 * share, "%");
	if (mp->pages == PAGES_SMALL)
		sink_note(
			ctx->sink, "info",
			"the buffer is on 4 KiB pages as asked (pages=small): past the TLB's reach each load may also miss the TLB, and that cost is part of the figure");
	else if (share >= 0.9)
		sink_note(
			ctx->sink, "info",
			"the buffer is on 2 MiB pages for %.0f%% of it (transparent huge pages): TLB misses are kept out of the figure",
			100 * share);
	else
		sink_note(
			ctx->sink, "warn",
			"asked for 2 MiB pages, the kernel gave them for %.0f%% of the buffer (transparent huge pages off, or no 2 MiB page free): the rest is on 4 KiB pages, whose TLB misses are part of the figure",
			100 * share);
}

void ml_verify_on(struct run_ctx *ctx, const struct nmem_buf *b, int node)
{
	size_t on = 0, off = 0;
	char key[48];

	if (!mem_caps()->move_pages || node_mem_count(b, node, &on, &off))
		return;
	snprintf(key, sizeof(key), KEY_ON, node);
	sink_summary(ctx->sink, key, (double)on, "pages");
	snprintf(key, sizeof(key), KEY_OFF, node);
	sink_summary(ctx->sink, key, (double)off, "pages");
	if (off)
		sink_note(
			ctx->sink, "warn",
			"the buffer bound to node %d has %zu of %zu pages elsewhere or missing: its figures are not clean",
			node, off, on + off);
}

struct chase_job {
	void *pos;
	uint64_t loads;
};

static void chase_body(void *arg, int tid, int round)
{
	struct chase_job *j = arg;

	(void)tid;
	(void)round;
	j->pos = chase_walk_marked(j->pos, j->loads);
}

int ml_chase_rounds(struct run_ctx *ctx, int cpu, void *pos, const char *label,
		    double **ns, int *rounds, double *median)
{
	const struct ml_params *mp = ctx->params;
	struct chase_job j = {.pos = pos, .loads = (uint64_t)mp->loads};
	/* marked: the time the thread was off its cpu is left out */
	struct team_job job = {.nthreads = 1,
			       .cpus = &cpu,
			       .arg = &j,
			       .body = chase_body,
			       .work = (double)mp->loads};
	struct team_result res;
	int rc = team_points_run(ctx, &job, &res, label, NULL);

	if (rc)
		return rc;
	*ns = calloc((size_t)res.rounds + 1, sizeof(double));
	if (!*ns) {
		team_result_free(&res);
		return -ENOMEM;
	}
	for (int r = 0; r < res.rounds; r++)
		(*ns)[r] = res.seconds[r] * 1e9 / (double)mp->loads;
	*rounds = res.rounds;
	*median = stats_median(*ns, res.rounds);
	team_result_free(&res);
	return 0;
}

int ml_cpu_of_node(const struct topo *t, int node, int n, int *cpus,
		   struct errinfo *err)
{
	int32_t nd = node;

	return topo_plan_nodes(t, PLACE_SPREAD, &nd, 1, n, cpus, err);
}

double ml_build_s(const struct topo *t, double size, double stride)
{
	/* a chain's build touches the pages and writes its nodes in the
	 * chain's order, a few misses at a time */
	return cost_touch_s(t, size, 1) +
	       cost_chase_s(t, size, size / stride) / 4;
}
