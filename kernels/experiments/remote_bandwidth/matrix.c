/* matrix.c - remote_bandwidth's matrices: threads on each node stream over memory bound to each node */
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
#include "strbuf.h"

#include "rb.h"

const struct matrix rb_matrices[NMATRICES] = {
	{"write_regular", BW_WRITE, "write"},
	{"write_nontemporal", BW_WRITE_NT, "non-temporal write"},
	{"write_prefetchw", BW_WRITE_PFW, "prefetchw write"},
	{"read", BW_READ, "read"},
};

int rb_wanted(const struct rb_params *rp, int m)
{
	if (rb_matrices[m].op == BW_READ)
		return (rp->ops >> RB_READ) & 1u;
	if (!((rp->ops >> RB_WRITE) & 1u))
		return 0;
	return (rp->kinds >> m) & 1u;
}

/* Checks that the buffer's pages are all on node; a warning when not. */
static void verify_on(struct run_ctx *ctx, const struct nmem_buf *b, int node)
{
	struct page_census c;
	char key[48];

	if (!mem_caps()->move_pages || node_mem_census(b, node, &c))
		return;
	snprintf(key, sizeof(key), "pages_off_node%d", node);
	sink_summary(ctx->sink, key, (double)(c.forbidden + c.absent), "pages");
	if (c.forbidden || c.absent)
		sink_note(
			ctx->sink, "warn",
			"the buffer bound to node %d has %zu of %zu pages elsewhere or missing: its column is not clean",
			node, c.forbidden + c.absent, c.npages);
}

/* The words of the rows and columns, and of a cell a machine of one node
 * cannot have. */
struct names {
	char label[TOPO_MAX_NODES + 1][40];
	char need[80];
};

/* Cell (row, col) of chart: what r measured, or empty with the note why. */
static void emit_cell(struct run_ctx *ctx, const char *chart,
		      const struct names *nm, int row, int col,
		      const struct bw_result *r, const char *note)
{
	struct cell c = {.chart = chart,
			 .row = row,
			 .col = col,
			 .row_label = nm->label[row],
			 .col_label = nm->label[col],
			 .unit = "GB/s",
			 .note = note};

	if (r) {
		c.value = r->median;
		c.samples = r->gbps;
		c.nsamples = r->n;
	}
	sink_cell(ctx->sink, &c);
}

static void name_nodes(struct run_ctx *ctx, const struct rb_state *st,
		       struct names *nm)
{
	const struct rb_params *rp = ctx->params;
	struct machine_facts mf;

	machine_facts_from_topo(ctx->topo, &mf);
	for (int i = 0; i < st->n; i++)
		snprintf(nm->label[i], sizeof(nm->label[i]), "node %d%s",
			 st->nodes[i],
			 mem_from_cache(&mf, (uint64_t)rp->size)
				 ? " (from cache)"
				 : "");
	if (st->phantom)
		snprintf(nm->label[st->n], sizeof(nm->label[st->n]),
			 "node %d (not on this machine)",
			 st->nodes[st->n - 1] + 1);
	snprintf(nm->need, sizeof(nm->need),
		 "needs 2 nodes, this machine has %d", ctx->topo->nnodes);
	for (int m = 0; m < NMATRICES; m++)
		if (rb_wanted(rp, m) && !bw_op_supported(rb_matrices[m].op))
			sink_note(ctx->sink, "info",
				  "this CPU has no %s: its matrix stays empty",
				  rb_matrices[m].op == BW_WRITE_PFW
					  ? "PREFETCHW"
					  : bw_op_names[rb_matrices[m].op]);
}

/* One column of the matrices: its node's buffer, split among the threads. */
struct column {
	int j, ok, touched;
	struct nmem_buf b;
	char *slices[PARAM_MAX_LIST];
	size_t bytes;
};

/* Adds one measured cell to its matrix's means. */
static void tally_cell(struct means *mm, const struct rb_state *st, int i,
		       int j, double median)
{
	int rank = st->rank[i * st->dim + j];

	if (rank >= 0 && rank < RB_RANKS) {
		mm->rank[rank] += median;
		mm->nrank[rank]++;
	}
	if (i == j) {
		mm->local += median;
		mm->nlocal++;
	} else {
		mm->remote += median;
		mm->nremote++;
	}
}

/* Measures matrix m's cell (i, col->j) on cpus: emits it, tallies it. */
static int measure_cell(struct run_ctx *ctx, const struct rb_state *st,
			const struct names *nm, struct column *col, int i,
			int m, const int *cpus, int *placed)
{
	const struct rb_params *rp = ctx->params;
	int j = col->j, rc;
	struct bw_result res;
	char what[96];

	snprintf(what, sizeof(what), "%s: cpus of node %d, memory of node %d",
		 rb_matrices[m].what, st->nodes[i], st->nodes[j]);
	sink_progress(ctx->sink, st->tally->step++, st->steps, what);
	rc = rb_measure(ctx, rb_matrices[m].op, cpus, (int)rp->threads,
			col->slices, col->slices, col->bytes, !col->touched,
			&res);
	if (rc)
		return rc;
	if (!col->touched) {
		col->touched = 1;
		verify_on(ctx, &col->b, st->nodes[j]);
	}
	if (!(*placed)++)
		sink_placement(ctx->sink, what, res.team.place,
			       res.team.nthreads);
	emit_cell(ctx, rb_matrices[m].chart, nm, i, j, &res, NULL);
	tally_cell(&st->tally->mean[m], st, i, j, res.median);
	bw_result_free(&res);
	return 0;
}

/* Why cell (i, j) stays empty, into why; NULL when it can be measured,
 * with its threads' cpus. */
static const char *cell_empty(const struct topo *t, const struct rb_state *st,
			      const struct names *nm, const struct column *col,
			      int i, int threads, int *cpus, char *why,
			      size_t len)
{
	struct errinfo err;
	int j = col->j;

	if (i >= st->n || j >= st->n)
		return nm->need;
	if (topo_node_ncpus(t, st->nodes[i]) < threads) {
		snprintf(why, len, "node %d has no cpus", st->nodes[i]);
		return why;
	}
	if (!col->ok) {
		snprintf(why, len, "node %d has no memory", st->nodes[j]);
		return why;
	}
	if (topo_plan_nodes(t, PLACE_SPREAD, &st->nodes[i], 1, threads, cpus,
			    &err)) {
		snprintf(why, len, "%.90s", err.msg);
		return why;
	}
	return NULL;
}

/* Row i of column col, in every matrix asked for. */
static int run_cell(struct run_ctx *ctx, const struct rb_state *st,
		    const struct names *nm, struct column *col, int i)
{
	const struct rb_params *rp = ctx->params;
	int cpus[PARAM_MAX_LIST], placed = 0, rc = 0;
	char why[96];
	const char *note = cell_empty(ctx->topo, st, nm, col, i,
				      (int)rp->threads, cpus, why, sizeof(why));

	for (int m = 0; m < NMATRICES && !rc; m++) {
		if (!rb_wanted(rp, m))
			continue;
		if (note || !bw_op_supported(rb_matrices[m].op))
			emit_cell(
				ctx, rb_matrices[m].chart, nm, i, col->j, NULL,
				note ? note : "this CPU lacks the instruction");
		else
			rc = measure_cell(ctx, st, nm, col, i, m, cpus,
					  &placed);
	}
	return rc;
}

/* Column j: its buffer bound to its node, every planned row over it. */
static int run_column(struct run_ctx *ctx, const struct rb_state *st,
		      const struct names *nm, int j)
{
	const struct rb_params *rp = ctx->params;
	struct column col = {.j = j};
	int any = 0, rc = 0;

	for (int i = 0; i < st->dim; i++)
		any |= st->want[i * st->dim + j];
	if (!any)
		return 0;
	col.ok = j < st->n && topo_node_has_memory(ctx->topo, st->nodes[j]);
	if (col.ok) {
		rc = node_mem_alloc(ctx->sink, ctx->topo, st->nodes[j],
				    (size_t)rp->size, 0, &col.b);
		if (rc)
			return rc;
		col.bytes = bw_split(col.b.base, col.b.len, (int)rp->threads,
				     col.slices);
	}
	for (int i = 0; i < st->dim && !rc; i++)
		if (st->want[i * st->dim + j])
			rc = run_cell(ctx, st, nm, &col, i);
	nmem_free(&col.b);
	return rc;
}

/*
 * The matrices. Each column's buffer is bound to its node and touched by
 * the first row's threads; the binding, not the toucher, decides where
 * the pages go.
 */
int rb_matrix_run(struct run_ctx *ctx, const void *state)
{
	const struct rb_state *st = state;
	struct names *nm = calloc(1, sizeof(*nm));
	int rc = 0;

	if (!nm)
		return -ENOMEM;
	name_nodes(ctx, st, nm);
	for (int j = 0; j < st->dim && !rc; j++)
		rc = run_column(ctx, st, nm, j);
	free(nm);
	return rc;
}

void rb_matrix_summary(struct run_ctx *ctx, const struct rb_tally *tally)
{
	for (int m = 0; m < NMATRICES; m++) {
		const struct means *mm = &tally->mean[m];
		const char *chart = rb_matrices[m].chart;
		double local, remote;
		char key[64];
		if (!mm->nlocal)
			continue;
		local = mm->local / mm->nlocal;
		snprintf(key, sizeof(key), KEY_LOCAL, chart);
		sink_summary(ctx->sink, key, local, "GB/s");
		if (!mm->nremote)
			continue;
		remote = mm->remote / mm->nremote;
		snprintf(key, sizeof(key), KEY_REMOTE, chart);
		sink_summary(ctx->sink, key, remote, "GB/s");
		snprintf(key, sizeof(key), KEY_RATIO, chart);
		sink_summary(ctx->sink, key, remote / local, "x");
		/* the mean of the cells of each remote distance rank */
		for (int r = 1; r < RB_RANKS; r++) {
			if (!mm->nrank[r])
				continue;
			snprintf(key, sizeof(key), KEY_RANK, chart, r);
			sink_summary(ctx->sink, key, mm->rank[r] / mm->nrank[r],
				     "GB/s");
		}
	}
}

/*
 * Remote over local as a percentage, with its interval where one was
 * measured: "76% (72–80%)", "76%" alone with fewer than 2 rounds a side.
 */
static void percent_text(const struct comparison *c, char *buf, size_t len)
{
	if (c->rel != CMP_FEW && isfinite(c->hi) && c->lo > 0)
		snprintf(buf, len, "%.0f%% (%.0f–%.0f%%)", 100 * c->ratio,
			 100 * c->lo, 100 * c->hi);
	else
		snprintf(buf, len, "%.0f%%", 100 * c->ratio);
}

/*
 * "; read 20.1 GB/s local, 15.2 GB/s remote (76% (72–80%): every remote
 * cell slower than the local cell of its row)". Remote is called slower or
 * faster only when every remote cell's interval says so against its own
 * row's local cell; otherwise the ratio is disowned, with the reason.
 */
static void add_matrix(const struct run_result *r, int m, struct strbuf *sb,
		       struct verdict *v)
{
	char key[64], ratio_key[64], why[VERDICT_TEXT_LEN];
	double local, remote;
	struct cell_tally ct;

	snprintf(key, sizeof(key), KEY_LOCAL, rb_matrices[m].chart);
	if (result_summary_get(r, key, &local) || local <= 0)
		return;
	strbuf_addf(sb, "%s%s %.1f GB/s local", sb->len ? "; " : "",
		    rb_matrices[m].what, local);
	snprintf(key, sizeof(key), KEY_REMOTE, rb_matrices[m].chart);
	if (result_summary_get_opt(r, key, &remote))
		return;
	snprintf(ratio_key, sizeof(ratio_key), KEY_RATIO, rb_matrices[m].chart);
	if (r->machine->emulator == 1) {
		/* an emulator has no NUMA cost: nothing to compare */
		strbuf_addf(
			sb,
			", %.1f GB/s remote (the emulator's rates: remote is not compared with local)",
			remote);
		verdict_qualify(
			v, ratio_key, VERDICT_DISOWNED,
			"timed under an emulator, which has no NUMA cost to show");
		return;
	}
	compare_cells_to_diagonal(r, rb_matrices[m].chart,
				  experiment_precision(r->exp), &ct);
	if (ct.n && (ct.less == ct.n || ct.more == ct.n || ct.same == ct.n)) {
		char how[48], pct[48];
		struct comparison c;
		compare_cells_mean(r, rb_matrices[m].chart, remote, local,
				   experiment_precision(r->exp), &c);
		compare_state_interval(v, ratio_key, &c);
		percent_text(&c, pct, sizeof(pct));
		if (ct.same == ct.n)
			snprintf(how, sizeof(how), "within %.0f%% of",
				 100 * experiment_precision(r->exp));
		else
			snprintf(how, sizeof(how), "%s than",
				 ct.less == ct.n ? "slower" : "faster");
		strbuf_addf(
			sb,
			", %.1f GB/s remote (%s: every remote cell %s the local cell of its row)",
			remote, pct, how);
		return;
	}
	if (!ct.n)
		snprintf(
			why, sizeof(why),
			"remote %s was not compared with local: the run kept no rounds of its cells",
			rb_matrices[m].what);
	else
		snprintf(
			why, sizeof(why),
			"remote %s was not told from local: of %d remote cells, %d slower, %d faster, %d the same within %.0f%% and %d unclear against the local cell of their row",
			rb_matrices[m].what, ct.n, ct.less, ct.more, ct.same,
			100 * experiment_precision(r->exp), ct.unsure);
	strbuf_addf(sb, ", %.1f GB/s remote on average (%s)", remote, why);
	verdict_qualify(v, ratio_key, VERDICT_DISOWNED, "%s", why);
}

/* The summary value of a rank, under its key or the one older runs used. */
static int rank_value(const struct run_result *r, int m, int rank, double *x)
{
	char key[64];

	snprintf(key, sizeof(key), KEY_RANK, rb_matrices[m].chart, rank);
	if (!result_summary_get_opt(r, key, x))
		return 0;
	snprintf(key, sizeof(key), KEY_RANK_OLD, rb_matrices[m].chart, rank);
	return result_summary_get_opt(r, key, x);
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

	snprintf(key, sizeof(key), KEY_LOCAL, rb_matrices[m].chart);
	if (result_summary_get(r, key, &x))
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
			rb_matrices[m].what, strbuf_str(&sb));
	strbuf_release(&sb);
}

/* The matrices' sentence of the headline ("read 20.1 GB/s local, ..."),
 * and the bandwidth by distance rank in notes. */
void rb_matrix_say(const struct run_result *r, struct verdict *v, char *head,
		   size_t len)
{
	struct strbuf sb = STRBUF_INIT;

	add_matrix(r, 0, &sb, v);
	add_matrix(r, 3, &sb, v);
	rb_head_add(head, len, strbuf_str(&sb));
	strbuf_release(&sb);
	ranks_note(r, 0, v);
	ranks_note(r, 3, v);
}
