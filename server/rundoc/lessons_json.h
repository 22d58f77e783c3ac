/* lessons_json.h - an experiment's classroom lessons as JSON */
#ifndef NUMALAB_LESSONS_JSON_H
#define NUMALAB_LESSONS_JSON_H

#include <jansson.h>

#include "experiment.h"

/* The "lessons" array of GET /api/experiments (empty when none); NULL on OOM.
 */
json_t *lessons_json(const struct experiment *e);

/* {"threads": "2", ...} from "threads=2 ...": a lesson's params, an
 * experiment's smoke run. */
json_t *params_text_json(const char *text);

#endif
