/* events.h - the run's event types, their fold into a run document and back, and the constructor of every event a client parses */
#ifndef NUMALAB_EVENTS_H
#define NUMALAB_EVENTS_H

#include <stdint.h>

#include <jansson.h>

#include "sink.h"

/*
 * Every event type a run can hold. Adding one touches this enum, the
 * table, its constructor and the fold in events.c, docs/events.md and the
 * page's fold (web/run-view.js), nothing else; tests/unit/test_events.c
 * fails until the two documents name it.
 */
enum event_type {
	EV_UNKNOWN = 0, /* a type this server does not know: kept, not folded */
	EV_START,
	EV_PLACEMENT,
	EV_SAMPLE,
	EV_CELL,
	EV_PROGRESS,
	EV_NOTE,
	EV_SUMMARY,
	EV_HEADLINE,
	EV_END,
	EV_STATUS,
	EV_DONE,
	EV_FAILED,
	EV_CANCELLED,
	EV_INTERRUPTED,
	EV_IMPORTED,
	EV_MARK, /* a summary key the verdict disowns or states as a bound */
	EV_NTYPES
};

/* Who writes an event of that type. */
enum event_origin {
	EVO_NONE,   /* EV_UNKNOWN */
	EVO_WORKER, /* the worker, on stdout */
	EVO_SERVER, /* the server only: a worker writing it is garbage */
	EVO_IMPORT, /* the server, when it takes in a run from elsewhere */
};

struct event_kind {
	const char *name;
	enum event_origin origin;
	int final; /* the run's last event: its type is the final status */
};

/* Indexed by enum event_type. */
extern const struct event_kind event_kinds[EV_NTYPES];

/* The type of a name; EV_UNKNOWN for NULL or a name not in the table. */
enum event_type event_type_of(const char *name);
/* The type of an event object's "type"; EV_UNKNOWN when it has none. */
enum event_type event_type_of_event(json_t *ev);
/* Nonzero when only the server may write events named type. */
int event_reserved(const char *type);
/* A status a run ends with (done, failed, cancelled, interrupted): it changes
 * no more. */
int event_status_final(const char *status);

/* Fold only what the run's outcome needs: drops placement, samples, cells,
 * notes, marks. */
#define EVENTS_FOLD_OUTCOME 1u
/* ev is the caller's to give: an event kept whole in the document (a
 * sample, say) goes in as ev itself, its "type" and "seq" taken out,
 * rather than as a copy. */
#define EVENTS_FOLD_TAKE 2u

/* A new empty run document. */
json_t *events_doc_new(void);
/*
 * Folds one event into doc, the one place that says what an event means
 * for the run document. Unknown types are ignored. Returns 0, -EINVAL
 * when the event is not an object with a "type" (or a summary has no key),
 * or -ENOMEM (doc then lacks some of the event: not a document to show).
 */
int events_fold(json_t *doc, json_t *ev, unsigned int flags);
/*
 * An event of an array's type (sample, placement, cell, note, mark) folded
 * as a placeholder, null, where its text is kept instead (doctext.h). 0,
 * -EINVAL (no such array), -ENOMEM.
 */
int events_fold_unread(json_t *doc, enum event_type type);

/*
 * The final event of a run: type and "status" are status; error and
 * headline may be NULL (then left out), summary is an object. NULL on ENOMEM.
 */
json_t *events_final(const char *status, const char *error, json_t *summary,
		     const char *headline);
/*
 * The reverse of the fold: the events that make doc (a whole run
 * document, already checked), each with its "type" and no "seq", in the
 * order they are stored. imported (may be NULL) becomes an `imported`
 * event just before the final one. A new array, NULL on ENOMEM.
 */
json_t *events_from_doc(json_t *doc, json_t *imported);

/*
 * The events a run emits, each built here and nowhere else (docs/events.md
 * says their fields): by the worker's sink (sample to mark), by the CLI
 * (start, end) and by the runner (status). Each returns a new object
 * with its "type", or NULL on ENOMEM; params and machine are stolen.
 * error and field of an end may be NULL (then left out).
 */
json_t *event_start(const char *experiment, json_t *params, json_t *machine,
		    const char *version);
json_t *event_sample(const struct point *p);
json_t *event_cell(const struct cell *c);
json_t *event_placement(const char *label, const struct thread_place *tp,
			int n);
/* part: the running part's name, or NULL (a run of one part: no field) */
json_t *event_progress(double done, double total, const char *what,
		       const char *part);
json_t *event_note(const char *level, const char *text);
/* A part of the run that was skipped: a warning note "<label>: skipped:
 * <why>" with the part and the reason as data beside it. */
json_t *event_note_skipped(const char *label, const char *why);
json_t *event_summary(const char *key, double value, const char *unit);
/* The same with the 95% interval lo..hi the verdict states beside it. */
json_t *event_summary_interval(const char *key, double value, double lo,
			       double hi, const char *unit);
json_t *event_headline(const char *text);
json_t *event_mark(const char *key, const char *kind, const char *why);
json_t *event_end(const char *status, const char *error, const char *field);
json_t *event_status(const char *status);

/*
 * The classroom's feed (GET /api/class/events) is another stream with one
 * event type of its own, `class`: the room's public state. It is no run's
 * event (no row in event_kinds, never folded), but it is built here, the
 * one producer of the events a client parses; docs/events.md lists its
 * fields and tests/unit/test_events.c ties the two. run 0: no run (null).
 */
json_t *event_class(int64_t serial, int64_t answered, int revealed,
		    int64_t run);

/*
 * A campaign's feed (GET /api/campaigns/{id}/events), likewise no run's:
 * one `campaign` event, the counts a page redraws, from the campaign's
 * summary (the fields it lacks are null) and the node that changed (NULL:
 * the whole record changed). Takes references of its own.
 */
json_t *event_campaign(json_t *summary, json_t *node);

#endif
