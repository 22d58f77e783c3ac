/* sizes.c - memory_latency's part sizes: ns per load against the working set, a step at each cache level */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chase.h"
#include "compare.h"
#include "mem_size.h"
#include "strbuf.h"
#include "units.h"
#include "workcost.h"

#include "ml.h"

/* The most working sets of one sweep. */
#define ML_MOST_SIZES 96

/* The series of the cache marks: one point at each level's size. */
static const char *const cache_series[] = {NULL, "L1 cache", "L2 cache",
					   "L3 cache"};

/* The sweep: 8K, 12K, 16K, 24K, ... (two steps per doubling), up to max. */
static int sweep_sizes(uint64_t max, uint64_t *out, int most)
{
	int n = 0;

	for (uint64_t s = CHASE_MIN_BYTES; s <= max && n < most; s *= 2) {
		out[n++] = s;
		if (s + s / 2 <= max && n < most)
			out[n++] = s + s / 2;
	}
	if (n && out[n - 1] != max && n < most)
		out[n++] = max;
	return n;
}

/* ---- measuring ---- */

/* What a sweep shares: the cpu, the buffer, and each working set's
 * median. */
struct sweep {
	uint64_t sizes[ML_MOST_SIZES];
	double med[ML_MOST_SIZES];
	int n, cpu;
	struct chase_buf cb;
	struct machine_facts mf;
	char label[96];
};

/* Working set k of the sweep: a chain over its bytes, chased, and its
 * point. Returns 0 or -errno. */
static int sweep_point(struct run_ctx *ctx, struct sweep *sw, int k)
{
	const struct ml_params *mp = ctx->params;
	double *ns = NULL, share;
	int rounds = 0, rc;
	char what[96], sz[32];

	mem_size_text(sw->sizes[k], sz, sizeof(sz));
	snprintf(what, sizeof(what), "chase over %s", sz);
	sink_progress(ctx->sink, k, sw->n, what);
	rc = chase_build(sw->cb.use.base, (size_t)sw->sizes[k],
			 (size_t)mp->stride, (size_t)mp->locality,
			 0x5eed + (uint64_t)k);
	if (rc)
		return rc;
	share = ml_huge_share(&sw->cb, (size_t)sw->sizes[k]);
	rc = ml_chase_rounds(ctx, sw->cpu, sw->cb.use.base,
			     k ? NULL : sw->label, &ns, &rounds, &sw->med[k]);
	if (rc)
		return rc;
	const char *keys[2] = {"from_cache", "huge_page_share"};
	double vals[2] = {mem_from_cache(&sw->mf, sw->sizes[k]),
			  share < 0 ? 0 : 100 * share};
	struct point p = {.chart = CH_SIZES,
			  .series = SERIES_CHASE,
			  .x = (double)sw->sizes[k],
			  .y = sw->med[k],
			  .unit = "ns",
			  .samples = ns,
			  .nsamples = rounds,
			  .extra_keys = keys,
			  .extra_vals = vals,
			  .nextra = share < 0 ? 1 : 2};
	sink_point(ctx->sink, &p);
	free(ns);
	if (k == sw->n - 1) {
		ml_verify_on(ctx, &sw->cb.use, (int)mp->mem_node);
		ml_say_pages(ctx, share);
	}
	return 0;
}

/* Each cache level at its size, on the curve: the latency of the largest
 * working set that still fits in one instance. */
static void sweep_marks(struct run_ctx *ctx, const struct sweep *sw)
{
	const struct topo *t = ctx->topo;

	for (int level = 1; level <= 3; level++) {
		uint64_t csize = 0;
		int at = -1;
		for (int c = 0; c < t->ncaches; c++)
			if (t->cache[c].level == level && t->cache[c].size)
				csize = t->cache[c].size;
		for (int k = 0; k < sw->n && csize; k++)
			if (sw->sizes[k] <= csize)
				at = k;
		/* a level no sweep size reaches (or a hypervisor's invented
		 * one) is not marked */
		if (at < 0 || csize > sw->sizes[sw->n - 1])
			continue;
		sink_xy(ctx->sink, CH_SIZES, cache_series[level], (double)csize,
			sw->med[at], "ns");
	}
}

int ml_sizes_run(struct run_ctx *ctx, const void *state)
{
	const struct ml_params *mp = ctx->params;
	struct sweep *sw;
	struct errinfo err;
	int rc = 0;

	(void)state;
	sw = calloc(1, sizeof(*sw));
	if (!sw)
		return -ENOMEM;
	sw->n = sweep_sizes((uint64_t)mp->size, sw->sizes, ML_MOST_SIZES);
	machine_facts_from_topo(ctx->topo, &sw->mf);
	if (ml_cpu_of_node(ctx->topo, (int)mp->cpu_node, 1, &sw->cpu, &err)) {
		sink_note(ctx->sink, "warn", "%s", err.msg);
		rc = -EINVAL;
		goto out;
	}
	rc = ml_buf_alloc(ctx, (int)mp->mem_node, (size_t)mp->size, &sw->cb);
	if (rc)
		goto out;
	snprintf(sw->label, sizeof(sw->label),
		 "chase: cpu of node %d, memory of node %d", (int)mp->cpu_node,
		 (int)mp->mem_node);
	for (int k = 0; k < sw->n && !rc; k++)
		rc = sweep_point(ctx, sw, k);
	nmem_free(&sw->cb.map);
	if (rc)
		goto out;
	sink_progress(ctx->sink, sw->n, sw->n, "done");
	sweep_marks(ctx, sw);
	sink_summary(ctx->sink, KEY_SMALLEST, sw->med[0], "ns");
	sink_summary(ctx->sink, KEY_LARGEST, sw->med[sw->n - 1], "ns");
	if (sw->med[0] > 0)
		sink_summary(ctx->sink, KEY_STEP,
			     sw->med[sw->n - 1] / sw->med[0], "x");
out:
	free(sw);
	return rc;
}

void ml_sizes_estimate(const void *params, const struct common_params *common,
		       const struct topo *t, double *seconds, uint64_t *bytes)
{
	const struct ml_params *mp = params;
	double rounds = cost_rounds(common);
	double loads = (double)mp->loads, line = (double)mp->stride, s = 0;
	uint64_t sizes[ML_MOST_SIZES];
	int n = sweep_sizes((uint64_t)mp->size, sizes, ML_MOST_SIZES);

	for (int k = 0; k < n; k++) {
		double z = (double)sizes[k];
		s += cost_touch_s(t, z, 1) / 2 +
		     cost_chase_s(t, z, z / line) / 4 + cost_teams_s(1) +
		     rounds * cost_chase_s(t, z, loads);
	}
	*seconds = s;
	*bytes = (uint64_t)((double)mp->size * 1.0625) + 2 * ML_HUGE;
}

/* ---- what a run showed ---- */

/* The largest point of the sweep, and the smallest. */
static void sweep_ends(const struct run_result *r,
		       const struct result_point **lo,
		       const struct result_point **hi)
{
	*lo = *hi = NULL;
	for (int i = 0; i < r->npoints; i++) {
		const struct result_point *p = &r->points[i];
		if (strcmp(p->chart, CH_SIZES) ||
		    strcmp(p->series, SERIES_CHASE))
			continue;
		if (!*lo || p->x < (*lo)->x)
			*lo = p;
		if (!*hi || p->x > (*hi)->x)
			*hi = p;
	}
}

static void describe_sizes(const struct run_result *r, struct strbuf *sb,
			   struct verdict *v)
{
	const struct result_point *lo, *hi;
	struct comparison c;
	char a[32], b[32], lo_ns[32], hi_ns[32], ratio[96], floor_text[32];
	uint64_t floor = mem_llc_floor(r->machine);

	sweep_ends(r, &lo, &hi);
	if (!lo || !hi || lo == hi)
		return;
	mem_size_text((uint64_t)lo->x, a, sizeof(a));
	mem_size_text((uint64_t)hi->x, b, sizeof(b));
	units_number(lo->y, lo_ns, sizeof(lo_ns));
	units_number(hi->y, hi_ns, sizeof(hi_ns));
	strbuf_addf(sb, "%s ns per load at %s, %s ns at %s", lo_ns, a, hi_ns,
		    b);
	compare_points(hi, lo, experiment_precision(r->exp), &c);
	compare_state_interval(v, KEY_STEP, &c);
	if (c.rel == CMP_MORE) {
		strbuf_addf(sb, " (%s as long)",
			    compare_ratio_text(&c, ratio, sizeof(ratio)));
	} else {
		char why[VERDICT_TEXT_LEN];
		snprintf(
			why, sizeof(why),
			"the largest working set was not told slower than the smallest: %s",
			c.rel == CMP_SAME || c.rel == CMP_LESS
				? "their intervals say otherwise"
				: compare_why_not(&c));
		strbuf_addf(sb, " (%s)", why);
		verdict_qualify(v, KEY_STEP, VERDICT_DISOWNED, "%s", why);
	}
	if (floor) {
		mem_size_text(floor, floor_text, sizeof(floor_text));
		verdict_note(
			v, "info",
			"working sets under %s (4 times the last-level cache) are labelled from cache: their loads are served by the caches; each level shows as a step where the working set outgrows it (the marks on the curve)",
			floor_text);
	}
}

void ml_sizes_say(const struct run_result *r, struct verdict *v, char *head,
		  size_t len)
{
	ml_say_part(r, describe_sizes, v, head, len);
}
