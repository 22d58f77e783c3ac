/* doctext.h - the text of a run document's event arrays, kept as the worker wrote it, so that the document is not serialised item by item again (rundoc_dumps) */
#ifndef NUMALAB_DOCTEXT_H
#define NUMALAB_DOCTEXT_H

#include <stddef.h>

#include <jansson.h>

#include "events.h"
#include "runlog.h"
#include "strbuf.h"

/*
 * A run document's arrays of worker events (placement, samples, cells,
 * notes, marks: events_fold appends each event there less its "type")
 * as text: each item the run log's text of its event (the worker's line
 * with the seq put first) less its seq and leading "type" member, not
 * copied. Only worth it, and only right, for lines that are jansson's
 * compact dump of the event (cli/run.c writes them so): jansson's dump of
 * the folded item is then those very bytes, and a document's 13 numbers a
 * sample are not formatted again (printf's %.17g is most of a document's
 * serialisation). An array any of whose events came otherwise is
 * serialised by jansson as before. Refcounted, holding the log: the runner
 * adds while the run runs; a reader of the finished run holds a reference.
 */
struct doctext;

struct doctext *doctext_new(struct runlog *log);
struct doctext *doctext_ref(struct doctext *t);
void doctext_unref(struct doctext *t);

/*
 * The event of type t, folded into its document, logged as e (in t's
 * log); canonical: its line is jansson's compact dump of it. Events of
 * types that fold into no array are ignored.
 */
void doctext_add(struct doctext *t, enum event_type type,
		 const struct runlog_event *e, int canonical);
/* Whether t keeps the whole text of type's array so far. */
int doctext_keeps(const struct doctext *t, enum event_type type);
/* doctext_add's step: 0 when the item is kept; -1 when it cannot be,
 * nothing changed (the caller then calls doctext_break). */
int doctext_try_add(struct doctext *t, enum event_type type,
		    const struct runlog_event *e, int canonical);
/* type's array is no longer kept as text. */
void doctext_break(struct doctext *t, enum event_type type);

/*
 * An item the runner keeps only as text sits in the document's array as a
 * placeholder, null (events_fold_unread): a sample is not parsed into a
 * tree that only a CSV export or a description would read. Readers of the
 * document's values fill them in: doctext_filled gives a new array, arr's
 * items with each placeholder parsed from its text (type's array: arr is
 * the document's); NULL when memory runs out or a placeholder has no
 * text. doctext_has_unread: whether doc has any placeholder.
 */
json_t *doctext_filled(const struct doctext *t, enum event_type type,
		       json_t *arr);
int doctext_has_unread(json_t *doc);
/* Item i of the document's array (its name) as t keeps it: its members
 * after the type, "...}" (len bytes); NULL when t keeps no text of it.
 * As struct doc_text's item (point_text.h), ctx the doctext. */
const char *doctext_item(const void *ctx, const char *array, size_t i,
			 size_t *len);
/* doc with every placeholder filled in: doc itself (one more reference)
 * when it has none, else a shallow copy with new arrays; NULL when memory
 * runs out or a placeholder has no text. */
json_t *doctext_values(const struct doctext *t, json_t *doc);

/*
 * The document's array name ("samples") as JSON, "[" its items "]",
 * added to out when t keeps the whole text of it and it holds n items:
 * 1; else 0 (rundoc_dumps then serialises the array).
 */
int doctext_write(const struct doctext *t, const char *name, size_t n,
		  struct strbuf *out);

/*
 * The run's summary object (its document's, folded from the summary
 * events t was given) as jansson's compact dump writes it, onto out, from
 * the events' own text: their numbers are not formatted again (a long
 * run's summary has a hundred). 1; 0 when the events do not make it (a
 * key sent twice, a line written otherwise, an entry with other members):
 * the caller dumps it then.
 */
int doctext_write_summary(const struct doctext *t, json_t *summary,
			  struct strbuf *out);

/* A summary event logged as e (canonical: its line is jansson's compact
 * dump of it), for doctext_write_summary; doctext_add takes them too. */
void doctext_add_summary(struct doctext *t, const struct runlog_event *e,
			 int canonical);

#define DOCTEXT_KEPT_MAX 4

/*
 * v, a member of the run's document that nothing changes from then on (t
 * holds a reference; the end's summary, the start's machine), and its
 * compact dump (len bytes, copied), made once where it was made anyway:
 * rundoc_dumps writes it as it is. At most DOCTEXT_KEPT_MAX; past them the
 * member is serialised as before. Only while the run runs: its readers
 * come once it has finished.
 */
void doctext_keep(struct doctext *t, json_t *v, const char *text, size_t len);

/* That dump, when v is a member kept; else NULL. */
const char *doctext_kept(const struct doctext *t, const json_t *v, size_t *len);

#endif
