/* team_result.c - what a team's rounds left: freeing it, its medians, one arm's rounds and the per-pair ratios */
#include "team.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"

void team_result_free(struct team_result *res)
{
	free(res->place);
	free(res->seconds);
	free(res->overlap);
	free(res->corun);
	res->corun = NULL;
	free(res->wall);
	res->wall = NULL;
	free(res->round);
	free(res->arm);
	res->round = NULL;
	res->arm = NULL;
	res->place = NULL;
	res->seconds = NULL;
	res->overlap = NULL;
}

double team_overlap_median(const struct team_result *res)
{
	if (!res->overlap || res->rounds < 1)
		return 1;
	return stats_median(res->overlap, res->rounds);
}

double team_corun_median(const struct team_result *res)
{
	if (!res->corun || res->rounds < 1)
		return 1;
	return stats_median(res->corun, res->rounds);
}

int team_result_alloc(struct team_result *res, int nthreads, int rounds)
{
	res->place = calloc((size_t)nthreads, sizeof(*res->place));
	res->seconds = calloc((size_t)rounds, sizeof(double));
	res->overlap = calloc((size_t)rounds, sizeof(double));
	res->corun = calloc((size_t)rounds, sizeof(double));
	res->wall = calloc((size_t)rounds, sizeof(double));
	res->round = calloc((size_t)rounds, sizeof(int));
	res->arm = calloc((size_t)rounds, sizeof(int));
	if (!res->place || !res->seconds || !res->overlap || !res->corun ||
	    !res->wall || !res->round || !res->arm) {
		team_result_free(res);
		return -ENOMEM;
	}
	return 0;
}

int team_result_arm(const struct team_result *res, int arm,
		    struct team_result *out)
{
	int n = res->rounds > 0 ? res->rounds : 1;

	memset(out, 0, sizeof(*out));
	out->nthreads = res->nthreads;
	out->redone_apart = res->redone_apart;
	out->redone_preempted = res->redone_preempted;
	out->started_apart = res->started_apart;
	out->stretched = res->stretched;
	out->check_rc = res->check_rc;
	if (team_result_alloc(out, res->nthreads > 0 ? res->nthreads : 1, n))
		return -ENOMEM;
	if (res->nthreads > 0)
		memcpy(out->place, res->place,
		       sizeof(*out->place) * (size_t)res->nthreads);
	for (int r = 0; r < res->rounds; r++) {
		if ((res->arm ? res->arm[r] : 0) != arm)
			continue;
		out->seconds[out->rounds] = res->seconds[r];
		out->overlap[out->rounds] = res->overlap[r];
		out->corun[out->rounds] = res->corun ? res->corun[r] : 1;
		out->wall[out->rounds] = res->wall ? res->wall[r] : 0;
		out->round[out->rounds] = res->round[r];
		out->arm[out->rounds++] = arm;
	}
	return 0;
}

int team_result_ratios(const struct team_result *res, double *ratio)
{
	int n = 0;

	for (int r = 0; res->arm && r + 1 < res->rounds; r += 2) {
		int a0 = res->arm[r] == 0 ? r : r + 1, a1 = a0 == r ? r + 1 : r;
		if (res->arm[a0] != 0 || res->arm[a1] != 1)
			continue; /* not a pair: both on one arm */
		ratio[n++] = res->seconds[a1] > 0
				     ? res->seconds[a0] / res->seconds[a1]
				     : 0;
	}
	return n;
}
