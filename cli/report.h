/* report.h - the closing table of a run on the command line */
#ifndef NUMALAB_REPORT_H
#define NUMALAB_REPORT_H

#include "sink_table.h"

/*
 * Prints what t kept to t->out: per chart one row per point (median, its
 * spread, rounds, unit) with the article's figures beside them, heatmaps
 * as matrices, the summary, where the threads ran, one line per thing
 * this machine cannot show, the notes, then the verdict.
 */
void report_print(const struct sink_table *t);

/* Prints the closing table: charts, matrices, summary, placement, what
 * this machine cannot show, notes, then the verdict (report_print), the
 * progress line taken off first. */
void sink_table_report(struct sink_table *t);

#endif
