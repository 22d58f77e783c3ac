/* rundoc.h - folding a run's events into the run document (docs/events.md) */
#ifndef NUMALAB_RUNDOC_H
#define NUMALAB_RUNDOC_H

#include <jansson.h>

/* A new empty run document. */
json_t *rundoc_new(void);
/*
 * Folds one event (docs/events.md) into doc. Unknown types are ignored.
 * Returns 0, or -EINVAL when the event is not an object with a "type".
 */
int rundoc_apply(json_t *doc, json_t *event);
/* A status a run ends with (done, failed, cancelled, interrupted): it changes no more. */
int rundoc_status_final(const char *status);

#endif
