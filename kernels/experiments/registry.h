/* registry.h - every experiment, and finding one by name */
#ifndef NUMALAB_REGISTRY_H
#define NUMALAB_REGISTRY_H

#include "descriptor.h"

/* The registry: a NULL-terminated table of every experiment. */
extern const struct experiment *const experiments[];

/* The experiment called name, or NULL. */
const struct experiment *experiment_find(const char *name);

#endif
