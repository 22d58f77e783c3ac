/* nodes.c - memory_latency's part nodes: the node x node matrix of ns per load, and whether remote is slower than local */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chase.h"
#include "compare.h"
#include "mem_size.h"
#include "pair_plan.h"
#include "strbuf.h"
#include "units.h"
#include "workcost.h"

#include "ml.h"

/* ---- measuring ---- */

/* One cell's kept rounds: ns per load each, and their median. */
struct cell_keep {
	double *ns;
	int n;
	double median;
	int measured;
};

/* The matrix a run measures: its cells and what each kept. */
struct matrix {
	int32_t nodes[TOPO_MAX_NODES];
	int dim; /* the matrix measured: one node's is 1x1 */
	struct cell_plan plan;
	struct cell_keep *keep;	 /* dim x dim, row by row */
	signed char *rank;	 /* each cell's distance rank */
	unsigned char *want;	 /* whether the plan measures the cell */
	int rdist[ML_RANKS + 1]; /* the firmware's distance of each rank */
	char labels[TOPO_MAX_NODES][48];
	int step, steps, pages_said;
};

static void emit_cell(struct run_ctx *ctx, const char *chart,
		      const struct matrix *m, int row, int col, double value,
		      const double *samples, int n, const char *unit,
		      const char *note)
{
	struct cell c = {.chart = chart,
			 .row = row,
			 .col = col,
			 .row_label = m->labels[row],
			 .col_label = m->labels[col],
			 .value = value,
			 .unit = unit,
			 .samples = samples,
			 .nsamples = n,
			 .note = note};
	sink_cell(ctx->sink, &c);
}

/* The cells the plan measures, their ranks and the rows' labels. Returns
 * 0 or -errno (a note says why there is no plan). */
static int matrix_plan(struct run_ctx *ctx, struct matrix *m)
{
	const struct ml_params *mp = ctx->params;
	int list[TOPO_MAX_NODES], n = m->dim, rc;
	struct errinfo err = {0};
	struct machine_facts mf;

	machine_facts_from_topo(ctx->topo, &mf);
	for (int i = 0; i < n; i++)
		list[i] = m->nodes[i];
	rc = cell_plan_make(ctx->topo, list, n, (enum cells_mode)mp->cells, 0,
			    &m->plan, &err);
	if (rc) {
		if (err.msg[0])
			sink_note(ctx->sink, "warn", "no plan of cells: %s",
				  err.msg);
		return rc;
	}
	m->keep = calloc((size_t)n * (size_t)n, sizeof(*m->keep));
	m->rank = calloc((size_t)n * (size_t)n, 1);
	m->want = calloc((size_t)n * (size_t)n, 1);
	if (!m->keep || !m->rank || !m->want)
		return -ENOMEM;
	for (int c = 0; c < m->plan.ncells; c++) {
		const struct node_cell *nc = &m->plan.cell[c];
		int k = nc->row * n + nc->col, r = m->plan.cls[nc->cls].rank;
		m->want[k] = 1;
		m->rank[k] = (signed char)(r < ML_RANKS ? r : ML_RANKS);
		if (r < ML_RANKS)
			m->rdist[r] = m->plan.cls[nc->cls].distance;
		m->steps++;
	}
	for (int i = 0; i < n; i++)
		snprintf(m->labels[i], sizeof(m->labels[i]), "node %d%s",
			 m->nodes[i],
			 mem_from_cache(&mf, (uint64_t)mp->size)
				 ? " (from cache)"
				 : "");
	if (mp->cells == CELLS_BY_DISTANCE && n > 1)
		sink_note(
			ctx->sink, "info",
			"by_distance: %d of the %d cells are measured, a few of each distance between the nodes; the others stay empty",
			m->plan.ncells, n * n);
	return 0;
}

/* Cell (i, j): the chase from the first cpu of row i's node through the
 * buffer at base, bound to column j's. Returns 0 or -errno. */
static int matrix_cell(struct run_ctx *ctx, struct matrix *m, int i, int j,
		       void *base)
{
	struct cell_keep *ck = &m->keep[i * m->dim + j];
	char what[96];
	struct errinfo err;
	int cpu, rc;

	if (ml_cpu_of_node(ctx->topo, m->nodes[i], 1, &cpu, &err)) {
		emit_cell(ctx, CH_LAT, m, i, j, NAN, NULL, 0, "ns",
			  "node has no cpu this process may use");
		return 0;
	}
	snprintf(what, sizeof(what), "chase: cpu of node %d, memory of node %d",
		 m->nodes[i], m->nodes[j]);
	sink_progress(ctx->sink, m->step++, m->steps, what);
	rc = ml_chase_rounds(ctx, cpu, base, what, &ck->ns, &ck->n,
			     &ck->median);
	if (rc)
		return rc;
	ck->measured = 1;
	emit_cell(ctx, CH_LAT, m, i, j, ck->median, ck->ns, ck->n, "ns", NULL);
	return 0;
}

/* Column j: a buffer bound to its node, chased from each row's node the
 * plan measures. Returns 0 or -errno. */
static int matrix_column(struct run_ctx *ctx, struct matrix *m, int j)
{
	const struct ml_params *mp = ctx->params;
	size_t size = (size_t)mp->size;
	struct chase_buf cb;
	int any = 0, rc;

	for (int i = 0; i < m->dim; i++)
		any |= m->want[i * m->dim + j];
	if (!any || !topo_node_has_memory(ctx->topo, m->nodes[j]))
		return 0;
	rc = ml_buf_alloc(ctx, m->nodes[j], size, &cb);
	if (rc)
		return rc;
	/* bound to the column's node: the binding, not the toucher, places
	 * the pages */
	rc = chase_build(cb.use.base, size, (size_t)mp->stride,
			 (size_t)mp->locality, 0x5eed + (uint64_t)j);
	if (!rc) {
		ml_verify_on(ctx, &cb.use, m->nodes[j]);
		if (!m->pages_said++)
			ml_say_pages(ctx, ml_huge_share(&cb, size));
	}
	for (int i = 0; i < m->dim && !rc; i++)
		if (m->want[i * m->dim + j])
			rc = matrix_cell(ctx, m, i, j, cb.use.base);
	nmem_free(&cb.map);
	return rc;
}

/* Cell (i, j) over the local cell of row i, each round. Returns 0 or
 * -ENOMEM. */
static int matrix_ratio(struct run_ctx *ctx, const struct matrix *m, int i,
			int j)
{
	const struct cell_keep *l = &m->keep[i * m->dim + i];
	const struct cell_keep *ck = &m->keep[i * m->dim + j];
	double *rv;

	if (!l->n || l->median <= 0) {
		emit_cell(ctx, CH_RATIO, m, i, j, NAN, NULL, 0, "×",
			  "the local cell of this row was not measured");
		return 0;
	}
	rv = calloc((size_t)ck->n + 1, sizeof(double));
	if (!rv)
		return -ENOMEM;
	for (int r = 0; r < ck->n; r++)
		rv[r] = ck->ns[r] / l->median;
	emit_cell(ctx, CH_RATIO, m, i, j, ck->median / l->median, rv, ck->n,
		  "×", NULL);
	free(rv);
	return 0;
}

/* The ratio to the local cell of each row, and the firmware's distance,
 * beside every measured cell. Returns 0 or -ENOMEM. */
static int matrix_beside(struct run_ctx *ctx, const struct matrix *m)
{
	const struct topo *t = ctx->topo;
	int rc = 0;

	for (int i = 0; i < m->dim && !rc; i++) {
		int a = topo_node_index(t, m->nodes[i]);
		for (int j = 0; j < m->dim && !rc; j++) {
			int b = topo_node_index(t, m->nodes[j]);
			double d = a >= 0 && b >= 0 ? t->distance[a][b] : 0;
			if (!m->want[i * m->dim + j])
				continue;
			if (d > 0)
				emit_cell(ctx, CH_DIST, m, i, j, d, &d, 1,
					  "SLIT", NULL);
			if (m->keep[i * m->dim + j].n)
				rc = matrix_ratio(ctx, m, i, j);
		}
	}
	return rc;
}

/* Local and remote on average, and remote by distance rank. */
static void matrix_summary(struct run_ctx *ctx, const struct matrix *m)
{
	double rsum[ML_RANKS + 1] = {0}, lsum = 0, osum = 0;
	int rn[ML_RANKS + 1] = {0}, ln = 0, on = 0;
	char key[48];

	/* column by column, as measured */
	for (int j = 0; j < m->dim; j++)
		for (int i = 0; i < m->dim; i++) {
			int k = i * m->dim + j;
			const struct cell_keep *ck = &m->keep[k];
			if (!ck->measured)
				continue;
			if (m->rank[k] >= 0 && m->rank[k] < ML_RANKS) {
				rsum[m->rank[k]] += ck->median;
				rn[m->rank[k]]++;
			}
			if (i == j) {
				lsum += ck->median;
				ln++;
			} else {
				osum += ck->median;
				on++;
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
		if (!rn[r])
			continue;
		snprintf(key, sizeof(key), KEY_RANK, r);
		sink_summary(ctx->sink, key, rsum[r] / rn[r], "ns");
		if (m->rdist[r] > 0) {
			snprintf(key, sizeof(key), KEY_RANK_DIST, r);
			sink_summary(ctx->sink, key, m->rdist[r], "SLIT");
		}
	}
	if (rn[0] && m->rdist[0] > 0 && on) {
		snprintf(key, sizeof(key), KEY_RANK_DIST, 0);
		sink_summary(ctx->sink, key, m->rdist[0], "SLIT");
	}
}

int ml_nodes_run(struct run_ctx *ctx, const void *state)
{
	const struct ml_params *mp = ctx->params;
	struct matrix *m;
	int rc;

	(void)state;
	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	m->dim = topo_matrix_nodes(ctx->topo, mp->nodes.v, mp->nodes.n,
				   m->nodes);
	rc = matrix_plan(ctx, m);
	for (int j = 0; j < m->dim && !rc; j++)
		rc = matrix_column(ctx, m, j);
	if (!rc) {
		sink_progress(ctx->sink, m->steps, m->steps, "done");
		rc = matrix_beside(ctx, m);
	}
	if (!rc)
		matrix_summary(ctx, m);
	for (int k = 0; m->keep && k < m->dim * m->dim; k++)
		free(m->keep[k].ns);
	free(m->keep);
	free(m->rank);
	free(m->want);
	cell_plan_free(&m->plan);
	free(m);
	return rc;
}

void ml_nodes_estimate(const void *params, const struct common_params *common,
		       const struct topo *t, double *seconds, uint64_t *bytes)
{
	const struct ml_params *mp = params;
	double rounds = cost_rounds(common);
	double size = (double)mp->size;
	int32_t nodes[TOPO_MAX_NODES];
	int n = topo_matrix_nodes(t, mp->nodes.v, mp->nodes.n, nodes);
	double cells = cell_plan_count(t, nodes, n, (enum cells_mode)mp->cells);

	*seconds = n * ml_build_s(t, size, (double)mp->stride) +
		   cells * (cost_teams_s(1) +
			    rounds * cost_chase_s(t, size, (double)mp->loads));
	*bytes = (uint64_t)(size * 1.0625) + 2 * ML_HUGE;
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
		const struct result_cell *a = &r->cells[i];
		double da;
		if (strcmp(a->chart, CH_LAT) || a->row == a->col ||
		    !isfinite(a->value) ||
		    !(da = distance_at(r, a->row, a->col)))
			continue;
		for (int k = 0; k < r->ncells; k++) {
			const struct result_cell *b = &r->cells[k];
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
	char key[48], a[32], b[32];

	snprintf(key, sizeof(key), KEY_RANK_DIST, 0);
	result_summary_get_opt(r, key, &d0);
	units_number(local, a, sizeof(a));
	strbuf_addf(&sb, "local %s ns", a);
	if (d0 > 0)
		strbuf_addf(&sb, " (distance %.0f)", d0);
	for (int k = 1; k < ML_RANKS; k++) {
		double ns, d = 0;
		snprintf(key, sizeof(key), KEY_RANK, k);
		if (result_summary_get_opt(r, key, &ns))
			continue;
		snprintf(key, sizeof(key), KEY_RANK_DIST, k);
		result_summary_get_opt(r, key, &d);
		units_number(ns, a, sizeof(a));
		units_number(ns / local, b, sizeof(b));
		strbuf_addf(&sb, "; rank %d %s ns (%s× local", k, a, b);
		if (d > 0 && d0 > 0) {
			units_number(d / d0, b, sizeof(b));
			strbuf_addf(&sb, ", the firmware's distance says %s×",
				    b);
		}
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

/* The headline of a matrix into sb, its notes and marks into v. */
static void describe_nodes(const struct run_result *r, struct strbuf *sb,
			   struct verdict *v)
{
	const struct machine_facts *m = r->machine;
	double local, remote;
	struct cell_tally ct;
	struct comparison c;
	char why[VERDICT_TEXT_LEN], ln[32], rm[32];

	if (m->nnodes < 2)
		verdict_note(
			v, "cannot",
			"this machine has one node: only the local cell is measured; what a load from another node's memory costs (the NUMA factor of 6.5) needs 2 nodes");
	if (result_summary_get(r, KEY_LOCAL, &local) || local <= 0)
		return;
	units_number(local, ln, sizeof(ln));
	strbuf_addf(sb, "local memory %s ns per load", ln);
	if (result_summary_get_opt(r, KEY_REMOTE, &remote)) {
		if (m->nnodes < 2)
			strbuf_addf(
				sb,
				" (the remote cells need 2 nodes, this machine has %d)",
				m->nnodes);
		return;
	}
	units_number(remote, rm, sizeof(rm));
	if (m->emulator == 1) {
		/* an emulator has no NUMA cost: nothing to compare */
		strbuf_addf(
			sb,
			", remote %s ns (the emulator's times: remote is not compared with local, nor with the firmware's distance)",
			rm);
		verdict_qualify(
			v, KEY_RATIO, VERDICT_DISOWNED,
			"timed under an emulator, which has no NUMA cost to show");
		return;
	}
	compare_cells_to_diagonal(r, CH_LAT, experiment_precision(r->exp), &ct);
	compare_cells_mean(r, CH_LAT, remote, local,
			   experiment_precision(r->exp), &c);
	if (ct.n && (ct.more == ct.n || ct.same == ct.n))
		compare_state_interval(v, KEY_RATIO, &c);
	if (ct.n && ct.more == ct.n) {
		char rt[80];
		strbuf_addf(
			sb,
			", remote %s ns (%s: every remote cell slower than the local cell of its row)",
			rm, compare_ratio_text(&c, rt, sizeof(rt)));
	} else if (ct.n && ct.same == ct.n) {
		strbuf_addf(
			sb,
			", remote %s ns (every remote cell within %.0f%% of the local cell of its row: no NUMA factor here)",
			rm, 100 * experiment_precision(r->exp));
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
		strbuf_addf(sb, ", remote %s ns on average (%s)", rm, why);
		verdict_qualify(v, KEY_RATIO, VERDICT_DISOWNED, "%s", why);
	}
	distance_note(r, local, v);
}

void ml_nodes_say(const struct run_result *r, struct verdict *v, char *head,
		  size_t len)
{
	ml_say_part(r, describe_nodes, v, head, len);
}
