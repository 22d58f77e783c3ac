/* doctext.h - the text of a run document's event arrays, kept as the worker wrote it, so that the document is not serialised item by item again (rundoc_dumps) */
#ifndef NUMALAB_DOCTEXT_H
#define NUMALAB_DOCTEXT_H

#include <stddef.h>

#include <jansson.h>

#include "events.h"

/*
 * A run document's arrays of worker events (placement, samples, cells,
 * notes, marks: events_fold appends each event there less its "type")
 * as text: each item the worker's own line less its leading "type"
 * member. Only worth it, and only right, for lines that are jansson's
 * compact dump of the event (cli/run.c writes them so): jansson's dump of
 * the folded item is then those very bytes, and a document's 13 numbers a
 * sample are not formatted again (printf's %.17g is most of a document's
 * serialisation). An array any of whose events came otherwise is
 * serialised by jansson as before. Refcounted: the runner adds while the
 * run runs; a reader of the finished run holds a reference.
 */
struct doctext;

struct doctext *doctext_new(void);
struct doctext *doctext_ref(struct doctext *t);
void doctext_unref(struct doctext *t);

/*
 * The event of type t, folded into its document, came as the line
 * (len bytes); canonical: the line is jansson's compact dump of it.
 * Events of types that fold into no array are ignored.
 */
void doctext_add(struct doctext *t, enum event_type type, const char *line,
		 size_t len, int canonical);

/*
 * The text of the document's array name ("samples": its items, comma-
 * separated, len bytes) and how many items it holds (n); NULL when t
 * keeps no whole text of it (rundoc_dumps then serialises the array).
 */
const char *doctext_items(const struct doctext *t, const char *name,
			  size_t *len, size_t *n);

/*
 * The ended run's summary object (the document's, unchanged from then
 * on: t holds a reference) and its compact dump (len bytes, copied), as
 * the run's final event carries it; once.
 */
void doctext_keep_summary(struct doctext *t, json_t *summary, const char *text,
			  size_t len);

/* That dump, when summary is the object kept; else NULL. */
const char *doctext_summary(const struct doctext *t, const json_t *summary,
			    size_t *len);

#endif
