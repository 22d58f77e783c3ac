/* registry.c - the table of every experiment: add one line here per new file */
#include "experiment.h"

extern const struct experiment exp_false_sharing;
extern const struct experiment exp_atomic_increment;
extern const struct experiment exp_core_to_core;
extern const struct experiment exp_cache_sharing;
extern const struct experiment exp_memory_policy;
extern const struct experiment exp_remote_bandwidth;
extern const struct experiment exp_bandwidth_scaling;
extern const struct experiment exp_variable_layout;
extern const struct experiment exp_numa_replication;
extern const struct experiment exp_memory_policy_semantics;
extern const struct experiment exp_affinity;

const struct experiment *const experiments[] = {
	&exp_false_sharing,	&exp_atomic_increment,
	&exp_core_to_core,	&exp_cache_sharing,
	&exp_memory_policy,	&exp_remote_bandwidth,
	&exp_bandwidth_scaling, &exp_variable_layout,
	&exp_numa_replication,	&exp_memory_policy_semantics,
	&exp_affinity,		NULL,
};
