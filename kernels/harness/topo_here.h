/* topo_here.h - whether a run can go ahead under a topology that is not this machine's */
#ifndef NUMALAB_TOPO_HERE_H
#define NUMALAB_TOPO_HERE_H

#include "errinfo.h"
#include "topo.h"

/*
 * A run measures this machine; a topology file (HWLOC_XMLFILE,
 * HWLOC_SYNTHETIC) only describes one. Under such a topology a run can
 * only go ahead where every cpu the file lets it use is a cpu this
 * process may use here, and every node it may bind memory to a node this
 * process may bind here: else its pinning or binding fails part way,
 * after rows that were measured somewhere else than they say. Returns 0
 * (t is this machine's, or all of it is here), or -EINVAL with err
 * naming field "topology", what the file has that this machine lacks,
 * and what to do instead.
 */
int topo_run_here(const struct topo *t, struct errinfo *err);

#endif
