/* import.h - taking in a run exported from another server or `numalab run --json` */
#ifndef NUMALAB_IMPORT_H
#define NUMALAB_IMPORT_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "http.h"
#include "store.h"
#include "topo.h"

/* The largest run document POST /api/runs/import takes. */
#define IMPORT_BODY_MAX (8 * 1024 * 1024)

/*
 * Checks that doc is a whole run document (docs/events.md) of a known
 * experiment: every field known and of its type, every sample and cell
 * well formed. Returns 0, or -EINVAL with the reason in why and the
 * offending field in field (both lowercase text, "" when none).
 */
int import_validate(json_t *doc, const struct topo *t, char *why,
		    size_t whylen, char *field, size_t fieldlen);

/*
 * Stores a validated doc as a new run, its events rebuilt from the
 * document plus an `imported` event naming where it came from. Returns 0
 * and *id, or -EIO with err set.
 */
int import_store(struct store *st, json_t *doc, int64_t *id, char *err,
		 size_t errlen);

/* POST /api/runs/import: 201 {"id", "url", "imported"} or 400 with why. */
enum MHD_Result import_respond(struct http_request *rq, struct store *st,
			       const struct topo *t);

#endif
