/* labels.h - the words and units a person reads for a summary key or series */
#ifndef NUMALAB_LABELS_H
#define NUMALAB_LABELS_H

#include <stddef.h>

#include "errinfo.h"

/*
 * One row of a label table: the keys (or series names) pattern key
 * matches, said as label in unit. key is a pattern whose only wildcard is
 * '*' ("slowdown_*_threads_stride_*"); label may hold one "%s" per '*',
 * each replaced by what that '*' matched, in order, each '*' taking the
 * longest text that still lets the rest match (as the regular expression
 * "^slowdown_(.*)_threads_stride_(.*)$" does: "c11_relaxed" in
 * "ns_per_increment_*_*_threads" for ns_per_increment_c11_relaxed_2_threads).
 * unit is what the value is in ("×", "ns", "GB/s", "pages", "yes/no"); for a
 * series, NULL keeps the unit its points carry. A table ends with a NULL key;
 * the first row that matches wins.
 */
struct key_label {
	const char *key, *label, *unit;
};

/*
 * Finds key in table and writes its label into buf (len bytes, cut short
 * when it does not fit), *unit its unit when unit is not NULL. Returns 0,
 * or -ENOENT when no row matches (buf then holds key itself, *unit NULL).
 */
int label_lookup(const struct key_label *table, const char *key, char *buf,
		 size_t len, const char **unit);

/*
 * As label_lookup, each part a '*' matched said in words where parts
 * (a series_labels table, may be NULL) has a row with exactly that key.
 */
int label_lookup_parts(const struct key_label *table,
		       const struct key_label *parts, const char *key,
		       char *buf, size_t len, const char **unit);

/*
 * Checks one table: every key has a label, a '*'-only pattern and at most
 * as many "%s" in its label as '*' in its key, and no other '%'
 * conversion; summary rows (need_unit) each have a unit. Returns 0 or
 * -EINVAL with err naming the row.
 */
int label_table_check(const struct key_label *table, int need_unit,
		      struct errinfo *err);

/* The harness's own summary keys (rounds kept and redone, overlap). */
extern const struct key_label harness_summary_labels[];

struct experiment;

/*
 * A summary key in words: exp's summary_labels, then the harness's, write
 * the label into buf (len bytes) and *unit (may be NULL) its unit.
 * Returns 0, or -ENOENT when no row matches (buf holds the key, *unit
 * NULL).
 */
int experiment_summary_label(const struct experiment *exp, const char *key,
			     char *buf, size_t len, const char **unit);
/*
 * A series in words: exp's series_labels row for it, or its own name.
 * *unit (may be NULL) gets the row's unit, or NULL: the points' own.
 * Returns 0, or -ENOENT when the name itself was written.
 */
int experiment_series_label(const struct experiment *exp, const char *series,
			    char *buf, size_t len, const char **unit);

#endif
