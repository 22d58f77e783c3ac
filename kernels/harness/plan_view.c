/* plan_view.c - what a run would do on a topology, in lines, before it runs */
#include "plan_view.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errinfo.h"
#include "params.h"

/* "0-1,4" of the nodes for which keep() holds; returns how many */
static int node_list(const struct topo *t,
		     int (*keep)(const struct topo *, int), char *buf,
		     size_t len)
{
	int32_t v[TOPO_MAX_NODES];
	int n = 0;

	for (int i = 0; i < t->nnodes; i++)
		if (keep(t, i))
			v[n++] = t->node[i].os;
	/* in numeric order: hwloc lists a package's DRAM then its HBM */
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && v[j] < v[j - 1]; j--) {
			int32_t x = v[j];
			v[j] = v[j - 1];
			v[j - 1] = x;
		}
	if (n)
		format_int_list(v, n, buf, len);
	else
		snprintf(buf, len, "none");
	return n;
}

static int runs_threads(const struct topo *t, int i)
{
	return topo_node_ncpus(t, t->node[i].os) > 0;
}

static int takes_memory(const struct topo *t, int i)
{
	return topo_node_has_memory(t, t->node[i].os) && t->node[i].mem_allowed;
}

static int memory_only(const struct topo *t, int i)
{
	return t->node[i].cpuless;
}

/*
 * The machine's part of every plan, a line each: the nodes threads may
 * run on (those with allowed cpus), the nodes memory may be bound to
 * (those with memory, allowed), and the memory-only nodes, which get
 * memory and never a thread. Pure.
 */
static void plan_view_machine(const struct topo *t, struct strbuf *out)
{
	char a[256], b[256], c[256];
	int outside = 0;

	int na = node_list(t, runs_threads, a, sizeof(a));
	int nb = node_list(t, takes_memory, b, sizeof(b));
	int nc = node_list(t, memory_only, c, sizeof(c));

	strbuf_addf(out, "threads may run on node%s %s (cpus %s)\n",
		    na == 1 ? "" : "s", a, t->allowed_text);
	strbuf_addf(out, "memory may be bound to node%s %s\n",
		    nb == 1 ? "" : "s", b);
	if (nc)
		strbuf_addf(out, "memory only (never a thread): node%s %s\n",
			    nc == 1 ? "" : "s", c);
	for (int i = 0; i < t->npus; i++)
		outside += t->pu[i].node < 0 && t->pu[i].allowed;
	if (outside)
		strbuf_addf(
			out,
			"%d allowed cpu%s in no NUMA node: a plan by node never uses %s\n",
			outside, outside == 1 ? "" : "s",
			outside == 1 ? "it" : "them");
}

static int cpus_no_memory(const struct topo *t, int i)
{
	return runs_threads(t, i) && !topo_node_has_memory(t, t->node[i].os);
}

void plan_view_first_touch(const struct topo *t, const char *how,
			   struct strbuf *out)
{
	char list[256];
	int n = node_list(t, cpus_no_memory, list, sizeof(list));

	strbuf_addf(out,
		    "memory: not bound: %s, and a page goes to the node of the "
		    "cpu that touches it first",
		    how);
	if (n)
		strbuf_addf(out,
			    " (node%s %s %s no memory: a first touch there "
			    "takes the nearest node with memory)",
			    n == 1 ? "" : "s", list, n == 1 ? "has" : "have");
	strbuf_addch(out, '\n');
}

/* " on nodes 0-1 (2 in no NUMA node)": the nodes of the n cpus (-1: any). */
static void cpus_where(const struct topo *t, const int *cpus, int n,
		       struct strbuf *out)
{
	int32_t nodes[TOPO_MAX_NODES];
	int nn = 0, nowhere = 0;
	char list[128];

	for (int i = 0; i < n; i++) {
		int node = cpus[i] >= 0 ? topo_cpu_node(t, cpus[i]) : -1;
		int seen = 0;
		if (cpus[i] < 0)
			continue;
		nowhere += node < 0;
		for (int k = 0; k < nn; k++)
			seen |= nodes[k] == node;
		if (!seen && node >= 0 && nn < TOPO_MAX_NODES)
			nodes[nn++] = node;
	}
	if (nn) {
		format_int_list(nodes, nn, list, sizeof(list));
		strbuf_addf(out, " on node%s %s", nn == 1 ? "" : "s", list);
	}
	if (nowhere)
		strbuf_addf(out, " (%d in no NUMA node)", nowhere);
}

void plan_view_cpus(const struct topo *t, const char *what, const int *cpus,
		    int n, struct strbuf *out)
{
	strbuf_addf(out, "%s: cpu%s", what, n == 1 ? "" : "s");
	for (int i = 0; i < n; i++)
		if (cpus[i] < 0)
			strbuf_addstr(out, " (any)");
		else
			strbuf_addf(out, " %d", cpus[i]);
	cpus_where(t, cpus, n, out);
	strbuf_addch(out, '\n');
}

void plan_view_cpu_set(const struct topo *t, const char *what, const int *cpus,
		       int n, struct strbuf *out)
{
	int32_t *v = calloc((size_t)n + 1, sizeof(*v));
	char list[4096];

	for (int i = 0; v && i < n; i++)
		v[i] = cpus[i];
	if (!v || format_int_list(v, n, list, sizeof(list))) {
		free(v);
		plan_view_cpus(t, what, cpus, n, out);
		return;
	}
	free(v);
	strbuf_addf(out, "%s: cpu%s %s", what, n == 1 ? "" : "s", list);
	cpus_where(t, cpus, n, out);
	strbuf_addch(out, '\n');
}

static int sweep_plan(const struct topo *t, const struct plan_sweep *p, int n,
		      int *cpus, struct errinfo *err)
{
	if (p->by_node)
		return topo_plan_nodes(t, p->s, p->nodes, p->nnodes, n, cpus,
				       err);
	return topo_plan(t, p->s, p->cpus, p->ncpus, n, cpus, err);
}

/*
 * The largest of the n counts that can be placed, its plan in ref;
 * 0 when none can.
 */
static int sweep_reference(const struct topo *t, const struct plan_sweep *p,
			   const int32_t *counts, int n, int *ref)
{
	struct errinfo err;
	int best = 0;

	for (int i = 0; i < n; i++)
		if (counts[i] > best && !sweep_plan(t, p, counts[i], ref, &err))
			best = counts[i];
	if (best)
		sweep_plan(t, p, best, ref, &err);
	return best;
}

void plan_view_sweep(const struct topo *t, const struct plan_sweep *p,
		     const int32_t *counts, int n, struct strbuf *out)
{
	struct strbuf rest = STRBUF_INIT;
	int32_t fit[PARAM_MAX_LIST];
	int most = 0, nfit = 0, widest = 0, *ref, *one;
	char list[256] = "", what[320];
	struct errinfo err;

	for (int i = 0; i < n; i++)
		most = counts[i] > most ? counts[i] : most;
	ref = calloc((size_t)most + 1, sizeof(int));
	one = calloc((size_t)most + 1, sizeof(int));
	if (!ref || !one)
		goto out;
	int top = sweep_reference(t, p, counts, n, ref);
	for (int i = 0; i < n; i++) {
		int k = counts[i];
		snprintf(what, sizeof(what), "%sthreads=%d", p->what, k);
		if (sweep_plan(t, p, k, one, &err))
			strbuf_addf(&rest, "%s: not placed: %s\n", what,
				    err.msg);
		else if (k <= top &&
			 !memcmp(one, ref, (size_t)k * sizeof(int)) &&
			 nfit < PARAM_MAX_LIST) {
			fit[nfit++] = k;
			widest = k > widest ? k : widest;
		} else
			plan_view_cpus(t, what, one, k, &rest);
	}
	if (nfit)
		format_int_list(fit, nfit, list, sizeof(list));
	if (nfit && ref[0] < 0)
		strbuf_addf(
			out,
			"%sthreads=%s: not pinned (placement=os): where the "
			"kernel puts them, on cpus %s\n",
			p->what, list, t->allowed_text);
	else if (nfit) {
		snprintf(what, sizeof(what), "%sthreads=%s%s", p->what, list,
			 nfit > 1 ? ", each on the first of" : "");
		plan_view_cpus(t, what, ref, widest, out);
	}
	strbuf_addstr(out, strbuf_str(&rest));
out:
	strbuf_release(&rest);
	free(ref);
	free(one);
}

/* The nodes of the plan that hold no row of cells (rows 1) or no column
 * (rows 0), and why: "; node 1 runs no thread (memory only)". */
static void cells_left_out(const struct topo *t, const struct cell_plan *plan,
			   int rows, struct strbuf *out)
{
	for (int r = 0; r < plan->nnodes; r++) {
		int os = plan->node[r], k = topo_node_index(t, os), any = 0;
		const char *why;

		for (int c = 0; c < plan->ncells; c++)
			any |= (rows ? plan->cell[c].row : plan->cell[c].col) ==
			       r;
		if (any || k < 0)
			continue;
		if (rows)
			why = t->node[k].cpuless
				      ? "runs no thread (memory only)"
			      : runs_threads(t, k)
				      ? NULL
				      : "runs no thread (no cpu of it allowed)";
		else
			why = !topo_node_has_memory(t, os)
				      ? "takes no memory (it has none)"
			      : !t->node[k].mem_allowed
				      ? "takes no memory (not allowed)"
				      : NULL;
		if (why)
			strbuf_addf(out, "; node %d %s", os, why);
	}
}

void plan_view_cells(const struct topo *t, const int32_t *nodes, int n,
		     enum cells_mode mode, struct strbuf *out)
{
	struct cell_plan plan;
	struct errinfo err = {0};
	int list[TOPO_MAX_NODES];

	for (int i = 0; i < n && i < TOPO_MAX_NODES; i++)
		list[i] = nodes[i];
	if (cell_plan_make(t, list, n, mode, 0, &plan, &err)) {
		strbuf_addf(out, "cells: no plan: %s\n",
			    err.msg[0] ? err.msg : "out of memory");
		return;
	}
	strbuf_addf(out,
		    "cells (%s):", mode == CELLS_FULL ? "full" : "by_distance");
	if (!plan.ncells)
		strbuf_addstr(out, " none");
	for (int r = 0, rows = 0; r < plan.nnodes; r++) {
		int any = 0;
		for (int c = 0; c < plan.ncells; c++) {
			const struct node_cell *cl = &plan.cell[c];
			if (cl->row != r)
				continue;
			if (!any++)
				strbuf_addf(out, "%s threads on %d, memory on",
					    rows++ ? ";" : "", plan.node[r]);
			strbuf_addf(out, " %d", cl->mem_node);
		}
	}
	cells_left_out(t, &plan, 1, out);
	cells_left_out(t, &plan, 0, out);
	strbuf_addch(out, '\n');
	cell_plan_free(&plan);
}

void experiment_plan_view(const struct experiment *e, const void *params,
			  const struct common_params *common,
			  const struct topo *t, struct strbuf *out)
{
	plan_view_machine(t, out);
	if (e->plan)
		e->plan(params, common, t, out);
}
