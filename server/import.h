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
 * An imported run's samples: series in one chart and points in one
 * series. The widest real runs stay far below (a stride sweep of 40
 * series, a sweep of PARAM_MAX_LIST points); past them a chart takes
 * seconds to draw and says nothing a person can read.
 */
#define IMPORT_MAX_SERIES 128
#define IMPORT_MAX_POINTS 4096

/*
 * Checks that doc is a whole run document (docs/events.md): first against
 * the RunDocument schema of server/openapi.json (every field known, of its
 * type and within its bounds), then what a schema cannot say: a known
 * experiment, a finished run's status, samples and cells on the
 * experiment's charts with stats.n their count of raw samples, no chart
 * with more series or a series with more points than the caps above,
 * params that today's table reads. Returns 0, or -EINVAL with the reason
 * and the path of the offending value (`samples[3].stats.n`; empty when
 * none) in err.
 */
int import_validate(json_t *doc, const struct topo *t, struct errinfo *err);

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
