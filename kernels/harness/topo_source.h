/* topo_source.h - hwloc's topology of this machine, or of the one HWLOC_SYNTHETIC or HWLOC_XMLFILE names, refused with the reason when it cannot be used */
#ifndef NUMALAB_TOPO_SOURCE_H
#define NUMALAB_TOPO_SOURCE_H

#include <stddef.h>

/*
 * The variable that names another machine's topology, HWLOC_SYNTHETIC
 * before HWLOC_XMLFILE (hwloc's own order), its value in *value; NULL
 * for this machine. An empty value counts as unset, as hwloc's own load
 * treats it.
 */
const char *topo_source_var(const char **value);

/*
 * hwloc's topology (an hwloc_topology_t), loaded: the one the
 * environment names, else this machine's. A file or description hwloc
 * cannot use is never replaced by this machine: NULL with errno set and
 * why (len bytes) naming the variable, its value and the reason. With
 * here, this machine's whatever the environment names: the two variables
 * are taken out of the environment while hwloc loads, so call it before
 * any thread that reads the environment starts.
 */
void *topo_source_load(char *why, size_t len, int here);

#endif
