/* nr.h - what the parts of numa_replication share: its params, its names, its plan, and its parts */
#ifndef NUMALAB_NR_H
#define NUMALAB_NR_H

#include <stddef.h>
#include <stdint.h>

#include "experiment.h"

#define NR_MAX_THREADS 1024

struct nr_params {
	int64_t size;
	int64_t passes;
	int64_t updates;
	int64_t buckets;
	int64_t threads; /* per node */
	struct int_list nodes, home;
};

/*
 * Names run() emits and describe() reads, defined once: charts, series,
 * labels and summary keys.
 */
#define CH_READ "read"
#define CH_MEMORY "memory"
#define CH_ACC "accumulate"
#define CH_PASS "pass_time"
#define CH_MIGRATION "migration"
#define SERIES_UPDATES "updates"
#define SERIES_COMBINE "combine"
#define SERIES_PASS "pass"
#define SERIES_BREAK_EVEN "break-even"
#define KEY_COMBINE "combine_ms"
#define KEY_EQUAL "accumulate_equal"
#define KEY_MIG_POSSIBLE "migration_possible"
#define KEY_MIG_FAILED "migration_failed"
#define KEY_MIG_MS "migration_ms"
#define KEY_BREAK_EVEN "break_even_passes"
#define READ_FROM_CACHE                                                        \
	"the data fits in this machine's cache (a size under 4 times the last-level cache), so one copy against a copy per node was compared from cache, not memory: the comparison is not stated"
#define NO_BREAK_EVEN                                                          \
	"a pass over the region on the remote node was not told slower than on the local node, so no break-even can be claimed for the migration"

#define SERIES_SINGLE "one copy"
#define SERIES_LOCAL "a copy per node"
#define ACC_SHARED "one shared region"
#define ACC_PER_NODE "a region per node"
#define PASS_REMOTE "remote node (before)"
#define PASS_LOCAL "local node (after migrating)"

/* The nodes taking part, the home node, and each thread's CPU. */
struct nr_plan {
	int nodes[TOPO_MAX_NODES];
	int nnodes;
	int home;
	int nthreads;
	int cpus[NR_MAX_THREADS];
	int node_of[NR_MAX_THREADS];
};

/* The plan: which nodes and cpus take part (plan.c). */
void nr_plan_nodes(const struct nr_params *p, const struct topo *t,
		   struct nr_plan *pl);
int nr_plan_cpus(const struct nr_params *p, const struct topo *t,
		 struct nr_plan *pl, struct errinfo *err);
/* The taking-part node farthest from local, or -1. */
int nr_farthest(const struct topo *t, const struct nr_plan *pl, int local);
/* Where a run would put its threads and memory (the plan hook). Pure. */
void nr_plan_view(const void *params, const struct common_params *common,
		  const struct topo *t, struct strbuf *out);

/* What the parts' sentences ask of a run (plan.c). */
int nr_summary_is(const struct run_result *r, const char *key, double want);
int nr_nodes_seen(const struct run_result *r, const char *label, int *nnodes);
int nr_read_from_cache(const struct run_result *r);

/* The parts, each in its file: run (struct part .run, with the plan as
 * its state) and what it showed (struct part .describe). */
PART_HOOKS(nr_readonly);
PART_HOOKS(nr_accumulate);
PART_HOOKS(nr_migrate);

#endif
