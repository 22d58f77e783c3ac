/* sink_table.h - a sink that keeps a run's results for the closing table, with a progress line on a terminal */
#ifndef NUMALAB_SINK_TABLE_H
#define NUMALAB_SINK_TABLE_H

#include <stdio.h>

#include "experiment.h"
#include "sink.h"

struct tab_point {
	char *chart, *series, *x_label, *unit;
	double x, y, lo, hi; /* lo..hi: 95% interval of the median (the range
				below 6 rounds) */
	int n;
};

struct tab_cell {
	char *chart, *row_label, *col_label, *unit, *note;
	int row, col;
	double value;
	int measured; /* has a value; else note says why */
};

struct tab_summary {
	char *key, *unit;
	double value;
	double lo, hi; /* the 95% interval the verdict states (has_interval) */
	int has_interval;
};

/* A summary key (or pattern) the verdict qualified: kind "disowned" or
 * "at_least" */
struct tab_qualifier {
	char *key, *kind, *why;
};

/* A line said once or many times: notes, and where teams ran. */
struct tab_line {
	char *level, *text, *first; /* first: the first label it came with */
	int count;
};

struct sink_table {
	struct sink sink;
	const struct experiment *exp;
	FILE *out;
	int progress; /* draw a progress line on stderr (a terminal) */
	int progress_drawn;
	struct tab_point *points;
	struct tab_cell *cells;
	struct tab_summary *summary;
	struct tab_line *notes, *places;
	struct tab_qualifier *qualifiers;
	int npoints, ncells, nsummary, nnotes, nplaces, nqualifiers;
	int apoints, acells, asummary, anotes, aplaces, aqualifiers;
	char *headline;
	int oom; /* something could not be kept: the table says so */
};

/* Readies t for a run of e; the table goes to out, progress to stderr if a
 * terminal. */
void sink_table_init(struct sink_table *t, const struct experiment *e,
		     FILE *out);
/* Takes the progress line off the terminal, where one is drawn. */
void sink_table_clear_progress(struct sink_table *t);
void sink_table_release(struct sink_table *t);
/* The first qualifier whose pattern covers summary key, or NULL. */
const struct tab_qualifier *sink_table_qualifier(const struct sink_table *t,
						 const char *key);

#endif
