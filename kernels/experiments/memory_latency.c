/* memory_latency.c - ns per dependent load: node by node, by working-set size, and under the load of streaming threads */
#include <errno.h>
#include <math.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bw.h"
#include "chase.h"
#include "compare.h"
#include "experiment.h"
#include "mem_size.h"
#include "node_mem.h"
#include "numa_mem.h"
#include "pair_plan.h"
#include "plan_view.h"
#include "stats.h"
#include "strbuf.h"
#include "team_points.h"
#include "workcost.h"

enum ml_mode { ML_NODES, ML_SIZES, ML_LOADED };
static const struct param_choice modes[] = {
	{"nodes", ML_NODES}, {"sizes", ML_SIZES}, {"loaded", ML_LOADED}, {0}};
enum ml_load { LOAD_READ, LOAD_WRITE };
static const struct param_choice load_ops[] = {
	{"read", LOAD_READ}, {"write", LOAD_WRITE}, {0}};
enum ml_pages { PAGES_HUGE, PAGES_SMALL };
static const struct param_choice page_kinds[] = {
	{"huge", PAGES_HUGE}, {"small", PAGES_SMALL}, {0}};
static const struct param_choice cell_modes[] = {
	{"full", CELLS_FULL}, {"by_distance", CELLS_BY_DISTANCE}, {0}};

struct ml_params {
	int mode;
	int64_t size;
	struct int_list nodes;
	int cells;
	int64_t cpu_node, mem_node;
	int64_t loaders;
	int load;
	int64_t loads;
	int pages;
	int64_t stride, locality;
};

/* Up to this many nodes the default measures every cell, as
 * remote_bandwidth. */
#define ML_FULL_UP_TO 8
/* Distance ranks summarised: 0 local, 1 the nearest remote distance, ... */
#define ML_RANKS 8
/* Where a huge page starts: buffers are aligned to it so that every size
 * of the sweep can sit on one. */
#define ML_HUGE (2u << 20)
/* What a loader streams between two looks at the stop flag. */
#define ML_LOAD_CHUNK (64u << 10)
/* The most loaders the default asks for. */
#define ML_LOADERS_DEFAULT 4

static void cells_default(const struct topo *t, char *buf, size_t len)
{
	snprintf(buf, len, "%s",
		 t->nnodes <= ML_FULL_UP_TO ? "full" : "by_distance");
}

static void first_node(const struct topo *t, char *buf, size_t len)
{
	snprintf(buf, len, "%d", t->nnodes ? t->node[0].os : 0);
}

static void loaders_default(const struct topo *t, char *buf, size_t len)
{
	int n = t->nallowed - 1;

	snprintf(buf, len, "%d",
		 n < 0			  ? 0
		 : n > ML_LOADERS_DEFAULT ? ML_LOADERS_DEFAULT
					  : n);
}

#define PARAM_STRUCT struct ml_params
static const struct param params[] = {
	PARAM_ENUM(
		mode, "nodes", modes,
		"nodes: the node x node matrix of ns per load; sizes: ns per load against the working set, from 8K to size; loaded: ns per load while 0..loaders threads stream over memory of mem_node"),
	PARAM_SIZE(
		size, "64M", CHASE_MIN_BYTES, 1LL << 40, "bytes",
		"the buffer chased (nodes, loaded) and the largest working set of the sweep (sizes), a multiple of 4K; " MEM_DEFAULT_HELP,
		.flags = PARAM_F_MEMORY),
	PARAM_NODELIST(
		nodes, "", 0, NMEM_MAX_NODE - 1,
		"mode=nodes: the nodes of the matrix (e.g. 0-3); empty: every node",
		.only = "mode=nodes"),
	PARAM_ENUM(
		cells, "full", cell_modes,
		"mode=nodes: full: every (cpu node, memory node) cell; by_distance: 3 cells of each numa distance; default: full up to 8 nodes, by_distance above",
		.machine_def = cells_default, .only = "mode=nodes"),
	PARAM_INT(cpu_node, "0", 0, NMEM_MAX_NODE - 1, "node",
		  "mode=sizes, loaded: the node whose cpu chases",
		  .machine_def = first_node, .only = "mode=sizes,loaded"),
	PARAM_INT(
		mem_node, "0", 0, NMEM_MAX_NODE - 1, "node",
		"mode=sizes, loaded: the node the chased buffer (and the loaders' buffer) is bound to",
		.machine_def = first_node, .only = "mode=sizes,loaded"),
	PARAM_INT(
		loaders, "1", 0, 1023, "threads",
		"mode=loaded: the most threads streaming beside the chase (the curve runs 0..loaders), each on a cpu of its own; default: the cpus left, at most 4",
		.machine_def = loaders_default, .only = "mode=loaded"),
	PARAM_ENUM(load, "read", load_ops,
		   "mode=loaded: what the loaders stream: read or write",
		   .only = "mode=loaded"),
	PARAM_INT(
		loads, "1048576", 1024, 1LL << 36, "loads",
		"dependent loads per round; a round continues the chain where the last one stopped"),
	PARAM_SIZE(
		stride, "256", 16, CHASE_PAGE / 2, "bytes",
		"the distance between two nodes of the chain, a power of two: 256 (multichase's default) puts the next node outside the line a load brings and its adjacent-line prefetcher's pair; 64 lets that prefetcher help, as a line-by-line chain does"),
	PARAM_INT(
		locality, "64", 0, 1 << 20, "pages",
		"the 4 KiB pages the chain stays within until it has visited each node of them (multichase's TLB locality, default 64: a first-level TLB covers them); 0: fully random over the whole buffer, TLB misses included"),
	PARAM_ENUM(
		pages, "huge", page_kinds,
		"huge: ask for 2 MiB pages (transparent huge pages), so TLB misses stay out of the figure; small: 4 KiB pages. The run says which it got"),
	{0}};

#define CH_LAT "latency"
#define CH_RATIO "ratio"
#define CH_DIST "distance"
#define CH_SIZES "sizes"
#define CH_LOADED "loaded"

static const struct chart charts[] = {
	CHART(CH_LAT, CHART_HEATMAP,
	      "ns per load: the chasing thread on the row's node, the buffer on the column's",
	      "memory node", "CPU node"),
	CHART(CH_RATIO, CHART_HEATMAP,
	      "Each cell over the local cell of its row (×)", "memory node",
	      "CPU node"),
	CHART(CH_DIST, CHART_HEATMAP,
	      "The firmware's distance (SLIT) between the two nodes",
	      "memory node", "CPU node"),
	CHART(CH_SIZES, CHART_LINE,
	      "ns per load by working-set size, the cache sizes marked",
	      "working set (bytes)", "ns per load", .log_x = 1, .log_y = 1,
	      .marks = "L* cache"),
	CHART(CH_LOADED, CHART_LINE,
	      "ns per load while other threads stream (MLC's loaded latency)",
	      "GB/s streamed by the loaders", "ns per load"),
	{0}};

#define KEY_LOCAL "local_ns"
#define KEY_REMOTE "remote_ns"
#define KEY_RATIO "remote_over_local"
#define KEY_RANK "rank_%d_ns"
#define KEY_RANK_DIST "rank_%d_distance"
#define KEY_OFF "pages_off_node%d"
#define KEY_ON "pages_on_node%d"
#define KEY_HUGE "huge_page_share"
#define KEY_SMALLEST "smallest_ns"
#define KEY_LARGEST "largest_ns"
#define KEY_STEP "largest_over_smallest"
#define KEY_IDLE "idle_ns"
#define KEY_LOADED "loaded_ns"
#define KEY_LOAD_RATIO "loaded_over_idle"
#define KEY_LOAD_GBPS "loaders_gbps"
#define SERIES_CHASE "chase"

static const char *const summary_keys[] = {"local_ns",
					   "remote_ns",
					   "remote_over_local",
					   "rank_*_ns",
					   "rank_*_distance",
					   "pages_off_node*",
					   "pages_on_node*",
					   "huge_page_share",
					   "smallest_ns",
					   "largest_ns",
					   "largest_over_smallest",
					   "idle_ns",
					   "loaded_ns",
					   "loaded_over_idle",
					   "loaders_gbps",
					   NULL};

static const char *const load_series[] = {"chase while others read",
					  "chase while others write"};

/* The series of the cache marks: one point at each level's size. */
static const char *const cache_series[] = {NULL, "L1 cache", "L2 cache",
					   "L3 cache"};

/* ---- checks ---- */

static int size_ok(const struct ml_params *mp, struct errinfo *err)
{
	if (mp->stride & (mp->stride - 1)) {
		snprintf(err->field, sizeof(err->field), "stride");
		snprintf(
			err->msg, sizeof(err->msg),
			"stride %lld is not a power of two (allowed: 16, 32, 64, ... 2048 bytes): a page must hold whole nodes",
			(long long)mp->stride);
		return -EINVAL;
	}
	if (mp->size % CHASE_PAGE == 0)
		return 0;
	snprintf(err->field, sizeof(err->field), "size");
	snprintf(
		err->msg, sizeof(err->msg),
		"size %lld is not a multiple of 4K (4096 bytes): the chain is built page by page",
		(long long)mp->size);
	return -EINVAL;
}

static int ml_check(const void *params, const struct common_params *common,
		    const struct topo *t, struct errinfo *err)
{
	const struct ml_params *mp = params;
	uint64_t need = (uint64_t)mp->size + 2 * ML_HUGE;
	int32_t nodes[TOPO_MAX_NODES], cn = (int32_t)mp->cpu_node,
				       mn = (int32_t)mp->mem_node;
	int n, rc;

	(void)common;
	if ((rc = size_ok(mp, err)))
		return rc;
	if (!t)
		return 0;
	if (!nmem_caps()->policy && t->nnodes > 1) {
		snprintf(err->field, sizeof(err->field),
			 mp->mode == ML_NODES ? "nodes" : "mem_node");
		snprintf(err->msg, sizeof(err->msg),
			 "binding memory to a node is not allowed here (%s)",
			 nmem_caps()->why);
		return -EINVAL;
	}
	/* named in every mode: a node the machine lacks is refused */
	if ((rc = topo_check_nodes(t, &cn, 1, "cpu_node", 0, 1, err)) ||
	    (rc = topo_check_nodes(t, &mn, 1, "mem_node", 1, 0, err)))
		return rc;
	if (mp->mode == ML_NODES) {
		if ((rc = topo_check_nodes(t, mp->nodes.v, mp->nodes.n, "nodes",
					   0, 0, err)))
			return rc;
		n = topo_matrix_nodes(t, mp->nodes.v, mp->nodes.n, nodes);
		for (int i = 0; i < n; i++)
			if (topo_node_has_memory(t, nodes[i]) &&
			    (rc = topo_check_free(t, &nodes[i], 1, need, "size",
						  err)))
				return rc;
		return 0;
	}

	if (mp->mode == ML_LOADED) {
		if (mp->loaders + 1 > t->nallowed) {
			snprintf(err->field, sizeof(err->field), "loaders");
			snprintf(
				err->msg, sizeof(err->msg),
				"loaders=%lld needs %lld cpus (one for the chase, one per loader), this process may use %d: at most loaders=%d",
				(long long)mp->loaders,
				(long long)mp->loaders + 1, t->nallowed,
				t->nallowed - 1);
			return -EINVAL;
		}
		if (mp->loaders)
			need *= 2;
	}
	return topo_check_free(t, &mn, 1, need, "size", err);
}

/* ---- measuring ---- */

/* A buffer bound to a node, its chain over the first len bytes. */
struct chase_buf {
	struct nmem_buf map; /* as mapped: ML_HUGE more than asked */
	struct nmem_buf use; /* the aligned part the chain lives in */
};

static int buf_alloc(struct run_ctx *ctx, int node, size_t len,
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

	rc = nmem_alloc_on(ctx->sink, ctx->topo, node, whole + ML_HUGE, thp,
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

/* The share of the chain's bytes on huge pages; -1 when unknown. */
static double huge_share(const struct chase_buf *cb, size_t len)
{
	long long h = chase_huge_bytes(cb->use.base, len);

	if (h < 0)
		return -1;
	return (double)(h > (long long)len ? (long long)len : h) / (double)len;
}

static void say_pages(struct run_ctx *ctx, double share)
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

/* Checks where the chain's pages are: summary keys per node, a warning
 * when some are elsewhere. */
static void verify_on(struct run_ctx *ctx, const struct nmem_buf *b, int node)
{
	size_t on = 0, off = 0;
	char key[48];

	if (!nmem_caps()->move_pages || nmem_count_on(b, node, &on, &off))
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

/*
 * Chases from pos on cpu for the run's rounds: ns per load of each kept
 * round into *ns (rounds of them, to free), their median returned
 * through *median. Returns 0 or -errno.
 */
static int chase_rounds(struct run_ctx *ctx, int cpu, void *pos,
			const char *label, double **ns, int *rounds,
			double *median)
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

/* The first cpu of node, by the plan every experiment uses. */
static int cpu_of_node(const struct topo *t, int node, int n, int *cpus,
		       char *msg, size_t len)
{
	int32_t nd = node;

	return topo_plan_nodes(t, PLACE_SPREAD, &nd, 1, n, cpus, msg, len);
}

/* ---- mode nodes ---- */

struct cell_keep {
	double *ns;
	int n;
	double median;
};

static void emit_cell(struct run_ctx *ctx, const char *chart, int row, int col,
		      const char *rl, const char *cl, double value,
		      const double *samples, int n, const char *unit,
		      const char *note)
{
	struct cell c = {.chart = chart,
			 .row = row,
			 .col = col,
			 .row_label = rl,
			 .col_label = cl,
			 .value = value,
			 .unit = unit,
			 .samples = samples,
			 .nsamples = n,
			 .note = note};
	sink_cell(ctx->sink, &c);
}

static int run_nodes(struct run_ctx *ctx)
{
	const struct topo *t = ctx->topo;
	const struct ml_params *mp = ctx->params;
	size_t size = (size_t)mp->size;
	int32_t nodes[TOPO_MAX_NODES];
	int n = topo_matrix_nodes(t, mp->nodes.v, mp->nodes.n, nodes);
	int dim = n; /* the matrix measured: one node's is 1x1 */
	struct cell_plan plan = {0};
	struct cell_keep *keep = NULL;
	signed char *rank = NULL;
	unsigned char *want = NULL;
	char labels[TOPO_MAX_NODES][48];
	struct errinfo err = {0};
	struct machine_facts mf;
	double rsum[ML_RANKS + 1] = {0}, lsum = 0, osum = 0;
	int rdist[ML_RANKS + 1] = {0}, rn[ML_RANKS + 1] = {0}, ln = 0, on = 0;
	int list[TOPO_MAX_NODES], rc, step = 0, steps = 0, pages_said = 0;

	machine_facts_from_topo(t, &mf);
	for (int i = 0; i < n; i++)
		list[i] = nodes[i];
	rc = cell_plan_make(t, list, n, (enum cells_mode)mp->cells, 0, &plan,
			    &err);
	if (rc) {
		if (err.msg[0])
			sink_note(ctx->sink, "warn", "no plan of cells: %s",
				  err.msg);
		return rc;
	}
	keep = calloc((size_t)dim * (size_t)dim, sizeof(*keep));
	rank = calloc((size_t)dim * (size_t)dim, 1);
	want = calloc((size_t)dim * (size_t)dim, 1);
	if (!keep || !rank || !want) {
		rc = -ENOMEM;
		goto out;
	}
	for (int c = 0; c < plan.ncells; c++) {
		int k = plan.cell[c].row * dim + plan.cell[c].col,
		    r = plan.cls[plan.cell[c].cls].rank;
		want[k] = 1;
		rank[k] = (signed char)(r < ML_RANKS ? r : ML_RANKS);
		if (r < ML_RANKS)
			rdist[r] = plan.cls[plan.cell[c].cls].distance;
		steps++;
	}
	for (int i = 0; i < n; i++)
		snprintf(labels[i], sizeof(labels[i]), "node %d%s", nodes[i],
			 mem_from_cache(&mf, (uint64_t)size) ? " (from cache)"
							     : "");
	if (mp->cells == CELLS_BY_DISTANCE && n > 1)
		sink_note(
			ctx->sink, "info",
			"by_distance: %d of the %d cells are measured, a few of each distance between the nodes; the others stay empty",
			plan.ncells, dim * dim);

	for (int j = 0; j < n && !rc; j++) {
		struct chase_buf cb;
		int any = 0;

		for (int i = 0; i < n; i++)
			any |= want[i * dim + j];
		if (!any || !topo_node_has_memory(t, nodes[j]))
			continue;
		rc = buf_alloc(ctx, nodes[j], size, &cb);
		if (rc)
			break;
		/* bound to the column's node: the binding, not the toucher,
		 * places the pages */
		rc = chase_build(cb.use.base, size, (size_t)mp->stride,
				 (size_t)mp->locality, 0x5eed + (uint64_t)j);
		if (!rc) {
			verify_on(ctx, &cb.use, nodes[j]);
			if (!pages_said++)
				say_pages(ctx, huge_share(&cb, size));
		}
		for (int i = 0; i < n && !rc; i++) {
			int cpu, k = i * dim + j;
			char msg[PARAM_ERR_LEN], what[96];
			struct cell_keep *ck = &keep[k];

			if (!want[k])
				continue;
			if (cpu_of_node(t, nodes[i], 1, &cpu, msg,
					sizeof(msg))) {
				emit_cell(
					ctx, CH_LAT, i, j, labels[i], labels[j],
					NAN, NULL, 0, "ns",
					"node has no cpu this process may use");
				continue;
			}
			snprintf(what, sizeof(what),
				 "chase: cpu of node %d, memory of node %d",
				 nodes[i], nodes[j]);
			sink_progress(ctx->sink, step++, steps, what);
			rc = chase_rounds(ctx, cpu, cb.use.base, what, &ck->ns,
					  &ck->n, &ck->median);
			if (rc)
				break;
			emit_cell(ctx, CH_LAT, i, j, labels[i], labels[j],
				  ck->median, ck->ns, ck->n, "ns", NULL);
			if (rank[k] >= 0 && rank[k] < ML_RANKS) {
				rsum[rank[k]] += ck->median;
				rn[rank[k]]++;
			}
			if (i == j) {
				lsum += ck->median;
				ln++;
			} else {
				osum += ck->median;
				on++;
			}
		}
		nmem_free(&cb.map);
	}
	if (rc)
		goto out;
	sink_progress(ctx->sink, steps, steps, "done");
	/* the ratio to the local cell of each row, and the firmware's
	 * distance, beside every measured cell */
	for (int i = 0; i < n; i++) {
		const struct cell_keep *l = &keep[i * dim + i];
		int a = topo_node_index(t, nodes[i]);
		for (int j = 0; j < n; j++) {
			const struct cell_keep *ck = &keep[i * dim + j];
			int b = topo_node_index(t, nodes[j]);
			double d = a >= 0 && b >= 0 ? t->distance[a][b] : 0;
			if (!want[i * dim + j])
				continue;
			if (d > 0)
				emit_cell(ctx, CH_DIST, i, j, labels[i],
					  labels[j], d, &d, 1, "SLIT", NULL);
			if (!ck->n)
				continue;
			if (!l->n || l->median <= 0) {
				emit_cell(
					ctx, CH_RATIO, i, j, labels[i],
					labels[j], NAN, NULL, 0, "×",
					"the local cell of this row was not measured");
				continue;
			}
			double *rv = calloc((size_t)ck->n + 1, sizeof(double));
			if (!rv) {
				rc = -ENOMEM;
				goto out;
			}
			for (int r = 0; r < ck->n; r++)
				rv[r] = ck->ns[r] / l->median;
			emit_cell(ctx, CH_RATIO, i, j, labels[i], labels[j],
				  ck->median / l->median, rv, ck->n, "×", NULL);
			free(rv);
		}
	}
	if (ln)
		sink_summary(ctx->sink, KEY_LOCAL, lsum / ln, "ns");
	if (ln && on) {
		sink_summary(ctx->sink, KEY_REMOTE, osum / on, "ns");
		sink_summary(ctx->sink, KEY_RATIO, (osum / on) / (lsum / ln),
			     "x");
	}
	for (int r = 1; r < ML_RANKS && on; r++) {
		char key[48];
		if (!rn[r])
			continue;
		snprintf(key, sizeof(key), KEY_RANK, r);
		sink_summary(ctx->sink, key, rsum[r] / rn[r], "ns");
		if (rdist[r] > 0) {
			snprintf(key, sizeof(key), KEY_RANK_DIST, r);
			sink_summary(ctx->sink, key, rdist[r], "SLIT");
		}
	}
	if (rn[0] && rdist[0] > 0 && on) {
		char key[48];
		snprintf(key, sizeof(key), KEY_RANK_DIST, 0);
		sink_summary(ctx->sink, key, rdist[0], "SLIT");
	}
out:
	for (int k = 0; keep && k < dim * dim; k++)
		free(keep[k].ns);
	free(keep);
	free(rank);
	free(want);
	cell_plan_free(&plan);
	return rc;
}

/* ---- mode sizes ---- */

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

#define ML_MOST_SIZES 96

static int run_sizes(struct run_ctx *ctx)
{
	const struct topo *t = ctx->topo;
	const struct ml_params *mp = ctx->params;
	uint64_t sizes[ML_MOST_SIZES];
	double med[ML_MOST_SIZES] = {0};
	int n = sweep_sizes((uint64_t)mp->size, sizes, ML_MOST_SIZES);
	struct chase_buf cb;
	struct machine_facts mf;
	int cpu, rc;
	char msg[PARAM_ERR_LEN], label[96];

	machine_facts_from_topo(t, &mf);
	if (cpu_of_node(t, (int)mp->cpu_node, 1, &cpu, msg, sizeof(msg))) {
		sink_note(ctx->sink, "warn", "%s", msg);
		return -EINVAL;
	}
	rc = buf_alloc(ctx, (int)mp->mem_node, (size_t)mp->size, &cb);
	if (rc)
		return rc;
	snprintf(label, sizeof(label),
		 "chase: cpu of node %d, memory of node %d", (int)mp->cpu_node,
		 (int)mp->mem_node);
	for (int k = 0; k < n && !rc; k++) {
		double *ns = NULL, share;
		int rounds = 0;
		char what[96], sz[32];

		mem_size_text(sizes[k], sz, sizeof(sz));
		snprintf(what, sizeof(what), "chase over %s", sz);
		sink_progress(ctx->sink, k, n, what);
		rc = chase_build(cb.use.base, (size_t)sizes[k],
				 (size_t)mp->stride, (size_t)mp->locality,
				 0x5eed + (uint64_t)k);
		if (rc)
			break;
		share = huge_share(&cb, (size_t)sizes[k]);
		rc = chase_rounds(ctx, cpu, cb.use.base, k ? NULL : label, &ns,
				  &rounds, &med[k]);
		if (rc)
			break;
		const char *keys[2] = {"from_cache", "huge_page_share"};
		double vals[2] = {mem_from_cache(&mf, sizes[k]),
				  share < 0 ? 0 : 100 * share};
		struct point p = {.chart = CH_SIZES,
				  .series = SERIES_CHASE,
				  .x = (double)sizes[k],
				  .y = med[k],
				  .unit = "ns",
				  .samples = ns,
				  .nsamples = rounds,
				  .extra_keys = keys,
				  .extra_vals = vals,
				  .nextra = share < 0 ? 1 : 2};
		sink_point(ctx->sink, &p);
		free(ns);
		if (k == n - 1) {
			verify_on(ctx, &cb.use, (int)mp->mem_node);
			say_pages(ctx, share);
		}
	}
	nmem_free(&cb.map);
	if (rc)
		return rc;
	sink_progress(ctx->sink, n, n, "done");
	/* each cache level at its size, on the curve: the latency of the
	 * largest working set that still fits in one instance */
	for (int level = 1; level <= 3; level++) {
		uint64_t csize = 0;
		int at = -1;
		for (int c = 0; c < t->ncaches; c++)
			if (t->cache[c].level == level && t->cache[c].size)
				csize = t->cache[c].size;
		for (int k = 0; k < n && csize; k++)
			if (sizes[k] <= csize)
				at = k;
		/* a level no sweep size reaches (or a hypervisor's invented
		 * one) is not marked */
		if (at < 0 || csize > sizes[n - 1])
			continue;
		sink_xy(ctx->sink, CH_SIZES, cache_series[level], (double)csize,
			med[at], "ns");
	}
	sink_summary(ctx->sink, KEY_SMALLEST, med[0], "ns");
	sink_summary(ctx->sink, KEY_LARGEST, med[n - 1], "ns");
	if (med[0] > 0)
		sink_summary(ctx->sink, KEY_STEP, med[n - 1] / med[0], "x");
	return 0;
}

/* ---- mode loaded ---- */

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

/*
 * cpus[1..most]: an allowed cpu each for the loaders, other than the
 * chase's cpus[0]: the chasing node's first, then any other. The check
 * made sure there are enough.
 */
static void plan_loaders(const struct topo *t, int node, int most, int *cpus)
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

static int run_loaded(struct run_ctx *ctx)
{
	const struct topo *t = ctx->topo;
	const struct ml_params *mp = ctx->params;
	int most = (int)mp->loaders, rc, cpus[PARAM_MAX_LIST];
	int rounds_most = team_points_rounds_most(ctx);
	struct chase_buf cb, lb = {0};
	struct load_job j = {.loads = (uint64_t)mp->loads,
			     .op = mp->load == LOAD_WRITE ? BW_WRITE : BW_READ,
			     .isa = bw_isa_best(),
			     .rounds_most = rounds_most};
	char *slices[PARAM_MAX_LIST];
	double idle = 0, last = 0, last_gbps = 0;
	char msg[PARAM_ERR_LEN];

	if (topo_plan_nodes(t, PLACE_SPREAD, (int32_t[]){(int32_t)mp->cpu_node},
			    1, 1, cpus, msg, sizeof(msg))) {
		sink_note(ctx->sink, "warn", "%s", msg);
		return -EINVAL;
	}
	plan_loaders(t, (int)mp->cpu_node, most, cpus);
	if (t->nallowed - 1 < ML_LOADERS_DEFAULT)
		sink_note(
			ctx->sink, "info",
			"this process may use %d cpus: one chases, so the curve has at most %d loader%s beside it, not the many a loaded-latency curve needs to saturate the memory bus",
			t->nallowed, t->nallowed - 1,
			t->nallowed - 1 == 1 ? "" : "s");
	rc = buf_alloc(ctx, (int)mp->mem_node, (size_t)mp->size, &cb);
	if (rc)
		return rc;
	rc = chase_build(cb.use.base, (size_t)mp->size, (size_t)mp->stride,
			 (size_t)mp->locality, 0x5eed);
	if (rc)
		goto out;
	verify_on(ctx, &cb.use, (int)mp->mem_node);
	say_pages(ctx, huge_share(&cb, (size_t)mp->size));
	if (most) {
		rc = buf_alloc(ctx, (int)mp->mem_node, (size_t)mp->size, &lb);
		if (rc)
			goto out;
		j.slice_bytes =
			bw_split(lb.use.base, (size_t)mp->size, most, slices) /
			ML_LOAD_CHUNK * ML_LOAD_CHUNK;
		if (j.slice_bytes < ML_LOAD_CHUNK) {
			sink_note(
				ctx->sink, "warn",
				"size is too small to give each of %d loaders %u KiB of its own",
				most, ML_LOAD_CHUNK >> 10);
			rc = -EINVAL;
			goto out;
		}
	}
	j.slice = slices;
	j.pos = cb.use.base;
	j.bytes = calloc((size_t)(most + 1) * (size_t)rounds_most,
			 sizeof(double));
	j.secs = calloc((size_t)(most + 1) * (size_t)rounds_most,
			sizeof(double));
	if (!j.bytes || !j.secs) {
		rc = -ENOMEM;
		goto out;
	}
	for (int l = 0; l <= most && !rc; l++) {
		struct team_job job = {.nthreads = 1 + l,
				       .cpus = cpus,
				       .arg = &j,
				       .setup = load_setup,
				       .body = load_body,
				       .spin = l > 0,
				       .rounds_most = rounds_most,
				       .work = (double)j.loads};
		struct team_result res;
		char what[96];
		double *ns = NULL, *gbps = NULL;

		j.nloaders = l;
		atomic_store(&j.stopped, 0);
		snprintf(what, sizeof(what), "chase beside %d loader%s", l,
			 l == 1 ? "" : "s");
		sink_progress(ctx->sink, l, most + 1, what);
		rc = team_points_run(ctx, &job, &res, what, NULL);
		if (rc)
			break;
		ns = calloc((size_t)res.rounds + 1, sizeof(double));
		gbps = calloc((size_t)res.rounds + 1, sizeof(double));
		if (!ns || !gbps) {
			rc = -ENOMEM;
		} else {
			for (int r = 0; r < res.rounds; r++) {
				int round = res.round[r];
				/* the round's time over the stretches the
				 * chase and its loaders were all on a cpu */
				ns[r] = res.seconds[r] * 1e9 / (double)j.loads;
				for (int q = 0; q < l; q++) {
					size_t k = (size_t)q *
							   (size_t)rounds_most +
						   (size_t)round;
					if (j.secs[k] > 0)
						gbps[r] += j.bytes[k] /
							   j.secs[k] / 1e9;
				}
			}
			double x = stats_median(gbps, res.rounds);
			const char *keys[2] = {"loaders", "overlap"};
			double vals[2] = {l, team_overlap_median(&res)};
			struct point p = {.chart = CH_LOADED,
					  .series = load_series[mp->load],
					  .x = x,
					  .y = stats_median(ns, res.rounds),
					  .unit = "ns",
					  .samples = ns,
					  .nsamples = res.rounds,
					  .extra_keys = keys,
					  .extra_vals = vals,
					  .nextra = 2};
			sink_point(ctx->sink, &p);
			if (l == 0)
				idle = p.y;
			last = p.y;
			last_gbps = x;
		}
		free(ns);
		free(gbps);
		team_result_free(&res);
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
	nmem_free(&cb.map);
	nmem_free(&lb.map);
	return rc;
}

static int ml_run(struct run_ctx *ctx)
{
	const struct ml_params *mp = ctx->params;

	if (!nmem_caps()->policy)
		sink_note(
			ctx->sink, "warn",
			"memory policies are not allowed here (%s): buffers are placed by first touch",
			nmem_caps()->why);
	switch (mp->mode) {
	case ML_SIZES:
		return run_sizes(ctx);
	case ML_LOADED:
		return run_loaded(ctx);
	default:
		return run_nodes(ctx);
	}
}

/* ---- what a run showed ---- */

/* The firmware's distance beside cell (row, col), 0 when none. */
static double distance_at(const struct run_result *r, int row, int col)
{
	for (int i = 0; i < r->ncells; i++)
		if (r->cells[i].row == row && r->cells[i].col == col &&
		    !strcmp(r->cells[i].chart, CH_DIST) &&
		    isfinite(r->cells[i].value))
			return r->cells[i].value;
	return 0;
}

/*
 * Whether the firmware's distances order the nodes as their latency does:
 * every two remote cells of one row at different distances, compared by
 * their intervals (the farther one should be the slower).
 */
static void order_sentence(const struct run_result *r, struct strbuf *sb)
{
	double tol = experiment_precision(r->exp);
	int n = 0, slower = 0, faster = 0;

	for (int i = 0; i < r->ncells; i++) {
		const struct rr_cell *a = &r->cells[i];
		double da;
		if (strcmp(a->chart, CH_LAT) || a->row == a->col ||
		    !isfinite(a->value) ||
		    !(da = distance_at(r, a->row, a->col)))
			continue;
		for (int k = 0; k < r->ncells; k++) {
			const struct rr_cell *b = &r->cells[k];
			struct comparison c;
			double db;
			if (strcmp(b->chart, CH_LAT) || b->row != a->row ||
			    b->col == b->row || !isfinite(b->value) ||
			    !(db = distance_at(r, b->row, b->col)) || db <= da)
				continue;
			compare_values(b->value, b->ci_lo, b->ci_hi, b->n,
				       a->value, a->ci_lo, a->ci_hi, a->n, tol,
				       &c);
			n++;
			slower += c.rel == CMP_MORE;
			faster += c.rel == CMP_LESS;
		}
	}
	if (!n)
		return;
	if (slower == n)
		strbuf_addf(
			sb,
			" In all %d pairs of remote cells of one row at different distances, the farther cell is the slower (intervals apart): the firmware's distances order these nodes as their latency does.",
			n);
	else
		strbuf_addf(
			sb,
			" Of %d pairs of remote cells of one row at different distances, the farther cell is the slower in %d, the faster in %d, and not told apart in %d: %s.",
			n, slower, faster, n - slower - faster,
			faster ? "the firmware's distances do not order these nodes as their latency was measured"
			       : "whether the firmware's distances order these nodes as their latency does was not told");
}

/* "by distance: local 90 ns (distance 10); rank 1 140 ns (1.56× local,
 * the firmware's distance says 1.60×)", and whether the distances order
 * the cells as measured. */
static void distance_note(const struct run_result *r, double local,
			  struct verdict *v)
{
	struct strbuf sb = STRBUF_INIT;
	double d0 = 0;
	int nranks = 0;
	char key[48];

	snprintf(key, sizeof(key), KEY_RANK_DIST, 0);
	rr_summary_get_opt(r, key, &d0);
	strbuf_addf(&sb, "local %.1f ns", local);
	if (d0 > 0)
		strbuf_addf(&sb, " (distance %.0f)", d0);
	for (int k = 1; k < ML_RANKS; k++) {
		double ns, d = 0;
		snprintf(key, sizeof(key), KEY_RANK, k);
		if (rr_summary_get_opt(r, key, &ns))
			continue;
		snprintf(key, sizeof(key), KEY_RANK_DIST, k);
		rr_summary_get_opt(r, key, &d);
		strbuf_addf(&sb, "; rank %d %.1f ns (%.2f× local", k, ns,
			    ns / local);
		if (d > 0 && d0 > 0)
			strbuf_addf(&sb, ", the firmware's distance says %.2f×",
				    d / d0);
		strbuf_addstr(&sb, ")");
		nranks++;
	}
	strbuf_addstr(&sb, ".");
	order_sentence(r, &sb);
	if (nranks)
		verdict_note(
			v, "info",
			"by distance rank (rank 1: the nearest remote distance in the node table, rank 2 the next): %s",
			strbuf_str(&sb));
	strbuf_release(&sb);
}

/*
 * remote over local as a comparison whose interval spans the cells': the
 * least interval start of the remote cells over the most end of the
 * local ones, to the other way round.
 */
static void cells_ratio(const struct run_result *r, double remote, double local,
			struct comparison *c)
{
	double rlo = INFINITY, rhi = 0, llo = INFINITY, lhi = 0;
	int rn = 0, ln = 0;

	for (int i = 0; i < r->ncells; i++) {
		const struct rr_cell *q = &r->cells[i];
		if (strcmp(q->chart, CH_LAT) || !isfinite(q->value))
			continue;
		if (q->row == q->col) {
			llo = fmin(llo, q->ci_lo);
			lhi = fmax(lhi, q->ci_hi);
			ln = ln ? (q->n < ln ? q->n : ln) : q->n;
		} else {
			rlo = fmin(rlo, q->ci_lo);
			rhi = fmax(rhi, q->ci_hi);
			rn = rn ? (q->n < rn ? q->n : rn) : q->n;
		}
	}
	compare_values(remote, rlo, rhi, rn, local, llo, lhi, ln,
		       experiment_precision(r->exp), c);
}

static void describe_nodes(const struct run_result *r, struct strbuf *sb,
			   struct verdict *v)
{
	const struct machine_facts *m = r->machine;
	double local, remote;
	struct cell_tally ct;
	char why[VERDICT_TEXT_LEN];

	if (m->nnodes < 2)
		verdict_note(
			v, "cannot",
			"this machine has one node: only the local cell is measured; what a load from another node's memory costs (the NUMA factor of 6.5) needs 2 nodes");
	if (rr_summary_get(r, KEY_LOCAL, &local) || local <= 0)
		return;
	strbuf_addf(sb, "local memory %.1f ns per load", local);
	if (rr_summary_get_opt(r, KEY_REMOTE, &remote)) {
		if (m->nnodes < 2)
			strbuf_addf(
				sb,
				" (the remote cells need 2 nodes, this machine has %d)",
				m->nnodes);
		return;
	}
	if (m->emulator == 1) {
		/* an emulator has no NUMA cost: nothing to compare */
		strbuf_addf(
			sb,
			", remote %.1f ns (the emulator's times: remote is not compared with local, nor with the firmware's distance)",
			remote);
		verdict_mark(
			v, KEY_RATIO, VERDICT_DISOWNED,
			"timed under an emulator, which has no NUMA cost to show");
		return;
	}
	compare_cells_to_diagonal(r, CH_LAT, experiment_precision(r->exp), &ct);
	if (ct.n && ct.more == ct.n) {
		struct comparison c;
		char rt[80];
		cells_ratio(r, remote, local, &c);
		strbuf_addf(
			sb,
			", remote %.1f ns (%s: every remote cell slower than the local cell of its row)",
			remote, compare_ratio_text(&c, rt, sizeof(rt)));
	} else if (ct.n && ct.same == ct.n) {
		strbuf_addf(
			sb,
			", remote %.1f ns (every remote cell within %.0f%% of the local cell of its row: no NUMA factor here)",
			remote, 100 * experiment_precision(r->exp));
	} else {
		if (!ct.n)
			snprintf(
				why, sizeof(why),
				"remote was not compared with local: the run kept no rounds of its cells");
		else
			snprintf(
				why, sizeof(why),
				"remote was not told from local: of %d remote cells, %d slower, %d faster, %d the same within %.0f%% and %d unclear against the local cell of their row",
				ct.n, ct.more, ct.less, ct.same,
				100 * experiment_precision(r->exp), ct.unsure);
		strbuf_addf(sb, ", remote %.1f ns on average (%s)", remote,
			    why);
		verdict_mark(v, KEY_RATIO, VERDICT_DISOWNED, "%s", why);
	}
	distance_note(r, local, v);
}

/* The largest point of the sweep, and the smallest. */
static void sweep_ends(const struct run_result *r, const struct rr_point **lo,
		       const struct rr_point **hi)
{
	*lo = *hi = NULL;
	for (int i = 0; i < r->npoints; i++) {
		const struct rr_point *p = &r->points[i];
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
	const struct rr_point *lo, *hi;
	struct comparison c;
	char a[32], b[32], ratio[96], floor_text[32];
	uint64_t floor = mem_llc_floor(r->machine);

	sweep_ends(r, &lo, &hi);
	if (!lo || !hi || lo == hi)
		return;
	mem_size_text((uint64_t)lo->x, a, sizeof(a));
	mem_size_text((uint64_t)hi->x, b, sizeof(b));
	strbuf_addf(sb, "%.1f ns per load at %s, %.1f ns at %s", lo->y, a,
		    hi->y, b);
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
		verdict_mark(v, KEY_STEP, VERDICT_DISOWNED, "%s", why);
	}
	if (floor) {
		mem_size_text(floor, floor_text, sizeof(floor_text));
		verdict_note(
			v, "info",
			"working sets under %s (4 times the last-level cache) are labelled from cache: their loads are served by the caches; each level shows as a step where the working set outgrows it (the marks on the curve)",
			floor_text);
	}
}

static void describe_loaded(const struct run_result *r, struct strbuf *sb,
			    struct verdict *v)
{
	const struct rr_point *idle = NULL, *top = NULL;
	double l, most = -1, gbps = 0;
	struct comparison c;
	char ratio[96];

	for (int i = 0; i < r->npoints; i++) {
		const struct rr_point *p = &r->points[i];
		if (strcmp(p->chart, CH_LOADED) ||
		    rr_point_extra(p, "loaders", &l))
			continue;
		if (l == 0)
			idle = p;
		if (l > most) {
			most = l;
			top = p;
		}
	}
	if (!idle)
		return;
	strbuf_addf(sb, "idle %.1f ns per load", idle->y);
	if (!top || top == idle) {
		strbuf_addstr(sb, " (no loader ran beside the chase)");
		return;
	}
	gbps = top->x;
	compare_points(top, idle, experiment_precision(r->exp), &c);
	compare_state_interval(v, KEY_LOAD_RATIO, &c);
	if (c.rel == CMP_MORE || c.rel == CMP_LESS || c.rel == CMP_SAME) {
		strbuf_addf(
			sb,
			"; with %.0f loader%s streaming %.1f GB/s, %.1f ns (%s%s)",
			most, most == 1 ? "" : "s", gbps, top->y,
			compare_ratio_text(&c, ratio, sizeof(ratio)),
			c.rel == CMP_MORE   ? " as long"
			: c.rel == CMP_SAME ? ", no change within the precision"
					    : " as long: shorter under load");
	} else {
		char why[VERDICT_TEXT_LEN];
		snprintf(why, sizeof(why),
			 "loaded latency was not told from idle: %s",
			 compare_why_not(&c));
		strbuf_addf(sb, "; with %.0f loader%s, %.1f ns (%s)", most,
			    most == 1 ? "" : "s", top->y, why);
		verdict_mark(v, KEY_LOAD_RATIO, VERDICT_DISOWNED, "%s", why);
	}
}

static void ml_describe(const struct run_result *r, struct verdict *v)
{
	const struct ml_params *mp = r->params;
	struct strbuf sb = STRBUF_INIT;
	int from_cache =
		r->rules && r->rules->checked
			? r->rules->from_cache > 0
			: mem_from_cache(r->machine, (uint64_t)mp->size);

	if (mp->mode == ML_SIZES)
		describe_sizes(r, &sb, v);
	else if (mp->mode == ML_LOADED)
		describe_loaded(r, &sb, v);
	else
		describe_nodes(r, &sb, v);
	if (sb.len)
		verdict_headline(v, "%s%s",
				 from_cache && mp->mode != ML_SIZES
					 ? "from cache: "
					 : "",
				 strbuf_str(&sb));
	else
		verdict_headline(v, "nothing was measured");
	strbuf_release(&sb);
}

static void ml_precheck(const void *params, const struct common_params *common,
			const struct topo *t, struct verdict *v)
{
	const struct ml_params *mp = params;

	(void)common;
	if (mp->mode == ML_LOADED && t && t->nallowed - 1 < ML_LOADERS_DEFAULT)
		verdict_note(
			v, "warn",
			"this machine lets the run use %d cpus: at most %d loader%s beside the chase, too few to load the memory bus the way a loaded-latency curve means",
			t->nallowed, t->nallowed - 1,
			t->nallowed - 1 == 1 ? "" : "s");
}

/* ---- the time model ---- */

static void ml_estimate(const void *params, const struct common_params *common,
			const struct topo *t, double *seconds, uint64_t *bytes)
{
	const struct ml_params *mp = params;
	double rounds = (double)(common->repeat + common->warmup);
	double size = (double)mp->size, loads = (double)mp->loads;
	double line = (double)mp->stride;
	/* a chain's build touches the pages and writes its nodes in the
	 * chain's order, a few misses at a time */
	double build = cost_touch_s(t, size, 1) +
		       cost_chase_s(t, size, size / line) / 4;
	double s = 0;

	if (mp->mode == ML_NODES) {
		int32_t nodes[TOPO_MAX_NODES];
		int n = topo_matrix_nodes(t, mp->nodes.v, mp->nodes.n, nodes),
		    list[TOPO_MAX_NODES];
		double cells = (double)n * n;
		struct cell_plan plan;
		struct errinfo err;
		for (int i = 0; i < n; i++)
			list[i] = nodes[i];
		if (t && n >= 1 && t->nnodes >= n &&
		    !cell_plan_make(t, list, n, (enum cells_mode)mp->cells, 0,
				    &plan, &err)) {
			cells = plan.ncells;
			cell_plan_free(&plan);
		}
		s = n * build + cells * (cost_teams_s(1) +
					 rounds * cost_chase_s(t, size, loads));
		*bytes = (uint64_t)(size * 1.0625) + 2 * ML_HUGE;
	} else if (mp->mode == ML_SIZES) {
		uint64_t sizes[ML_MOST_SIZES];
		int n = sweep_sizes((uint64_t)mp->size, sizes, ML_MOST_SIZES);
		for (int k = 0; k < n; k++) {
			double z = (double)sizes[k];
			s += cost_touch_s(t, z, 1) / 2 +
			     cost_chase_s(t, z, z / line) / 4 +
			     cost_teams_s(1) +
			     rounds * cost_chase_s(t, z, loads);
		}
		*bytes = (uint64_t)(size * 1.0625) + 2 * ML_HUGE;
	} else {
		/* each point: the chase, slowed by the loaders sharing the
		 * memory, and the loaders' first touch of their buffer */
		double l = (double)mp->loaders + 1;
		s = build + (mp->loaders ? cost_touch_s(t, size, 1) : 0) +
		    l * (cost_teams_s(1) +
			 rounds * cost_chase_s(t, size, loads) * 1.5);
		*bytes = (uint64_t)(size * (mp->loaders ? 2.0625 : 1.0625)) +
			 4 * ML_HUGE;
	}
	*seconds = s;
}

/* ---- the descriptor ---- */

static const struct lesson lessons[] = {
	LESSON("local-latency", "One load from local memory",
	       "how many ns does one load take when it misses every cache and its address depends on the load before?",
	       "size=256M loads=262144 repeat=3", "ns", KEY_LOCAL, CH_LAT),
	LESSON("cache-steps", "From the L1 cache to memory",
	       "how many times as long does a load take from a 128 MiB working set as from an 8 KiB one?",
	       "mode=sizes size=128M loads=65536 repeat=3", "x", KEY_STEP,
	       CH_SIZES),
	{0}};

static const struct rule rules[] = {
	RULE(RULE_MEMORY, .param = "size", .what = "the latency"),
	RULE(RULE_NODES, .floor = 2, .what = "remote against local latency"),
	{RULE_END}};
static const char *const compared[] = {KEY_RATIO, NULL};

static const struct key_label summary_labels[] = {
	{"local_ns", "local memory: ns per load", "ns"},
	{"remote_ns", "remote memory: ns per load", "ns"},
	{"remote_over_local", "remote over local (the NUMA factor)", "×"},
	{"rank_*_distance", "the firmware's distance at rank %s", "SLIT"},
	{"rank_*_ns", "ns per load at distance rank %s", "ns"},
	{"pages_off_node*", "pages off node %s", "pages"},
	{"pages_on_node*", "pages on node %s", "pages"},
	{"huge_page_share", "share of the buffer on 2 MiB pages", "%"},
	{"smallest_ns", "ns per load, smallest working set", "ns"},
	{"largest_ns", "ns per load, largest working set", "ns"},
	{"largest_over_smallest", "largest over smallest working set", "×"},
	{"idle_ns", "ns per load, no loader", "ns"},
	{"loaded_ns", "ns per load, every loader streaming", "ns"},
	{"loaded_over_idle", "loaded over idle latency", "×"},
	{"loaders_gbps", "the loaders' bandwidth", "GB/s"},
	{NULL, NULL, NULL}};

static const struct key_label series_labels[] = {
	{"chase", "pointer chase", NULL},
	{"L1 cache", "L1 data cache size (one core's)", NULL},
	{"L2 cache", "L2 cache size", NULL},
	{"L3 cache", "L3 cache size (one instance)", NULL},
	{NULL, NULL, NULL}};

/* Before the run: the cells it visits, the chase on the row's node. */
static void ml_plan(const void *params, const struct common_params *common,
		    const struct topo *t, struct strbuf *out)
{
	const struct ml_params *mp = params;

	(void)common;
	plan_view_cells(t, mp->nodes.v, mp->nodes.n, (enum cells_mode)mp->cells,
			out);
}

const struct experiment exp_memory_latency = {
	.name = "memory_latency",
	.smoke = "size=64K loads=4096 repeat=2 warmup=0",
	.summary_labels = summary_labels,
	.series_labels = series_labels,
	.headline_key = KEY_LOCAL,
	.headline_chart = CH_LAT,
	.title = "Memory latency: node by node, by working set, under load",
	.summary =
		"One thread follows a chain of dependent loads through a randomly "
		"ordered buffer: ns per load from each node's memory, against the "
		"working-set size, and while other threads stream",
	.section = "6.5",
	.explain =
		"A pointer chase measures what one load costs when nothing can "
		"hide it: every node of the buffer holds the address of the next, "
		"so each load waits for the one before. The chain follows "
		"google/multichase's published defaults: nodes 256 bytes apart "
		"(stride), so neither the line a load brings nor its adjacent-line "
		"prefetcher's pair holds the next node, and one random cycle "
		"through them in which no two neighbours share a 4 KiB page, so "
		"no stream prefetcher can guess the next address. The chain stays "
		"in a block of 64 pages (locality, 256 KiB) until it has visited "
		"all of it, and the buffer is asked for 2 MiB pages, so TLB misses "
		"stay out of the figure (a hypervisor may back a guest's huge "
		"pages with small ones); the run says which pages it got. "
		"locality=0 makes the chain fully random over the whole buffer, "
		"TLB misses included; stride=64 lets the adjacent-line prefetcher "
		"help, and reads lower. A round is timed over the stretches its "
		"thread was on its cpu: what another process took is left "
		"out.\n\n"
		"mode=nodes is the NUMA factor of section 6.5: the chasing thread "
		"on the row's node, the buffer bound (mbind) to the column's and "
		"its pages checked with move_pages. Beside each cell are its ratio "
		"to the local cell of its row and the distance the firmware claims "
		"(the SLIT numactl --hardware prints), so the two can be set side "
		"by side. Remote is called slower only when every remote cell's "
		"95% interval lies above that of the local cell of its row. "
		"cells=by_distance measures a few cells of each distance on "
		"machines of many nodes.\n\n"
		"mode=sizes sweeps the working set from 8 KiB up to size: the "
		"curve climbs a step each time the working set outgrows a cache "
		"level (marked at their sizes), then flattens at memory's "
		"latency. Working sets under 4 times the last-level cache are "
		"labelled from cache.\n\n"
		"mode=loaded repeats the chase while 0, 1, ... loaders threads "
		"stream over another buffer of the same node: latency against the "
		"bandwidth they achieve, the loaded-latency curve of Intel's MLC. "
		"A machine of few cpus has few loaders to give, and says so.",
	EXPERIMENT_PARTS(ml),
	.plan = ml_plan,
	.check = ml_check,
	.rules = rules,
	.compared = compared,
	.precision = 0.05,
};
