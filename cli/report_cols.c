/* report_cols.c - the columns of the closing table: widths, padding, and the span a table's one unit is picked by */
#include "report_cols.h"

#include <math.h>

#include "term.h"

/* The columns a table on f may take: the terminal's (or COLUMNS), else
 * MATRIX_WIDTH. */
int cols_table_width(FILE *f)
{
	int n = term_columns(f);

	return n > 0 ? n : MATRIX_WIDTH;
}

int cols_max(int a, int b)
{
	return a > b ? a : b;
}

int cols_width(const char *s)
{
	/* characters, not bytes: UTF-8 continuation bytes take no column */
	int w = 0;

	for (; s && *s; s++)
		w += ((unsigned char)*s & 0xc0) != 0x80;
	return w;
}

/* Prints s left-aligned in w columns. */
void cols_pad(FILE *f, const char *s, int w)
{
	fputs(s, f);
	for (int i = cols_width(s); i < w; i++)
		fputc(' ', f);
}

/* Prints s right-aligned in w columns. */
void cols_rpad(FILE *f, const char *s, int w)
{
	for (int i = cols_width(s); i < w; i++)
		fputc(' ', f);
	fputs(s, f);
}

void cols_span_add(struct span *s, double v)
{
	v = fabs(v);
	if (!(v > 0) || !isfinite(v))
		return;
	if (!(s->lo > 0) || v < s->lo)
		s->lo = v;
	if (v > s->hi)
		s->hi = v;
}

/*
 * The magnitude to pick a table's one unit by: halfway between its
 * smallest and largest value on a log scale, so neither end needs an
 * exponent (467 ns and 1.51 ms read 0.467 and 1506 µs); never so far
 * below the largest that it needs five digits (a preempted round of 44 ms
 * beside steady ones of 3 µs reads 44 and 0.00286 ms, not 43964).
 */
double cols_span_mid(const struct span *s)
{
	double mid = s->lo > 0 ? sqrt(s->lo * s->hi) : 0;

	/* a unit picked by hi / 10 or more shows hi in under 10,000 */
	return mid > 0 && mid < s->hi / 10 ? s->hi / 10 : mid;
}
