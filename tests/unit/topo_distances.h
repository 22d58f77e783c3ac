/* topo_distances.h - a NUMA distance matrix for synthetic topologies, which hwloc gives none */
#ifndef NUMALAB_TOPO_DISTANCES_H
#define NUMALAB_TOPO_DISTANCES_H

#include "topo.h"

/* The package of node index i: the package of its first PU, -1 if none. */
static inline int topo_node_package(const struct topo *t, int i)
{
	for (int p = 0; p < t->npus; p++)
		if (t->pu[p].node == t->node[i].os)
			return t->pu[p].package;
	return -1;
}

/*
 * Fills t->distance the way large machines report it: 10 on the node,
 * 12 to another node of the package, 21 to a package of the same group
 * of `group` packages (one hop), 31 beyond (two hops).
 */
static inline void topo_set_distances(struct topo *t, int group)
{
	for (int a = 0; a < t->nnodes; a++)
		for (int b = 0; b < t->nnodes; b++) {
			int pa = topo_node_package(t, a),
			    pb = topo_node_package(t, b);
			t->distance[a][b] = a == b		       ? 10
					    : pa == pb		       ? 12
					    : pa / group == pb / group ? 21
								       : 31;
		}
}

#endif
