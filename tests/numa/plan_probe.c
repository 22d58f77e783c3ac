/* plan_probe.c - prints the pair and cell plans for the machine it runs on, as JSON, for the NUMA guest's checks */
#include <stdio.h>
#include <stdlib.h>

#include "pair_plan.h"
#include "topo.h"

static void print_pairs(const struct topo *t, const char *mode)
{
	struct pairs_request req;
	struct pair_plan p;
	struct errinfo err;

	if (pairs_parse(mode, &req, &err) ||
	    pair_plan_make(t, NULL, 0, &req, &p, &err)) {
		fprintf(stderr, "plan_probe: pairs %s: %s\n", mode, err.msg);
		exit(1);
	}
	printf("\"%s\": {\"ncpus\": %d, \"npairs\": %ld, \"classes\": [", mode,
	       p.ncpus, p.npairs);
	for (int c = 0; c < p.nclasses; c++)
		printf("%s{\"name\": \"%s\", \"available\": %ld, \"planned\": %d}",
		       c ? ", " : "", p.cls[c].name, p.cls[c].available,
		       p.cls[c].planned);
	printf("], \"pairs\": [");
	for (long k = 0; k < p.npairs; k++)
		printf("%s[%d, %d, %d]", k ? ", " : "", p.pair[k].a,
		       p.pair[k].b, p.pair[k].cls);
	printf("]}");
	pair_plan_free(&p);
}

static void print_cells(const struct topo *t, enum cells_mode mode,
			const char *name)
{
	struct cell_plan p;
	struct errinfo err;

	if (cell_plan_make(t, NULL, 0, mode, 0, &p, &err)) {
		fprintf(stderr, "plan_probe: cells %s: %s\n", name, err.msg);
		exit(1);
	}
	printf("\"%s\": {\"nnodes\": %d, \"classes\": [", name, p.nnodes);
	for (int c = 0; c < p.nclasses; c++)
		printf("%s{\"name\": \"%s\", \"distance\": %d, \"rank\": %d, "
		       "\"available\": %d, \"planned\": %d}",
		       c ? ", " : "", p.cls[c].name, p.cls[c].distance,
		       p.cls[c].rank, p.cls[c].available, p.cls[c].planned);
	printf("], \"cells\": [");
	for (int k = 0; k < p.ncells; k++)
		printf("%s[%d, %d, %d]", k ? ", " : "", p.cell[k].cpu_node,
		       p.cell[k].mem_node, p.cell[k].cls);
	printf("]}");
	cell_plan_free(&p);
}

int main(void)
{
	struct topo *t = topo_load();

	if (!t) {
		perror("plan_probe: topology");
		return 1;
	}
	printf("{\"pairs\": {");
	print_pairs(t, "all");
	printf(", ");
	print_pairs(t, "by_relation");
	printf("}, \"cells\": {");
	print_cells(t, CELLS_FULL, "full");
	printf(", ");
	print_cells(t, CELLS_BY_DISTANCE, "by_distance");
	printf("}}\n");
	topo_free(t);
	return 0;
}
