/* bandwidth_scaling.c - read, write and copy bandwidth as threads are added, packed or spread */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bw.h"
#include "compare.h"
#include "experiment.h"
#include "mem_size.h"
#include "numa_mem.h"
#include "plan_view.h"
#include "stats.h"
#include "strbuf.h"
#include "team_points.h"
#include "units.h"
#include "workcost.h"

static const struct param_choice op_choices[] = {{"read", BW_READ},
						 {"write", BW_WRITE},
						 {"write_nt", BW_WRITE_NT},
						 {"copy", BW_COPY},
						 {0}};
static const enum bw_op op_of[] = {BW_READ, BW_WRITE, BW_WRITE_NT, BW_COPY};
#define NOPS 4
enum bs_placement { BS_COMPACT, BS_SPREAD, BS_SAME };
static const struct param_choice placements[] = {
	{"compact", BS_COMPACT}, {"spread", BS_SPREAD}, {0}};
/* series names; BS_SAME: both asked, and they put every count on the same cpus
 */
static const char *const series_of[] = {"compact", "spread",
					"compact = spread"};
static const char *const key_of[] = {"compact", "spread", "same"};

struct bs_params {
	struct int_list threads;
	int64_t size;
	unsigned ops;	     /* 1u << enum bw_op */
	unsigned placements; /* 1u << enum bs_placement */
	struct int_list nodes;
};

#define HAS(mask, v) (((mask) >> (v)) & 1u)

#define PARAM_STRUCT struct bs_params
static const struct param params[] = {
	PARAM_SWEEP(
		threads, "1-16,20,24,32,48,64,96,128,192,256", 1, 1024,
		"threads",
		"thread counts to measure (trimmed to the CPUs this process may use)",
		.flags = PARAM_F_CPUS),
	PARAM_SIZE(
		size, "64M", 1 << 20, 1LL << 40, "bytes per thread",
		"each thread streams over its own buffer of this size, first touched by itself; " MEM_DEFAULT_HELP,
		.flags = PARAM_F_MEMORY),
	PARAM_SET(
		ops, "read,write,copy", op_choices,
		"read, write (regular stores), write_nt (streaming stores), copy (counted as bytes loaded plus bytes stored)"),
	PARAM_SET(
		placements, "all", placements,
		"compact: fill one node's cores before the next; spread: one thread per node in turn"),
	PARAM_NODELIST(nodes, "", 0, NMEM_MAX_NODE - 1,
		       "run only on these nodes' CPUs; empty: every node"),
	{0}};

static const struct chart charts[] = {
	CHART("read", CHART_LINE, "Read bandwidth as threads are added",
	      "threads", "GB/s"),
	CHART("write", CHART_LINE, "Write bandwidth (regular stores)",
	      "threads", "GB/s"),
	CHART("write_nt", CHART_LINE, "Write bandwidth (non-temporal stores)",
	      "threads", "GB/s"),
	CHART("copy", CHART_LINE, "Copy bandwidth (loaded + stored bytes)",
	      "threads", "GB/s"),
	{0}};

/* the extras of every point, named once for the run and its verdict */
#define EXTRA_PER_THREAD "per_thread_gbps"
#define EXTRA_OVERLAP "overlap"
/* where a point's threads ran: "threads=2 placement=spread" */
#define PLACEMENT_LABEL "threads=%d placement=%s"

static const char *const summary_keys[] = {
	"*_*_peak_gbps", "*_*_saturation_threads", "*_*_1_thread_gbps", NULL};

static int cpus_on(const struct topo *t, const struct int_list *nodes)
{
	int n = 0;

	if (!nodes->n)
		return t->nallowed;
	for (int i = 0; i < nodes->n; i++)
		n += topo_node_ncpus(t, nodes->v[i]);
	return n;
}

/* Whether some op loads from a source buffer, or stores to a target one. */
static int needs_src(const struct bs_params *bp)
{
	return HAS(bp->ops, BW_READ) || HAS(bp->ops, BW_COPY);
}

static int needs_dst(const struct bs_params *bp)
{
	return HAS(bp->ops, BW_WRITE) || HAS(bp->ops, BW_WRITE_NT) ||
	       HAS(bp->ops, BW_COPY);
}

static int bs_check(const void *params, const struct common_params *common,
		    const struct topo *t, struct errinfo *err)
{
	const struct bs_params *bp = params;
	const struct int_list *nodes = &bp->nodes;
	uint64_t size = (uint64_t)bp->size;
	int most = int_list_max(&bp->threads), buffers, rc;
	char text[256] = "of this machine";

	(void)common;
	rc = topo_check_nodes(t, nodes->v, nodes->n, "nodes", 0, 1, err);
	if (rc || !t)
		return rc;
	if (most > cpus_on(t, nodes)) {
		if (nodes->n)
			format_int_list(nodes->v, nodes->n, text, sizeof(text));
		return errinfo_set(
			err, "threads",
			"%d threads, but the nodes %s have only %d %s this process may use",
			most, text, cpus_on(t, nodes),
			units_plural(cpus_on(t, nodes), "cpu", "cpus"));
	}
	buffers = needs_src(bp) + needs_dst(bp);
	char why[96];
	snprintf(why, sizeof(why), "%d %s of it for each of %d %s", buffers,
		 units_plural(buffers, "buffer", "buffers"), most,
		 units_plural(most, "thread", "threads"));
	return topo_check_free_why(t, nodes->v, nodes->n,
				   size * (uint64_t)most * (uint64_t)buffers,
				   "size", buffers * most > 1 ? why : NULL,
				   err);
}

/* Sorted CPUs of a plan, for comparing two plans as sets. */
static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/*
 * Whether compact and spread plan the same set of cpus for thread count
 * n (1 when either cannot be planned: nothing to tell apart). Pure.
 */
static int same_cpus(const struct topo *t, const struct int_list *nodes, int n)
{
	int *a = calloc((size_t)n + 1, sizeof(int)),
	    *b = calloc((size_t)n + 1, sizeof(int));
	struct errinfo err;
	int same = 1;

	if (a && b &&
	    !topo_plan_nodes(t, PLACE_COMPACT, nodes->v, nodes->n, n, a,
			     &err) &&
	    !topo_plan_nodes(t, PLACE_SPREAD, nodes->v, nodes->n, n, b, &err)) {
		qsort(a, (size_t)n, sizeof(int), cmp_int);
		qsort(b, (size_t)n, sizeof(int), cmp_int);
		same = !memcmp(a, b, (size_t)n * sizeof(int));
	}
	free(a);
	free(b);
	return same;
}

/* How many of the thread counts compact and spread place on the same cpus. */
static int count_same(const struct topo *t, const struct bs_params *bp)
{
	int k = 0;

	for (int i = 0; i < bp->threads.n; i++)
		k += same_cpus(t, &bp->nodes, bp->threads.v[i]);
	return k;
}

static int same_everywhere(const struct topo *t, const struct bs_params *bp)
{
	return bp->threads.n > 0 && count_same(t, bp) == bp->threads.n;
}

/* One line as the run measured it: each count's median and its interval. */
struct curve {
	double gbps[PARAM_MAX_LIST], lo[PARAM_MAX_LIST], hi[PARAM_MAX_LIST];
	int rounds[PARAM_MAX_LIST];
	int threads[PARAM_MAX_LIST];
	int n;
};

/* Maps size bytes for n threads; each thread's slice is touched by that thread.
 */
static int map(size_t bytes, struct nmem_buf *b, struct run_ctx *ctx)
{
	struct errinfo err;
	struct nmem_spec s = {
		.len = bytes, .policy = NMEM_DEFAULT, .scope = NMEM_VMA};
	int rc = nmem_alloc(&s, ctx->topo, b, &err);

	if (rc)
		sink_note(ctx->sink, "warn", "%s", err.msg);
	return rc;
}

static int measure_point(struct run_ctx *ctx, int placement, int nthreads,
			 const int *cpus, struct curve *curves, int *step,
			 int steps)
{
	const struct bs_params *bp = ctx->params;
	size_t per = (size_t)bp->size / BW_ALIGN * BW_ALIGN;
	struct nmem_buf src = {0}, dst = {0};
	char *s[PARAM_MAX_LIST], *d[PARAM_MAX_LIST];
	int need_src = needs_src(bp), need_dst = needs_dst(bp);
	int touched_src = 0, touched_dst = 0, placed = 0, rc = 0;

	if (need_src && (rc = map(per * (size_t)nthreads, &src, ctx)))
		return rc;
	if (need_dst && (rc = map(per * (size_t)nthreads, &dst, ctx)))
		goto out;
	if (need_src)
		bw_split(src.base, src.len, nthreads, s);
	if (need_dst)
		bw_split(dst.base, dst.len, nthreads, d);
	for (int o = 0; o < NOPS && !rc; o++) {
		enum bw_op op = op_of[o];
		int us = op == BW_READ || op == BW_COPY, ud = op != BW_READ;
		struct bw_result res;
		char what[96];

		if (!HAS(bp->ops, op))
			continue;
		snprintf(what, sizeof(what), "%s, %d threads, %s",
			 op_choices[o].name, nthreads, series_of[placement]);
		sink_progress(ctx->sink, (*step)++, steps, what);
		struct bw_job job = {.op = op,
				     .nthreads = nthreads,
				     .cpus = cpus,
				     .dst = ud ? d : NULL,
				     .src = us ? s : NULL,
				     .bytes = per,
				     .passes = 1,
				     .touch = (us && !touched_src) ||
					      (ud && !touched_dst)};
		char wrong[96];

		snprintf(wrong, sizeof(wrong),
			 "the %s loop gave wrong data: the kernel is wrong",
			 op_choices[o].name);
		rc = team_points_bw(ctx, &job, &res, wrong);
		if (rc)
			break;
		touched_src |= us;
		touched_dst |= ud;
		if (!placed++) {
			char label[64];
			snprintf(label, sizeof(label), PLACEMENT_LABEL,
				 nthreads, series_of[placement]);
			sink_placement(ctx->sink, label, res.team.place,
				       res.team.nthreads);
		}
		/* overlap: the share of a round the threads ran together
		 * (1 for one thread, and for a round timed over the
		 * stretches they all ran: corun says how much of it those
		 * were), so a busy cpu is not taken for the bus */
		static const char *const keys[] = {EXTRA_PER_THREAD,
						   EXTRA_OVERLAP, "corun"};
		double extra[3] = {res.median / nthreads,
				   team_overlap_median(&res.team),
				   team_corun_median(&res.team)};
		struct point pt = {.chart = op_choices[o].name,
				   .series = series_of[placement],
				   .x = nthreads,
				   .y = res.median,
				   .unit = "GB/s",
				   .samples = res.gbps,
				   .nsamples = res.n,
				   .extra_keys = keys,
				   .extra_vals = extra,
				   .nextra = 3};
		struct curve *c = &curves[placement * NOPS + o];
		struct stats st;

		sink_point(ctx->sink, &pt);
		stats_compute(res.gbps, res.n, &st);
		c->gbps[c->n] = res.median;
		c->lo[c->n] = res.n ? st.ci_lo : res.median;
		c->hi[c->n] = res.n ? st.ci_hi : res.median;
		c->rounds[c->n] = res.n;
		c->threads[c->n++] = nthreads;
		bw_result_free(&res);
	}
out:
	nmem_free(&src);
	nmem_free(&dst);
	return rc;
}

/*
 * The fewest threads whose bandwidth is not told below the curve's best
 * (compare.h: their intervals against the best's), 0 when the best has
 * too few rounds to tell.
 */
static int saturation(const struct curve *c, double tol, double *peak,
		      int *peak_threads)
{
	int at = 0, best = 0;

	*peak = 0;
	*peak_threads = 0;
	for (int i = 0; i < c->n; i++)
		if (c->gbps[i] > *peak) {
			*peak = c->gbps[i];
			*peak_threads = c->threads[i];
			best = i;
		}
	for (int i = 0; i < c->n && !at; i++) {
		struct comparison cmp;

		compare_values(c->gbps[i], c->lo[i], c->hi[i], c->rounds[i],
			       c->gbps[best], c->lo[best], c->hi[best],
			       c->rounds[best], tol, &cmp);
		if (cmp.rel == CMP_FEW)
			return 0;
		if (cmp.rel != CMP_LESS)
			at = c->threads[i];
	}
	return at;
}

static int bs_run(struct run_ctx *ctx)
{
	const struct bs_params *bp = ctx->params;
	const struct int_list *threads = &bp->threads;
	const struct int_list *nodes = &bp->nodes;
	struct curve *curves = calloc(3 * NOPS, sizeof(*curves));
	int *cpus = calloc(PARAM_MAX_LIST, sizeof(int));
	int nops = 0, nplace = 0, step = 0, steps, rc = 0;
	unsigned want = bp->placements;

	if (!curves || !cpus) {
		free(curves);
		free(cpus);
		return -ENOMEM;
	}
	for (int o = 0; o < NOPS; o++)
		nops += HAS(bp->ops, op_of[o]);
	/* the same cpus under both at every count: one placement, measured once
	 */
	if (HAS(want, BS_COMPACT) && HAS(want, BS_SPREAD) &&
	    same_everywhere(ctx->topo, bp))
		want = 1u << BS_SAME;
	for (int p = 0; p < 3; p++)
		nplace += HAS(want, p);
	steps = nops * nplace * threads->n;
	sink_note(ctx->sink, "info",
		  "loops use %s; bytes counted as loaded plus stored",
		  bw_isa_names[bw_isa_best()]);
	for (int p = 0; p < 3 && !rc; p++) {
		if (!HAS(want, p))
			continue;
		for (int i = 0; i < threads->n && !rc; i++) {
			struct errinfo err;
			int n = threads->v[i];
			rc = topo_plan_nodes(ctx->topo,
					     p == BS_COMPACT ? PLACE_COMPACT
							     : PLACE_SPREAD,
					     nodes->v, nodes->n, n, cpus, &err);
			if (rc) {
				sink_note(ctx->sink, "warn", "%s", err.msg);
				break;
			}
			rc = measure_point(ctx, p, n, cpus, curves, &step,
					   steps);
		}
	}
	if (!rc) {
		sink_progress(ctx->sink, steps, steps, "done");
		for (int o = 0; o < NOPS; o++)
			for (int p = 0; p < 3; p++) {
				const struct curve *c = &curves[p * NOPS + o];
				double peak;
				int peak_threads, sat;
				char key[64];
				if (!c->n)
					continue;
				sat = saturation(c,
						 experiment_precision(ctx->exp),
						 &peak, &peak_threads);
				snprintf(key, sizeof(key), "%s_%s_peak_gbps",
					 op_choices[o].name, key_of[p]);
				sink_summary(ctx->sink, key, peak, "GB/s");
				snprintf(key, sizeof(key),
					 "%s_%s_saturation_threads",
					 op_choices[o].name, key_of[p]);
				if (sat)
					sink_summary(ctx->sink, key, sat,
						     "threads");
				if (c->threads[0] == 1) {
					snprintf(key, sizeof(key),
						 "%s_%s_1_thread_gbps",
						 op_choices[o].name, key_of[p]);
					sink_summary(ctx->sink, key, c->gbps[0],
						     "GB/s");
				}
			}
	}
	free(curves);
	free(cpus);
	return rc;
}

/* The points of one line, in the order of the run (ascending threads). */
static int line_of(const struct run_result *r, const char *chart,
		   const char *series, const struct result_point **out, int cap)
{
	int n = 0;

	for (int i = 0; i < r->npoints && n < cap; i++)
		if (!strcmp(r->points[i].chart, chart) && r->points[i].series &&
		    !strcmp(r->points[i].series, series))
			out[n++] = &r->points[i];
	return n;
}

/* The least "overlap" extra of a line's points (1 when none has one). */
static double line_together(const struct result_point *const *l, int n)
{
	double least = 1, x;

	for (int i = 0; i < n; i++)
		if (!result_point_extra(l[i], EXTRA_OVERLAP, &x) && x < least)
			least = x;
	return least;
}

/*
 * "read (compact): 12.1 GB/s with 1 thread, at most 30.2 GB/s with 8
 * (2.5× (95% interval ...)); not told below that from 6 threads on"
 */
static void say_line(const struct run_result *r,
		     const struct result_point *const *l, int n, const char *op,
		     const char *series, struct strbuf *sb, struct verdict *v)
{
	const struct result_point *peak = l[0];
	double tol = experiment_precision(r->exp), together;
	struct comparison c;
	char ratio[96];
	int sat = 0;

	strbuf_addf(sb, "%s%s (%s): %.1f GB/s with %.0f thread%s",
		    sb->len ? "; " : "", op, series, l[0]->y, l[0]->x,
		    l[0]->x == 1 ? "" : "s");
	if (n < 2)
		return;
	for (int i = 1; i < n; i++)
		if (l[i]->y > peak->y)
			peak = l[i];
	compare_points(peak, l[0], tol, &c);
	together = line_together(l, n);
	if (c.rel != CMP_MORE) {
		if (together < CMP_FULL_OVERLAP) {
			strbuf_addf(
				sb,
				"; up to %.0f threads did no better, but they ran together only %.0f%% of a round (other work held the cpus), so this says nothing of the memory bus",
				l[n - 1]->x, 100 * together);
			verdict_qualify(
				v, "*_saturation_threads", VERDICT_DISOWNED,
				"the threads ran together only %.0f%% of a round (other work held the cpus), so this says nothing of the memory bus",
				100 * together);
		} else {
			strbuf_addf(
				sb,
				"; up to %.0f threads did no better beyond the noise",
				l[n - 1]->x);
		}
		return;
	}
	for (int i = 0; i < n && !sat; i++) {
		struct comparison s;

		compare_points(l[i], peak, tol, &s);
		if (s.rel != CMP_LESS)
			sat = (int)l[i]->x;
	}
	strbuf_addf(sb, ", at most %.1f GB/s with %.0f (%s)", peak->y, peak->x,
		    compare_ratio_text(&c, ratio, sizeof(ratio)));
	if (together < CMP_FULL_OVERLAP)
		strbuf_addf(
			sb,
			"; the threads ran together only %.0f%% of a round, so where the line flattens may be other work on the cpus, not the bus",
			100 * together);
	else if (sat)
		strbuf_addf(
			sb,
			"; not told below that from %d thread%s on (where the memory bus saturates)",
			sat, sat == 1 ? "" : "s");
}

static int placement_same(const struct run_result *r, double threads)
{
	char a[64], b[64];

	snprintf(a, sizeof(a), PLACEMENT_LABEL, (int)threads,
		 series_of[BS_COMPACT]);
	snprintf(b, sizeof(b), PLACEMENT_LABEL, (int)threads,
		 series_of[BS_SPREAD]);
	return result_placement_same_cpus(result_placement_find(r, a),
					  result_placement_find(r, b));
}

/*
 * compact against spread on one chart: the count where they differ most,
 * beyond the noise and on different cpus. Returns 1 when it said one.
 */
static int compare_placements(const struct run_result *r, const char *chart,
			      struct strbuf *sb, int *n_same, int *n_tried)
{
	const struct result_point *c[PARAM_MAX_LIST], *best_c = NULL,
						      *best_s = NULL;
	int nc = line_of(r, chart, "compact", c, PARAM_MAX_LIST);
	double best = 0;

	for (int i = 0; i < nc; i++) {
		const struct result_point *sp =
			result_point_find(r, chart, "spread", c[i]->x);
		if (!sp)
			continue;
		(*n_tried)++;
		if (placement_same(r, c[i]->x)) {
			(*n_same)++;
			continue;
		}
		struct comparison cmp;

		compare_points(sp, c[i], experiment_precision(r->exp), &cmp);
		if (cmp.rel != CMP_MORE && cmp.rel != CMP_LESS)
			continue;
		double d = sp->y > c[i]->y ? sp->y / c[i]->y : c[i]->y / sp->y;
		if (d > best) {
			best = d;
			best_c = c[i];
			best_s = sp;
		}
	}
	if (!best_c)
		return 0;
	strbuf_addf(
		sb,
		"; with %.0f threads %s %.1f GB/s spread against %.1f GB/s compact",
		best_c->x, chart, best_s->y, best_c->y);
	return 1;
}

static void bs_describe(const struct run_result *r, struct verdict *v)
{
	struct strbuf sb = STRBUF_INIT;
	const struct result_point *l[PARAM_MAX_LIST];
	int said = 0, any_same_series = 0, n_same = 0, n_tried = 0;
	const struct bs_params *bp = r->params;
	int from_cache;

	/* the rulebook's cache finding when it ran; the machine's own else */
	if (r->rules && r->rules->checked)
		from_cache = r->rules->from_cache > 0;
	else
		from_cache = mem_cache_note(r->machine, (uint64_t)bp->size,
					    "the bandwidths", v);

	for (int o = 0; o < NOPS; o++)
		for (int p = 0; p < 3; p++) {
			const char *op = op_choices[o].name;
			int n = line_of(r, op, series_of[p], l, PARAM_MAX_LIST);
			if (!n)
				continue;
			any_same_series |= p == BS_SAME;
			/* the headline speaks of read, or of the first op
			 * measured */
			if (said && strcmp(op, op_choices[0].name))
				continue;
			say_line(r, l, n, op, series_of[p], &sb, v);
			said = 1;
			if (strcmp(op, op_choices[0].name))
				break;
		}
	if (any_same_series)
		verdict_note(
			v, "info",
			"compact and spread put every thread count on the same cpus here (%d node%s): one placement, measured once as one series, so the placements cannot be compared",
			r->machine->nnodes, r->machine->nnodes == 1 ? "" : "s");
	int stated = 0;
	for (int o = 0; o < NOPS && !stated; o++)
		stated = compare_placements(r, op_choices[o].name, &sb, &n_same,
					    &n_tried);
	if (!stated && n_tried && n_same == n_tried)
		verdict_note(
			v, "cannot",
			"compact and spread ran on the same cpus at every thread count: the two lines are one placement measured twice, and their difference is noise");
	else if (!stated && n_tried)
		verdict_note(
			v, "info",
			"compact and spread did not differ beyond the noise at any thread count where they used different cpus");
	if (sb.len)
		verdict_headline(v, "%s%s", from_cache ? "from cache: " : "",
				 strbuf_str(&sb));
	strbuf_release(&sb);
}

/* Before the run: whether the two placements can differ here. */
static void bs_precheck(const void *params, const struct common_params *common,
			const struct topo *t, struct verdict *v)
{
	const struct bs_params *bp = params;
	int same;

	(void)common;
	if (!t || !HAS(bp->placements, BS_COMPACT) ||
	    !HAS(bp->placements, BS_SPREAD))
		return;
	same = count_same(t, bp);
	if (same == bp->threads.n)
		verdict_note(
			v, "cannot",
			"compact and spread put every thread count on the same cpus on this machine (%d node%s, %d cpus): the run measures one series and cannot compare the placements",
			t->nnodes, t->nnodes == 1 ? "" : "s", t->nallowed);
	else if (same)
		verdict_note(
			v, "warn",
			"compact and spread use the same cpus at %d of %d thread counts: those points cannot differ",
			same, bp->threads.n);
	if (t->nnodes < 2 && same < bp->threads.n)
		verdict_note(
			v, "warn",
			"one node: compact and spread differ only in cores and caches, not in memory controllers");
}

static void bs_estimate(const void *params, const struct common_params *common,
			const struct topo *t, double *seconds, uint64_t *bytes)
{
	const struct bs_params *bp = params;
	const struct int_list *threads = &bp->threads;
	double size = (double)bp->size;
	double rounds = cost_rounds(common);
	int nplace = 0, bufs = needs_src(bp) + needs_dst(bp);
	double total = 0;

	/* compact and spread on the same cpus everywhere run once */
	for (int p = 0; p < 3; p++)
		nplace += HAS(bp->placements, p);
	if (t && HAS(bp->placements, BS_COMPACT) &&
	    HAS(bp->placements, BS_SPREAD) && same_everywhere(t, bp))
		nplace = 1;
	/* each point: its buffers touched, then every op's rounds over every
	 * thread's buffer */
	for (int i = 0; i < threads->n; i++) {
		int n = threads->v[i];
		double all = size * n, point = bufs * cost_touch_s(t, all, n);
		for (int o = 0; o < NOPS; o++) {
			enum bw_op op = op_of[o];
			if (!HAS(bp->ops, op))
				continue;
			point += cost_teams_s(1) +
				 rounds * cost_bw_s(t, op, all, n);
		}
		total += nplace * point;
	}
	*seconds = total;
	*bytes = (uint64_t)(2 * size * int_list_max(&bp->threads));
}

/*
 * Before the run: the cpus of each thread count under each placement
 * (one set of lines when compact and spread agree everywhere, as run()
 * then measures once), and where each thread's buffers go.
 */
static void bs_plan(const void *params, const struct common_params *common,
		    const struct topo *t, struct strbuf *out)
{
	const struct bs_params *bp = params;
	unsigned want = bp->placements;
	struct plan_sweep p = {
		.by_node = 1, .nodes = bp->nodes.v, .nnodes = bp->nodes.n};
	char what[32];

	(void)common;
	if (HAS(want, BS_COMPACT) && HAS(want, BS_SPREAD) &&
	    same_everywhere(t, bp))
		want = 1u << BS_SAME;
	for (int k = 0; k < 3; k++) {
		if (!HAS(want, k))
			continue;
		snprintf(what, sizeof(what), "%s, ", series_of[k]);
		p.what = what;
		p.s = k == BS_SPREAD ? PLACE_SPREAD : PLACE_COMPACT;
		plan_view_sweep(t, &p, bp->threads.v, bp->threads.n, out);
	}
	plan_view_first_touch(t, "each thread touches its own buffers", out);
}

/* The classroom's question; the run takes a few seconds on 2 cores. */
static const struct lesson lessons[] = {
	LESSON("second-reader", "A second reader",
	       "how many GB/s do 2 threads on different cores read together, at most?",
	       "threads=1-2 size=256M ops=read placements=spread repeat=3",
	       "GB/s", "read_spread_peak_gbps", "read"),
	{0}};

/* The rulebook (rules.h): what its comparisons need. */
static const struct rule rules[] = {
	RULE(RULE_TOGETHER, .param = "threads", .floor = 0.5,
	     .what = "the bandwidth of threads streaming together"),
	RULE(RULE_MEMORY, .param = "size", .what = "the bandwidth figures"),
	{RULE_END}};
static const char *const compared[] = {"*_*_peak_gbps",
				       "*_*_saturation_threads", NULL};

/* what a person reads for each summary key */
static const struct key_label summary_labels[] = {
	{"*_*_peak_gbps", "%s, %s: peak bandwidth", "GB/s"},
	{"*_*_saturation_threads", "%s, %s: threads that saturate", "threads"},
	{"*_*_1_thread_gbps", "%s, %s: one thread's bandwidth", "GB/s"},
	{NULL, NULL, NULL}};

const struct experiment exp_bandwidth_scaling = {
	.name = "bandwidth_scaling",
	.smoke = "threads=1-2 size=1M repeat=1 warmup=0",
	.headline_key = "*_*_peak_gbps",
	.headline_chart = "read",
	.title = "Memory bandwidth as threads are added",
	.summary =
		"Read, write and copy bandwidth for 1..N threads, packed onto "
		"one node or spread over the nodes: where the memory bus saturates",
	.section = "6.4.3",
	.explain =
		"One core cannot keep a memory controller busy: it has only so many "
		"outstanding misses, so a single thread streaming through memory "
		"gets a fraction of what the DRAM can deliver. Adding threads adds "
		"misses in flight and the bandwidth grows, until the memory bus (or "
		"the link to it) is the limit; from then on more threads only share "
		"the same bandwidth and each gets less.\n\n"
		"Every thread streams over its own buffer, first touched by itself "
		"so its pages are on its own node. Placed compact, threads fill one "
		"node's cores before using the next node, so the curve shows one "
		"memory controller saturating; placed spread, consecutive threads go "
		"to different nodes, and on a NUMA machine each node brings its own "
		"memory bandwidth: the spread curve rises higher and later.\n\n"
		"Each thread's buffer defaults to four times the machine's "
		"last-level cache, so that even one thread streams from memory; "
		"a smaller one reads partly from cache and the verdict says so. "
		"Every point also records how much of each round its threads "
		"ran at the same time: on a machine shared with other work, a "
		"line that stops growing because the threads took turns on the "
		"cpus says nothing of the memory bus, and the verdict does not "
		"call it saturation.\n\n"
		"Bytes are counted as the loops declare them: a read counts the bytes "
		"loaded, a write the bytes stored (not the line fetch a regular store "
		"causes: compare write with write_nt), a copy both.",
	EXPERIMENT_PARTS(bs),
	.plan = bs_plan,
	.min_nodes = 2,
	.check = bs_check,
};
