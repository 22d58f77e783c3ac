/* remote_bandwidth.c - node x node bandwidth: threads on one node, memory bound to another; each part (matrix, mixed) in its file */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "experiment.h"
#include "mem_size.h"
#include "numa_mem.h"
#include "pair_plan.h"
#include "plan_view.h"
#include "workcost.h"

#include "rb.h"
#include "units.h"

/* a kind's value is the index of its write matrix in matrices[] below */
static const struct param_choice kinds[] = {
	{"regular", 0}, {"nontemporal", 1}, {"prefetchw", 2}, {0}};
static const struct param_choice ops[] = {
	{"write", RB_WRITE}, {"read", RB_READ}, {0}};
static const struct param_choice mixes[] = {{"yes", MIX_ALL},
					    {"no", 0},
					    {"idle", MIX_IDLE},
					    {"both", MIX_ALL | MIX_IDLE},
					    {0}};

#define PARAM_STRUCT struct rb_params
static const struct param params[] = {
	PARAM_SIZE(size, "64M", 1 << 20, 1LL << 40, "bytes",
		   "the buffer bound to each memory node; " MEM_DEFAULT_HELP,
		   .flags = PARAM_F_MEMORY),
	PARAM_INT(
		threads, "1", 1, 1024, "per node",
		"threads on the CPU node that stream over the buffer together"),
	PARAM_NODELIST(nodes, "", 0, NMEM_MAX_NODE - 1,
		       "the nodes of the matrix (e.g. 0-3); empty: every node"),
	PARAM_SET(ops, "all", ops, "which matrices: write, read"),
	PARAM_SET(
		kinds, "all", kinds,
		"ops has write: store kinds for the write matrix: regular, nontemporal (streaming stores), prefetchw (prefetch for write ahead of the stores, where the CPU has it)",
		.only = "ops=write"),
	PARAM_ENUM(
		mixed, "both", mixes,
		"the copy runs of 6.5.8, each reading local memory and writing either local memory or another node's: yes: every node at once; idle: one node alone, writing to a node whose cpus are idle; both: the two; no: neither"),
	PARAM_ENUM(
		cells, "full", cells_choices,
		"full: every (cpu node, memory node) cell; by_distance: 3 cells of each numa distance (local, the nearest remote distance, the next...); default: full up to 8 nodes, by_distance above",
		.machine_def = cells_default),
	{0}};

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

static const char *const summary_keys[] = {
	"pages_off_node*", "*_local_gbps",
	"*_remote_gbps",   "*_remote_over_local",
	"*_gain",	   "*_rank_*_gbps",
	"*_hops_*_gbps",   NULL};

static int rb_check(const void *params, const struct common_params *common,
		    const struct topo *t, struct errinfo *err)
{
	const struct rb_params *rp = params;
	const struct int_list *v = &rp->nodes;
	const struct mem_caps *caps = mem_caps();
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
	if (!caps->policy && t->nnodes > 1)
		return errinfo_set(
			err, "nodes",
			"binding memory to a node is not allowed here (%s)",
			caps->why);
	n = topo_matrix_nodes(t, rp->nodes.v, rp->nodes.n, nodes);
	for (int i = 0; i < n; i++) {
		int cpus = topo_node_ncpus(t, nodes[i]);
		if (cpus > 0 && cpus < threads)
			return errinfo_set(
				err, "threads",
				"%d threads per node, but node %d has only %d %s this process may use",
				threads, nodes[i], cpus,
				units_plural(cpus, "cpu", "cpus"));
		any |= cpus > 0;
		/* the matrix needs one buffer per node, the mixed run three */
		if (topo_node_has_memory(t, nodes[i]) &&
		    (rc = topo_check_free_why(
			     t, &nodes[i], 1, mixed ? 3 * size : size, "size",
			     mixed ? "three buffers of it, for the mixed run"
				   : NULL,
			     err)))
			return rc;
	}
	if (!any)
		return errinfo_set(
			err, "nodes",
			"none of these nodes has a cpu this process may use");
	return 0;
}

/* The cells to visit, from the plan of the request's cells over the matrix's
 * nodes (every cell of a phantom row or column, which only says why it is
 * empty), and each planned cell's distance rank. */
static int make_mask(const struct rb_params *rp, const struct topo *t,
		     struct rb_state *st, struct errinfo *err)
{
	int dim = st->dim, n = st->n, list[TOPO_MAX_NODES], rc;
	struct cell_plan plan;

	st->want = calloc((size_t)dim * (size_t)dim + 1, 1);
	st->rank = calloc((size_t)dim * (size_t)dim + 1, 1);
	if (!st->want || !st->rank)
		return -ENOMEM;
	for (int i = 0; i < n; i++)
		list[i] = st->nodes[i];
	rc = cell_plan_make(t, list, n, (enum cells_mode)rp->cells, 0, &plan,
			    err);
	if (rc)
		return rc;
	for (int k = 0; k < dim * dim; k++) {
		/* a phantom row or column: visited, to say why it is empty */
		st->want[k] = k / dim >= n || k % dim >= n;
		st->rank[k] = -1;
	}
	for (int c = 0; c < plan.ncells; c++) {
		const struct node_cell *cl = &plan.cell[c];
		int rank = plan.cls[cl->cls].rank;
		st->want[cl->row * dim + cl->col] = 1;
		st->rank[cl->row * dim + cl->col] =
			(signed char)(rank < RB_RANKS ? rank : RB_RANKS);
	}
	cell_plan_free(&plan);
	return 0;
}

/* The progress steps: a cell of each matrix asked for, and 4 bars of
 * each copy run; notes what by_distance leaves out. */
static int count_steps(struct run_ctx *ctx, const struct rb_state *st)
{
	const struct rb_params *rp = ctx->params;
	int nm = 0, ncells = 0, steps;

	for (int m = 0; m < NMATRICES; m++)
		nm += rb_wanted(rp, m);
	for (int k = 0; k < st->dim * st->dim; k++)
		ncells += st->want[k];
	if (rp->cells == CELLS_BY_DISTANCE && st->n > 1)
		sink_note(
			ctx->sink, "info",
			"by_distance: %d of the %d cells of each matrix are measured, a few of each distance between the nodes; the others stay empty",
			ncells, st->dim * st->dim);
	steps = ncells * nm;
	for (int k = 0; k < NMIX; k++)
		steps += rp->mixed & rb_mix_modes[k].bit ? 4 : 0;
	return steps;
}

static int rb_run(struct run_ctx *ctx)
{
	const struct topo *t = ctx->topo;
	const struct rb_params *rp = ctx->params;
	struct rb_tally tally = {0};
	struct rb_state st = {.tally = &tally};
	struct errinfo err = {0};
	int rc;

	st.n = topo_matrix_nodes(t, rp->nodes.v, rp->nodes.n, st.nodes);
	st.phantom = t->nnodes == 1 && st.n == 1;
	st.dim = st.n + st.phantom;
	rc = make_mask(rp, t, &st, &err);
	if (rc) {
		if (err.msg[0])
			sink_note(ctx->sink, "warn", "no plan of cells: %s",
				  err.msg);
		goto out;
	}
	if (!mem_caps()->policy)
		sink_note(
			ctx->sink, "warn",
			"memory policies are not allowed here (%s): buffers are placed by first touch",
			mem_caps()->why);
	st.steps = count_steps(ctx, &st);
	rc = experiment_run_parts(ctx, &st);
	if (rc)
		goto out;
	sink_progress(ctx->sink, st.steps, st.steps, "done");
	rb_matrix_summary(ctx, &tally);
	rb_mixed_summary(ctx, &tally);
out:
	free(st.want);
	free(st.rank);
	return rc;
}

static void rb_describe(const struct run_result *r, struct verdict *v)
{
	const struct rb_params *rp = r->params;
	const struct machine_facts *m = r->machine;
	char head[2 * VERDICT_TEXT_LEN] = "";
	int from_cache = rb_from_cache(r, (uint64_t)rp->size);

	if (m->nnodes < 2)
		verdict_note(
			v, "cannot",
			"this machine has one node: only the diagonal (local memory) is measured, so what remote memory costs, and whether writing to another node helps (6.5.8, with every node busy or with the node written to idle), cannot be shown here");
	if (!r->rules || !r->rules->checked)
		mem_cache_note(m, (uint64_t)rp->size, "the matrices' figures",
			       v);
	experiment_describe_parts(r, v, head, sizeof(head));
	if (m->nnodes < 2 && head[0])
		rb_head_add(head, sizeof(head),
			    " (remote cells need 2 nodes, this machine has 1)");
	if (head[0])
		verdict_headline(v, "%s%s", from_cache ? "from cache: " : "",
				 head);
	else
		verdict_headline(v, "nothing was measured");
}

static void rb_precheck(const void *params, const struct common_params *common,
			const struct topo *t, struct verdict *v)
{
	const struct rb_params *rp = params;
	struct machine_facts m;

	(void)common;
	precheck_needs_nodes(
		t, &m,
		"one node: only the diagonal (local memory) can be measured; remote cells and the read-local, write-remote runs need 2 nodes",
		v);
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
	double rounds = cost_rounds(common);
	int32_t nodes[TOPO_MAX_NODES];
	int n = topo_matrix_nodes(t, rp->nodes.v, rp->nodes.n, nodes),
	    threads = (int)rp->threads;
	double cell = 0, s = 0, cells;

	/* one node: its diagonal cell alone (the phantom column is never
	 * measured); by_distance: the cells its plan holds */
	cells = n < 2 ? 1
		: rp->cells == CELLS_BY_DISTANCE
			? cell_plan_count(t, nodes, n, CELLS_BY_DISTANCE)
			: (double)n * n;
	for (int m = 0; m < NMATRICES; m++)
		if (rb_wanted(rp, m))
			cell += cost_bw_s(t, rb_matrices[m].op, size, threads);
	/* each column's buffer touched once; each planned cell a team and its
	 * rounds */
	s = n * cost_touch_s(t, size, threads) +
	    cells * (cost_teams_s(NMATRICES) + rounds * cell);
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
	       "size=256M ops=read mixed=no repeat=3", "GB/s",
	       "read_local_gbps", "read"),
	LESSON("remote-read", "Reading another node's memory",
	       "how much of the local read bandwidth is left when the memory sits on another node?",
	       "size=256M ops=read mixed=no repeat=3", "x",
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
/* One matrix's keys in words (its chart id said as the loop it times);
 * with "*" and "%s", any other prefix's (the copy runs'). */
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
	MODE_LABELS("*", "%s"),
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

/* The parts, in the order they run: each a file of this folder; mixed
 * only when mixed= asks for a copy run. The time model stays whole
 * (rb_estimate): both parts touch the same columns' buffers. */
static const char *const mixed_reads[] = {"mixed", NULL};
static const char *const matrix_reads[] = {"ops", "kinds", "cells", NULL};
static const struct part parts[] = {
	{"matrix", rb_matrix_run, rb_matrix_say, NULL, NULL, matrix_reads, 0},
	{"mixed", rb_mixed_run, rb_mixed_say, NULL, rb_mixed_wanted,
	 mixed_reads, 0},
	{0}};

const struct experiment exp_remote_bandwidth = {
	.parts = parts,
	.name = "remote_bandwidth",
	.smoke = "size=1M repeat=1 warmup=0",
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
};
