/* sink_table.h - a sink that keeps a run's results for the closing table, with a progress line on a terminal */
#ifndef NUMALAB_SINK_TABLE_H
#define NUMALAB_SINK_TABLE_H

#include <stdio.h>

#include "experiment.h"
#include "sink.h"
#include "sink_record.h"

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

/*
 * The run's points and cells are kept by rec, the record describe() reads
 * too (rec.points, rec.cells); the table keeps what only it shows: notes,
 * where teams ran, the summary with the verdict's intervals, the headline.
 */
struct sink_table {
	struct record rec; /* give &rec.sink to the run; .next: sink */
	struct sink sink;
	const struct experiment *exp;
	FILE *out;
	int progress; /* draw a progress line on stderr (a terminal) */
	int progress_drawn;
	struct tab_summary *summary;
	struct tab_line *notes, *places;
	struct tab_qualifier *qualifiers;
	int nsummary, nnotes, nplaces, nqualifiers;
	int asummary, anotes, aplaces, aqualifiers;
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
/* Whether a cell has a value; else its note says why. */
int sink_table_measured(const struct result_cell *c);
/* lo..hi: 95% interval of a point's median, NaN for a point of one round. */
double sink_table_lo(const struct result_point *p);
double sink_table_hi(const struct result_point *p);
/* The first qualifier whose pattern covers summary key, or NULL. */
const struct tab_qualifier *sink_table_qualifier(const struct sink_table *t,
						 const char *key);

#endif
