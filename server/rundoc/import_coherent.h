/* import_coherent.h - a run document that agrees with itself: its times */
#ifndef NUMALAB_IMPORT_COHERENT_H
#define NUMALAB_IMPORT_COHERENT_H

#include <jansson.h>

#include "errinfo.h"

/*
 * What the RunDocument schema cannot say of doc (checked against it
 * already): created_at <= started_at <= finished_at, for those it has.
 * 0, or -EINVAL with err naming the value ('finished_at').
 */
int import_check_coherent(json_t *doc, struct errinfo *err);

#endif
