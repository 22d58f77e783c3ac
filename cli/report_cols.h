/* report_cols.h - the columns of the closing table: widths, padding, and the span a table's one unit is picked by */
#ifndef NUMALAB_REPORT_COLS_H
#define NUMALAB_REPORT_COLS_H

#include <stdio.h>

#define MATRIX_WIDTH 100 /* columns of a matrix per block, in characters */

/* The columns a table on f may take: the terminal's (or COLUMNS), else
 * MATRIX_WIDTH. */
int cols_table_width(FILE *f);
int cols_max(int a, int b);
/* Columns s takes: characters, not bytes. */
int cols_width(const char *s);
/* Prints s left-aligned (pad) or right-aligned (rpad) in w columns. */
void cols_pad(FILE *f, const char *s, int w);
void cols_rpad(FILE *f, const char *s, int w);

/* The smallest and largest magnitude of the values a table shows. */
struct span {
	double lo, hi;
};
void cols_span_add(struct span *s, double v);
/*
 * The magnitude to pick a table's one unit by: halfway between its
 * smallest and largest value on a log scale, so neither end needs an
 * exponent (467 ns and 1.51 ms read 0.467 and 1506 us); never so far
 * below the largest that it needs five digits.
 */
double cols_span_mid(const struct span *s);

#endif
