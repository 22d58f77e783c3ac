/* report.h - the closing table of a run on the command line */
#ifndef NUMALAB_REPORT_H
#define NUMALAB_REPORT_H

#include "sink_table.h"

/* Prints the closing table: charts, matrices, summary, placement, what
 * this machine cannot show, notes, then the verdict (report_print), the
 * progress line taken off first. */
void sink_table_report(struct sink_table *t);

#endif
