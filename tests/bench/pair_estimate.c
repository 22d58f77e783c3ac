/* pair_estimate.c - time to answer on machines we do not have: the plans' pair and cell counts times a cost measured here */
#include <stdio.h>
#include <stdlib.h>

#include "pair_plan.h"
#include "topo.h"
#include "topo_distances.h"

/* the machines of the estimate, as hwloc synthetic descriptions */
static const struct machine {
	const char *key, *desc;
	int group; /* packages one hop apart (see topo_distances.h) */
} machines[] = {
	{"two_socket_1024", "pack:2 numa:2 l3:4 l2:16 core:2 pu:2", 2},
	{"nodes_64", "pack:8 numa:8 l3:1 core:8 pu:2", 4},
};

static struct topo *load(const struct machine *m)
{
	struct topo *t;

	setenv("HWLOC_SYNTHETIC", m->desc, 1);
	t = topo_load();
	unsetenv("HWLOC_SYNTHETIC");
	if (!t) {
		perror("pair_estimate: topology");
		exit(1);
	}
	topo_set_distances(t, m->group);
	return t;
}

static long pairs_of(const struct topo *t, const char *mode, int *nclasses)
{
	struct pairs_request req;
	struct pair_plan p;
	struct errinfo err;
	long n;

	if (pairs_parse(mode, &req, &err) ||
	    pair_plan_make(t, NULL, 0, &req, &p, &err)) {
		fprintf(stderr, "pair_estimate: %s: %s\n", mode, err.msg);
		exit(1);
	}
	n = p.npairs;
	*nclasses = p.nclasses;
	pair_plan_free(&p);
	return n;
}

static int cells_of(const struct topo *t, enum cells_mode mode, int *nclasses)
{
	struct cell_plan p;
	struct errinfo err;
	int n;

	if (cell_plan_make(t, NULL, 0, mode, 0, &p, &err)) {
		fprintf(stderr, "pair_estimate: cells: %s\n", err.msg);
		exit(1);
	}
	n = p.ncells;
	*nclasses = p.nclasses;
	cell_plan_free(&p);
	return n;
}

int main(int argc, char **argv)
{
	double pair_s, cell_s;
	char *end1, *end2;

	if (argc != 3) {
		fprintf(stderr,
			"usage: pair_estimate SECONDS_PER_PAIR SECONDS_PER_CELL\n");
		return 2;
	}
	pair_s = strtod(argv[1], &end1);
	cell_s = strtod(argv[2], &end2);
	if (*end1 || *end2 || pair_s < 0 || cell_s < 0) {
		fprintf(stderr,
			"pair_estimate: '%s' and '%s' must be seconds (0 or more)\n",
			argv[1], argv[2]);
		return 2;
	}
	printf("{");
	for (size_t m = 0; m < sizeof(machines) / sizeof(machines[0]); m++) {
		struct topo *t = load(&machines[m]);
		int ka, kr, kf, kd;
		long all = pairs_of(t, "all", &ka);
		long rel = pairs_of(t, "by_relation", &kr);
		int full = cells_of(t, CELLS_FULL, &kf);
		int dist = cells_of(t, CELLS_BY_DISTANCE, &kd);

		printf("%s\"%s\": {\"desc\": \"%s\", \"pus\": %d, \"nodes\": %d, "
		       "\"pairs\": {\"all\": {\"pairs\": %ld, \"seconds\": %.6g}, "
		       "\"by_relation\": {\"pairs\": %ld, \"classes\": %d, \"seconds\": %.6g}}, "
		       "\"cells\": {\"full\": {\"cells\": %d, \"seconds\": %.6g}, "
		       "\"by_distance\": {\"cells\": %d, \"classes\": %d, \"seconds\": %.6g}}}",
		       m ? ", " : "", machines[m].key, machines[m].desc,
		       t->npus, t->nnodes, all, all * pair_s, rel, kr,
		       rel * pair_s, full, full * cell_s, dist, kd,
		       dist * cell_s);
		topo_free(t);
	}
	printf("}\n");
	return 0;
}
