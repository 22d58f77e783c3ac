/* rundoc.h - a run as the API serves it: its events and its document */
#ifndef NUMALAB_RUNDOC_H
#define NUMALAB_RUNDOC_H

#include <stdint.h>

#include <jansson.h>

#include "runlog.h"
#include "runner.h"
#include "store.h"

/*
 * A run's events after seq `after`: the runner's log while it holds the
 * run (*in_memory set, st filled), else a closed log read from the store.
 * A new reference, or NULL (ENOMEM, or the store failed).
 */
struct runlog *rundoc_events(struct store *store, struct runner *runner,
			     int64_t id, int64_t after, struct run_state *st,
			     int *in_memory);

/*
 * The run document (docs/events.md): the events folded, then the run
 * row's fields, and what the runner knows that is newer. NULL with errno
 * ENOENT (no such run), EIO or ENOMEM. guessed: the class may have kept
 * guesses on the run in this server's life (api_class_touched); a run the
 * runner holds has none else. *ended: the run has ended and its log is
 * closed, so the document will not change again. text (may be NULL): where
 * a reference to the text of the document's arrays goes, when the runner
 * kept it (rundoc_dumps serialises the document with it), else NULL.
 */
json_t *rundoc_build(struct store *store, struct runner *runner, int64_t id,
		     int guessed, int *ended, struct doctext **text);

/*
 * json_dumps(doc, JSON_COMPACT | JSON_ENCODE_ANY) and a newline, as
 * http_json_text makes it, with the arrays t keeps whole put in as their
 * text (t may be NULL; doctext.h). Malloc'd, its length in *len; NULL on
 * ENOMEM.
 */
char *rundoc_dumps(const json_t *doc, const struct doctext *t, size_t *len);

#endif
