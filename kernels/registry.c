/* registry.c - the table of every experiment: add one line here per new file */
#include "experiment.h"

extern const struct experiment exp_false_sharing;
extern const struct experiment exp_atomic_increment;
extern const struct experiment exp_core_to_core;
extern const struct experiment exp_cache_sharing;

const struct experiment *const experiments[] = {
	&exp_false_sharing,
	&exp_atomic_increment,
	&exp_core_to_core,
	&exp_cache_sharing,
	NULL,
};
