/* memory_latency.c - ns per dependent load: node by node, by working-set size, and under the load of streaming threads; each a part in its file */
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "chase.h"
#include "experiment.h"
#include "mem_size.h"
#include "pair_plan.h"

#include "ml.h"

static const struct param_choice modes[] = {
	{"nodes", ML_NODES}, {"sizes", ML_SIZES}, {"loaded", ML_LOADED}, {0}};
static const struct param_choice load_ops[] = {
	{"read", LOAD_READ}, {"write", LOAD_WRITE}, {0}};
static const struct param_choice page_kinds[] = {
	{"huge", PAGES_HUGE}, {"small", PAGES_SMALL}, {0}};

/* Whether node k of t may run the chase, take its buffer. */
static int node_runs(const struct topo *t, int k)
{
	return topo_node_ncpus(t, t->node[k].os) > 0;
}

static int node_takes(const struct topo *t, int k)
{
	return topo_node_has_memory(t, t->node[k].os) &&
	       (t->nmems_allowed == 0 || t->node[k].mem_allowed);
}

/* cpu_node's default: the first node with a cpu this process may use, so
 * that the default is never one the check refuses. */
static int chase_node(const struct topo *t)
{
	for (int k = 0; k < t->nnodes; k++)
		if (node_runs(t, k))
			return t->node[k].os;
	return t->nnodes ? t->node[0].os : 0;
}

static void cpu_node_default(const struct topo *t, char *buf, size_t len)
{
	snprintf(buf, len, "%d", chase_node(t));
}

/* mem_node's default: the chasing node's own memory, local, when it may
 * take the buffer; else the nearest node that may. */
static void mem_node_default(const struct topo *t, char *buf, size_t len)
{
	int c = topo_node_index(t, chase_node(t)), best = -1, bestd = INT_MAX;

	for (int k = 0; c >= 0 && k < t->nnodes; k++) {
		/* a distance the firmware did not give is taken as farthest */
		int d = k == c			? 0
			: t->distance[c][k] > 0 ? t->distance[c][k]
						: INT_MAX - 1;
		if (node_takes(t, k) && d < bestd) {
			best = k;
			bestd = d;
		}
	}
	snprintf(buf, len, "%d", best >= 0 ? t->node[best].os : chase_node(t));
}

static void loaders_default(const struct topo *t, char *buf, size_t len)
{
	int n = t->nallowed - 1;

	snprintf(buf, len, "%d",
		 n < 0			  ? 0
		 : n > ML_LOADERS_DEFAULT ? ML_LOADERS_DEFAULT
					  : n);
}

#define PARAM_STRUCT struct ml_params
static const struct param params[] = {
	PARAM_ENUM(
		mode, "nodes", modes,
		"nodes: the node x node matrix of ns per load; sizes: ns per load against the working set, from 8K to size; loaded: ns per load while 0..loaders threads stream over memory of mem_node"),
	PARAM_SIZE(
		size, "64M", CHASE_MIN_BYTES, 1LL << 40, "bytes",
		"the buffer chased (nodes, loaded) and the largest working set of the sweep (sizes), a multiple of 4K; " MEM_DEFAULT_HELP,
		.flags = PARAM_F_MEMORY),
	PARAM_NODELIST(
		nodes, "", 0, NMEM_MAX_NODE - 1,
		"mode=nodes: the nodes of the matrix (e.g. 0-3); empty: every node",
		.only = "mode=nodes"),
	PARAM_ENUM(
		cells, "full", cells_choices,
		"mode=nodes: full: every (cpu node, memory node) cell; by_distance: 3 cells of each numa distance; default: full up to 8 nodes, by_distance above",
		.machine_def = cells_default, .only = "mode=nodes"),
	PARAM_INT(cpu_node, "0", 0, NMEM_MAX_NODE - 1, "node",
		  "mode=sizes, loaded: the node whose cpu chases",
		  .machine_def = cpu_node_default, .only = "mode=sizes,loaded"),
	PARAM_INT(
		mem_node, "0", 0, NMEM_MAX_NODE - 1, "node",
		"mode=sizes, loaded: the node the chased buffer (and the loaders' buffer) is bound to",
		.machine_def = mem_node_default, .only = "mode=sizes,loaded"),
	PARAM_INT(
		loaders, "1", 0, 1023, "threads",
		"mode=loaded: the most threads streaming beside the chase (the curve runs 0..loaders), each on a cpu of its own; default: the cpus left, at most 4",
		.machine_def = loaders_default, .only = "mode=loaded"),
	PARAM_ENUM(load, "read", load_ops,
		   "mode=loaded: what the loaders stream: read or write",
		   .only = "mode=loaded"),
	PARAM_INT(
		loads, "1048576", 1024, 1LL << 36, "loads",
		"dependent loads per round; a round continues the chain where the last one stopped"),
	PARAM_SIZE(
		stride, "256", 16, CHASE_PAGE / 2, "bytes",
		"the distance between two nodes of the chain, a power of two: 256 (multichase's default) puts the next node outside the line a load brings and its adjacent-line prefetcher's pair; 64 lets that prefetcher help, as a line-by-line chain does"),
	PARAM_INT(
		locality, "64", 0, 1 << 20, "pages",
		"the 4 KiB pages the chain stays within until it has visited each node of them (multichase's TLB locality, default 64: a first-level TLB covers them); 0: fully random over the whole buffer, TLB misses included"),
	PARAM_ENUM(
		pages, "huge", page_kinds,
		"huge: ask for 2 MiB pages (transparent huge pages), so TLB misses stay out of the figure; small: 4 KiB pages. The run says which it got"),
	{0}};

static const struct chart charts[] = {
	CHART(CH_LAT, CHART_HEATMAP,
	      "ns per load: the chasing thread on the row's node, the buffer on the column's",
	      "memory node", "CPU node"),
	CHART(CH_RATIO, CHART_HEATMAP,
	      "Each cell over the local cell of its row (×)", "memory node",
	      "CPU node"),
	CHART(CH_DIST, CHART_HEATMAP,
	      "The firmware's distance (SLIT) between the two nodes",
	      "memory node", "CPU node"),
	CHART(CH_SIZES, CHART_LINE,
	      "ns per load by working-set size, the cache sizes marked",
	      "working set (bytes)", "ns per load", .log_x = 1, .log_y = 1,
	      .marks = "L* cache"),
	CHART(CH_LOADED, CHART_LINE,
	      "ns per load while other threads stream (MLC's loaded latency)",
	      "GB/s streamed by the loaders", "ns per load"),
	{0}};

static const char *const summary_keys[] = {"local_ns",
					   "remote_ns",
					   "remote_over_local",
					   "rank_*_ns",
					   "rank_*_distance",
					   "pages_off_node*",
					   "pages_on_node*",
					   "huge_page_share",
					   "smallest_ns",
					   "largest_ns",
					   "largest_over_smallest",
					   "idle_ns",
					   "loaded_ns",
					   "loaded_over_idle",
					   "loaders_gbps",
					   NULL};

/* ---- checks ---- */

static int size_ok(const struct ml_params *mp, struct errinfo *err)
{
	if (mp->stride & (mp->stride - 1))
		return errinfo_set(
			err, "stride",
			"stride %lld is not a power of two (allowed: 16, 32, 64, ... 2048 bytes): a page must hold whole nodes",
			(long long)mp->stride);
	if (mp->size % CHASE_PAGE == 0)
		return 0;
	return errinfo_set(
		err, "size",
		"size %lld is not a multiple of 4K (4096 bytes): the chain is built page by page",
		(long long)mp->size);
}

static int ml_check(const void *params, const struct common_params *common,
		    const struct topo *t, struct errinfo *err)
{
	const struct ml_params *mp = params;
	uint64_t need = (uint64_t)mp->size + 2 * ML_HUGE;
	int32_t nodes[TOPO_MAX_NODES], cn = (int32_t)mp->cpu_node,
				       mn = (int32_t)mp->mem_node;
	int n, rc;

	(void)common;
	if ((rc = size_ok(mp, err)))
		return rc;
	if (!t)
		return 0;
	if (!mem_caps()->policy && t->nnodes > 1)
		return errinfo_set(
			err, mp->mode == ML_NODES ? "nodes" : "mem_node",
			"binding memory to a node is not allowed here (%s)",
			mem_caps()->why);
	/* named in every mode: a node the machine lacks is refused */
	if ((rc = topo_check_nodes(t, &cn, 1, "cpu_node", 0, 1, err)) ||
	    (rc = topo_check_nodes(t, &mn, 1, "mem_node", 1, 0, err)))
		return rc;
	if (mp->mode == ML_NODES) {
		if ((rc = topo_check_nodes(t, mp->nodes.v, mp->nodes.n, "nodes",
					   0, 0, err)))
			return rc;
		n = topo_matrix_nodes(t, mp->nodes.v, mp->nodes.n, nodes);
		for (int i = 0; i < n; i++)
			if (topo_node_has_memory(t, nodes[i]) &&
			    (rc = topo_check_free(t, &nodes[i], 1, need, "size",
						  err)))
				return rc;
		return 0;
	}

	if (mp->mode == ML_LOADED) {
		if (mp->loaders + 1 > t->nallowed)
			return errinfo_set(
				err, "loaders",
				"loaders=%lld needs %lld cpus (one for the chase, one per loader), this process may use %d: at most loaders=%d",
				(long long)mp->loaders,
				(long long)mp->loaders + 1, t->nallowed,
				t->nallowed - 1);
		if (mp->loaders)
			need *= 2;
	}
	int twice = mp->mode == ML_LOADED && mp->loaders;
	return topo_check_free_why(
		t, &mn, 1, need, "size",
		twice ? "the chase's buffer and the loaders'" : NULL, err);
}

/* ---- the parts ---- */

/* The params only one part reads. */
static const char *const nodes_reads[] = {"nodes", "cells", NULL};
static const char *const loaded_reads[] = {"loaders", "load", NULL};

/* The parts, in the order of mode='s choices: each a file of this folder,
 * the harness measuring only the one mode= names. */
static const struct part parts[] = {
	{"nodes", ml_nodes_run, ml_nodes_say, ml_nodes_estimate, NULL,
	 nodes_reads, 0},
	{"sizes", ml_sizes_run, ml_sizes_say, ml_sizes_estimate, NULL, NULL, 0},
	{"loaded", ml_loaded_run, ml_loaded_say, ml_loaded_estimate, NULL,
	 loaded_reads, 0},
	{0}};

static int ml_run(struct run_ctx *ctx)
{
	if (!mem_caps()->policy)
		sink_note(
			ctx->sink, "warn",
			"memory policies are not allowed here (%s): buffers are placed by first touch",
			mem_caps()->why);
	return experiment_run_parts(ctx, NULL);
}

static void ml_describe(const struct run_result *r, struct verdict *v)
{
	const struct ml_params *mp = r->params;
	char head[VERDICT_TEXT_LEN] = "";
	int from_cache =
		r->rules && r->rules->checked
			? r->rules->from_cache > 0
			: mem_from_cache(r->machine, (uint64_t)mp->size);

	experiment_describe_parts(r, v, head, sizeof(head));
	if (head[0])
		verdict_headline(v, "%s%s",
				 from_cache && mp->mode != ML_SIZES
					 ? "from cache: "
					 : "",
				 head);
	else
		verdict_headline(v, "nothing was measured");
}

static void ml_precheck(const void *params, const struct common_params *common,
			const struct topo *t, struct verdict *v)
{
	const struct ml_params *mp = params;

	(void)common;
	if (mp->mode == ML_LOADED && t && t->nallowed - 1 < ML_LOADERS_DEFAULT)
		verdict_note(
			v, "warn",
			"this machine lets the run use %d cpus: at most %d loader%s beside the chase, too few to load the memory bus the way a loaded-latency curve means",
			t->nallowed, t->nallowed - 1,
			t->nallowed - 1 == 1 ? "" : "s");
}

/* ---- the time model ---- */

/* defined below: the estimate sums the parts its mode= selects */
extern const struct experiment exp_memory_latency;

static void ml_estimate(const void *params, const struct common_params *common,
			const struct topo *t, double *seconds, uint64_t *bytes)
{
	experiment_estimate_parts(&exp_memory_latency, params, common, t,
				  seconds, bytes);
}

/* ---- the descriptor ---- */

static const struct lesson lessons[] = {
	LESSON("local-latency", "One load from local memory",
	       "how many ns does one load take when it misses every cache and its address depends on the load before?",
	       "size=256M loads=262144 repeat=3", "ns", KEY_LOCAL, CH_LAT),
	LESSON("cache-steps", "From the L1 cache to memory",
	       "how many times as long does a load take from a 128 MiB working set as from an 8 KiB one?",
	       "mode=sizes size=128M loads=65536 repeat=3", "x", KEY_STEP,
	       CH_SIZES),
	{0}};

static const struct rule rules[] = {
	RULE(RULE_MEMORY, .param = "size", .what = "the latency"),
	RULE(RULE_NODES, .floor = 2, .what = "remote against local latency"),
	{RULE_END}};
static const char *const compared[] = {KEY_RATIO, NULL};

static const struct key_label summary_labels[] = {
	{"local_ns", "local memory: ns per load", "ns"},
	{"remote_ns", "remote memory: ns per load", "ns"},
	{"remote_over_local", "remote over local (the NUMA factor)", "×"},
	{"rank_*_distance", "the firmware's distance at rank %s", "SLIT"},
	{"rank_*_ns", "ns per load at distance rank %s", "ns"},
	{"pages_off_node*", "pages off node %s", "pages"},
	{"pages_on_node*", "pages on node %s", "pages"},
	{"huge_page_share", "share of the buffer on 2 MiB pages", "%"},
	{"smallest_ns", "ns per load, smallest working set", "ns"},
	{"largest_ns", "ns per load, largest working set", "ns"},
	{"largest_over_smallest", "largest over smallest working set", "×"},
	{"idle_ns", "ns per load, no loader", "ns"},
	{"loaded_ns", "ns per load, every loader streaming", "ns"},
	{"loaded_over_idle", "loaded over idle latency", "×"},
	{"loaders_gbps", "the loaders' bandwidth", "GB/s"},
	{NULL, NULL, NULL}};

static const struct key_label series_labels[] = {
	{"chase", "pointer chase", NULL},
	{"L1 cache", "L1 data cache size (one core's)", NULL},
	{"L2 cache", "L2 cache size", NULL},
	{"L3 cache", "L3 cache size (one instance)", NULL},
	{NULL, NULL, NULL}};

const struct experiment exp_memory_latency = {
	.parts = parts,
	.parts_param = "mode",
	.name = "memory_latency",
	.smoke = "size=64K loads=4096 repeat=2 warmup=0",
	.series_labels = series_labels,
	.headline_key = KEY_LOCAL,
	.headline_chart = CH_LAT,
	.title = "Memory latency: node by node, by working set, under load",
	.summary =
		"One thread follows a chain of dependent loads through a randomly "
		"ordered buffer: ns per load from each node's memory, against the "
		"working-set size, and while other threads stream",
	.section = "6.5",
	.explain =
		"A pointer chase measures what one load costs when nothing can "
		"hide it: every node of the buffer holds the address of the next, "
		"so each load waits for the one before. The chain follows "
		"google/multichase's published defaults: nodes 256 bytes apart "
		"(stride), so neither the line a load brings nor its adjacent-line "
		"prefetcher's pair holds the next node, and one random cycle "
		"through them in which no two neighbours share a 4 KiB page, so "
		"no stream prefetcher can guess the next address. The chain stays "
		"in a block of 64 pages (locality, 256 KiB) until it has visited "
		"all of it, and the buffer is asked for 2 MiB pages, so TLB misses "
		"stay out of the figure (a hypervisor may back a guest's huge "
		"pages with small ones); the run says which pages it got. "
		"locality=0 makes the chain fully random over the whole buffer, "
		"TLB misses included; stride=64 lets the adjacent-line prefetcher "
		"help, and reads lower. A round is timed over the stretches its "
		"thread was on its cpu: what another process took is left "
		"out.\n\n"
		"mode=nodes is the NUMA factor of section 6.5: the chasing thread "
		"on the row's node, the buffer bound (mbind) to the column's and "
		"its pages checked with move_pages. Beside each cell are its ratio "
		"to the local cell of its row and the distance the firmware claims "
		"(the SLIT numactl --hardware prints), so the two can be set side "
		"by side. Remote is called slower only when every remote cell's "
		"95% interval lies above that of the local cell of its row. "
		"cells=by_distance measures a few cells of each distance on "
		"machines of many nodes.\n\n"
		"mode=sizes sweeps the working set from 8 KiB up to size: the "
		"curve climbs a step each time the working set outgrows a cache "
		"level (marked at their sizes), then flattens at memory's "
		"latency. Working sets under 4 times the last-level cache are "
		"labelled from cache.\n\n"
		"mode=loaded repeats the chase while 0, 1, ... loaders threads "
		"stream over another buffer of the same node: latency against the "
		"bandwidth they achieve, the loaded-latency curve of Intel's MLC. "
		"A machine of few cpus has few loaders to give, and says so.",
	EXPERIMENT_PARTS(ml),
	.plan = ml_plan,
	.check = ml_check,
};
