/* report_summary.h - the summary of the closing table: each value in words, its interval and what the verdict says of it */
#ifndef NUMALAB_REPORT_SUMMARY_H
#define NUMALAB_REPORT_SUMMARY_H

#include "sink_table.h"

/*
 * Prints t's summary: each value by its descriptor label in the unit a
 * person reads, the 95% interval the verdict states beside it
 * ("2.57 × (2.43–2.64)"), and the verdict's qualifier after it.
 */
void report_summary(const struct sink_table *t);

#endif
