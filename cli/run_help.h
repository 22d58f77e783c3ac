/* run_help.h - `numalab run NAME --help`: an experiment's parameters as a table */
#ifndef NUMALAB_RUN_HELP_H
#define NUMALAB_RUN_HELP_H

#include "experiment.h"
#include "topo.h"

/* The experiment's usage, summary and parameters (its own, the placement
 * ones, the common ones), on stdout. */
void run_help(const struct experiment *e, const struct topo *t);

#endif
