/* compare.c - the one way a verdict states that two measurements differ: from their intervals, never a fixed cut */
#include "compare.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void compare_values(double a, double a_lo, double a_hi, int a_n, double b,
		    double b_lo, double b_hi, int b_n, double tol,
		    struct comparison *c)
{
	double lim;

	memset(c, 0, sizeof(*c));
	c->together = 1;
	c->tol = tol > 0 ? tol : 0.05;
	c->rounds = a_n < b_n ? a_n : b_n;
	c->ratio = b > 0 ? a / b : 0;
	c->lo = b_hi > 0 ? a_lo / b_hi : 0;
	c->hi = b_lo > 0 ? a_hi / b_lo : INFINITY;
	if (a_n < 2 || b_n < 2 || !(b > 0) || !isfinite(a)) {
		c->rel = CMP_FEW;
		return;
	}
	if (a_lo > b_hi)
		c->rel = CMP_MORE;
	else if (a_hi < b_lo)
		c->rel = CMP_LESS;
	else {
		lim = 1 + (tol > 0 ? tol : 0.05);
		c->rel = c->lo >= 1 / lim && c->hi <= lim ? CMP_SAME
							  : CMP_UNSURE;
	}
}

void compare_points(const struct result_point *a, const struct result_point *b,
		    double tol, struct comparison *c)
{
	double oa = 1, ob = 1;

	if (!a || !b) {
		memset(c, 0, sizeof(*c));
		c->together = 1;
		c->rel = CMP_FEW;
		return;
	}
	compare_values(a->y, a->ci_lo, a->ci_hi, a->n, b->y, b->ci_lo, b->ci_hi,
		       b->n, tol, c);
	result_point_extra(a, "overlap", &oa);
	result_point_extra(b, "overlap", &ob);
	c->together = oa < ob ? oa : ob;
	c->lower_bound = c->together < CMP_FULL_OVERLAP &&
			 (c->rel == CMP_MORE || c->rel == CMP_LESS);
}

static void compare_ratio(double ratio, double lo, double hi, int pairs,
			  double tol, struct comparison *c)
{
	double lim = 1 + (tol > 0 ? tol : 0.05);

	memset(c, 0, sizeof(*c));
	c->together = 1;
	c->tol = tol > 0 ? tol : 0.05;
	c->rounds = pairs;
	c->ratio = ratio;
	c->lo = lo;
	c->hi = hi;
	if (pairs < 2 || !(ratio > 0) || !isfinite(ratio) || !(lo <= hi))
		c->rel = CMP_FEW;
	else if (lo > 1)
		c->rel = CMP_MORE;
	else if (hi < 1)
		c->rel = CMP_LESS;
	else
		c->rel = lo >= 1 / lim && hi <= lim ? CMP_SAME : CMP_UNSURE;
}

void compare_paired(const struct result_point *a, const struct result_point *b,
		    double tol, struct comparison *c)
{
	double ratio, lo, hi, pairs, oa = 1, ob = 1;

	if (!a || !b || result_point_extra(a, CMP_PAIRS, &pairs) ||
	    result_point_extra(a, CMP_PAIR_RATIO, &ratio) ||
	    result_point_extra(a, CMP_PAIR_LO, &lo) ||
	    result_point_extra(a, CMP_PAIR_HI, &hi)) {
		compare_points(a, b, tol, c);
		return;
	}
	compare_ratio(ratio, lo, hi, (int)pairs, tol, c);
	result_point_extra(a, "overlap", &oa);
	result_point_extra(b, "overlap", &ob);
	c->together = oa < ob ? oa : ob;
	c->lower_bound = c->together < CMP_FULL_OVERLAP &&
			 (c->rel == CMP_MORE || c->rel == CMP_LESS);
}

const char *compare_ratio_text(const struct comparison *c, char *buf,
			       size_t len)
{
	int digits = c->ratio >= 10 ? 0 : c->ratio >= 1.2 ? 1 : 2;
	double tol = c->tol > 0 ? c->tol : 0.05;
	char r[32], lo[32], hi[32], wide[64] = "";

	/* an interval narrower than the digits shown gets up to two more,
	 * so it reads "4.12× (4.10–4.14)", not "4.1× (4.1–4.1)"; one with
	 * no width at all keeps the ratio's digits */
	for (int more = 0; more <= 2; more++) {
		snprintf(lo, sizeof(lo), "%.*f", digits + more, c->lo);
		snprintf(hi, sizeof(hi), "%.*f", digits + more, c->hi);
		if (strcmp(lo, hi) != 0 || !isfinite(c->hi)) {
			digits += more;
			break;
		}
	}
	snprintf(r, sizeof(r), "%.*f", digits, c->ratio);
	snprintf(lo, sizeof(lo), "%.*f", digits, c->lo);
	snprintf(hi, sizeof(hi), "%.*f", digits, c->hi);
	/* an interval wider than the precision either way of the ratio */
	if (c->ratio > 0 && (c->hi > c->ratio * (1 + tol) * (1 + tol) ||
			     c->lo < c->ratio / ((1 + tol) * (1 + tol))))
		snprintf(wide, sizeof(wide),
			 ", wider than the %.0f%% precision", tol * 100);
	if (c->rel != CMP_FEW && isfinite(c->hi) && c->lo > 0)
		snprintf(buf, len, "%s%s× (%s–%s%s)",
			 c->lower_bound ? "at least " : "", r, lo, hi, wide);
	else
		snprintf(buf, len, "%s%s×", c->lower_bound ? "at least " : "",
			 r);
	return buf;
}

void compare_state_interval(struct verdict *v, const char *key,
			    const struct comparison *c)
{
	if (c->rel != CMP_FEW && isfinite(c->hi) && c->lo > 0)
		verdict_interval(v, key, c->lo, c->hi);
}

void compare_invert(struct comparison *c)
{
	double lo = c->lo;

	c->ratio = c->ratio > 0 ? 1 / c->ratio : 0;
	c->lo = isfinite(c->hi) && c->hi > 0 ? 1 / c->hi : 0;
	c->hi = lo > 0 ? 1 / lo : INFINITY;
	if (c->rel == CMP_MORE)
		c->rel = CMP_LESS;
	else if (c->rel == CMP_LESS)
		c->rel = CMP_MORE;
}

const char *compare_why_not(const struct comparison *c)
{
	switch (c->rel) {
	case CMP_FEW:
		return "with fewer than 2 rounds a side, no difference can be told from noise";
	case CMP_UNSURE:
		return "the rounds varied too much to tell (their 95% intervals overlap but are too wide to call it no difference)";
	default:
		return "";
	}
}

const char *compare_words(const struct comparison *c, const char *less,
			  const char *same)
{
	return c->rel == CMP_LESS   ? less
	       : c->rel == CMP_SAME ? same
				    : "not told apart from";
}

static const struct result_cell *
compare_cell_at(const struct run_result *r, const char *chart, int row, int col)
{
	for (int i = 0; i < r->ncells; i++)
		if (r->cells[i].row == row && r->cells[i].col == col &&
		    !strcmp(r->cells[i].chart, chart) &&
		    isfinite(r->cells[i].value))
			return &r->cells[i];
	return NULL;
}

void compare_cells_to_diagonal(const struct run_result *r, const char *chart,
			       double tol, struct cell_tally *ct)
{
	memset(ct, 0, sizeof(*ct));
	for (int i = 0; i < r->ncells; i++) {
		const struct result_cell *c = &r->cells[i], *l;
		struct comparison cmp;

		if (strcmp(c->chart, chart) || c->row == c->col ||
		    !isfinite(c->value) ||
		    !(l = compare_cell_at(r, chart, c->row, c->row)))
			continue;
		compare_values(c->value, c->ci_lo, c->ci_hi, c->n, l->value,
			       l->ci_lo, l->ci_hi, l->n, tol, &cmp);
		ct->n++;
		ct->less += cmp.rel == CMP_LESS;
		ct->more += cmp.rel == CMP_MORE;
		ct->same += cmp.rel == CMP_SAME;
		ct->unsure += cmp.rel == CMP_FEW || cmp.rel == CMP_UNSURE;
	}
}

/* The cells of one side of compare_cells_mean: their interval ends
 * summed, how many, and the fewest rounds among them. */
struct cells_side {
	double lo, hi;
	int n, least;
};

void compare_cells_mean(const struct run_result *r, const char *chart,
			double off, double diag, double tol,
			struct comparison *c)
{
	struct cells_side side[2]; /* off, diag */

	memset(side, 0, sizeof(side));
	for (int i = 0; i < r->ncells; i++) {
		const struct result_cell *q = &r->cells[i];
		struct cells_side *s = &side[q->row == q->col];
		if (strcmp(q->chart, chart) || !isfinite(q->value))
			continue;
		s->lo += q->ci_lo;
		s->hi += q->ci_hi;
		s->least = s->n && s->least < q->n ? s->least : q->n;
		s->n++;
	}
	for (int k = 0; k < 2; k++)
		if (side[k].n) {
			side[k].lo /= side[k].n;
			side[k].hi /= side[k].n;
		}
	compare_values(off, side[0].lo, side[0].hi, side[0].least, diag,
		       side[1].lo, side[1].hi, side[1].least, tol, c);
}
