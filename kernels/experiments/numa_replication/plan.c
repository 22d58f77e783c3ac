/* plan.c - the nodes and cpus a run of numa_replication uses, and what its parts' sentences ask of a run */
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
#include "plan_view.h"
#include "rates.h"
#include "stats.h"
#include "strbuf.h"
#include "team.h"
#include "team_points.h"
#include "workcost.h"

#include "nr.h"

/* A node that may hold a copy read by threads of its own: memory the
 * process may bind there, and enough cpus it may use. */
static int usable_node(const struct topo *t, int i, int threads)
{
	return t->node[i].mem_total > 0 &&
	       (t->nmems_allowed == 0 || t->node[i].mem_allowed) &&
	       topo_node_ncpus(t, t->node[i].os) >= threads;
}

/* The nodes the params name, or every usable one; home defaults to the first.
 * Pure. */
void nr_plan_nodes(const struct nr_params *p, const struct topo *t,
		   struct nr_plan *pl)
{
	memset(pl, 0, sizeof(*pl));
	for (int i = 0; i < p->nodes.n && pl->nnodes < TOPO_MAX_NODES; i++)
		pl->nodes[pl->nnodes++] = p->nodes.v[i];
	for (int i = 0; !p->nodes.n && i < t->nnodes; i++)
		if (usable_node(t, i, (int)p->threads))
			pl->nodes[pl->nnodes++] = t->node[i].os;
	if (p->home.n)
		pl->home = p->home.v[0];
	else
		pl->home = pl->nnodes ? pl->nodes[0] : 0;
}

int nr_plan_cpus(const struct nr_params *p, const struct topo *t,
		 struct nr_plan *pl, struct errinfo *err)
{
	int per = (int)p->threads;

	pl->nthreads = 0;
	for (int i = 0; i < pl->nnodes; i++) {
		int32_t node = pl->nodes[i];
		if (pl->nthreads + per > NR_MAX_THREADS)
			return errinfo_set(err, "threads",
					   "more than %d threads in all",
					   NR_MAX_THREADS);
		if (topo_plan_nodes(t, PLACE_COMPACT, &node, 1, per,
				    pl->cpus + pl->nthreads, err)) {
			snprintf(err->field, sizeof(err->field), "threads");
			return -EINVAL;
		}
		for (int k = 0; k < per; k++)
			pl->node_of[pl->nthreads++] = node;
	}
	return 0;
}

/* The node of the plan farthest from local (by the distance table), -1 if none
 * other. */
int nr_farthest(const struct topo *t, const struct nr_plan *pl, int local)
{
	int best = -1, bestd = -1, li = topo_node_index(t, local);

	for (int i = 0; i < pl->nnodes; i++) {
		int ni = topo_node_index(t, pl->nodes[i]);
		int d = li >= 0 && ni >= 0 ? t->distance[li][ni] : 0;
		if (pl->nodes[i] == local)
			continue;
		if (d >= bestd) {
			bestd = d;
			best = pl->nodes[i];
		}
	}
	return best;
}

/*
 * Before the run (the plan hook): the nodes taking part, where the single
 * copy and the shared region go, each node's threads, and the region a
 * migration moves. Pure.
 */
void nr_plan_view(const void *params, const struct common_params *common,
		  const struct topo *t, struct strbuf *out)
{
	const struct nr_params *p = params;
	struct nr_plan *pl = calloc(1, sizeof(*pl));
	struct errinfo err = {0};
	int32_t nodes[TOPO_MAX_NODES];
	char list[256];
	int remote;

	(void)common;
	if (!pl)
		return;
	nr_plan_nodes(p, t, pl);
	if (!pl->nnodes) {
		strbuf_addf(
			out,
			"nodes: none has memory this process may bind and %lld cpu%s it may use\n",
			(long long)p->threads, p->threads == 1 ? "" : "s");
		free(pl);
		return;
	}
	for (int i = 0; i < pl->nnodes; i++)
		nodes[i] = pl->nodes[i];
	format_int_list(nodes, pl->nnodes, list, sizeof(list));
	strbuf_addf(out, "nodes taking part: %s; a copy and a region on each\n",
		    list);
	strbuf_addf(out, "one copy and the shared region: on node %d\n",
		    pl->home);
	if (nr_plan_cpus(p, t, pl, &err)) {
		strbuf_addf(out, "threads: not placed: %s\n", err.msg);
		free(pl);
		return;
	}
	for (int i = 0, at = 0; i < pl->nnodes; i++, at += (int)p->threads) {
		char what[48];
		snprintf(what, sizeof(what), "threads of node %d",
			 pl->nodes[i]);
		plan_view_cpus(t, what, pl->cpus + at, (int)p->threads, out);
	}
	remote = nr_farthest(t, pl, pl->nodes[0]);
	if (remote >= 0)
		strbuf_addf(
			out,
			"migration: a region on node %d, moved to node %d, where it is read\n",
			remote, pl->nodes[0]);
	else
		strbuf_addstr(out,
			      "migration: needs a second node to start from\n");
	free(pl);
}

/* --- read-only data: one copy, or local_data() --- */

int nr_summary_is(const struct run_result *r, const char *key, double want)
{
	double v;

	return result_summary_get(r, key, &v) == 0 && v == want;
}

/* The placements' threads all on the nodes they were meant for; 0 and a note if
 * not. */
int nr_nodes_seen(const struct run_result *r, const char *label, int *nnodes)
{
	const struct result_placement *p = result_placement_find(r, label);
	int seen[TOPO_MAX_NODES], n = 0;

	*nnodes = 0;
	if (!p)
		return 0;
	for (int i = 0; i < p->n; i++) {
		int node = p->t[i].node, k;
		for (k = 0; k < n && seen[k] != node; k++)
			;
		if (k == n && n < TOPO_MAX_NODES)
			seen[n++] = node;
	}
	*nnodes = n;
	return 1;
}

/*
 * Whether the data was read from cache: the rulebook's finding when it ran
 * (judged against a plausible cache where the machine misreports its
 * own), the machine's reported cache otherwise.
 */
int nr_read_from_cache(const struct run_result *r)
{
	const struct nr_params *p = r->params;

	if (r->rules && r->rules->checked)
		return r->rules->from_cache > 0;
	return mem_from_cache(r->machine, (uint64_t)p->size);
}
