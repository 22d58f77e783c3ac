/* report_matrix.c - a heatmap of the closing table, as blocks of a matrix that fit the terminal */
#include "report_matrix.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report_cols.h"
#include "strbuf.h"
#include "units.h"

/* Index of v in a[0..n), appending it when new. */
static int index_of(int *a, int *n, int v)
{
	for (int i = 0; i < *n; i++)
		if (a[i] == v)
			return i;
	a[*n] = v;
	return (*n)++;
}

static int by_int(const void *a, const void *b)
{
	return (*(const int *)a > *(const int *)b) -
	       (*(const int *)a < *(const int *)b);
}

static const struct result_cell *cell_at(const struct sink_table *t,
					 const char *id, int row, int col)
{
	for (int i = 0; i < t->rec.ncells; i++)
		if (t->rec.cells[i].row == row && t->rec.cells[i].col == col &&
		    !strcmp(t->rec.cells[i].chart, id))
			return &t->rec.cells[i];
	return NULL;
}

/* Whether row (or col, when by_col) of chart id has a measured cell. */
int report_has_value(const struct sink_table *t, const char *id, int rc,
		     int by_col)
{
	for (int i = 0; i < t->rec.ncells; i++)
		if (sink_table_measured(&t->rec.cells[i]) &&
		    !strcmp(t->rec.cells[i].chart, id) &&
		    (by_col ? t->rec.cells[i].col : t->rec.cells[i].row) == rc)
			return 1;
	return 0;
}

/* A cell's value times f (its unit scaled for the whole matrix), or "-". */
static void cell_text(const struct result_cell *c, double f, struct strbuf *sb)
{
	char num[64];

	strbuf_reset(sb);
	if (c && sink_table_measured(c)) {
		units_number(c->value * f, num, sizeof(num));
		strbuf_addstr(sb, num);
	} else {
		strbuf_addstr(sb, "-");
	}
}

static const char *label_of(const struct sink_table *t, const char *id, int rc,
			    int by_col)
{
	for (int i = 0; i < t->rec.ncells; i++)
		if (!strcmp(t->rec.cells[i].chart, id) &&
		    (by_col ? t->rec.cells[i].col : t->rec.cells[i].row) ==
			    rc) {
			const char *l = by_col ? t->rec.cells[i].col_label
					       : t->rec.cells[i].row_label;
			if (l)
				return l;
		}
	return "?";
}

/* A heatmap as a matrix: rows and columns with no value at all are left out. */
void report_matrix(const struct sink_table *t, const struct chart *c)
{
	int *rows = calloc((size_t)t->rec.ncells + 1, sizeof(int));
	int *cols = calloc((size_t)t->rec.ncells + 1, sizeof(int));
	int nr = 0, nc = 0, kr = 0, kc = 0, lw = 0;
	struct strbuf sb = STRBUF_INIT, blanks = STRBUF_INIT;
	const char *unit = NULL;
	struct span span = {0};
	double f = 1;
	FILE *out = t->out;

	if (!rows || !cols)
		goto out;
	for (int i = 0; i < t->rec.ncells; i++) {
		const struct result_cell *x = &t->rec.cells[i];
		if (strcmp(x->chart, c->id))
			continue;
		index_of(rows, &nr, x->row);
		index_of(cols, &nc, x->col);
		if (sink_table_measured(x) && !unit)
			unit = x->unit;
		if (sink_table_measured(x))
			cols_span_add(&span, x->value);
	}
	/* a title that names the unit keeps it */
	if (!unit || !strstr(c->title, unit))
		unit = units_pick(cols_span_mid(&span), unit, &f);
	for (int i = 0; i < nr; i++)
		if (report_has_value(t, c->id, rows[i], 0))
			rows[kr++] = rows[i];
	for (int i = 0; i < nc; i++)
		if (report_has_value(t, c->id, cols[i], 1))
			cols[kc++] = cols[i];
	if (!kr || !kc)
		goto out;
	qsort(rows, (size_t)kr, sizeof(int), by_int);
	qsort(cols, (size_t)kc, sizeof(int), by_int);
	/* the unit in brackets, unless the title says it already */
	if (unit && strstr(c->title, unit))
		unit = NULL;
	fprintf(out, "\n%s%s%s%s\n  rows: %s, columns: %s\n", c->title,
		unit ? " [" : "", unit ? unit : "", unit ? "]" : "",
		c->y_label ? c->y_label : "row",
		c->x_label ? c->x_label : "column");
	for (int i = 0; i < kr; i++)
		lw = cols_max(lw, cols_width(label_of(t, c->id, rows[i], 0)));
	/* columns in blocks that fit the terminal (table_width) */
	for (int c0 = 0; c0 < kc;) {
		int c1 = c0, used = 2 + lw, cw[64];
		while (c1 < kc && c1 - c0 < 64) {
			int w = cols_width(label_of(t, c->id, cols[c1], 1));
			for (int i = 0; i < kr; i++) {
				cell_text(cell_at(t, c->id, rows[i], cols[c1]),
					  f, &sb);
				w = cols_max(w, cols_width(strbuf_str(&sb)));
			}
			if (c1 > c0 && used + 2 + w > cols_table_width(out))
				break;
			cw[c1 - c0] = w;
			used += 2 + w;
			c1++;
		}
		fputs("  ", out);
		cols_pad(out, "", lw);
		for (int j = c0; j < c1; j++) {
			fputs("  ", out);
			cols_rpad(out, label_of(t, c->id, cols[j], 1),
				  cw[j - c0]);
		}
		fputc('\n', out);
		for (int i = 0; i < kr; i++) {
			fputs("  ", out);
			cols_pad(out, label_of(t, c->id, rows[i], 0), lw);
			for (int j = c0; j < c1; j++) {
				const struct result_cell *x =
					cell_at(t, c->id, rows[i], cols[j]);
				cell_text(x, f, &sb);
				fputs("  ", out);
				cols_rpad(out, strbuf_str(&sb), cw[j - c0]);
				if (x && !sink_table_measured(x) && x->note &&
				    !strstr(strbuf_str(&blanks), x->note))
					strbuf_addf(&blanks, "%s%s",
						    blanks.len ? "; " : "",
						    x->note);
			}
			fputc('\n', out);
		}
		c0 = c1;
	}
	if (blanks.len)
		fprintf(out, "  -: %s\n", strbuf_str(&blanks));
out:
	strbuf_release(&sb);
	strbuf_release(&blanks);
	free(rows);
	free(cols);
}
