/* registry.c - the table of every experiment: add one line here per new file */
#include "experiment.h"

extern const struct experiment exp_false_sharing;

const struct experiment *const experiments[] = {
	&exp_false_sharing,
	NULL,
};
