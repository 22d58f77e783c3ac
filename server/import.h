/* import.h - checking and storing a run exported from another server or `numalab run --json` */
#ifndef NUMALAB_IMPORT_H
#define NUMALAB_IMPORT_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "errinfo.h"
#include "store.h"
#include "topo.h"

/* The largest run document POST /api/runs/import takes. */
#define IMPORT_BODY_MAX (8 * 1024 * 1024)

/*
 * Checks that doc is a whole run document (docs/events.md) of a known
 * experiment: every field known and of its type, every sample and cell
 * well formed. Returns 0, or -EINVAL with the reason and the offending
 * field (empty when none) in err.
 */
int import_validate(json_t *doc, const struct topo *t, struct errinfo *err);

/*
 * Stores a validated doc as a new run, its events rebuilt from the
 * document (events_from_doc) plus an `imported` event naming where it came
 * from. Returns 0 and *id, or -EIO (-ENOMEM) with err set.
 */
int import_store(struct store *st, json_t *doc, int64_t *id,
		 struct errinfo *err);

#endif
