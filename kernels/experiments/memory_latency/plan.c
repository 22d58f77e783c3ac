/* plan.c - memory_latency's plan before a run: the cells of mode=nodes, the chase and its loaders of mode=sizes and loaded */
#include <stdio.h>

#include "pair_plan.h"
#include "plan_view.h"
#include "strbuf.h"

#include "ml.h"

/* The chase's cpu into cpus[0], placed as the run places it; 0, or -1
 * with the line that says why it is not placed. */
static int plan_chase(const struct ml_params *mp, const struct topo *t,
		      int *cpus, struct strbuf *out)
{
	struct errinfo err = {0};

	if (!ml_cpu_of_node(t, (int)mp->cpu_node, 1, cpus, &err)) {
		plan_view_cpus(t, "chase", cpus, 1, out);
		return 0;
	}
	strbuf_addf(out, "chase: not placed: %s\n", err.msg);
	return -1;
}

/* mode=loaded: the chase, then each loader on a cpu of its own, the
 * chasing node's first, as ml_loaded_run picks them. */
static void plan_loaded(const struct ml_params *mp, const struct topo *t,
			struct strbuf *out)
{
	int cpus[PARAM_MAX_LIST + 1];
	int most = (int)mp->loaders;
	char what[64];

	if (most > PARAM_MAX_LIST)
		most = PARAM_MAX_LIST;
	if (plan_chase(mp, t, cpus, out))
		return;
	if (!most) {
		strbuf_addstr(
			out,
			"loaders: none (loaders=0): the idle chase only\n");
	} else if (most + 1 > t->nallowed) {
		strbuf_addf(
			out,
			"loaders: not placed: %d loaders and the chase need %d cpus, %d allowed\n",
			most, most + 1, t->nallowed);
	} else {
		ml_plan_loaders(t, (int)mp->cpu_node, most, cpus);
		snprintf(what, sizeof(what),
			 "loaders=%s%d, each on a cpu of its own",
			 most > 1 ? "1-" : "", most);
		plan_view_cpus(t, what, cpus + 1, most, out);
	}
	strbuf_addf(out, "memory: the chased buffer%s bound to node %d\n",
		    most ? " and the loaders' buffer" : "", (int)mp->mem_node);
}

void ml_plan(const void *params, const struct common_params *common,
	     const struct topo *t, struct strbuf *out)
{
	const struct ml_params *mp = params;
	int cpu;

	(void)common;
	switch (mp->mode) {
	case ML_SIZES:
		if (!plan_chase(mp, t, &cpu, out))
			strbuf_addf(
				out,
				"memory: the chased buffer bound to node %d\n",
				(int)mp->mem_node);
		break;
	case ML_LOADED:
		plan_loaded(mp, t, out);
		break;
	default:
		plan_view_cells(t, mp->nodes.v, mp->nodes.n,
				(enum cells_mode)mp->cells, out);
	}
}
