/* export_csv.h - a run document's raw samples as CSV, one row per sample, then a row of each point's median and interval */
#ifndef NUMALAB_EXPORT_CSV_H
#define NUMALAB_EXPORT_CSV_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

/*
 * The CSV (RFC 4180, CRLF lines, a header row) of every raw sample of
 * run id's document: its samples, then its cells, each point's raw
 * samples (kind sample or cell) followed by a row of kind median (its
 * 95% interval in ci_lo_shown, ci_hi_shown). A malloc'd text of *len
 * bytes, or NULL on ENOMEM. series_label says each series in words, x_axis
 * the chart's x, value_shown and unit_shown the value in a unit a person
 * reads (seconds as ms, us or ns by the point's median).
 */
char *export_csv(json_t *doc, int64_t id, size_t *len);

#endif
