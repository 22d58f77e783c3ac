/* numa_replication.c - §6.5.7's explicit NUMA optimisations: a copy per node, a region per node combined, migrating before use; each a part in its file */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bw.h"
#include "compare.h"
#include "experiment.h"
#include "mem_size.h"
#include "node_mem.h"
#include "numa_mem.h"
#include "page_census.h"
#include "rates.h"
#include "stats.h"
#include "team.h"
#include "team_points.h"
#include "workcost.h"

#include "nr.h"

#define PARAM_STRUCT struct nr_params
static const struct param params[] = {
	PARAM_SIZE(
		size, "64M", 64 << 10, 1LL << 36, "bytes",
		"the read-only data (one copy) and the writable region that may be migrated; " MEM_DEFAULT_HELP,
		.flags = PARAM_F_MEMORY),
	PARAM_INT(passes, "4", 1, 10000, "sweeps",
		  "sweeps over the data per thread and round"),
	PARAM_INT(updates, "2000000", 1, 10000000000LL, "per thread",
		  "additions into the accumulator per thread and round"),
	PARAM_INT(buckets, "65536", 1, 1 << 26, "slots",
		  "8-byte slots of the accumulator region"),
	PARAM_INT(threads, "1", 1, NR_MAX_THREADS, "per node",
		  "threads on each node"),
	PARAM_NODELIST(
		nodes, "", 0, NMEM_MAX_NODE - 1,
		"nodes whose threads take part; empty: every node with cpus and memory"),
	PARAM_NODELIST(
		home, "", 0, NMEM_MAX_NODE - 1,
		"the node holding the single copy and the shared accumulator; empty: the first of 'nodes'"),
	{0}};

static const struct chart charts[] = {
	CHART(CH_READ, CHART_BAR,
	      "Reading the read-only data: one copy, or the copy of the reader's node",
	      "node of the reading thread", "GB/s per thread"),
	CHART(CH_MEMORY, CHART_BAR, "What replication costs in memory",
	      "layout", "MiB"),
	CHART(CH_ACC, CHART_BAR,
	      "Accumulating: one shared region, or a region per node combined at the end",
	      "layout", "ms per round"),
	CHART(CH_PASS, CHART_BAR,
	      "One pass over the writable region, from the local node",
	      "where the region is", "ms per pass"),
	CHART(CH_MIGRATION, CHART_LINE,
	      "Total time over many passes: stay remote, or migrate first (they cross at the break-even)",
	      "passes", "ms"),
	{0}};

static const char *const summary_keys[] = {"nodes_used",
					   "home_node",
					   "replicas",
					   "replica_bytes",
					   "single_bytes",
					   "replica_setup_ms",
					   "single_pages_home",
					   "single_pages_elsewhere",
					   "replica_node*_pages_local",
					   "replica_node*_pages_elsewhere",
					   KEY_EQUAL,
					   KEY_COMBINE,
					   "shared_region_pages_home",
					   "region_node*_pages_local",
					   "region_node*_pages_elsewhere",
					   KEY_MIG_POSSIBLE,
					   "local_node",
					   "remote_node",
					   "migration_pages_before_remote",
					   "migration_pages_after_local",
					   "migration_moved",
					   KEY_MIG_FAILED,
					   KEY_MIG_MS,
					   KEY_BREAK_EVEN,
					   NULL};

static int nr_run(struct run_ctx *ctx)
{
	const struct nr_params *p = ctx->params;
	struct nr_plan *pl = calloc(1, sizeof(*pl));
	struct errinfo err;
	int rc;

	if (!pl)
		return -ENOMEM;
	nr_plan_nodes(p, ctx->topo, pl);
	rc = nr_plan_cpus(p, ctx->topo, pl, &err);
	if (rc) {
		sink_note(ctx->sink, "warn", "%s", err.msg);
		goto out;
	}
	sink_summary(ctx->sink, "nodes_used", pl->nnodes, "nodes");
	sink_summary(ctx->sink, "home_node", pl->home, NULL);
	rc = experiment_run_parts(ctx, pl);
	if (!rc)
		sink_progress(ctx->sink, 4, 4, "done");
out:
	free(pl);
	return rc;
}

static int nr_check(const void *params, const struct common_params *common,
		    const struct topo *t, struct errinfo *err)
{
	const struct nr_params *p = params;
	struct nr_plan *pl;
	int rc;

	(void)common;
	if ((rc = node_mem_census_check(err, "nodes", "each copy is")))
		return rc;
	if (p->home.n > 1)
		return errinfo_set(err, "home", "'home' names one node");
	if (!t)
		return 0;
	if ((rc = topo_check_nodes(t, p->nodes.v, p->nodes.n, "nodes", 1, 1,
				   err)) ||
	    (rc = topo_check_nodes(t, p->home.v, p->home.n, "home", 1, 0, err)))
		return rc;
	pl = calloc(1, sizeof(*pl));
	if (!pl)
		return -ENOMEM;
	nr_plan_nodes(p, t, pl);
	if (!pl->nnodes)
		rc = errinfo_set(
			err, "threads",
			"no node has both memory this process may bind and %lld cpu%s it may use: each copy is read by threads of its own node",
			(long long)p->threads, p->threads == 1 ? "" : "s");
	else
		rc = nr_plan_cpus(p, t, pl, err);
	/* the single copy and the shared region on home, a copy and a region on
	 * each node */
	if (!rc)
		rc = topo_check_free_why(t, &pl->home, 1,
					 2 * (uint64_t)p->size +
						 (uint64_t)p->buckets * 8,
					 "size",
					 "two copies of it, the single one and "
					 "this node's, and the counters",
					 err);
	for (int i = 0; !rc && i < pl->nnodes; i++)
		rc = topo_check_free(t, &pl->nodes[i], 1,
				     (uint64_t)p->size +
					     (uint64_t)p->buckets * 8,
				     "size", err);
	free(pl);
	return rc;
}

/* --- what a run says --- */

static void nr_describe(const struct run_result *r, struct verdict *v)
{
	char head[VERDICT_TEXT_LEN] = "";
	double nodes = 0;

	experiment_describe_parts(r, v, head, sizeof(head));
	if (!r->complete)
		verdict_note(
			v, "warn",
			"the run did not finish: what it says rests on the parts measured");
	result_summary_get(r, "nodes_used", &nodes);
	if (head[0])
		verdict_headline(v, "%s", head);
	else if (nodes < 2 && r->machine && r->machine->nnodes > 1)
		/* a memory-only node, or one without memory, is no place for
		 * a copy its own threads read */
		verdict_headline(
			v,
			"only one of this machine's %d nodes has both cpus and memory, so there is nothing to replicate or migrate: this run measured only what the techniques cost",
			r->machine->nnodes);
	else if (nodes < 2)
		verdict_headline(
			v,
			"with one node there is nothing to replicate or migrate: this run measured only what the techniques cost");
	else if (nr_read_from_cache(r))
		verdict_headline(
			v,
			"one copy against a copy per node was read from cache, not memory, so this run does not compare them: see the notes");
	else if (r->npoints)
		verdict_headline(
			v,
			"this run could not tell the techniques from the plain layouts: see the notes");
}

static void nr_precheck(const void *params, const struct common_params *common,
			const struct topo *t, struct verdict *v)
{
	const struct nr_params *p = params;
	struct nr_plan pl;

	/* a machine without NUMA system calls is refused by the check hook */
	(void)common;
	nr_plan_nodes(p, t, &pl);
	if (pl.nnodes >= 2)
		return;
	verdict_note(
		v, "cannot",
		"a copy per node reads the same as one copy when every reader is on one node; this run uses %d",
		pl.nnodes);
	verdict_note(
		v, "cannot",
		"a region per node is the shared region when there is one node: the accumulators can only be checked for equal totals");
	verdict_note(
		v, "cannot",
		"migrating a region to the local node needs a second node to start from");
}

static void nr_estimate(const void *params, const struct common_params *common,
			const struct topo *t, double *seconds, uint64_t *bytes)
{
	const struct nr_params *p = params;
	const struct rates *r = rates_get();
	double rounds = cost_rounds(common);
	int nodes = cost_nodes(t);
	int threads = (int)p->threads * nodes;
	double size = (double)p->size, s;

	/* the copies (one, then one a node) and the region: touched and filled
	 */
	s = (nodes + 2) *
	    (cost_touch_s(t, size, 1) + cost_stream_s(t, COST_WRITE, size, 1));
	/* replicas: every thread reads the data passes times, from one copy and
	 * from its own */
	s += 2 * rounds *
	     cost_stream_s(t, COST_READ, size * p->passes * threads, threads);
	/* accumulators: locked adds into one shared region, then into one a
	 * node */
	s += 2 * rounds * (double)p->updates * cost_crowd(t, threads) *
	     (threads > 1 ? r->atomic_shared_ns : r->atomic_ns) * 1e-9;
	/* the region: write passes (migrate.c) before and after a move, and
	 * the move, a copy of every page (counted as copies, the passes made
	 * this estimate 1.6-2.8x the run) */
	s += rounds * 2 * cost_stream_s(t, COST_WRITE, size * p->passes, 1) +
	     cost_touch_s(t, size, 1) + cost_stream_s(t, COST_COPY, size, 1);
	*seconds = s + cost_teams_s(6);
	*bytes = (uint64_t)p->size * (uint64_t)(nodes + 2) +
		 (uint64_t)p->buckets * 8 * (uint64_t)(nodes + 2);
}

static const struct lesson lessons[] = {
	LESSON("copy-cost", "What a copy per node costs",
	       "how many milliseconds does making one copy of the data per node take here?",
	       "size=256M repeat=3 warmup=1", "ms", "replica_setup_ms",
	       CH_MEMORY),
	{0}};

/* The rulebook (rules.h): what its comparisons need. */
static const struct rule rules[] = {
	RULE(RULE_MEMORY, .param = "size",
	     .what = "one copy against a copy per node"),
	RULE(RULE_NODES, .floor = 2,
	     .what = "one copy against a copy per node"),
	{RULE_END}};
static const char *const compared[] = {"break_even_passes", NULL};

/* what a person reads for each summary key */
static const struct key_label summary_labels[] = {
	{"nodes_used", "nodes used", "nodes"},
	{"home_node", "home node", "node"},
	{"replicas", "copies of the data", "copies"},
	{"replica_bytes", "memory of the replicas", "bytes"},
	{"single_bytes", "memory of one copy", "bytes"},
	{"replica_setup_ms", "time to make the replicas", "ms"},
	{"single_pages_home", "one copy: pages on its home node", "pages"},
	{"single_pages_elsewhere", "one copy: pages elsewhere", "pages"},
	{"replica_node*_pages_local", "replica of node %s: pages local",
	 "pages"},
	{"replica_node*_pages_elsewhere", "replica of node %s: pages elsewhere",
	 "pages"},
	{KEY_EQUAL, "per-node sums equal the shared one", "yes/no"},
	{KEY_COMBINE, "time to combine the per-node sums", "ms"},
	{"shared_region_pages_home", "shared region: pages on its home node",
	 "pages"},
	{"region_node*_pages_local", "region of node %s: pages local", "pages"},
	{"region_node*_pages_elsewhere", "region of node %s: pages elsewhere",
	 "pages"},
	{KEY_MIG_POSSIBLE, "migration possible here", "yes/no"},
	{"local_node", "local node", "node"},
	{"remote_node", "remote node", "node"},
	{"migration_pages_before_remote", "pages remote before migrating",
	 "pages"},
	{"migration_pages_after_local", "pages local after migrating", "pages"},
	{"migration_moved", "pages migrated", "pages"},
	{KEY_MIG_FAILED, "pages that failed to migrate", "pages"},
	{KEY_MIG_MS, "time to migrate", "ms"},
	{KEY_BREAK_EVEN, "passes to repay the migration", "passes"},
	{NULL, NULL, NULL}};

/* The parts, in the order they run: each a file of this folder. */
/* Every run measures all three; the time model stays whole
 * (nr_estimate): the parts share the copies the plan makes. */
static const char *const acc_reads[] = {"updates", "buckets", NULL};
static const struct part parts[] = {
	{"readonly", nr_readonly_run, nr_readonly_say, NULL, NULL, NULL, 0},
	{"accumulate", nr_accumulate_run, nr_accumulate_say, NULL, NULL,
	 acc_reads, 0},
	{"migrate", nr_migrate_run, nr_migrate_say, NULL, NULL, NULL, 0},
	{0}};

const struct experiment exp_numa_replication = {
	.parts = parts,
	.name = "numa_replication",
	.smoke = "size=64K passes=1 updates=1000 buckets=64 repeat=2 warmup=0",
	.headline_key = KEY_BREAK_EVEN,
	.headline_chart = CH_READ,
	.title =
		"Replicas per node, per-node accumulators, migrating before use",
	.summary =
		"Read-only data in one copy or one per node; one shared "
		"accumulator or one per node combined; a writable region used "
		"remotely or migrated first, and when that pays",
	.section = "6.5.7",
	.explain =
		"When threads on every node need the same memory, placing "
		"threads well is not enough: whichever node holds the data, "
		"the others reach it across the interconnect. The article "
		"names three ways out, and this experiment measures each.\n\n"
		"Read-only data can simply be copied. Each thread asks for the "
		"copy of the node it runs on (the article's local_data()); the "
		"first thread of a node to ask makes that node's copy. The "
		"price is memory, one copy per node, and the time to make "
		"them. The threads read the data once from the single copy on "
		"the home node and once from their own; the chart shows each "
		"node's reading speed both ways. A thread that is moved to "
		"another node later only reads remotely, it does not break.\n\n"
		"A region that collects results cannot be copied, but when "
		"adding up does not depend on what was added before, each node "
		"can add into a region of its own and the regions are summed "
		"at the end. The experiment does the same additions both ways, "
		"checks the totals are equal, and counts the combine in the "
		"per-node time.\n\n"
		"A writable region that one node uses a lot can be moved to "
		"that node (here with move_pages). Moving is copying, so it "
		"costs time up front; the experiment times passes over the "
		"region before and after the move and works out after how many "
		"passes the move has paid for itself.\n\n"
		"Every copy and region is placed with a bind policy and its "
		"pages are checked with move_pages. On a machine with one node "
		"all of this is local either way: the run still measures the "
		"costs, and says what it cannot show.",
	EXPERIMENT_PARTS(nr),
	.plan = nr_plan_view,
	.min_nodes = 2,
	.check = nr_check,
};
