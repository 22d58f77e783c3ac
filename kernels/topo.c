/* topo.c - reading the topology from hwloc, and looking its parts up */
#define _GNU_SOURCE
#include "topo.h"

#include <errno.h>
#include <hwloc.h>
#include <numa.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "params.h"

static int ancestor_index(hwloc_obj_t pu, hwloc_obj_type_t type)
{
	hwloc_obj_t o = hwloc_get_ancestor_obj_by_type(NULL, type, pu);

	/* the topology argument is unused by hwloc for this call */
	return o ? (int)o->logical_index : -1;
}

static void load_nodes(struct topo *t, hwloc_topology_t hw, int thissystem)
{
	int n = hwloc_get_nbobjs_by_type(hw, HWLOC_OBJ_NUMANODE);

	if (n > TOPO_MAX_NODES)
		n = TOPO_MAX_NODES;
	t->nnodes = n;
	for (int i = 0; i < n; i++) {
		hwloc_obj_t o = hwloc_get_obj_by_type(hw, HWLOC_OBJ_NUMANODE, i);
		struct topo_node *nd = &t->node[i];
		nd->os = (int)o->os_index;
		nd->mem_total = o->attr->numanode.local_memory;
		nd->mem_free = 0;
		if (thissystem && t->numa_available) {
			long long fr = 0;
			long long tot = numa_node_size64(nd->os, &fr);
			if (tot > 0) {
				nd->mem_free = (uint64_t)fr;
				if (!nd->mem_total)
					nd->mem_total = (uint64_t)tot;
			}
		}
		nd->npus = 0;
		for (int p = 0; p < t->npus; p++)
			if (t->pu[p].node == nd->os)
				nd->npus++;
	}

	struct hwloc_distances_s *dist[4];
	unsigned nr = 4;
	int have = 0;
	if (!hwloc_distances_get_by_type(hw, HWLOC_OBJ_NUMANODE, &nr, dist, 0,
					 0) &&
	    nr > 0) {
		struct hwloc_distances_s *d = dist[0];
		for (unsigned a = 0; a < d->nbobjs; a++)
			for (unsigned b = 0; b < d->nbobjs; b++) {
				int ia = (int)d->objs[a]->logical_index;
				int ib = (int)d->objs[b]->logical_index;
				if (ia < n && ib < n)
					t->distance[ia][ib] =
						(int)d->values[a * d->nbobjs + b];
			}
		have = 1;
		for (unsigned k = 0; k < nr; k++)
			hwloc_distances_release(hw, dist[k]);
	}
	if (!have && thissystem && t->numa_available) {
		for (int a = 0; a < n; a++)
			for (int b = 0; b < n; b++)
				t->distance[a][b] =
					numa_distance(t->node[a].os, t->node[b].os);
		have = 1;
	}
	if (!have && n == 1)
		t->distance[0][0] = 10;
}

static void load_caches(struct topo *t, hwloc_topology_t hw)
{
	static const hwloc_obj_type_t types[] = {
		HWLOC_OBJ_L1CACHE, HWLOC_OBJ_L2CACHE, HWLOC_OBJ_L3CACHE,
		HWLOC_OBJ_L4CACHE};
	int total = 0;

	for (size_t k = 0; k < sizeof(types) / sizeof(types[0]); k++)
		total += hwloc_get_nbobjs_by_type(hw, types[k]);
	t->cache = calloc((size_t)total + 1, sizeof(*t->cache));
	if (!t->cache)
		return;
	for (size_t k = 0; k < sizeof(types) / sizeof(types[0]); k++) {
		int n = hwloc_get_nbobjs_by_type(hw, types[k]);
		for (int i = 0; i < n; i++) {
			hwloc_obj_t o = hwloc_get_obj_by_type(hw, types[k], i);
			struct topo_cache *c = &t->cache[t->ncaches++];
			c->level = (int)o->attr->cache.depth;
			c->logical = (int)o->logical_index;
			c->size = o->attr->cache.size;
			c->line_size = (int)o->attr->cache.linesize;
			c->npus = hwloc_bitmap_weight(o->cpuset);
			if (c->level == 1 && c->line_size > 0)
				t->line_size = c->line_size;
		}
	}
}

struct topo *topo_load(void)
{
	hwloc_topology_t hw;
	struct topo *t = calloc(1, sizeof(*t));
	cpu_set_t mask;
	int thissystem;

	if (!t)
		return NULL;
	if (hwloc_topology_init(&hw) || hwloc_topology_load(hw)) {
		free(t);
		errno = EIO;
		return NULL;
	}
	t->hw = hw;
	thissystem = hwloc_topology_is_thissystem(hw);
	t->numa_available = thissystem && numa_available() >= 0;
	t->line_size = 64;
	CPU_ZERO(&mask);
	if (thissystem && sched_getaffinity(0, sizeof(mask), &mask))
		CPU_ZERO(&mask);

	t->npus = hwloc_get_nbobjs_by_type(hw, HWLOC_OBJ_PU);
	t->pu = calloc((size_t)t->npus + 1, sizeof(*t->pu));
	if (!t->pu) {
		topo_free(t);
		errno = ENOMEM;
		return NULL;
	}
	int32_t allowed[PARAM_MAX_LIST];
	int nallowed = 0;
	for (int i = 0; i < t->npus; i++) {
		hwloc_obj_t o = hwloc_get_obj_by_type(hw, HWLOC_OBJ_PU, i);
		struct topo_pu *p = &t->pu[i];
		hwloc_obj_t core =
			hwloc_get_ancestor_obj_by_type(hw, HWLOC_OBJ_CORE, o);
		p->os = (int)o->os_index;
		p->logical = i;
		p->core = core ? (int)core->logical_index : i;
		p->package = ancestor_index(o, HWLOC_OBJ_PACKAGE);
		if (p->package < 0)
			p->package = 0;
		p->l1 = ancestor_index(o, HWLOC_OBJ_L1CACHE);
		p->l2 = ancestor_index(o, HWLOC_OBJ_L2CACHE);
		p->l3 = ancestor_index(o, HWLOC_OBJ_L3CACHE);
		p->smt_rank = 0;
		if (core)
			for (hwloc_obj_t s = o->prev_cousin;
			     s && hwloc_bitmap_isset(core->cpuset, s->os_index);
			     s = s->prev_cousin)
				p->smt_rank++;
		if (p->smt_rank > 0)
			t->smt = 1;
		p->node = 0;
		hwloc_obj_t nd = NULL;
		while ((nd = hwloc_get_next_obj_by_type(hw, HWLOC_OBJ_NUMANODE,
							nd)))
			if (hwloc_bitmap_isset(nd->cpuset, o->os_index)) {
				p->node = (int)nd->os_index;
				break;
			}
		p->allowed = thissystem ? (p->os < CPU_SETSIZE &&
					   CPU_ISSET(p->os, &mask))
					: 1;
		if (p->allowed) {
			t->nallowed++;
			if (nallowed < PARAM_MAX_LIST)
				allowed[nallowed++] = p->os;
		}
	}
	/* allowed_text lists OS indexes in numeric order */
	for (int i = 1; i < nallowed; i++)
		for (int j = i; j > 0 && allowed[j] < allowed[j - 1]; j--) {
			int32_t x = allowed[j];
			allowed[j] = allowed[j - 1];
			allowed[j - 1] = x;
		}
	format_int_list(allowed, nallowed, t->allowed_text,
			sizeof(t->allowed_text));
	t->ncores = hwloc_get_nbobjs_by_type(hw, HWLOC_OBJ_CORE);
	t->npackages = hwloc_get_nbobjs_by_type(hw, HWLOC_OBJ_PACKAGE);
	if (t->npackages < 1)
		t->npackages = 1;
	load_nodes(t, hw, thissystem);
	load_caches(t, hw);
	hwloc_obj_t pkg = hwloc_get_obj_by_type(hw, HWLOC_OBJ_PACKAGE, 0);
	const char *model = pkg ? hwloc_obj_get_info_by_name(pkg, "CPUModel")
				: NULL;
	snprintf(t->cpu_model, sizeof(t->cpu_model), "%s",
		 model ? model : "unknown");
	return t;
}

void topo_free(struct topo *t)
{
	if (!t)
		return;
	if (t->hw)
		hwloc_topology_destroy((hwloc_topology_t)t->hw);
	free(t->pu);
	free(t->cache);
	free(t);
}

const struct topo_pu *topo_pu_by_os(const struct topo *t, int os)
{
	for (int i = 0; i < t->npus; i++)
		if (t->pu[i].os == os)
			return &t->pu[i];
	return NULL;
}

int topo_node_index(const struct topo *t, int os)
{
	for (int i = 0; i < t->nnodes; i++)
		if (t->node[i].os == os)
			return i;
	return -1;
}
