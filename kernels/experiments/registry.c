/* registry.c - the table of every experiment: add one line here per new file */
#include "registry.h"

#include <stddef.h>
#include <string.h>

/*
 * One line per experiment, in the order the list shows them: X(name) stands
 * for the descriptor exp_<name> its file exports.
 */
#define EXPERIMENTS(X)                                                         \
	X(false_sharing)                                                       \
	X(atomic_increment)                                                    \
	X(core_to_core)                                                        \
	X(cache_sharing)                                                       \
	X(memory_policy)                                                       \
	X(remote_bandwidth)                                                    \
	X(bandwidth_scaling)                                                   \
	X(variable_layout)                                                     \
	X(numa_replication)                                                    \
	X(memory_policy_semantics)                                             \
	X(affinity)                                                            \
	X(memory_latency)                                                      \
	/* a new experiment: its line above this one */

#define DECLARE(name) extern const struct experiment exp_##name;
EXPERIMENTS(DECLARE)

#define ENTRY(name) &exp_##name,
const struct experiment *const experiments[] = {EXPERIMENTS(ENTRY) NULL};

const struct experiment *experiment_find(const char *name)
{
	for (int i = 0; experiments[i]; i++)
		if (!strcmp(experiments[i]->name, name))
			return experiments[i];
	return NULL;
}
