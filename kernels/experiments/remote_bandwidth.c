/* remote_bandwidth.c - node x node bandwidth: threads on one node, memory bound to another */
#include <errno.h>
#include <math.h>
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
#include "pair_plan.h"
#include "plan_view.h"
#include "stats.h"
#include "strbuf.h"
#include "team_points.h"
#include "workcost.h"

/* a kind's value is the index of its write matrix in matrices[] below */
static const struct param_choice kinds[] = {
	{"regular", 0}, {"nontemporal", 1}, {"prefetchw", 2}, {0}};
enum rb_op { RB_WRITE, RB_READ };
static const struct param_choice ops[] = {
	{"write", RB_WRITE}, {"read", RB_READ}, {0}};
/* which copy runs of 6.5.8: every node at once, one node with the others
 * idle */
enum rb_mix { MIX_ALL = 1, MIX_IDLE = 2 };
static const struct param_choice mixes[] = {{"yes", MIX_ALL},
					    {"no", 0},
					    {"idle", MIX_IDLE},
					    {"both", MIX_ALL | MIX_IDLE},
					    {0}};

struct rb_params {
	int64_t size;
	int64_t threads;
	struct int_list nodes;
	unsigned ops;	/* 1u << enum rb_op */
	unsigned kinds; /* 1u << the write matrix's index */
	int mixed;	/* enum rb_mix bits */
	int cells;	/* enum cells_mode */
};

/* Up to this many nodes the default measures every cell; above, a few of each
 * distance. */
#define RB_FULL_UP_TO 8
/*
 * Distance ranks summarised: 0 local, 1 the nearest remote distance of
 * the node table (SLIT), 2 the next, ... A rank orders distances; it is
 * not a count of links crossed.
 */
#define RB_RANKS 8

static const struct param_choice cell_modes[] = {
	{"full", CELLS_FULL}, {"by_distance", CELLS_BY_DISTANCE}, {0}};

static void cells_default(const struct topo *t, char *buf, size_t len)
{
	snprintf(buf, len, "%s",
		 t->nnodes <= RB_FULL_UP_TO ? "full" : "by_distance");
}

#define PARAM_STRUCT struct rb_params
static const struct param params[] = {
	PARAM_SIZE(
		size, "64M", 1 << 20, 1LL << 40, "bytes",
		"the buffer bound to each memory node; default: 4 times the machine's last-level cache (at least 64M), so it streams from memory; a smaller one is labelled from cache",
		.flags = PARAM_F_MEMORY),
	PARAM_INT(
		threads, "1", 1, 1024, "per node",
		"threads on the CPU node that stream over the buffer together"),
	PARAM_NODELIST(nodes, "", 0, NMEM_MAX_NODE - 1,
		       "the nodes of the matrix (e.g. 0-3); empty: every node"),
	PARAM_SET(ops, "all", ops, "which matrices: write, read"),
	PARAM_SET(
		kinds, "all", kinds,
		"store kinds for the write matrix: regular, nontemporal (streaming stores), prefetchw (prefetch for write ahead of the stores, where the CPU has it)"),
	PARAM_ENUM(
		mixed, "both", mixes,
		"the copy runs of 6.5.8, each reading local memory and writing either local memory or another node's: yes: every node at once; idle: one node alone, writing to a node whose cpus are idle; both: the two; no: neither"),
	PARAM_ENUM(
		cells, "full", cell_modes,
		"full: every (cpu node, memory node) cell; by_distance: 3 cells of each numa distance (local, the nearest remote distance, the next...); default: full up to 8 nodes, by_distance above",
		.machine_def = cells_default),
	{0}};

/* the charts of the copy runs, named by the table below and by charts[] */
#define CH_MIXED "mixed"
#define CH_IDLE "idle_remote"

static const struct chart charts[] = {
	CHART("write_regular", CHART_HEATMAP,
	      "Write, regular stores (GB/s): threads on the row's node, memory on the column's",
	      "memory node", "CPU node"),
	CHART("write_nontemporal", CHART_HEATMAP,
	      "Write, non-temporal stores (GB/s)", "memory node", "CPU node"),
	CHART("write_prefetchw", CHART_HEATMAP,
	      "Write, prefetchw before the stores (GB/s)", "memory node",
	      "CPU node"),
	CHART("read", CHART_HEATMAP,
	      "Read (GB/s): threads on the row's node, memory on the column's",
	      "memory node", "CPU node"),
	CHART(CH_MIXED, CHART_BAR,
	      "Every node at once: copy to local memory, or to another node's",
	      "where the copies go", "GB/s, all nodes together"),
	CHART(CH_IDLE, CHART_BAR,
	      "One node copies while the others are idle: to its own memory, or to an idle node's",
	      "where the copies go", "GB/s"),
	{0}};

/*
 * Names run() emits and describe() reads, defined once: summary keys are
 * formats of the matrix's chart (or of a copy run's prefix).
 */
#define KEY_LOCAL "%s_local_gbps"
#define KEY_REMOTE "%s_remote_gbps"
#define KEY_RATIO "%s_remote_over_local"
#define KEY_RANK "%s_rank_%d_gbps"
/* the key runs recorded before ranks were named as such: read back only */
#define KEY_RANK_OLD "%s_hops_%d_gbps"
#define KEY_GAIN "%s_gain"
#define SERIES_REGULAR "regular stores"
#define SERIES_NT "non-temporal stores"
#define FROM_CACHE " (from cache)"
#define RB_NEEDS_TWO "needs 2 nodes, this machine has"

static const char *const summary_keys[] = {
	"pages_off_node*", "*_local_gbps",
	"*_remote_gbps",   "*_remote_over_local",
	"*_gain",	   "*_rank_*_gbps",
	"*_hops_*_gbps",   NULL};

/* A copy run of 6.5.8: its chart, summary prefix and the labels of its bars.
 */
struct mix_mode {
	int bit; /* enum rb_mix */
	const char *chart, *prefix, *local, *remote, *what;
	int idle; /* only the first node runs; the node it writes to is idle */
};

static const struct mix_mode mix_modes[] = {
	{MIX_ALL, CH_MIXED, "mixed", "all local", "read local, write remote",
	 "every node at once", 0},
	{MIX_IDLE, CH_IDLE, "idle", "one node, all local",
	 "read local, write to an idle node",
	 "one node alone, the node written to idle", 1},
};
#define NMIX (int)(sizeof(mix_modes) / sizeof(mix_modes[0]))

/* "regular stores", "non-temporal stores (from cache)": a copy run's series.
 */
static void mix_series(int nontemporal, int from_cache, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s", nontemporal ? SERIES_NT : SERIES_REGULAR,
		 from_cache ? FROM_CACHE : "");
}

/* One matrix: a chart, the loop it times. */
struct matrix {
	const char *chart;
	enum bw_op op;
	const char *what;
};

static const struct matrix matrices[] = {
	{"write_regular", BW_WRITE, "write"},
	{"write_nontemporal", BW_WRITE_NT, "non-temporal write"},
	{"write_prefetchw", BW_WRITE_PFW, "prefetchw write"},
	{"read", BW_READ, "read"},
};
#define NMATRICES (int)(sizeof(matrices) / sizeof(matrices[0]))

static int wanted(const struct rb_params *rp, int m)
{
	if (matrices[m].op == BW_READ)
		return (rp->ops >> RB_READ) & 1u;
	if (!((rp->ops >> RB_WRITE) & 1u))
		return 0;
	return (rp->kinds >> m) & 1u;
}

/* The node nearest to node (by distance) among the list, other than itself; -1
 * if none. */
static int nearest_other(const struct topo *t, const int32_t *nodes, int n,
			 int at)
{
	int a = topo_node_index(t, nodes[at]), best = -1, bestd = 0;

	for (int s = 1; s < n; s++) {
		/* ties go to the next one round the list, so each node is
		 * picked once */
		int j = (at + s) % n;
		int b = topo_node_index(t, nodes[j]);
		int d = a >= 0 && b >= 0 ? t->distance[a][b] : 0;
		if (!topo_node_has_memory(t, nodes[j]))
			continue;
		if (best < 0 || (d > 0 && d < bestd)) {
			best = nodes[j];
			bestd = d;
		}
	}
	return best;
}

static int rb_check(const void *params, const struct common_params *common,
		    const struct topo *t, struct errinfo *err)
{
	const struct rb_params *rp = params;
	const struct int_list *v = &rp->nodes;
	const struct nmem_caps *caps = nmem_caps();
	int threads = (int)rp->threads;
	uint64_t size = (uint64_t)rp->size;
	int mixed = rp->mixed;
	int32_t nodes[TOPO_MAX_NODES];
	int n, rc, any = 0;

	(void)common;
	rc = topo_check_nodes(t, v->v, v->n, "nodes", 0, 0, err);
	if (rc)
		return rc;
	if (!t)
		return 0;
	if (!caps->policy && t->nnodes > 1) {
		snprintf(err->field, sizeof(err->field), "nodes");
		snprintf(err->msg, sizeof(err->msg),
			 "binding memory to a node is not allowed here (%s)",
			 caps->why);
		return -EINVAL;
	}
	n = topo_matrix_nodes(t, rp->nodes.v, rp->nodes.n, nodes);
	for (int i = 0; i < n; i++) {
		int cpus = topo_node_ncpus(t, nodes[i]);
		if (cpus > 0 && cpus < threads) {
			snprintf(err->field, sizeof(err->field), "threads");
			snprintf(
				err->msg, sizeof(err->msg),
				"%d threads per node, but node %d has only %d cpus this process may use",
				threads, nodes[i], cpus);
			return -EINVAL;
		}
		any |= cpus > 0;
		/* the matrix needs one buffer per node, the mixed run three */
		if (topo_node_has_memory(t, nodes[i]) &&
		    (rc = topo_check_free(t, &nodes[i], 1,
					  mixed ? 3 * size : size, "size",
					  err)))
			return rc;
	}
	if (!any) {
		snprintf(err->field, sizeof(err->field), "nodes");
		snprintf(err->msg, sizeof(err->msg),
			 "none of these nodes has a cpu this process may use");
		return -EINVAL;
	}
	return 0;
}

static void emit_cell(struct run_ctx *ctx, const char *chart, int row, int col,
		      const char *rl, const char *cl, const struct bw_result *r,
		      const char *note)
{
	struct cell c = {.chart = chart,
			 .row = row,
			 .col = col,
			 .row_label = rl,
			 .col_label = cl,
			 .value = r ? r->median : 0,
			 .unit = "GB/s",
			 .samples = r ? r->gbps : NULL,
			 .nsamples = r ? r->n : 0,
			 .note = note};
	sink_cell(ctx->sink, &c);
}

/* Checks that the buffer's pages are all on node; a warning when not. */
static void verify_on(struct run_ctx *ctx, const struct nmem_buf *b, int node)
{
	struct nmem_census c;
	char key[48];

	if (!nmem_caps()->move_pages || nmem_census_on(b, node, &c))
		return;
	snprintf(key, sizeof(key), "pages_off_node%d", node);
	sink_summary(ctx->sink, key, (double)(c.forbidden + c.absent), "pages");
	if (c.forbidden || c.absent)
		sink_note(
			ctx->sink, "warn",
			"the buffer bound to node %d has %zu of %zu pages elsewhere or missing: its column is not clean",
			node, c.forbidden + c.absent, c.npages);
}

struct means {
	double local, remote;
	int nlocal, nremote;
	/* by distance rank: 0 local, 1 the nearest remote distance, ... */
	double rank[RB_RANKS];
	int nrank[RB_RANKS];
};

/*
 * Which cells of the dim x dim matrix to visit (the plan's, and every
 * cell of a phantom row or column, which only says why it is empty) and
 * each planned cell's distance rank.
 */
struct cell_mask {
	int dim;
	unsigned char *want;
	signed char *rank;
};

static int measure(struct run_ctx *ctx, enum bw_op op, const int *cpus,
		   int threads, char **dst, char **src, size_t bytes, int touch,
		   struct bw_result *res)
{
	struct bw_job job = {.op = op,
			     .nthreads = threads,
			     .cpus = cpus,
			     .dst = dst,
			     .src = src,
			     .bytes = bytes,
			     .passes = 1,
			     .touch = touch};
	char wrong[96];

	snprintf(wrong, sizeof(wrong),
		 "the %s loop gave wrong data: the kernel is wrong",
		 bw_op_names[op]);
	return team_points_bw(ctx, &job, res, wrong);
}

/*
 * The matrices. Each column's buffer is bound to its node and touched by
 * the first row's threads; the binding, not the toucher, decides where
 * the pages go.
 */
static int run_matrix(struct run_ctx *ctx, const int32_t *nodes, int n,
		      int phantom, const struct cell_mask *mask,
		      struct means *mean, int *step, int steps)
{
	const struct topo *t = ctx->topo;
	const struct rb_params *rp = ctx->params;
	int threads = (int)rp->threads;
	size_t size = (size_t)rp->size;
	int dim = n + phantom;
	char labels[TOPO_MAX_NODES + 1][40];
	char need[80];
	int rc = 0;

	struct machine_facts mf;

	machine_facts_from_topo(t, &mf);
	for (int i = 0; i < n; i++)
		snprintf(labels[i], sizeof(labels[i]), "node %d%s", nodes[i],
			 mem_from_cache(&mf, (uint64_t)size) ? " (from cache)"
							     : "");
	if (phantom)
		snprintf(labels[n], sizeof(labels[n]),
			 "node %d (not on this machine)", nodes[n - 1] + 1);
	snprintf(need, sizeof(need), "needs 2 nodes, this machine has %d",
		 t->nnodes);
	for (int m = 0; m < NMATRICES; m++)
		if (wanted(rp, m) && !bw_op_supported(matrices[m].op))
			sink_note(ctx->sink, "info",
				  "this CPU has no %s: its matrix stays empty",
				  matrices[m].op == BW_WRITE_PFW
					  ? "PREFETCHW"
					  : bw_op_names[matrices[m].op]);

	for (int j = 0; j < dim && !rc; j++) {
		struct nmem_buf b = {0};
		int touched = 0,
		    col_ok = j < n && topo_node_has_memory(t, nodes[j]);
		char *slices[PARAM_MAX_LIST];
		size_t bytes = 0;
		int any = 0;

		for (int i = 0; i < dim; i++)
			any |= mask->want[i * dim + j];
		if (!any)
			continue;
		if (col_ok) {
			rc = nmem_alloc_on(ctx->sink, ctx->topo, nodes[j], size,
					   0, &b);
			if (rc)
				break;
			bytes = bw_split(b.base, b.len, threads, slices);
		}
		for (int i = 0; i < dim && !rc; i++) {
			int cpus[PARAM_MAX_LIST];
			char msg[PARAM_ERR_LEN];
			int row_ok = i < n &&
				     topo_node_ncpus(t, nodes[i]) >= threads;
			int placed = 0;
			const char *note = NULL;
			char why[96];

			if (!mask->want[i * dim + j])
				continue;
			if (i >= n || j >= n) {
				note = need;
			} else if (!row_ok) {
				snprintf(why, sizeof(why),
					 "node %d has no cpus", nodes[i]);
				note = why;
			} else if (!col_ok) {
				snprintf(why, sizeof(why),
					 "node %d has no memory", nodes[j]);
				note = why;
			}
			if (!note &&
			    topo_plan_nodes(t, PLACE_SPREAD, &nodes[i], 1,
					    threads, cpus, msg, sizeof(msg))) {
				snprintf(why, sizeof(why), "%.90s", msg);
				note = why;
			}
			for (int m = 0; m < NMATRICES && !rc; m++) {
				struct bw_result res;
				char what[96];

				if (!wanted(rp, m))
					continue;
				if (note || !bw_op_supported(matrices[m].op)) {
					emit_cell(
						ctx, matrices[m].chart, i, j,
						labels[i], labels[j], NULL,
						note ? note
						     : "this CPU lacks the instruction");
					continue;
				}
				snprintf(
					what, sizeof(what),
					"%s: cpus of node %d, memory of node %d",
					matrices[m].what, nodes[i], nodes[j]);
				sink_progress(ctx->sink, (*step)++, steps,
					      what);
				rc = measure(ctx, matrices[m].op, cpus, threads,
					     slices, slices, bytes, !touched,
					     &res);
				if (rc)
					break;
				if (!touched) {
					touched = 1;
					verify_on(ctx, &b, nodes[j]);
				}
				if (!placed++)
					sink_placement(ctx->sink, what,
						       res.team.place,
						       res.team.nthreads);
				emit_cell(ctx, matrices[m].chart, i, j,
					  labels[i], labels[j], &res, NULL);
				struct means *mm = &mean[m];
				int rank = mask->rank[i * dim + j];
				if (rank >= 0 && rank < RB_RANKS) {
					mm->rank[rank] += res.median;
					mm->nrank[rank]++;
				}
				if (i == j) {
					mm->local += res.median;
					mm->nlocal++;
				} else {
					mm->remote += res.median;
					mm->nremote++;
				}
				bw_result_free(&res);
			}
		}
		nmem_free(&b);
	}
	return rc;
}

/*
 * The article's proposal (6.5.8): a node's threads read their own node's
 * memory and write the results elsewhere, so the writes travel the
 * interconnect to another node's memory controller instead of competing
 * with the reads for the local one. Against the same copies kept local:
 * every node at once (MIX_ALL), or the first node alone while the node it
 * writes to runs nothing (MIX_IDLE, the case the article has in mind).
 */
static int run_mixed(struct run_ctx *ctx, const int32_t *nodes, int n,
		     const struct mix_mode *mode, double *local_out,
		     double *remote_out, int *step, int steps)
{
	const struct topo *t = ctx->topo;
	const struct rb_params *rp = ctx->params;
	int threads = (int)rp->threads;
	size_t size = (size_t)rp->size;
	struct nmem_buf src[TOPO_MAX_NODES], local[TOPO_MAX_NODES],
		remote[TOPO_MAX_NODES];
	int32_t use[TOPO_MAX_NODES];
	int target[TOPO_MAX_NODES], nuse = 0, nrun, total, rc = 0, from_cache;
	struct machine_facts mf;
	int *cpus = NULL;
	char **s = NULL, **dl = NULL, **dr = NULL;
	size_t bytes = 0;

	machine_facts_from_topo(t, &mf);
	from_cache = mem_from_cache(&mf, (uint64_t)size);
	memset(src, 0, sizeof(src));
	memset(local, 0, sizeof(local));
	memset(remote, 0, sizeof(remote));
	for (int i = 0; i < n; i++)
		if (topo_node_has_memory(t, nodes[i]) &&
		    topo_node_ncpus(t, nodes[i]) >= threads)
			use[nuse++] = nodes[i];
	for (int k = 0; k < nuse; k++)
		target[k] = nearest_other(t, use, nuse, k);
	/* idle: only the first node's threads run; its target runs nothing */
	nrun = mode->idle && nuse > 1 ? 1 : nuse;
	*local_out = *remote_out = 0;
	total = nrun * threads;
	cpus = calloc((size_t)total + 1, sizeof(int));
	s = calloc((size_t)total + 1, sizeof(char *));
	dl = calloc((size_t)total + 1, sizeof(char *));
	dr = calloc((size_t)total + 1, sizeof(char *));
	if (!cpus || !s || !dl || !dr) {
		rc = -ENOMEM;
		goto out;
	}
	for (int k = 0; k < nrun && !rc; k++) {
		char msg[PARAM_ERR_LEN];
		rc = nmem_alloc_on(ctx->sink, ctx->topo, use[k], size, 0,
				   &src[k]);
		if (!rc)
			rc = nmem_alloc_on(ctx->sink, ctx->topo, use[k], size,
					   0, &local[k]);
		if (!rc && target[k] >= 0)
			rc = nmem_alloc_on(ctx->sink, ctx->topo, target[k],
					   size, 0, &remote[k]);
		if (!rc)
			rc = topo_plan_nodes(t, PLACE_SPREAD, &use[k], 1,
					     threads, cpus + k * threads, msg,
					     sizeof(msg));
		if (rc)
			break;
		bytes = bw_split(src[k].base, src[k].len, threads,
				 s + k * threads);
		bw_split(local[k].base, local[k].len, threads,
			 dl + k * threads);
		if (target[k] >= 0)
			bw_split(remote[k].base, remote[k].len, threads,
				 dr + k * threads);
	}
	if (rc || total == 0)
		goto out;
	for (int kind = 0; kind < 2 && !rc; kind++) {
		enum bw_op op = kind ? BW_COPY_NT : BW_COPY;
		char series[48];

		mix_series(kind, from_cache, series, sizeof(series));
		for (int v = 0; v < 2 && !rc; v++) {
			struct bw_result res;
			const char *label = v ? mode->remote : mode->local;
			char what[96];

			if (v && nuse < 2) {
				/* said once, not once per store kind */
				if (kind == 0)
					sink_note(ctx->sink, "info",
						  "%s: %s %d", mode->remote,
						  RB_NEEDS_TWO, t->nnodes);
				continue;
			}
			snprintf(what, sizeof(what), "%s, %s: %s", mode->chart,
				 series, label);
			sink_progress(ctx->sink, (*step)++, steps, what);
			/* the first job touches the sources and the local
			 * targets, the remote ones on their first use */
			rc = measure(ctx, op, cpus, total, v ? dr : dl, s,
				     bytes, kind == 0, &res);
			if (rc)
				break;
			if (kind == 0)
				sink_placement(ctx->sink, what, res.team.place,
					       res.team.nthreads);
			struct point pt = {.chart = mode->chart,
					   .series = series,
					   .x = v,
					   .x_label = label,
					   .y = res.median,
					   .unit = "GB/s",
					   .samples = res.gbps,
					   .nsamples = res.n};
			sink_point(ctx->sink, &pt);
			if (kind == 0) {
				if (v)
					*remote_out = res.median;
				else
					*local_out = res.median;
			}
			bw_result_free(&res);
		}
	}
	if (!rc && nuse >= 2) {
		struct strbuf pairs = STRBUF_INIT;
		for (int k = 0; k < nrun; k++)
			strbuf_addf(&pairs, "%s%d->%d", k ? ", " : "", use[k],
				    target[k]);
		sink_note(ctx->sink, "info",
			  "%s: read on the own node, write to (node->node) %s",
			  mode->what, strbuf_str(&pairs));
		strbuf_release(&pairs);
	}
out:
	for (int k = 0; k < nrun; k++) {
		nmem_free(&src[k]);
		nmem_free(&local[k]);
		nmem_free(&remote[k]);
	}
	free(cpus);
	free(s);
	free(dl);
	free(dr);
	return rc;
}

/* The cells to visit, from the plan of the request's cells over the matrix's
 * nodes. */
static int make_mask(const struct rb_params *rp, const struct topo *t,
		     const int32_t *nodes, int n, int dim,
		     struct cell_mask *mask, struct errinfo *err)
{
	struct cell_plan plan;
	int list[TOPO_MAX_NODES], rc;

	mask->dim = dim;
	mask->want = calloc((size_t)dim * (size_t)dim + 1, 1);
	mask->rank = calloc((size_t)dim * (size_t)dim + 1, 1);
	if (!mask->want || !mask->rank)
		return -ENOMEM;
	for (int i = 0; i < n; i++)
		list[i] = nodes[i];
	rc = cell_plan_make(t, list, n, (enum cells_mode)rp->cells, 0, &plan,
			    err);
	if (rc)
		return rc;
	for (int k = 0; k < dim * dim; k++) {
		/* a phantom row or column: visited, to say why it is empty */
		mask->want[k] = k / dim >= n || k % dim >= n;
		mask->rank[k] = -1;
	}
	for (int c = 0; c < plan.ncells; c++) {
		const struct node_cell *cl = &plan.cell[c];
		int rank = plan.cls[cl->cls].rank;
		mask->want[cl->row * dim + cl->col] = 1;
		mask->rank[cl->row * dim + cl->col] =
			(signed char)(rank < RB_RANKS ? rank : RB_RANKS);
	}
	cell_plan_free(&plan);
	return 0;
}

static int rb_run(struct run_ctx *ctx)
{
	const struct topo *t = ctx->topo;
	int32_t nodes[TOPO_MAX_NODES];
	struct means mean[NMATRICES];
	const struct rb_params *rp = ctx->params;
	int n = topo_matrix_nodes(t, rp->nodes.v, rp->nodes.n, nodes);
	int phantom = t->nnodes == 1 && n == 1;
	int dim = n + phantom, nm = 0, step = 0, steps, rc, ncells = 0;
	double mix_local[NMIX] = {0}, mix_remote[NMIX] = {0};
	struct cell_mask mask = {0};
	struct errinfo err = {0};

	memset(mean, 0, sizeof(mean));
	rc = make_mask(rp, t, nodes, n, dim, &mask, &err);
	if (rc) {
		if (err.msg[0])
			sink_note(ctx->sink, "warn", "no plan of cells: %s",
				  err.msg);
		goto out;
	}
	if (!nmem_caps()->policy)
		sink_note(
			ctx->sink, "warn",
			"memory policies are not allowed here (%s): buffers are placed by first touch",
			nmem_caps()->why);
	for (int m = 0; m < NMATRICES; m++)
		nm += wanted(rp, m);
	for (int k = 0; k < dim * dim; k++)
		ncells += mask.want[k];
	if (rp->cells == CELLS_BY_DISTANCE && n > 1)
		sink_note(
			ctx->sink, "info",
			"by_distance: %d of the %d cells of each matrix are measured, a few of each distance between the nodes; the others stay empty",
			ncells, dim * dim);
	steps = ncells * nm;
	for (int k = 0; k < NMIX; k++)
		steps += rp->mixed & mix_modes[k].bit ? 4 : 0;
	rc = run_matrix(ctx, nodes, n, phantom, &mask, mean, &step, steps);
	if (rc)
		goto out;
	for (int k = 0; k < NMIX && !rc; k++)
		if (rp->mixed & mix_modes[k].bit)
			rc = run_mixed(ctx, nodes, n, &mix_modes[k],
				       &mix_local[k], &mix_remote[k], &step,
				       steps);
	if (rc)
		goto out;
	sink_progress(ctx->sink, steps, steps, "done");

	for (int m = 0; m < NMATRICES; m++) {
		struct means *mm = &mean[m];
		char key[64];
		if (!mm->nlocal)
			continue;
		mm->local /= mm->nlocal;
		snprintf(key, sizeof(key), KEY_LOCAL, matrices[m].chart);
		sink_summary(ctx->sink, key, mm->local, "GB/s");
		if (mm->nremote) {
			mm->remote /= mm->nremote;
			snprintf(key, sizeof(key), KEY_REMOTE,
				 matrices[m].chart);
			sink_summary(ctx->sink, key, mm->remote, "GB/s");
			snprintf(key, sizeof(key), KEY_RATIO,
				 matrices[m].chart);
			sink_summary(ctx->sink, key, mm->remote / mm->local,
				     "x");
		}
		/* the mean of the cells of each remote distance rank */
		for (int r = 1; r < RB_RANKS && mm->nremote; r++) {
			if (!mm->nrank[r])
				continue;
			snprintf(key, sizeof(key), KEY_RANK, matrices[m].chart,
				 r);
			sink_summary(ctx->sink, key, mm->rank[r] / mm->nrank[r],
				     "GB/s");
		}
	}
	for (int k = 0; k < NMIX; k++) {
		char key[64];
		if (mix_local[k] > 0) {
			snprintf(key, sizeof(key), KEY_LOCAL,
				 mix_modes[k].prefix);
			sink_summary(ctx->sink, key, mix_local[k], "GB/s");
		}
		if (mix_local[k] > 0 && mix_remote[k] > 0) {
			snprintf(key, sizeof(key), KEY_REMOTE,
				 mix_modes[k].prefix);
			sink_summary(ctx->sink, key, mix_remote[k], "GB/s");
			snprintf(key, sizeof(key), KEY_GAIN,
				 mix_modes[k].prefix);
			sink_summary(ctx->sink, key,
				     mix_remote[k] / mix_local[k], "x");
		}
	}
out:
	free(mask.want);
	free(mask.rank);
	return rc;
}

/*
 * "; read 20.1 GB/s local, 15.2 GB/s remote (76%: every remote cell slower
 * than the local cell of its row)". Remote is called slower or faster
 * only when every remote cell's interval says so against its own row's
 * local cell; otherwise the ratio is disowned, with the reason.
 */
static void add_matrix(const struct run_result *r, int m, struct strbuf *sb,
		       struct verdict *v)
{
	char key[64], ratio_key[64], why[VERDICT_TEXT_LEN];
	double local, remote;
	struct cell_tally ct;

	snprintf(key, sizeof(key), KEY_LOCAL, matrices[m].chart);
	if (rr_summary_get(r, key, &local) || local <= 0)
		return;
	strbuf_addf(sb, "%s%s %.1f GB/s local", sb->len ? "; " : "",
		    matrices[m].what, local);
	snprintf(key, sizeof(key), KEY_REMOTE, matrices[m].chart);
	if (rr_summary_get_opt(r, key, &remote))
		return;
	snprintf(ratio_key, sizeof(ratio_key), KEY_RATIO, matrices[m].chart);
	if (r->machine->emulator == 1) {
		/* an emulator has no NUMA cost: nothing to compare */
		strbuf_addf(
			sb,
			", %.1f GB/s remote (the emulator's rates: remote is not compared with local)",
			remote);
		verdict_mark(
			v, ratio_key, VERDICT_DISOWNED,
			"timed under an emulator, which has no NUMA cost to show");
		return;
	}
	compare_cells_to_diagonal(r, matrices[m].chart,
				  experiment_precision(r->exp), &ct);
	if (ct.n && ct.less == ct.n) {
		strbuf_addf(
			sb,
			", %.1f GB/s remote (%.0f%%: every remote cell slower than the local cell of its row)",
			remote, 100 * remote / local);
		return;
	}
	if (ct.n && ct.more == ct.n) {
		strbuf_addf(
			sb,
			", %.1f GB/s remote (%.0f%%: every remote cell faster than the local cell of its row)",
			remote, 100 * remote / local);
		return;
	}
	if (ct.n && ct.same == ct.n) {
		strbuf_addf(
			sb,
			", %.1f GB/s remote (%.0f%%: every remote cell within %.0f%% of the local cell of its row)",
			remote, 100 * remote / local,
			100 * experiment_precision(r->exp));
		return;
	}
	if (!ct.n)
		snprintf(
			why, sizeof(why),
			"remote %s was not compared with local: the run kept no rounds of its cells",
			matrices[m].what);
	else
		snprintf(
			why, sizeof(why),
			"remote %s was not told from local: of %d remote cells, %d slower, %d faster, %d the same within %.0f%% and %d unclear against the local cell of their row",
			matrices[m].what, ct.n, ct.less, ct.more, ct.same,
			100 * experiment_precision(r->exp), ct.unsure);
	strbuf_addf(sb, ", %.1f GB/s remote on average (%s)", remote, why);
	verdict_mark(v, ratio_key, VERDICT_DISOWNED, "%s", why);
}

/* The summary value of a rank, under its key or the one older runs used. */
static int rank_value(const struct run_result *r, int m, int rank, double *x)
{
	char key[64];

	snprintf(key, sizeof(key), KEY_RANK, matrices[m].chart, rank);
	if (!rr_summary_get_opt(r, key, x))
		return 0;
	snprintf(key, sizeof(key), KEY_RANK_OLD, matrices[m].chart, rank);
	return rr_summary_get_opt(r, key, x);
}

/*
 * "read by distance rank (...): local 20.1, rank 1 15.2, rank 2 11.0
 * GB/s", where two or more remote distances were measured. A rank orders
 * the distances of the node table; it says nothing of how many links a
 * line crosses.
 */
static void ranks_note(const struct run_result *r, int m, struct verdict *v)
{
	struct strbuf sb = STRBUF_INIT;
	char key[64];
	double x;
	int nranks = 0;

	snprintf(key, sizeof(key), KEY_LOCAL, matrices[m].chart);
	if (rr_summary_get(r, key, &x))
		return;
	strbuf_addf(&sb, "local %.1f", x);
	for (int k = 1; k < RB_RANKS; k++) {
		if (rank_value(r, m, k, &x))
			continue;
		strbuf_addf(&sb, ", rank %d %.1f", k, x);
		nranks++;
	}
	if (nranks >= 2)
		verdict_note(
			v, "info",
			"%s by distance rank (rank 1: the nearest remote distance in the node table, rank 2: the next, and so on; a rank orders distances, it is not a count of links crossed): %s GB/s",
			matrices[m].what, strbuf_str(&sb));
	strbuf_release(&sb);
}

/* "; every node at once, writing to another node made the copies 1.2× as
 * fast as keeping them local" */
static void say_mix(const struct run_result *r, const struct mix_mode *mode,
		    int from_cache, struct strbuf *sb, struct verdict *v)
{
	char series[48], key[64], ratio[96], why[VERDICT_TEXT_LEN];
	const struct rr_point *local, *remote;
	struct comparison c;

	mix_series(0, from_cache, series, sizeof(series));
	local = rr_point_find_label_opt(r, mode->chart, series, mode->local);
	remote = rr_point_find_label_opt(r, mode->chart, series, mode->remote);
	if (!local || !remote)
		return;
	compare_points(remote, local, experiment_precision(r->exp), &c);
	compare_ratio_text(&c, ratio, sizeof(ratio));
	snprintf(key, sizeof(key), KEY_GAIN, mode->prefix);
	compare_state_interval(v, key, &c);
	if (c.rel == CMP_MORE || c.rel == CMP_LESS) {
		strbuf_addf(
			sb,
			"; %s, writing to another node made the copies %s as fast as keeping them local",
			mode->what, ratio);
	} else if (c.rel == CMP_SAME) {
		strbuf_addf(
			sb,
			"; %s, writing to another node or keeping the copies local made no difference (%s, within %.0f%%)",
			mode->what, ratio, 100 * experiment_precision(r->exp));
	} else {
		snprintf(
			why, sizeof(why),
			"%s, writing to another node was not told from keeping the copies local: %s",
			mode->what, compare_why_not(&c));
		strbuf_addf(sb, "; %s", why);
		verdict_mark(v, key, VERDICT_DISOWNED, "%s", why);
	}
}

/* Whether the size read from cache: the rulebook's finding when it ran, the
 * machine's own cache otherwise. */
static int rb_from_cache(const struct run_result *r, uint64_t size)
{
	if (r->rules && r->rules->checked)
		return r->rules->from_cache > 0;
	return mem_from_cache(r->machine, size);
}

static void rb_describe(const struct run_result *r, struct verdict *v)
{
	const struct rb_params *rp = r->params;
	const struct machine_facts *m = r->machine;
	struct strbuf sb = STRBUF_INIT;
	int from_cache = rb_from_cache(r, (uint64_t)rp->size);

	if (m->nnodes < 2)
		verdict_note(
			v, "cannot",
			"this machine has one node: only the diagonal (local memory) is measured, so what remote memory costs, and whether writing to another node helps (6.5.8, with every node busy or with the node written to idle), cannot be shown here");
	if (!r->rules || !r->rules->checked)
		mem_cache_note(m, (uint64_t)rp->size, "the matrices' figures",
			       v);
	add_matrix(r, 0, &sb, v);
	add_matrix(r, 3, &sb, v);
	ranks_note(r, 0, v);
	ranks_note(r, 3, v);
	for (int k = 0; k < NMIX; k++)
		say_mix(r, &mix_modes[k], from_cache, &sb, v);
	if (m->nnodes < 2 && sb.len)
		strbuf_addstr(
			&sb,
			" (remote cells need 2 nodes, this machine has 1)");
	if (sb.len)
		verdict_headline(v, "%s%s", from_cache ? "from cache: " : "",
				 strbuf_str(&sb));
	else
		verdict_headline(v, "nothing was measured");
	strbuf_release(&sb);
}

static void rb_precheck(const void *params, const struct common_params *common,
			const struct topo *t, struct verdict *v)
{
	const struct rb_params *rp = params;
	struct machine_facts m;

	(void)common;
	machine_facts_from_topo(t, &m);
	if (m.nnodes < 2)
		verdict_note(
			v, "cannot",
			"one node: only the diagonal (local memory) can be measured; remote cells and the read-local, write-remote runs need 2 nodes");
	if (m.nnodes < 2 && (rp->mixed & MIX_IDLE))
		verdict_note(
			v, "cannot",
			"reading locally while writing to an idle node (mixed=idle) needs 2 nodes, this machine has %d: only the local copy is measured",
			m.nnodes);
	mem_cache_note(&m, (uint64_t)rp->size, "the matrices' figures", v);
}

static void rb_estimate(const void *params, const struct common_params *common,
			const struct topo *t, double *seconds, uint64_t *bytes)
{
	const struct rb_params *rp = params;
	double size = (double)rp->size;
	double rounds = (double)(common->repeat + common->warmup);
	int32_t nodes[TOPO_MAX_NODES];
	int n = topo_matrix_nodes(t, rp->nodes.v, rp->nodes.n, nodes),
	    threads = (int)rp->threads;
	double write = 0, read = 0, s = 0, cells;
	struct cell_plan plan;
	struct errinfo err;
	int list[TOPO_MAX_NODES];

	/* one node: its diagonal cell alone (the phantom column is never
	 * measured) */
	cells = n < 2 ? 1 : (double)n * n;
	for (int i = 0; i < n && t && n <= t->nnodes; i++)
		list[i] = nodes[i];
	if (rp->cells == CELLS_BY_DISTANCE && t && n >= 2 && t->nnodes >= n &&
	    !cell_plan_make(t, list, n, CELLS_BY_DISTANCE, 0, &plan, &err)) {
		cells = plan.ncells;
		cell_plan_free(&plan);
	}
	for (int m = 0; m < NMATRICES; m++)
		if (wanted(rp, m)) {
			if (matrices[m].op == BW_READ)
				read += cost_stream_s(t, COST_READ, size,
						      threads);
			else
				write += cost_stream_s(t, COST_WRITE, size,
						       threads);
		}
	/* each column's buffer touched once; each planned cell a team and its
	 * rounds */
	s = n * cost_touch_s(t, size, threads) +
	    cells * (cost_teams_s(NMATRICES) + rounds * (read + write));
	/* mixed: every node copies at once, to its own memory and (2 nodes)
	 * another's */
	if (rp->mixed & MIX_ALL)
		s += 3 * n * cost_touch_s(t, size, threads) +
		     2 * (n > 1 ? 2 : 1) *
			     (cost_teams_s(1) +
			      rounds * cost_stream_s(t, COST_COPY, size * n,
						     threads * n));
	/* idle: one node copies, to its own memory and (2 nodes) another's */
	if (rp->mixed & MIX_IDLE)
		s += 3 * cost_touch_s(t, size, threads) +
		     2 * (n > 1 ? 2 : 1) *
			     (cost_teams_s(1) +
			      rounds * cost_stream_s(t, COST_COPY, size,
						     threads));
	*seconds = s;
	*bytes = (uint64_t)(size * 3 * (n < 2 ? 2 : n));
}

/* The classroom's questions; each run takes a few seconds on 2 cores. */
static const struct lesson lessons[] = {
	LESSON("local-read", "Reading your own node's memory",
	       "how many GB/s does one thread read from the memory of its own node?",
	       "size=256M ops=read kinds=regular mixed=no repeat=3", "GB/s",
	       "read_local_gbps", "read"),
	LESSON("remote-read", "Reading another node's memory",
	       "how much of the local read bandwidth is left when the memory sits on another node?",
	       "size=256M ops=read kinds=regular mixed=no repeat=3", "x",
	       "read_remote_over_local", "read"),
	{0}};

/* The rulebook (rules.h): what its comparisons need. */
static const struct rule rules[] = {
	RULE(RULE_MEMORY, .param = "size", .what = "the matrices' figures"),
	RULE(RULE_NODES, .floor = 2, .what = "remote against local memory"),
	{RULE_END}};
static const char *const compared[] = {"*_remote_over_local", "mixed_gain",
				       NULL};

/* what a person reads for each summary key */
/* One matrix's keys in words (its chart id said as the loop it times). */
#define MODE_LABELS(k, w)                                                      \
	{k "_local_gbps", w ": local bandwidth", "GB/s"},                      \
		{k "_remote_gbps", w ": remote bandwidth", "GB/s"},            \
		{k "_remote_over_local", w ": remote over local", "×"},        \
		{k "_gain", w ": gain", "×"},                                  \
		{k "_rank_*_gbps", w ": bandwidth at distance rank %s",        \
		 "GB/s"},                                                      \
	{                                                                      \
		k "_hops_*_gbps",                                              \
			w ": bandwidth at distance rank %s (an older run)",    \
			"GB/s"                                                 \
	}

static const struct key_label summary_labels[] = {
	{"pages_off_node*", "pages off node %s", "pages"},
	MODE_LABELS("write_regular", "regular writes"),
	MODE_LABELS("write_nontemporal", "non-temporal writes"),
	MODE_LABELS("write_prefetchw", "writes after prefetchw"),
	MODE_LABELS("read", "reads"),
	{"*_local_gbps", "%s: local bandwidth", "GB/s"},
	{"*_remote_gbps", "%s: remote bandwidth", "GB/s"},
	{"*_remote_over_local", "%s: remote over local", "×"},
	{"*_gain", "%s: gain", "×"},
	{"*_rank_*_gbps", "%s: bandwidth at distance rank %s", "GB/s"},
	{"*_hops_*_gbps", "%s: bandwidth at distance rank %s (an older run)",
	 "GB/s"},
	{NULL, NULL, NULL}};

/* Before the run: the cells it visits, threads on the row's node. */
static void rb_plan(const void *params, const struct common_params *common,
		    const struct topo *t, struct strbuf *out)
{
	const struct rb_params *rp = params;

	(void)common;
	strbuf_addf(out, "threads per cell: %d\n", (int)rp->threads);
	plan_view_cells(t, rp->nodes.v, rp->nodes.n, (enum cells_mode)rp->cells,
			out);
}

const struct experiment exp_remote_bandwidth = {
	.name = "remote_bandwidth",
	.smoke = "size=1M repeat=1 warmup=0",
	.summary_labels = summary_labels,
	.headline_key = "*_remote_over_local",
	.headline_chart = "read",
	.title = "Local and remote bandwidth, node by node",
	.summary =
		"Threads on one node stream over memory bound to each node: "
		"write (regular, non-temporal, prefetchw) and read matrices, "
		"and the article's read-local, write-remote proposal",
	.section = "6.5.8",
	.explain =
		"Each cell of a matrix is one measurement: threads pinned to the "
		"CPUs of the row's node stream over a buffer bound (mbind) to the "
		"column's node. The diagonal is local memory; every other cell "
		"crosses the interconnect between the nodes.\n\n"
		"Here numalab departs from the article. Section 6.5.8 reads its "
		"figure 5.4 (Opterons of 2007) as: when the caches are ineffective, "
		"remote memory is not measurably slower than local, which is what "
		"makes writing to another node worth trying. numalab does not take "
		"that as a rule: on many later machines one thread's stream is "
		"limited by how many misses it keeps in flight, so the longer way "
		"to remote memory lowers its bandwidth, and the links between "
		"sockets often carry less than a node's own memory controllers. "
		"So the matrix is measured rather than predicted, and the verdict "
		"calls remote slower only when every remote cell's 95% interval "
		"lies below that of the local cell of its row; where they are "
		"within a few percent, this machine behaves as the article's did. "
		"The buffer defaults to four times the machine's last-level cache, "
		"all of it together, so that no more than a quarter of it could "
		"stay in any cache between passes; a smaller one is allowed and "
		"its figures are labelled from cache.\n\n"
		"Writes come in three kinds. A regular store first fetches the line "
		"it writes (read for ownership), so it moves the data twice; a "
		"non-temporal (streaming) store writes whole lines without fetching "
		"them and without filling the cache; prefetchw asks for the line "
		"in the state for writing a little ahead, so the store finds it "
		"ready. Bytes are counted as stored, the fetch not included.\n\n"
		"Section 6.5.8 suggests that a program whose local memory bus is "
		"busy could write data it will not read again into another node's "
		"memory, using the interconnect and that node's memory controller "
		"as extra bandwidth. The article has in mind a node whose memory "
		"nobody else is using: mixed=idle tries exactly that, one node's "
		"threads copying from their own memory either to their own memory "
		"or to the nearest node's, while no thread runs on that node. The "
		"mixed run (mixed=yes) tries it with every node busy at "
		"once: each node's threads copy from their own memory, either to "
		"their own memory or to another node's. It helps only when the "
		"links are fast and the other node has bandwidth to spare. On a "
		"machine with one node the diagonal is measured and the other cells "
		"say why they are empty.\n\n"
		"On a machine of many nodes the matrix grows with their square "
		"(4,096 cells on 64 nodes). Above 8 nodes numalab measures by "
		"default a few cells of each NUMA distance (cells=by_distance), "
		"which answers local, the nearest remote distance, the next, in "
		"minutes (a distance's rank orders the node table's distances, "
		"it does not count the links a line crosses); cells=full "
		"measures every cell.",
	EXPERIMENT_PARTS(rb),
	.plan = rb_plan,
	.min_nodes = 2,
	.check = rb_check,
	.rules = rules,
	.compared = compared,
	.precision = 0.05,
};
