/* refs.h - the article's figures, on the terms of this run's points, for the CLI's table and --json */
#ifndef NUMALAB_REFS_H
#define NUMALAB_REFS_H

#include <jansson.h>

#include "experiment.h"

/*
 * The references of e as an array of {chart, series, x, x_label, y, unit,
 * normalised}: each as the article gave it and, for one that covers a
 * larger run (ops > 0), one more per operation on its per_chart, whose
 * "normalised" says how it was derived ("0.23 s / 4000000 increments");
 * the totals carry "ops". NULL when out of memory.
 */
json_t *refs_json(const struct experiment *e);

#endif
