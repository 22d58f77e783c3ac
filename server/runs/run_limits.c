/* run_limits.c - what a run may ask: estimated time and free memory */
#include "run_limits.h"

#include "adapt.h"
#include "estimate_now.h"

#include <errno.h>
#include <stdio.h>

static uint64_t limits_memory_available(const struct topo *t)
{
	FILE *f = fopen("/proc/meminfo", "re");
	char line[128];
	unsigned long long kb;
	uint64_t sum = 0;

	if (f) {
		while (fgets(line, sizeof(line), f))
			if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1) {
				fclose(f);
				return (uint64_t)kb * 1024;
			}
		fclose(f);
	}
	for (int i = 0; i < t->nnodes; i++)
		sum += t->node[i].mem_free;
	return sum;
}

int limits_check_estimate(const struct experiment *exp, const void *params,
			  const struct common_params *common,
			  const struct topo *t, int max_run_seconds,
			  double *estimate_s, char *basis, size_t basislen,
			  struct errinfo *err)
{
	double seconds = 0;
	uint64_t bytes = 0, avail;

	if (estimate_s)
		*estimate_s = -1;
	if (basislen)
		*basis = '\0';
	if (experiment_estimate(exp, params, common, t, &seconds, &bytes))
		return 0;
	if (max_run_seconds > 0 && seconds > max_run_seconds) {
		/* the rounds grow only into a share of the limit (adapt.h):
		 * what must fit is the least rounds, budget=0 */
		struct common_params least = *common;
		double base = 0;
		least.budget = 0;
		experiment_estimate(exp, params, &least, t, &base, &bytes);
		if (base <= ADAPT_LIMIT_SHARE * max_run_seconds)
			seconds = ADAPT_LIMIT_SHARE * max_run_seconds;
	}
	if (estimate_s) {
		double now = 0;
		uint64_t b;
		experiment_estimate_now(exp, params, common, t, &now, &b, basis,
					basislen);
		*estimate_s = now > seconds ? now : seconds;
	}
	avail = limits_memory_available(t);
	if (avail && bytes > avail) {
		errinfo_set(err, NULL,
			    "the run would allocate about %.1f MiB but only "
			    "%.1f MiB of memory is free: ask for less",
			    bytes / 1048576.0, avail / 1048576.0);
		return -E2BIG;
	}
	if (max_run_seconds > 0 && seconds > max_run_seconds) {
		errinfo_set(
			err, NULL,
			"the run is estimated to take about %.0f s, over the "
			"server's limit of %d s (--max-run-seconds): ask for "
			"less",
			seconds, max_run_seconds);
		return -E2BIG;
	}
	return 0;
}
