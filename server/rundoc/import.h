/* import.h - checking a run exported from another server or `numalab run --json` */
#ifndef NUMALAB_IMPORT_H
#define NUMALAB_IMPORT_H

#include <stddef.h>

#include <jansson.h>

#include "descriptor.h"
#include "errinfo.h"

/* The largest run document POST /api/runs/import takes. */
#define IMPORT_BODY_MAX (8 * 1024 * 1024)
/*
 * An imported run's samples: series in one chart and points in one
 * series. The widest real runs stay within them (a stride sweep of at
 * most CHART_MAX_SERIES series, which a run refuses to pass; a sweep of
 * PARAM_MAX_LIST points); past them a chart takes seconds to draw and
 * says nothing a person can read.
 */
#define IMPORT_MAX_SERIES CHART_MAX_SERIES
#define IMPORT_MAX_POINTS 4096

/*
 * Checks that doc is a whole run document (docs/events.md): first against
 * the RunDocument schema of server/rundoc/openapi.json (every field known, of
 * its type and within its bounds), then what a schema cannot say: a known
 * experiment, a finished run's status, samples and cells on the
 * experiment's charts with stats.n their count of raw samples, no chart
 * with more series or a series with more points than the caps above,
 * params that today's table reads. Returns 0, or -EINVAL with the reason
 * and the path of the offending value (`samples[3].stats.n`; empty when
 * none) in err.
 */
int import_validate(json_t *doc, struct errinfo *err);

#endif
