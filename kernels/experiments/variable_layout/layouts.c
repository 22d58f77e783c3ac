/* layouts.c - variable_layout's layouts part: each thread updates two variables of its own, in a global array, in TLS, padded or grouped */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "team.h"
#include "team_points.h"
#include "workcost.h"

#include "vl.h"

static const char *const layout_names[LAY_N] = {"global array", "__thread",
						"padded, one line each",
						"grouped in one padded line"};

/*
 * The variables themselves. Only one run happens in a process at a
 * time, so statics are safe; each run zeroes what it uses.
 */
static unsigned long vl_global_a[VL_MAX_THREADS]
	__attribute__((aligned(VL_APART)));
static unsigned long vl_global_b[VL_MAX_THREADS]
	__attribute__((aligned(VL_APART)));
static __thread unsigned long vl_tls_a, vl_tls_b;

struct lay_job {
	enum vl_layout layout;
	char *heap; /* line aligned: padded and grouped layouts */
	size_t line;
	uint64_t ops;
	unsigned long (*got)[2];
	int nthreads;
};

static void locate(const struct lay_job *j, int tid, volatile unsigned long **a,
		   volatile unsigned long **b)
{
	switch (j->layout) {
	case LAY_GLOBAL:
		*a = &vl_global_a[tid];
		*b = &vl_global_b[tid];
		break;
	case LAY_TLS:
		*a = &vl_tls_a;
		*b = &vl_tls_b;
		break;
	case LAY_PADDED:
		*a = (volatile unsigned long *)(j->heap +
						2 * (size_t)tid * j->line);
		*b = (volatile unsigned long *)(j->heap + (2 * (size_t)tid +
							   1) * j->line);
		break;
	default:
		*a = (volatile unsigned long *)(j->heap +
						(size_t)tid * j->line);
		*b = *a + 1;
		break;
	}
}

static void lay_body(void *arg, int tid, int round)
{
	struct lay_job *j = arg;
	volatile unsigned long *a, *b;

	(void)round;
	locate(j, tid, &a, &b);
	*a = 0;
	*b = 0;
	/*
	 * two volatile read-modify-writes: every operation writes the lines;
	 * the progress is marked every VL_MARK operations (the round's work
	 * is every thread's operations)
	 */
	for (uint64_t k = 0; k < j->ops; k += VL_MARK) {
		uint64_t end = j->ops - k < VL_MARK ? j->ops : k + VL_MARK;
		for (uint64_t i = k; i < end; i++) {
			*a = *a + 1;
			*b = *b + i;
		}
		team_mark((double)end);
	}
	j->got[tid][0] = *a;
	j->got[tid][1] = *b;
}

static int lay_check(void *arg)
{
	const struct lay_job *j = arg;
	unsigned long n = (unsigned long)j->ops;
	unsigned long sum = n % 2 ? (n - 1) / 2 * n : n / 2 * (n - 1);

	for (int t = 0; t < j->nthreads; t++)
		if (j->got[t][0] != n || j->got[t][1] != sum)
			return -EIO;
	return 0;
}

static size_t footprint(enum vl_layout l, size_t line)
{
	if (l == LAY_PADDED)
		return 2 * line;
	if (l == LAY_GROUPED)
		return line;
	return 2 * sizeof(unsigned long);
}

/* Measures layout l with j's threads: its time and its footprint. */
static int run_layout(struct run_ctx *ctx, const struct vl_state *st,
		      struct lay_job *j, enum vl_layout l, double *t)
{
	struct team_job job = {.nthreads = st->n,
			       .cpus = st->cpus,
			       .arg = j,
			       .body = lay_body,
			       .check = lay_check,
			       .spin = 1,
			       .together = 1,
			       .work = (double)st->n * (double)j->ops};
	struct team_result res;
	char label[64];
	int rc;

	j->layout = l;
	vl_label(label, sizeof(label), VL_LAYOUTS, layout_names[l]);
	sink_progress(ctx->sink, l, VL_STEPS, label);
	rc = team_points_run(ctx, &job, &res, label, VL_WRONG);
	if (rc)
		return rc;
	*t = vl_emit(ctx, VL_LAYOUTS, VL_LAYOUTS_SERIES, l, layout_names[l],
		     &res, 1e9 / (double)j->ops, "ns", NULL, 0);
	sink_point(ctx->sink,
		   &(struct point){.chart = VL_FOOTPRINT,
				   .series = VL_FOOTPRINT_SERIES,
				   .x = l,
				   .x_label = layout_names[l],
				   .y = (double)footprint(l, j->line),
				   .unit = "B"});
	team_result_free(&res);
	return 0;
}

int vl_layouts_run(struct run_ctx *ctx, const void *state)
{
	const struct vl_params *vp = ctx->params;
	const struct vl_state *st = state;
	size_t line =
		(size_t)(ctx->topo->line_size > 0 ? ctx->topo->line_size : 64);
	size_t bytes = ((2 * (size_t)st->n * line) + 4095) & ~(size_t)4095;
	struct lay_job j = {
		.line = line, .ops = (uint64_t)vp->ops, .nthreads = st->n};
	double t[LAY_N] = {0};
	int rc = 0;

	j.heap = aligned_alloc(4096, bytes);
	j.got = calloc((size_t)st->n, sizeof(*j.got));
	if (!j.heap || !j.got) {
		rc = -ENOMEM;
		goto out;
	}
	memset(j.heap, 0, bytes);
	for (int l = 0; l < LAY_N && !rc; l++)
		rc = run_layout(ctx, st, &j, (enum vl_layout)l, &t[l]);
	if (!rc && t[LAY_GROUPED] > 0)
		sink_summary(ctx->sink, KEY_LAYOUT,
			     t[LAY_GLOBAL] / t[LAY_GROUPED], "x");
out:
	free(j.heap);
	free(j.got);
	return rc;
}

/* --- what the part showed --- */

/* The layouts beside the global array: __thread, and padding alone. */
static void say_others(const struct run_result *r, struct verdict *v,
		       const struct result_point *g,
		       const struct result_point *tl,
		       const struct result_point *pd,
		       const struct result_point *gr)
{
	double tol = experiment_precision(r->exp);
	const struct result_point *fp = vl_point(
		r, VL_FOOTPRINT, VL_FOOTPRINT_SERIES, layout_names[LAY_PADDED]);
	const struct result_point *fg =
		vl_point(r, VL_FOOTPRINT, VL_FOOTPRINT_SERIES,
			 layout_names[LAY_GROUPED]);
	struct comparison c2;

	if (tl) {
		compare_points(g, tl, tol, &c2);
		if (c2.rel == CMP_MORE)
			verdict_note(
				v, "info",
				"__thread variables avoided the false sharing too (%.1f ns against %.1f ns): each thread's copy lives in its own TLS block",
				tl->y, g->y);
	}
	if (pd && fp && fg) {
		compare_points(pd, gr, tol, &c2);
		verdict_note(
			v, "info",
			"grouping the two variables in one padded line took %.0f B per thread instead of %.0f B with each padded alone, and was %s",
			fg->y, fp->y,
			c2.rel == CMP_MORE   ? "faster"
			: c2.rel == CMP_LESS ? "slower"
			: c2.rel == CMP_SAME ? "as fast"
					     : "not told apart from it");
	}
}

/* The global array against the grouped, padded struct: the headline. */
void vl_layouts_say(const struct run_result *r, struct verdict *v, char *head,
		    size_t len)
{
	double tol = experiment_precision(r->exp);
	const struct result_point *g, *gr, *tl, *pd;
	struct comparison c;
	char why[VERDICT_TEXT_LEN], rt[64];

	g = vl_point(r, VL_LAYOUTS, VL_LAYOUTS_SERIES,
		     layout_names[LAY_GLOBAL]);
	tl = vl_point(r, VL_LAYOUTS, VL_LAYOUTS_SERIES, layout_names[LAY_TLS]);
	pd = vl_point(r, VL_LAYOUTS, VL_LAYOUTS_SERIES,
		      layout_names[LAY_PADDED]);
	gr = vl_point(r, VL_LAYOUTS, VL_LAYOUTS_SERIES,
		      layout_names[LAY_GROUPED]);
	if (!g || !gr)
		return;
	if (!vl_can_race(r, VL_LAYOUTS, layout_names[LAY_GLOBAL],
			 "false sharing in the global array", KEY_LAYOUT, v) ||
	    vl_contended(r, g, gr, KEY_LAYOUT,
			 "false sharing in the global array", &c, v, why,
			 sizeof(why)) == CONTEND_TOO_LITTLE)
		return;
	compare_ratio_text(&c, rt, sizeof(rt));
	if (c.rel == CMP_MORE) {
		snprintf(
			head, len,
			"a global array of counters made each update %s slower than a padded per-thread struct: neighbouring threads' counters shared a line%s%s",
			rt, why[0] ? "; " : "", why);
		verdict_note(
			v, "info",
			"global array %.1f ns, __thread %.1f ns, padded %.1f ns, grouped and padded %.1f ns per operation",
			g->y, tl ? tl->y : 0, pd ? pd->y : 0, gr->y);
	} else if (c.rel == CMP_SAME) {
		verdict_note(
			v, "warn",
			"the global array (%.1f ns) and the padded struct (%.1f ns) took the same time within %.0f%%: neighbouring counters in one line did not slow these threads",
			g->y, gr->y, 100 * tol);
	} else {
		verdict_note(
			v, "warn",
			"the global array (%.1f ns) and the padded struct (%.1f ns) could not be told apart: %s; ask for more ops or repeats",
			g->y, gr->y, why);
	}
	say_others(r, v, g, tl, pd, gr);
}

/* One layout shares its lines, the others do not. */
void vl_layouts_estimate(const void *params, const struct common_params *common,
			 const struct topo *t, double *seconds, uint64_t *bytes)
{
	struct vl_cost c;

	(void)bytes;
	vl_cost(params, common, t, &c);
	*seconds = c.rounds * c.ops * (c.shared + (LAY_N - 1) * c.alone) +
		   cost_teams_s(LAY_N);
}
