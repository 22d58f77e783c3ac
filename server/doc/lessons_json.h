/* lessons_json.h - an experiment's classroom lessons as JSON */
#ifndef NUMALAB_LESSONS_JSON_H
#define NUMALAB_LESSONS_JSON_H

#include <jansson.h>

#include "experiment.h"

/* The "lessons" array of GET /api/experiments (empty when none); NULL on OOM.
 */
json_t *lessons_json(const struct experiment *e);

#endif
