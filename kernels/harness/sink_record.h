/* sink_record.h - a sink that passes everything on and keeps what describe() and the table need */
#ifndef NUMALAB_SINK_RECORD_H
#define NUMALAB_SINK_RECORD_H

#include "sink.h"
#include "verdict.h"

/*
 * Wraps another sink: every event goes on unchanged, and points, cells,
 * summary values and placements are also kept (with copies of their
 * strings) so that the run can be described when it ends, and the CLI's
 * table (cli/sink_table.c) printed from the same copies.
 */
struct record {
	struct sink sink; /* give this to the kernel; .next: the wrapped */
	struct result_point *points;
	int npoints, cap_points;
	struct result_cell *cells;
	int ncells, cap_cells;
	struct result_summary *summary;
	int nsummary, cap_summary;
	struct result_placement *placements;
	int nplacements, cap_placements;
	int oom; /* something could not be kept */
};

void record_init(struct record *r, struct sink *next);
void record_free(struct record *r);
/* Points the arrays of rr at what r kept (valid until record_free). */
void record_result(const struct record *r, struct run_result *rr);

#endif
