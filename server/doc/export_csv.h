/* export_csv.h - a run document's raw samples as CSV, one row per sample */
#ifndef NUMALAB_EXPORT_CSV_H
#define NUMALAB_EXPORT_CSV_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

/*
 * The CSV (RFC 4180, CRLF lines, a header row) of every raw sample of
 * run id's document: its samples, then its cells. A malloc'd text of
 * *len bytes, or NULL on ENOMEM. Its last column, series_label, says
 * each series in words (the experiment's series_labels, else its name).
 */
char *export_csv(json_t *doc, int64_t id, size_t *len);

#endif
