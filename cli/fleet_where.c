/* fleet_where.c - where in a fleet a run ran, from the engine's environment */
#include "fleet_where.h"

#include <stdlib.h>
#include <string.h>

static json_t *env_text(const char *name)
{
	const char *v = getenv(name);
	return v && *v ? json_string(v) : json_null();
}

static json_t *env_int(const char *name)
{
	const char *v = getenv(name);
	char *end;
	long n;

	if (!v || !*v)
		return json_null();
	n = strtol(v, &end, 10);
	return *end ? json_null() : json_integer(n);
}

/* "a,b,c" into ["a","b","c"] */
static json_t *env_list(const char *name)
{
	const char *v = getenv(name);
	json_t *a = json_array();

	while (v && *v) {
		size_t n = strcspn(v, ",");
		if (n)
			json_array_append_new(a, json_stringn(v, n));
		v += n + (v[n] == ',');
	}
	return a;
}

void fleet_where_attach(json_t *machine)
{
	const char *campaign = getenv("NUMALAB_FLEET_CAMPAIGN");
	const char *job = getenv("SLURM_JOB_ID");
	const char *engine = getenv("NUMALAB_FLEET_ENGINE");
	const char *exclusive = getenv("NUMALAB_FLEET_EXCLUSIVE");
	json_t *node, *cluster, *w;

	if (!json_is_object(machine) || (!campaign && !job))
		return;
	node = env_text("SLURMD_NODENAME");
	if (json_is_null(node)) {
		json_decref(node);
		node = env_text("NUMALAB_FLEET_NODE");
	}
	if (json_is_null(node)) {
		json_decref(node);
		node = json_incref(json_object_get(machine, "hostname"));
	}
	cluster = env_text("SLURM_CLUSTER_NAME");
	if (json_is_null(cluster)) {
		json_decref(cluster);
		cluster = env_text("NUMALAB_FLEET_CLUSTER");
	}
	w = json_pack("{s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:b, s:o}",
		      "engine",
		      engine ? engine
		      : job  ? "slurm"
			     : "unknown",
		      "cluster", cluster, "campaign",
		      env_text("NUMALAB_FLEET_CAMPAIGN"), "job_id",
		      env_text("SLURM_JOB_ID"), "array_task",
		      env_int("SLURM_ARRAY_TASK_ID"), "node",
		      node ? node : json_null(), "partition",
		      env_text("SLURM_JOB_PARTITION"), "features",
		      env_list("NUMALAB_FLEET_FEATURES"), "exclusive",
		      exclusive && !strcmp(exclusive, "1"), "cpus_on_node",
		      env_int("SLURM_CPUS_ON_NODE"));
	if (w)
		json_object_set_new(machine, "fleet", w);
}
