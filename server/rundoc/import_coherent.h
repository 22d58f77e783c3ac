/* import_coherent.h - a run document that agrees with itself: its times, its status, its machine */
#ifndef NUMALAB_IMPORT_COHERENT_H
#define NUMALAB_IMPORT_COHERENT_H

#include <jansson.h>

#include "errinfo.h"

/*
 * What the RunDocument schema cannot say of doc (checked against it
 * already): created_at <= started_at <= finished_at, for those it has; no
 * error on a run whose status is done; machine.distances a nodes x nodes
 * matrix. 0, or -EINVAL with err naming the value ('finished_at',
 * 'machine.distances[2]').
 */
int import_check_coherent(json_t *doc, struct errinfo *err);

#endif
