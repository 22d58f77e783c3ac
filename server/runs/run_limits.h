/* run_limits.h - what a run may ask: estimated time and free memory */
#ifndef NUMALAB_RUN_LIMITS_H
#define NUMALAB_RUN_LIMITS_H

#include <stdint.h>

#include "errinfo.h"
#include "experiment.h"
#include "topo.h"

/*
 * Refuses a request the server would only have to kill or that would push
 * the machine into swap: its estimated time over max_run_seconds (0: no
 * limit), or its memory over what is free. The estimate comes from the
 * rates measured on this machine (rates_init at server start) on a quiet
 * machine: a busy moment does not refuse a run. What goes to *estimate_s
 * (may be NULL; -1 when the experiment has none) is for the machine as it
 * is now (experiment_estimate_now), and what that was made of to basis
 * (basislen bytes; "" when none). Returns 0, or -E2BIG with err set.
 */
int limits_check_estimate(const struct experiment *exp, const void *params,
			  const struct common_params *common,
			  const struct topo *t, int max_run_seconds,
			  double *estimate_s, char *basis, size_t basislen,
			  struct errinfo *err);

#endif
