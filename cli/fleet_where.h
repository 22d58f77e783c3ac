/* fleet_where.h - where in a fleet a run ran, from the engine's environment */
#ifndef NUMALAB_FLEET_WHERE_H
#define NUMALAB_FLEET_WHERE_H

#include <jansson.h>

/*
 * Adds machine.fleet when this run was started by an engine (Slurm's
 * SLURM_JOB_ID, or a `numalab fleet` campaign's NUMALAB_FLEET_*): engine,
 * cluster, campaign, job_id, array_task, node (SLURMD_NODENAME: several
 * virtual nodes can share a host name), partition, features, exclusive,
 * cpus_on_node. Leaves machine alone otherwise.
 */
void fleet_where_attach(json_t *machine);

#endif
