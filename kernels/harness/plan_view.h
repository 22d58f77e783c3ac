/* plan_view.h - what a run would do on a topology, in lines, before it runs */
#ifndef NUMALAB_PLAN_VIEW_H
#define NUMALAB_PLAN_VIEW_H

#include <stdint.h>

#include "descriptor.h"
#include "pair_plan.h"
#include "strbuf.h"
#include "topo.h"

/*
 * "what: cpus 0,1 on node 0": n cpus (OS indexes, -1 unpinned) of a
 * plan, with the node of each distinct one. Pure.
 */
void plan_view_cpus(const struct topo *t, const char *what, const int *cpus,
		    int n, struct strbuf *out);

/*
 * "what: cpus 0-15 on nodes 0-1" for a set of n cpus (OS indexes, in
 * ascending order), as ranges. Pure.
 */
void plan_view_cpu_set(const struct topo *t, const char *what, const int *cpus,
		       int n, struct strbuf *out);

/*
 * "memory: not bound: <how>, and a page goes to the node of the cpu
 * that touches it first", and where a node with cpus has no memory, that a
 * first touch there takes the nearest node with memory. Pure.
 */
void plan_view_first_touch(const struct topo *t, const char *how,
			   struct strbuf *out);

/* How a run places the threads of a sweep of counts (plan_view_sweep). */
struct plan_sweep {
	const char *what; /* before "threads=...": "" or "spread, " */
	enum place_strategy s;
	/* 0: topo_plan over cpus, as experiment_plan places them; 1:
	 * topo_plan_nodes over nodes (nnodes 0: every node) */
	int by_node;
	const int32_t *cpus, *nodes;
	int ncpus, nnodes;
};

/*
 * Where the threads of each of the n counts run, placed as p says the
 * run places them: "threads=1-4, each on the first of: cpus 0 4 1 5 on
 * nodes 0-1" for the counts whose cpus are the first of the largest
 * one's, a line of its own for a count placed otherwise or not at all
 * (why), "not pinned" under placement=os. Pure.
 */
void plan_view_sweep(const struct topo *t, const struct plan_sweep *p,
		     const int32_t *counts, int n, struct strbuf *out);

/*
 * The cells of a node matrix (cell_plan_make over nodes, n == 0: every
 * node): "cells: threads on 0, memory on 0 2 4; threads on 1, memory on
 * ..." and the rows that run nothing because their node holds memory
 * only. Pure.
 */
void plan_view_cells(const struct topo *t, const int32_t *nodes, int n,
		     enum cells_mode mode, struct strbuf *out);

/*
 * The plan of a run of e with these params on t: the machine's part,
 * then e's own (its plan hook), for `numalab estimate`. Pure.
 */
void experiment_plan_view(const struct experiment *e, const void *params,
			  const struct common_params *common,
			  const struct topo *t, struct strbuf *out);

#endif
