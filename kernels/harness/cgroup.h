/* cgroup.h - this process's cpuset as its cgroup (v2, else v1) gives it */
#ifndef NUMALAB_CGROUP_H
#define NUMALAB_CGROUP_H

#include <stddef.h>

/*
 * The process's cpuset as its cgroup gives it: cgroup v2's
 * cpuset.cpus.effective and cpuset.mems.effective (looked up from the
 * process's cgroup towards the root: a cgroup without the controller
 * enabled has no such file and takes its parent's), else the v1 cpuset
 * hierarchy's cpuset.effective_cpus/_mems. Fills cpus and mems (texts)
 * and where they came from; each is "" when nothing could be read.
 */
void cgroup_cpuset(char *cpus, char *cpus_from, char *mems, char *mems_from,
		   size_t len);

#endif
