/* report_matrix.h - a heatmap of the closing table, as blocks of a matrix */
#ifndef NUMALAB_REPORT_MATRIX_H
#define NUMALAB_REPORT_MATRIX_H

#include "sink_table.h"

/* Whether row (col: column) rc of chart id holds any value. */
int report_has_value(const struct sink_table *t, const char *id, int rc,
		     int col);
/* Prints chart c of t as a matrix, in blocks as wide as the terminal. */
void report_matrix(const struct sink_table *t, const struct chart *c);

#endif
