/* loaded.c - memory_latency's part loaded: ns per load while 0..loaders threads stream over memory of the same node */
#include <errno.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bw.h"
#include "chase.h"
#include "compare.h"
#include "stats.h"
#include "strbuf.h"
#include "team_points.h"
#include "units.h"
#include "workcost.h"

#include "ml.h"

/* What a loader streams between two looks at the stop flag. */
#define ML_LOAD_CHUNK (64u << 10)

static const char *const load_series[] = {"chase while others read",
					  "chase while others write"};

/* ---- measuring ---- */

struct load_job {
	void *pos;
	uint64_t loads;
	enum bw_op op;
	enum bw_isa isa;
	char **slice;
	size_t slice_bytes;
	int nloaders, rounds_most;
	_Atomic int stopped;  /* the last round (+1) whose chase has ended */
	double *bytes, *secs; /* per loader and round */
};

static void load_body(void *arg, int tid, int round)
{
	struct load_job *j = arg;
	double t0 = clock_now();

	if (tid == 0) {
		j->pos = chase_walk_marked(j->pos, j->loads);
		atomic_store(&j->stopped, round + 1);
		return;
	}
	char *p = j->slice[tid - 1];
	size_t off = 0;
	double moved = 0;
	while (atomic_load(&j->stopped) < round + 1) {
		bw_kernel_isa(j->isa, j->op, p + off, p + off, ML_LOAD_CHUNK,
			      0x1234);
		moved += ML_LOAD_CHUNK;
		off += ML_LOAD_CHUNK;
		team_mark(0); /* its bytes are not the round's work */
		if (off + ML_LOAD_CHUNK > j->slice_bytes)
			off = 0;
	}
	size_t k = (size_t)(tid - 1) * (size_t)j->rounds_most + (size_t)round;
	j->bytes[k] = moved;
	j->secs[k] = clock_now() - t0;
}

static void load_setup(void *arg, int tid)
{
	struct load_job *j = arg;

	if (tid > 0)
		bw_fill(j->slice[tid - 1], j->slice_bytes, 1);
}

void ml_plan_loaders(const struct topo *t, int node, int most, int *cpus)
{
	int n = 1;

	for (int pass = 0; pass < 2; pass++)
		for (int k = 0; k < t->npus && n <= most; k++) {
			const struct topo_pu *pu = &t->pu[k];
			int used = 0;
			for (int u = 0; u < n; u++)
				used |= cpus[u] == pu->os;
			if (pu->allowed && !used && (pass || pu->node == node))
				cpus[n++] = pu->os;
		}
}

/* What a loaded run holds: the chased buffer and the loaders' own. */
struct load_bufs {
	struct chase_buf chase, load;
	char *slices[PARAM_MAX_LIST];
};

/*
 * The chain over the chased buffer, and a slice of the loaders' buffer
 * for each of most loaders, both on mem_node. Returns 0 or -errno.
 */
static int load_buffers(struct run_ctx *ctx, int most, struct load_bufs *b,
			struct load_job *j)
{
	const struct ml_params *mp = ctx->params;
	size_t size = (size_t)mp->size;
	int rc = ml_buf_alloc(ctx, (int)mp->mem_node, size, &b->chase);

	if (rc)
		return rc;
	rc = chase_build(b->chase.use.base, size, (size_t)mp->stride,
			 (size_t)mp->locality, 0x5eed);
	if (rc)
		return rc;
	ml_verify_on(ctx, &b->chase.use, (int)mp->mem_node);
	ml_say_pages(ctx, ml_huge_share(&b->chase, size));
	j->slice = b->slices;
	j->pos = b->chase.use.base;
	if (!most)
		return 0;
	rc = ml_buf_alloc(ctx, (int)mp->mem_node, size, &b->load);
	if (rc)
		return rc;
	j->slice_bytes = bw_split(b->load.use.base, size, most, b->slices) /
			 ML_LOAD_CHUNK * ML_LOAD_CHUNK;
	if (j->slice_bytes >= ML_LOAD_CHUNK)
		return 0;
	sink_note(
		ctx->sink, "warn",
		"size is too small to give each of %d loaders %u KiB of its own",
		most, ML_LOAD_CHUNK >> 10);
	return -EINVAL;
}

/* Each kept round of a run with l loaders: ns per load, and the GB/s
 * its loaders streamed together. */
static void load_rounds(const struct load_job *j, const struct team_result *res,
			int l, double *ns, double *gbps)
{
	for (int r = 0; r < res->rounds; r++) {
		int round = res->round[r];
		/* the round's time over the stretches the chase and its
		 * loaders were all on a cpu */
		ns[r] = res->seconds[r] * 1e9 / (double)j->loads;
		for (int q = 0; q < l; q++) {
			size_t k = (size_t)q * (size_t)j->rounds_most +
				   (size_t)round;
			if (j->secs[k] > 0)
				gbps[r] += j->bytes[k] / j->secs[k] / 1e9;
		}
	}
}

/*
 * The chase beside l loaders, for the run's rounds: its point, and its
 * median ns per load and the loaders' GB/s through *y and *x. Returns 0
 * or -errno.
 */
static int load_point(struct run_ctx *ctx, struct load_job *j, int *cpus, int l,
		      double *x, double *y)
{
	const struct ml_params *mp = ctx->params;
	struct team_job job = {.nthreads = 1 + l,
			       .cpus = cpus,
			       .arg = j,
			       .setup = load_setup,
			       .body = load_body,
			       .spin = l > 0,
			       .rounds_most = j->rounds_most,
			       .work = (double)j->loads};
	struct team_result res;
	char what[96];
	int most = (int)mp->loaders, rc;

	j->nloaders = l;
	atomic_store(&j->stopped, 0);
	snprintf(what, sizeof(what), "chase beside %d loader%s", l,
		 l == 1 ? "" : "s");
	sink_progress(ctx->sink, l, most + 1, what);
	rc = team_points_run(ctx, &job, &res, what, NULL);
	if (rc)
		return rc;
	double *ns = calloc((size_t)res.rounds + 1, sizeof(double));
	double *gbps = calloc((size_t)res.rounds + 1, sizeof(double));
	if (!ns || !gbps) {
		rc = -ENOMEM;
		goto out;
	}
	load_rounds(j, &res, l, ns, gbps);
	const char *keys[2] = {"loaders", "overlap"};
	double vals[2] = {l, team_overlap_median(&res)};
	struct point p = {.chart = CH_LOADED,
			  .series = load_series[mp->load],
			  .x = stats_median(gbps, res.rounds),
			  .y = stats_median(ns, res.rounds),
			  .unit = "ns",
			  .samples = ns,
			  .nsamples = res.rounds,
			  .extra_keys = keys,
			  .extra_vals = vals,
			  .nextra = 2};
	sink_point(ctx->sink, &p);
	*x = p.x;
	*y = p.y;
out:
	free(ns);
	free(gbps);
	team_result_free(&res);
	return rc;
}

/* The chase's cpu and the loaders', and a word when there are few.
 * Returns 0 or -EINVAL. */
static int load_cpus(struct run_ctx *ctx, int most, int *cpus)
{
	const struct ml_params *mp = ctx->params;
	const struct topo *t = ctx->topo;
	struct errinfo err;

	if (ml_cpu_of_node(t, (int)mp->cpu_node, 1, cpus, &err)) {
		sink_note(ctx->sink, "warn", "%s", err.msg);
		return -EINVAL;
	}
	ml_plan_loaders(t, (int)mp->cpu_node, most, cpus);
	if (t->nallowed - 1 < ML_LOADERS_DEFAULT)
		sink_note(
			ctx->sink, "info",
			"this process may use %d cpus: one chases, so the curve has at most %d loader%s beside it, not the many a loaded-latency curve needs to saturate the memory bus",
			t->nallowed, t->nallowed - 1,
			t->nallowed - 1 == 1 ? "" : "s");
	return 0;
}

int ml_loaded_run(struct run_ctx *ctx, const void *state)
{
	const struct ml_params *mp = ctx->params;
	int most = (int)mp->loaders, rc, cpus[PARAM_MAX_LIST];
	int rounds_most = team_points_rounds_most(ctx);
	struct load_bufs b = {0};
	struct load_job j = {.loads = (uint64_t)mp->loads,
			     .op = mp->load == LOAD_WRITE ? BW_WRITE : BW_READ,
			     .isa = bw_isa_best(),
			     .rounds_most = rounds_most};
	double idle = 0, last = 0, last_gbps = 0;

	(void)state;
	if ((rc = load_cpus(ctx, most, cpus)))
		return rc;
	rc = load_buffers(ctx, most, &b, &j);
	if (rc)
		goto out;
	j.bytes = calloc((size_t)(most + 1) * (size_t)rounds_most,
			 sizeof(double));
	j.secs = calloc((size_t)(most + 1) * (size_t)rounds_most,
			sizeof(double));
	if (!j.bytes || !j.secs) {
		rc = -ENOMEM;
		goto out;
	}
	for (int l = 0; l <= most && !rc; l++) {
		rc = load_point(ctx, &j, cpus, l, &last_gbps, &last);
		if (!rc && l == 0)
			idle = last;
	}
	if (rc)
		goto out;
	sink_progress(ctx->sink, most + 1, most + 1, "done");
	sink_summary(ctx->sink, KEY_IDLE, idle, "ns");
	if (most) {
		sink_summary(ctx->sink, KEY_LOADED, last, "ns");
		sink_summary(ctx->sink, KEY_LOAD_GBPS, last_gbps, "GB/s");
		if (idle > 0)
			sink_summary(ctx->sink, KEY_LOAD_RATIO, last / idle,
				     "x");
	}
out:
	free(j.bytes);
	free(j.secs);
	nmem_free(&b.chase.map);
	nmem_free(&b.load.map);
	return rc;
}

void ml_loaded_estimate(const void *params, const struct common_params *common,
			const struct topo *t, double *seconds, uint64_t *bytes)
{
	const struct ml_params *mp = params;
	double rounds = cost_rounds(common);
	double size = (double)mp->size;
	/* each point: the chase, slowed by the loaders sharing the memory,
	 * and the loaders' first touch of their buffer */
	double l = (double)mp->loaders + 1;

	*seconds =
		ml_build_s(t, size, (double)mp->stride) +
		(mp->loaders ? cost_touch_s(t, size, 1) : 0) +
		l * (cost_teams_s(1) +
		     rounds * cost_chase_s(t, size, (double)mp->loads) * 1.5);
	*bytes = (uint64_t)(size * (mp->loaders ? 2.0625 : 1.0625)) +
		 4 * ML_HUGE;
}

/* ---- what a run showed ---- */

/* The point with no loader beside the chase and the one with the most
 * (most of them), NULL when there is none. */
static void loaded_ends(const struct run_result *r,
			const struct result_point **idle,
			const struct result_point **top, double *most)
{
	double l;

	*idle = *top = NULL;
	*most = -1;
	for (int i = 0; i < r->npoints; i++) {
		const struct result_point *p = &r->points[i];
		if (strcmp(p->chart, CH_LOADED) ||
		    result_point_extra(p, "loaders", &l))
			continue;
		if (l == 0)
			*idle = p;
		if (l > *most) {
			*most = l;
			*top = p;
		}
	}
}

static void describe_loaded(const struct run_result *r, struct strbuf *sb,
			    struct verdict *v)
{
	const struct result_point *idle, *top;
	double most;
	struct comparison c;
	char ratio[96], a[32], gbps[32], ns[32];

	loaded_ends(r, &idle, &top, &most);
	if (!idle)
		return;
	units_number(idle->y, a, sizeof(a));
	strbuf_addf(sb, "idle %s ns per load", a);
	if (!top || top == idle) {
		strbuf_addstr(sb, " (no loader ran beside the chase)");
		return;
	}
	units_number(top->x, gbps, sizeof(gbps));
	units_number(top->y, ns, sizeof(ns));
	compare_points(top, idle, experiment_precision(r->exp), &c);
	compare_state_interval(v, KEY_LOAD_RATIO, &c);
	if (c.rel == CMP_MORE || c.rel == CMP_LESS || c.rel == CMP_SAME) {
		strbuf_addf(
			sb,
			"; with %.0f loader%s streaming %s GB/s, %s ns (%s%s)",
			most, most == 1 ? "" : "s", gbps, ns,
			compare_ratio_text(&c, ratio, sizeof(ratio)),
			c.rel == CMP_MORE   ? " as long"
			: c.rel == CMP_SAME ? ", no change within the precision"
					    : " as long: shorter under load");
	} else {
		char why[VERDICT_TEXT_LEN];
		snprintf(why, sizeof(why),
			 "loaded latency was not told from idle: %s",
			 compare_why_not(&c));
		strbuf_addf(sb, "; with %.0f loader%s, %s ns (%s)", most,
			    most == 1 ? "" : "s", ns, why);
		verdict_qualify(v, KEY_LOAD_RATIO, VERDICT_DISOWNED, "%s", why);
	}
}

void ml_loaded_say(const struct run_result *r, struct verdict *v, char *head,
		   size_t len)
{
	ml_say_part(r, describe_loaded, v, head, len);
}
