/* topo_here.c - whether a run can go ahead under a topology that is not this machine's */
#define _GNU_SOURCE
#include "topo_here.h"

#include <errno.h>
#include <numa.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "numtext.h"
#include "strbuf.h"
#include "topo_source.h"

static int by_value(const void *a, const void *b)
{
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;

	return (x > y) - (x < y);
}

/* n numbers in ascending order, as ranges: "2-3,16-17" */
static int sorted_list(int32_t *v, int n, char *buf, size_t len)
{
	qsort(v, (size_t)n, sizeof(*v), by_value);
	return format_int_list(v, n, buf, len);
}

/* Whether node os is one this process may bind memory to here: without
 * libnuma's NUMA, only node 0 holds memory. */
static int node_here(const struct bitmask *mems, int os)
{
	if (!mems)
		return os == 0;
	return os >= 0 && os < (int)mems->size &&
	       numa_bitmask_isbitset(mems, (unsigned)os);
}

/* The cpus (nodes) of the file this process lacks here, as a list into
 * buf; returns how many. */
static int cpus_missing(const struct topo *t, const cpu_set_t *here, char *buf,
			size_t len)
{
	int32_t *v = calloc((size_t)t->npus + 1, sizeof(*v));
	int n = 0;

	for (int i = 0; v && i < t->npus; i++)
		if (t->pu[i].allowed && (t->pu[i].os >= CPU_SETSIZE ||
					 !CPU_ISSET(t->pu[i].os, here)))
			v[n++] = t->pu[i].os;
	if (n && sorted_list(v, n, buf, len))
		snprintf(buf, len, "%d of them", n);
	free(v);
	return n;
}

static int nodes_missing(const struct topo *t, const struct bitmask *mems,
			 char *buf, size_t len)
{
	int32_t v[TOPO_MAX_NODES];
	int n = 0;

	for (int i = 0; i < t->nnodes; i++)
		if (topo_node_has_memory(t, t->node[i].os) &&
		    (t->nmems_allowed == 0 || t->node[i].mem_allowed) &&
		    !node_here(mems, t->node[i].os))
			v[n++] = t->node[i].os;
	if (n)
		sorted_list(v, n, buf, len);
	return n;
}

int topo_run_here(const struct topo *t, struct errinfo *err)
{
	char cpus[256] = "", nodes[256] = "", mine[256] = "?";
	const char *value = "", *var;
	struct bitmask *mems = NULL;
	int32_t own[CPU_SETSIZE];
	struct strbuf why = STRBUF_INIT;
	cpu_set_t here;
	int nc, nn, k = 0;

	if (t->thissystem)
		return 0;
	CPU_ZERO(&here);
	if (sched_getaffinity(0, sizeof(here), &here))
		CPU_ZERO(&here);
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &here))
			own[k++] = c;
	if (k)
		format_int_list(own, k, mine, sizeof(mine));
	if (numa_available() >= 0)
		mems = numa_get_mems_allowed();
	nc = cpus_missing(t, &here, cpus, sizeof(cpus));
	nn = nodes_missing(t, mems, nodes, sizeof(nodes));
	if (mems)
		numa_bitmask_free(mems);
	if (!nc && !nn)
		return 0;
	var = topo_source_var(&value);
	if (nc)
		strbuf_addf(
			&why,
			"its cpu%s %s %s not one%s this process may use here (it may use %s)",
			nc == 1 ? "" : "s", cpus, nc == 1 ? "is" : "are",
			nc == 1 ? "" : "s", mine);
	if (nn)
		strbuf_addf(
			&why,
			"%sits node%s %s %s not one%s this process may bind memory to here",
			nc ? "; " : "", nn == 1 ? "" : "s", nodes,
			nn == 1 ? "is" : "are", nn == 1 ? "" : "s");
	errinfo_set(
		err, "topology",
		"a run measures this machine, and %s%s%s only describes one: %s. `numalab estimate` shows the plan on the file; run without %s to measure this machine",
		var ? var : "the topology", var ? "=" : "", var ? value : "",
		strbuf_str(&why), var ? var : "it");
	strbuf_release(&why);
	return -EINVAL;
}
