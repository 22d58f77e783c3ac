/* topo.c - reading the topology from hwloc, and planning where threads run */
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

int place_strategy_parse(const char *s)
{
	if (!strcmp(s, "compact"))
		return PLACE_COMPACT;
	if (!strcmp(s, "spread"))
		return PLACE_SPREAD;
	if (!strcmp(s, "os"))
		return PLACE_OS;
	return -1;
}

/* The grouping key of a PU at each level of the spread order. */
static int level_key(const struct topo_pu *p, int level)
{
	switch (level) {
	case 0:
		return p->node;
	case 1:
		return p->package;
	case 2:
		return p->l3;
	case 3:
		return p->l2;
	case 4:
		return p->core;
	default:
		return p->logical;
	}
}

/*
 * Orders pus[0..n) so that consecutive entries are as far apart as
 * possible: group by the key of this level, order each group the same
 * way one level down, then take one from each group in turn.
 */
static void spread_order(const struct topo_pu **pus, int n, int level)
{
	const struct topo_pu **tmp, **grp;
	int *start, *len, ng = 0;

	if (n <= 1 || level > 5)
		return;
	tmp = malloc(sizeof(*tmp) * (size_t)n);
	grp = malloc(sizeof(*grp) * (size_t)n);
	start = malloc(sizeof(int) * (size_t)n);
	len = malloc(sizeof(int) * (size_t)n);
	if (!tmp || !grp || !start || !len)
		goto out;
	/* stable grouping in order of first appearance */
	int placed = 0;
	for (int i = 0; i < n; i++) {
		int k = level_key(pus[i], level), seen = 0;
		for (int j = 0; j < i; j++)
			if (level_key(pus[j], level) == k) {
				seen = 1;
				break;
			}
		if (seen)
			continue;
		start[ng] = placed;
		len[ng] = 0;
		for (int j = i; j < n; j++)
			if (level_key(pus[j], level) == k) {
				grp[placed++] = pus[j];
				len[ng]++;
			}
		ng++;
	}
	for (int g = 0; g < ng; g++)
		spread_order(grp + start[g], len[g], level + 1);
	int out_n = 0;
	for (int round = 0; out_n < n; round++)
		for (int g = 0; g < ng; g++)
			if (round < len[g])
				tmp[out_n++] = grp[start[g] + round];
	memcpy(pus, tmp, sizeof(*tmp) * (size_t)n);
out:
	free(tmp);
	free(grp);
	free(start);
	free(len);
}

int topo_plan(const struct topo *t, enum place_strategy s, const int32_t *cpus,
	      int ncpus, int nthreads, int *out, char *msg, size_t msglen)
{
	const struct topo_pu **pus;
	int n = 0;

	if (nthreads < 1) {
		snprintf(msg, msglen, "need at least one thread");
		return -EINVAL;
	}
	if (ncpus > 0) {
		for (int i = 0; i < ncpus; i++) {
			const struct topo_pu *p = topo_pu_by_os(t, cpus[i]);
			if (!p || !p->allowed) {
				snprintf(msg, msglen,
					 "cpu %d is not available to this process (allowed: %s)",
					 cpus[i], t->allowed_text);
				return -EINVAL;
			}
		}
		if (ncpus < nthreads) {
			snprintf(msg, msglen,
				 "%d threads need %d cpus, but cpus lists %d",
				 nthreads, nthreads, ncpus);
			return -EINVAL;
		}
		/* the listed order, as given (sorted by the parser) */
		for (int i = 0; i < nthreads; i++)
			out[i] = cpus[i];
		return 0;
	}
	if (nthreads > t->nallowed) {
		snprintf(msg, msglen,
			 "%d threads, but only %d cpus are available to this process (allowed: %s)",
			 nthreads, t->nallowed, t->allowed_text);
		return -EINVAL;
	}
	if (s == PLACE_OS) {
		for (int i = 0; i < nthreads; i++)
			out[i] = -1;
		return 0;
	}
	pus = malloc(sizeof(*pus) * (size_t)t->npus);
	if (!pus) {
		snprintf(msg, msglen, "out of memory");
		return -ENOMEM;
	}
	for (int i = 0; i < t->npus; i++)
		if (t->pu[i].allowed)
			pus[n++] = &t->pu[i];
	if (s == PLACE_SPREAD)
		spread_order(pus, n, 0);
	for (int i = 0; i < nthreads; i++)
		out[i] = pus[i]->os;
	free(pus);
	return 0;
}

int topo_pu_cache(const struct topo_pu *p, int level)
{
	switch (level) {
	case 1:
		return p->l1;
	case 2:
		return p->l2;
	case 3:
		return p->l3;
	default:
		return -1;
	}
}

const struct topo_cache *topo_cache_find(const struct topo *t, int level,
					 int logical)
{
	for (int i = 0; i < t->ncaches; i++)
		if (t->cache[i].level == level && t->cache[i].logical == logical)
			return &t->cache[i];
	return NULL;
}

/*
 * The allowed PUs under level-`level` caches, grouped by instance in
 * order of first appearance; inside a group the first PU of every core
 * comes before any SMT sibling. The arrays are sized t->npus.
 */
struct cache_groups {
	int n;
	int *start, *len;
	const struct topo_pu **pu;
};

static void cache_groups_free(struct cache_groups *g)
{
	free(g->start);
	free(g->len);
	free(g->pu);
}

static int cache_groups_load(const struct topo *t, int level,
			     struct cache_groups *g)
{
	int *key = NULL, placed = 0, max_rank = 0;

	memset(g, 0, sizeof(*g));
	g->start = calloc((size_t)t->npus + 1, sizeof(int));
	g->len = calloc((size_t)t->npus + 1, sizeof(int));
	g->pu = calloc((size_t)t->npus + 1, sizeof(*g->pu));
	key = calloc((size_t)t->npus + 1, sizeof(int));
	if (!g->start || !g->len || !g->pu || !key) {
		free(key);
		cache_groups_free(g);
		return -ENOMEM;
	}
	for (int i = 0; i < t->npus; i++) {
		const struct topo_pu *p = &t->pu[i];
		int k = topo_pu_cache(p, level), seen = 0;
		if (!p->allowed || k < 0)
			continue;
		if (p->smt_rank > max_rank)
			max_rank = p->smt_rank;
		for (int j = 0; j < g->n && !seen; j++)
			seen = key[j] == k;
		if (!seen)
			key[g->n++] = k;
	}
	for (int j = 0; j < g->n; j++) {
		g->start[j] = placed;
		for (int r = 0; r <= max_rank; r++)
			for (int i = 0; i < t->npus; i++) {
				const struct topo_pu *p = &t->pu[i];
				if (p->allowed && p->smt_rank == r &&
				    topo_pu_cache(p, level) == key[j]) {
					g->pu[placed++] = p;
					g->len[j]++;
				}
			}
	}
	free(key);
	return 0;
}

int topo_pair_level(const struct topo *t)
{
	for (int level = 3; level >= 1; level--) {
		struct cache_groups g;
		int widest = 0, n;

		if (cache_groups_load(t, level, &g))
			return 0;
		for (int j = 0; j < g.n; j++)
			if (g.len[j] > widest)
				widest = g.len[j];
		n = g.n;
		cache_groups_free(&g);
		if (n >= 2 && widest >= 2)
			return level;
	}
	return 0;
}

/* The first group from `from` on (wrapping) with `need` PUs free, not `avoid`. */
static int next_group(const struct cache_groups *g, const int *used, int from,
		      int need, int avoid)
{
	for (int d = 0; d < g->n; d++) {
		int j = (from + d) % g->n;
		if (j != avoid && g->len[j] - used[j] >= need)
			return j;
	}
	return -1;
}

int topo_plan_pairs(const struct topo *t, int level, enum pair_mode mode,
		    int npairs, int *out, char *msg, size_t msglen)
{
	struct cache_groups g;
	int *used, rc = 0;

	if (npairs < 1) {
		snprintf(msg, msglen, "need at least one pair");
		return -EINVAL;
	}
	if (level < 1 || level > 3) {
		snprintf(msg, msglen, "no cache level %d to place pairs around",
			 level);
		return -EINVAL;
	}
	if (cache_groups_load(t, level, &g)) {
		snprintf(msg, msglen, "out of memory");
		return -ENOMEM;
	}
	used = calloc((size_t)g.n + 1, sizeof(int));
	if (!used) {
		snprintf(msg, msglen, "out of memory");
		rc = -ENOMEM;
		goto out;
	}
	if (g.n == 0) {
		snprintf(msg, msglen, "no allowed cpu is under an L%d cache",
			 level);
		rc = -EINVAL;
		goto out;
	}
	if (mode == PAIR_SPLIT && g.n < 2) {
		snprintf(msg, msglen,
			 "splitting a pair needs two L%d caches, but every allowed cpu (%s) is under one",
			 level, t->allowed_text);
		rc = -EINVAL;
		goto out;
	}
	for (int k = 0; k < npairs; k++) {
		int a, b;

		if (mode == PAIR_SHARED) {
			a = b = next_group(&g, used, k % g.n, 2, -1);
		} else {
			a = next_group(&g, used, k % g.n, 1, -1);
			b = a < 0 ? -1 : next_group(&g, used, a + 1, 1, a);
		}
		if (a < 0 || b < 0) {
			snprintf(msg, msglen,
				 "%d pair(s) %s do not fit: the %d allowed cpu(s) (%s) hold only %d",
				 npairs,
				 mode == PAIR_SHARED ? "each under one cache"
						     : "split across caches",
				 t->nallowed, t->allowed_text, k);
			rc = -EINVAL;
			goto out;
		}
		out[2 * k] = g.pu[g.start[a] + used[a]++]->os;
		out[2 * k + 1] = g.pu[g.start[b] + used[b]++]->os;
	}
out:
	free(used);
	cache_groups_free(&g);
	return rc;
}
