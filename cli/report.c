/* report.c - the closing table of a run on the command line */
#include "report.h"

#include <fnmatch.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "refs.h"
#include "report_cols.h"
#include "report_matrix.h"
#include "report_summary.h"
#include "stdout_close.h"
#include "strbuf.h"
#include "term.h"
#include "units.h"

/* One row of a point table, its columns as text. */
struct row {
	struct strbuf c[6];  /* series, x, median, spread, n, unit */
	const char *after;   /* said after the row, or NULL */
	struct strbuf marks; /* the marks at its x, in words (is_mark) */
};

static void row_set(struct row *r, const char *series, const char *x_label,
		    double x, double y, double lo, double hi, int n,
		    const char *unit)
{
	for (int i = 0; i < 6; i++)
		strbuf_init(&r->c[i]);
	strbuf_init(&r->marks);
	double f;
	const char *u = units_pick(y, unit, &f);
	char a[64], b[64];

	strbuf_addstr(&r->c[0], series);
	if (x_label) {
		strbuf_addstr(&r->c[1], x_label);
	} else {
		units_number(x, a, sizeof(a));
		strbuf_addstr(&r->c[1], a);
	}
	units_number(y * f, a, sizeof(a));
	strbuf_addstr(&r->c[2], a);
	if (!isnan(lo)) {
		units_number(lo * f, a, sizeof(a));
		units_number(hi * f, b, sizeof(b));
		strbuf_addf(&r->c[3], "%s .. %s", a, b);
	}
	if (n > 0)
		strbuf_addf(&r->c[4], "%d", n);
	strbuf_addstr(&r->c[5], u);
	r->after = NULL;
}

/* The article's figures for chart id (at any x: the x column tells). */
static int ref_rows(json_t *refs, const char *id, struct row *rows, int k)
{
	size_t i;
	json_t *r;

	json_array_foreach (refs, i, r) {
		const char *how =
			json_string_value(json_object_get(r, "normalised"));

		/* a total of a larger run is shown per operation, on its own
		 * chart */
		if (json_object_get(r, "ops") ||
		    strcmp(json_string_value(json_object_get(r, "chart")), id))
			continue;
		row_set(&rows[k],
			json_string_value(json_object_get(r, "series")),
			json_string_value(json_object_get(r, "x_label")),
			json_number_value(json_object_get(r, "x")),
			json_number_value(json_object_get(r, "y")), NAN, NAN, 0,
			json_string_value(json_object_get(r, "unit")));
		rows[k++].after = how;
	}
	return k;
}

/* Index of s in a[0..n), appending it when new. */
static int index_of_str(const char **a, int *n, const char *s)
{
	for (int i = 0; i < *n; i++)
		if (!strcmp(a[i], s))
			return i;
	a[*n] = s;
	return (*n)++;
}

static int by_double(const void *a, const void *b)
{
	return (*(const double *)a > *(const double *)b) -
	       (*(const double *)a < *(const double *)b);
}

/* An x of chart c as a person reads it: a size in bytes as "64 KiB" when
 * the chart's x is in bytes, any other number as it is. */
static void x_text(const struct chart *c, double x, char *buf, size_t len)
{
	const char *l = c->x_label;
	size_t n = l ? strlen(l) : 0;

	if (n >= 7 && !strcmp(l + n - 7, "(bytes)"))
		units_format(x, "bytes", buf, len);
	else
		units_number(x, buf, len);
}

/* Whether series marks a place on chart c's x (a cache's size) rather than
 * measures: printed as words beside the row it marks, never as a column. */
static int is_mark(const struct chart *c, const char *series)
{
	return c->marks && !fnmatch(c->marks, series, 0);
}

/* "  ← L1 data cache size (one core's)": the marks of chart c at x, in
 * words, or "" when none falls there. */
static void marks_at(const struct sink_table *t, const struct chart *c,
		     double x, struct strbuf *sb)
{
	char label[128];

	for (int i = 0; c->marks && i < t->rec.npoints; i++) {
		const struct result_point *p = &t->rec.points[i];

		if (strcmp(p->chart, c->id) || p->x != x ||
		    !is_mark(c, p->series))
			continue;
		experiment_series_label(t->exp, p->series, label, sizeof(label),
					NULL);
		strbuf_addf(sb, "%s%s", sb->len ? ", " : "  ← ", label);
	}
}

/* The x column of chart c ("threads"), or "x". */
static const char *x_head(const struct chart *c)
{
	return c->x_label ? c->x_label : "x";
}

/* The article's figures for chart c under its pivot, each said as such. */
static void pivot_refs(FILE *f_out, const struct chart *c, json_t *refs)
{
	char num[64];

	size_t i;
	json_t *r;
	json_array_foreach (refs, i, r) {
		const char *how =
			json_string_value(json_object_get(r, "normalised"));
		const char *xl =
			json_string_value(json_object_get(r, "x_label"));
		char y[96];

		if (json_object_get(r, "ops") ||
		    strcmp(json_string_value(json_object_get(r, "chart")),
			   c->id))
			continue;
		units_format(json_number_value(json_object_get(r, "y")),
			     json_string_value(json_object_get(r, "unit")), y,
			     sizeof(y));
		x_text(c, json_number_value(json_object_get(r, "x")), num,
		       sizeof(num));
		fprintf(f_out,
			"  %s, %s %s: %s  (the article's, not measured here%s%s)\n",
			json_string_value(json_object_get(r, "series")),
			xl ? xl : num, xl ? "" : x_head(c), y, how ? ": " : "",
			how ? how : "");
	}
}

/*
 * The width of each series' column of a pivot: with its label in words
 * when the table then fits the terminal, else with its short name.
 * Returns 1 when the short names are used.
 */
static int pivot_widths(const struct sink_table *t, const struct chart *c,
			const char **series, int ns, double f, int w0, int *w)
{
	char label[128], num[64];
	int wide = 0;

	for (int pass = 0; pass < 2; pass++) {
		int total = w0;
		for (int s = 0; s < ns; s++) {
			if (pass)
				snprintf(label, sizeof(label), "%s", series[s]);
			else
				experiment_series_label(t->exp, series[s],
							label, sizeof(label),
							NULL);
			w[s] = cols_width(label);
			for (int i = 0; i < t->rec.npoints; i++)
				if (!strcmp(t->rec.points[i].chart, c->id) &&
				    !strcmp(t->rec.points[i].series,
					    series[s])) {
					units_number(t->rec.points[i].y * f,
						     num, sizeof(num));
					w[s] = cols_max(w[s], cols_width(num));
				}
			total += 2 + w[s];
		}
		wide = pass;
		if (total + 2 <= cols_table_width(t->out))
			break;
	}
	return wide;
}

/*
 * Chart c as one row per x and one column of medians per series, as
 * likwid-bench prints its results: when every point has a numeric x, one
 * unit, and no x has a series twice. Returns 0 when it printed, -1 when
 * the chart does not fit that shape (nothing printed).
 */
static int print_pivot(const struct sink_table *t, const struct chart *c,
		       json_t *refs, int *legend_said)
{
	int n = 0, ns = 0, nx = 0, rc = -1, wide = 0, w0, *w = NULL;
	const char **series = NULL, *unit = NULL, *shown;
	double *xs = NULL, f;
	struct span span = {0};
	char label[128], num[64];
	FILE *f_out = t->out;

	for (int i = 0; i < t->rec.npoints; i++)
		n += !strcmp(t->rec.points[i].chart, c->id);
	series = calloc((size_t)n + 1, sizeof(*series));
	xs = calloc((size_t)n + 1, sizeof(*xs));
	w = calloc((size_t)n + 1, sizeof(*w));
	if (!series || !xs || !w || n < 2)
		goto out;
	for (int i = 0; i < t->rec.npoints; i++) {
		const struct result_point *p = &t->rec.points[i];
		int dup = 0;

		if (strcmp(p->chart, c->id) || is_mark(c, p->series))
			continue;
		if (p->x_label ||
		    (unit && strcmp(unit, p->unit ? p->unit : "")))
			goto out;
		unit = p->unit ? p->unit : "";
		for (int j = 0; j < i; j++)
			dup |= !strcmp(t->rec.points[j].chart, c->id) &&
			       !strcmp(t->rec.points[j].series, p->series) &&
			       t->rec.points[j].x == p->x;
		if (dup)
			goto out;
		index_of_str(series, &ns, p->series);
		int seen = 0;
		for (int j = 0; j < nx; j++)
			seen |= xs[j] == p->x;
		if (!seen)
			xs[nx++] = p->x;
		cols_span_add(&span, p->y);
	}
	if (ns < 2 || nx < 2)
		goto out; /* one series, or one x: a list (with spreads) reads
			     better */
	qsort(xs, (size_t)nx, sizeof(*xs), by_double);
	shown = units_pick(cols_span_mid(&span), unit, &f);
	w0 = cols_width(x_head(c));
	wide = pivot_widths(t, c, series, ns, f, w0, w);
	fprintf(f_out, "\n%s%s%s%s (medians)\n  ", c->title,
		shown[0] ? " [" : "", shown, shown[0] ? "]" : "");
	cols_pad(f_out, x_head(c), w0);
	for (int s = 0; s < ns; s++) {
		if (wide)
			snprintf(label, sizeof(label), "%s", series[s]);
		else
			experiment_series_label(t->exp, series[s], label,
						sizeof(label), NULL);
		fputs("  ", f_out);
		cols_rpad(f_out, label, w[s]);
	}
	fputc('\n', f_out);
	for (int j = 0; j < nx; j++) {
		x_text(c, xs[j], num, sizeof(num));
		fputs("  ", f_out);
		cols_pad(f_out, num, w0);
		for (int s = 0; s < ns; s++) {
			snprintf(num, sizeof(num), "-");
			for (int i = 0; i < t->rec.npoints; i++) {
				const struct result_point *p =
					&t->rec.points[i];
				if (!strcmp(p->chart, c->id) &&
				    !strcmp(p->series, series[s]) &&
				    p->x == xs[j])
					units_number(p->y * f, num,
						     sizeof(num));
			}
			fputs("  ", f_out);
			cols_rpad(f_out, num, w[s]);
		}
		struct strbuf mk = STRBUF_INIT;
		marks_at(t, c, xs[j], &mk);
		fprintf(f_out, "%s\n", strbuf_str(&mk));
		strbuf_release(&mk);
	}
	/* the full names, once, when the columns carry the short ones */
	for (int s = 0; wide && !*legend_said && s < ns; s++)
		if (!experiment_series_label(t->exp, series[s], label,
					     sizeof(label), NULL))
			fprintf(f_out, "  %s: %s\n", series[s], label);
	*legend_said |= wide;
	pivot_refs(f_out, c, refs);
	rc = 0;
out:
	free(series);
	free(xs);
	free(w);
	return rc;
}

static void print_points(const struct sink_table *t, const struct chart *c,
			 json_t *refs)
{
	static const char *const head[6] = {"series",	       NULL, "median",
					    "spread (95% CI)", "n",  "unit"};
	int n = 0, k = 0, w[6];
	struct row *rows;
	FILE *f = t->out;

	for (int i = 0; i < t->rec.npoints; i++)
		n += !strcmp(t->rec.points[i].chart, c->id) &&
		     !is_mark(c, t->rec.points[i].series);
	if (!n)
		return;
	rows = calloc((size_t)n + json_array_size(refs), sizeof(*rows));
	if (!rows)
		return;
	for (int i = 0; i < t->rec.npoints; i++) {
		const struct result_point *p = &t->rec.points[i];
		char label[128], xs[64];

		if (strcmp(p->chart, c->id) || is_mark(c, p->series))
			continue;
		experiment_series_label(t->exp, p->series, label, sizeof(label),
					NULL);
		x_text(c, p->x, xs, sizeof(xs));
		row_set(&rows[k], label, p->x_label ? p->x_label : xs, p->x,
			p->y, sink_table_lo(p), sink_table_hi(p), p->n,
			p->unit);
		marks_at(t, c, p->x, &rows[k++].marks);
	}
	k = ref_rows(refs, c->id, rows, k);
	for (int j = 0; j < 6; j++) {
		w[j] = cols_width(head[j]      ? head[j]
				  : c->x_label ? c->x_label
					       : "x");
		for (int i = 0; i < k; i++)
			w[j] = cols_max(w[j],
					cols_width(strbuf_str(&rows[i].c[j])));
	}
	fprintf(f, "\n%s\n  ", c->title);
	for (int j = 0; j < 6; j++) {
		const char *h = head[j]	     ? head[j]
				: c->x_label ? c->x_label
					     : "x";
		if (j == 2 || j == 4)
			cols_rpad(f, h, w[j]);
		else
			cols_pad(f, h, w[j]);
		fputs(j < 5 ? "  " : "\n", f);
	}
	for (int i = 0; i < k; i++) {
		fputs("  ", f);
		for (int j = 0; j < 6; j++) {
			if (j == 2 || j == 4)
				cols_rpad(f, strbuf_str(&rows[i].c[j]), w[j]);
			else if (j < 5 || rows[i].after || i >= n)
				cols_pad(f, strbuf_str(&rows[i].c[j]), w[j]);
			else
				fputs(strbuf_str(&rows[i].c[j]), f);
			if (j < 5)
				fputs("  ", f);
			strbuf_release(&rows[i].c[j]);
		}
		if (i >= n)
			fprintf(f, "  the article's, not measured here%s%s",
				rows[i].after ? ": " : "",
				rows[i].after ? rows[i].after : "");
		fprintf(f, "%s\n", strbuf_str(&rows[i].marks));
		strbuf_release(&rows[i].marks);
	}
	free(rows);
}

/*
 * One line per reason this machine could not measure something: the
 * "cannot" notes, and the cells left out of every matrix (in a row or
 * column with no value), counted and grouped by their note.
 */
static void print_cannot(const struct sink_table *t)
{
	struct strbuf charts = STRBUF_INIT;
	char *done = calloc((size_t)t->rec.ncells + 1, 1);
	int header = 0;
	FILE *f = t->out;

	for (int i = 0; i < t->nnotes; i++) {
		if (strcmp(t->notes[i].level, "cannot"))
			continue;
		if (!header++)
			fprintf(f, "\nnot shown on this machine\n");
		struct strbuf sb = STRBUF_INIT;
		int w = term_columns(f);

		term_wrap(&sb, t->notes[i].text, 4, w > 24 ? w : 0);
		fprintf(f, "  %s\n", strbuf_str(&sb));
		strbuf_release(&sb);
	}
	for (int i = 0; done && i < t->rec.ncells; i++) {
		const struct result_cell *a = &t->rec.cells[i];
		int n = 0;

		if (done[i] || sink_table_measured(a) || !a->note ||
		    (report_has_value(t, a->chart, a->row, 0) &&
		     report_has_value(t, a->chart, a->col, 1)))
			continue;
		strbuf_reset(&charts);
		for (int j = i; j < t->rec.ncells; j++) {
			const struct result_cell *b = &t->rec.cells[j];
			if (done[j] || sink_table_measured(b) || !b->note ||
			    strcmp(a->note, b->note) ||
			    (report_has_value(t, b->chart, b->row, 0) &&
			     report_has_value(t, b->chart, b->col, 1)))
				continue;
			done[j] = 1;
			n++;
			/* each chart named once, in the order met */
			struct strbuf needle = STRBUF_INIT;
			strbuf_addf(&needle, " %s,", b->chart);
			struct strbuf hay = STRBUF_INIT;
			strbuf_addf(&hay, " %s,", strbuf_str(&charts));
			if (!strstr(strbuf_str(&hay), strbuf_str(&needle)))
				strbuf_addf(&charts, "%s%s",
					    charts.len ? ", " : "", b->chart);
			strbuf_release(&needle);
			strbuf_release(&hay);
		}
		if (!header++)
			fprintf(f, "\nnot shown on this machine\n");
		fprintf(f, "  %s: %d cell%s left out (%s)\n", a->note, n,
			n == 1 ? "" : "s", strbuf_str(&charts));
	}
	strbuf_release(&charts);
	free(done);
}

static void print_lines(FILE *f, const char *title, const struct tab_line *v,
			int n, int places)
{
	int shown = 0;

	for (int i = 0; i < n; i++) {
		if (!places && !strcmp(v[i].level, "cannot"))
			continue;
		if (!shown++)
			fprintf(f, "\n%s\n", title);
		if (places)
			fprintf(f, "  %-40s %s%s", v[i].text,
				v[i].first ? v[i].first : "",
				!strcmp(v[i].level, "moved")
					? "  (not where it was asked)"
					: "");
		else {
			/* a note wrapped to the terminal, under its text */
			struct strbuf sb = STRBUF_INIT;
			int in = 2 + cols_width(v[i].level) + 2,
			    w = term_columns(f);

			term_wrap(&sb, v[i].text, in, w > in + 20 ? w : 0);
			fprintf(f, "  %s: %s", v[i].level, strbuf_str(&sb));
			strbuf_release(&sb);
		}
		if (v[i].count > 1 && places)
			fprintf(f,
				"  (and %d other measurement%s placed the same)",
				v[i].count - 1, v[i].count > 2 ? "s" : "");
		else if (v[i].count > 1)
			fprintf(f, "  (x%d)", v[i].count);
		fputc('\n', f);
	}
}

static void report_print(const struct sink_table *t)
{
	json_t *refs = refs_json(t->exp);
	FILE *f = t->out;
	int legend_said = 0;

	for (const struct chart *c = t->exp->charts; c && c->id; c++) {
		if (c->kind == CHART_HEATMAP)
			report_matrix(t, c);
		else if (print_pivot(t, c, refs, &legend_said))
			print_points(t, c, refs);
	}
	if (t->nsummary)
		report_summary(t);
	print_lines(f, "where the threads ran (seen from inside each thread)",
		    t->places, t->nplaces, 1);
	print_cannot(t);
	print_lines(f, "notes", t->notes, t->nnotes, 0);
	if (t->oom || t->rec.oom)
		fprintf(f,
			"\n(out of memory: some results are missing above)\n");
	if (t->headline) {
		struct strbuf sb = STRBUF_INIT;
		int w = term_columns(f);

		term_wrap(&sb, t->headline, 9, w > 29 ? w : 0);
		fprintf(f, "\nverdict: %s\n", strbuf_str(&sb));
		strbuf_release(&sb);
	}
	stdout_flush(f);
	json_decref(refs);
}

void sink_table_report(struct sink_table *t)
{
	sink_table_clear_progress(t);
	report_print(t);
}
