/* point_text.h - a sample's point read from the text the runner keeps of it, without a tree */
#ifndef NUMALAB_POINT_TEXT_H
#define NUMALAB_POINT_TEXT_H

#include <stddef.h>

#include "verdict.h"

/*
 * Where a document keeps an array's items as text: the runner's samples
 * sit in the document's array as placeholders (null) and their text in
 * the run's doctext. item gives item i of the array (its name, "samples")
 * as the members after its type, `"chart":"t",...}` (len bytes), or NULL
 * when it keeps none.
 */
struct doc_text {
	const char *(*item)(const void *ctx, const char *array, size_t i,
			    size_t *len);
	const void *ctx;
};

/* The points' strings and extra values, in blocks sized before any is
 * read (so that what a point points at stays where it is). */
struct point_store {
	char *strings;
	size_t slen, scap;
	const char **keys;
	double *vals;
	size_t nx, xcap;
};

/* Room for string_bytes of strings (each with its NUL) and extras values:
 * 0 or -ENOMEM. */
int point_store_init(struct point_store *ps, size_t string_bytes,
		     size_t extras);
void point_store_free(struct point_store *ps);

/* An upper bound of what point_from_text stores of a text: its bytes
 * (strings), its members (extras). */
size_t point_text_members(const char *s, size_t len);

/*
 * The point's fields from an item's text (as struct doc_text gives it),
 * as describe_doc reads them from a sample's values: chart, series,
 * x_label, unit, x, y, the stats' ci_lo, ci_hi, min, max and n, and the
 * extra members that are numbers, in order. Its strings and extras go
 * into ps, which must have room for them (point_text_members). 0; -1 when
 * the text is not plain JSON as the runner keeps it (the caller then
 * reads a parse of it; nothing of ps is used).
 */
int point_from_text(const char *s, size_t len, struct result_point *p,
		    struct point_store *ps);

#endif
