/* import_store.h - storing a checked run document as a new run */
#ifndef NUMALAB_IMPORT_STORE_H
#define NUMALAB_IMPORT_STORE_H

#include <stdint.h>

#include <jansson.h>

#include "errinfo.h"
#include "store.h"

/*
 * Stores a validated doc as a new run, its events rebuilt from the
 * document (events_from_doc) plus an `imported` event naming where it came
 * from, the client address it was sent from (client, may be NULL), the
 * headline it arrived with and the verdict today's rules give it; that
 * verdict's headline becomes the run's. Returns 0 and *id, or -EIO
 * (-ENOMEM) with err set.
 */
int import_store(struct store *st, json_t *doc, const char *client, int64_t *id,
		 struct errinfo *err);

#endif
