/* topo.c - reading the topology from hwloc, and looking its parts up */
#define _GNU_SOURCE
#include "topo.h"

#include <errno.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif
#include <hwloc.h>
#include <numa.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "cgroup.h"
#include "mem_caps.h"
#include "params.h"
#include "topo_source.h"

static int ancestor_index(hwloc_obj_t pu, hwloc_obj_type_t type)
{
	hwloc_obj_t o = hwloc_get_ancestor_obj_by_type(NULL, type, pu);

	/* the topology argument is unused by hwloc for this call */
	return o ? (int)o->logical_index : -1;
}

static char load_error[256];

const char *topo_load_error(void)
{
	return load_error[0] ? load_error : strerror(errno);
}

/* 0 for an ordinary memory node, 1 for a tier of another kind */
static int kind_rank(hwloc_obj_t nd)
{
	return nd->subtype && *nd->subtype && strcmp(nd->subtype, "DRAM");
}

/*
 * The local node of a PU: of the nodes whose locality holds it, an
 * ordinary (DRAM) one before another kind, then the narrowest locality,
 * then the first hwloc lists; -1 when none holds it.
 */
static int local_node(hwloc_topology_t hw, hwloc_obj_t pu)
{
	hwloc_obj_t nd = NULL, best = NULL;

	while ((nd = hwloc_get_next_obj_by_type(hw, HWLOC_OBJ_NUMANODE, nd))) {
		if (!nd->cpuset ||
		    !hwloc_bitmap_isset(nd->cpuset, pu->os_index))
			continue;
		if (!best || kind_rank(nd) < kind_rank(best) ||
		    (kind_rank(nd) == kind_rank(best) &&
		     hwloc_bitmap_weight(nd->cpuset) <
			     hwloc_bitmap_weight(best->cpuset)))
			best = nd;
	}
	return best ? (int)best->os_index : -1;
}

static int load_nodes(struct topo *t, hwloc_topology_t hw, int thissystem)
{
	int n = hwloc_get_nbobjs_by_type(hw, HWLOC_OBJ_NUMANODE);

	if (n > TOPO_MAX_NODES) {
		const char *val, *var = topo_source_var(&val);
		snprintf(
			load_error, sizeof(load_error),
			"%s%s%s%sthe topology has %d NUMA nodes; numalab handles at most %d",
			var ? var : "", var ? "=" : "", var ? val : "",
			var ? ": " : "", n, TOPO_MAX_NODES);
		return -E2BIG;
	}
	t->nnodes = n;
	for (int i = 0; i < n; i++) {
		hwloc_obj_t o =
			hwloc_get_obj_by_type(hw, HWLOC_OBJ_NUMANODE, i);
		struct topo_node *nd = &t->node[i];
		nd->os = (int)o->os_index;
		nd->mem_total = o->attr->numanode.local_memory;
		nd->npus = 0;
		for (int p = 0; p < t->npus; p++)
			if (t->pu[p].node == nd->os)
				nd->npus++;
		nd->cpuless = nd->npus == 0;
		snprintf(nd->kind, sizeof(nd->kind), "%s",
			 o->subtype ? o->subtype : "");
		if (o->cpuset && !hwloc_bitmap_iszero(o->cpuset))
			hwloc_bitmap_list_snprintf(nd->initiators,
						   sizeof(nd->initiators),
						   o->cpuset);
		for (hwloc_obj_t c = o->parent;
		     c && c->type == HWLOC_OBJ_MEMCACHE; c = c->parent)
			if (nd->nmemcaches++ == 0)
				nd->memcache_size = c->attr->cache.size;
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
						(int)d->values[a * d->nbobjs +
							       b];
			}
		have = 1;
		for (unsigned k = 0; k < nr; k++)
			hwloc_distances_release(hw, dist[k]);
	}
	if (!have && thissystem && t->numa_available) {
		for (int a = 0; a < n; a++)
			for (int b = 0; b < n; b++)
				t->distance[a][b] = numa_distance(
					t->node[a].os, t->node[b].os);
		have = 1;
	}
	if (!have && n == 1)
		t->distance[0][0] = 10;
	return 0;
}

/* A node's MemTotal and MemFree from sysfs, in bytes; 0, or -errno. */
static int sysfs_node_mem(int os, uint64_t *total, uint64_t *free_b)
{
	char path[96], line[256];
	unsigned long long kb;
	int got = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/meminfo",
		 os);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		const char *k = strstr(line, "MemTotal:");
		if (k && sscanf(k, "MemTotal: %llu kB", &kb) == 1) {
			*total = (uint64_t)kb * 1024;
			got |= 1;
		}
		k = strstr(line, "MemFree:");
		if (k && sscanf(k, "MemFree: %llu kB", &kb) == 1) {
			*free_b = (uint64_t)kb * 1024;
			got |= 2;
		}
	}
	fclose(f);
	return got & 2 ? 0 : -ENODATA;
}

static void topo_refresh_free(struct topo *t)
{
	int thissystem =
		t->hw && hwloc_topology_is_thissystem((hwloc_topology_t)t->hw);

	for (int i = 0; i < t->nnodes; i++) {
		struct topo_node *nd = &t->node[i];
		uint64_t tot = 0, fr = 0;

		nd->mem_free = 0;
		nd->mem_free_known = 0;
		if (!thissystem)
			continue;
		if (t->numa_available) {
			long long f64 = 0;
			long long t64 = numa_node_size64(nd->os, &f64);
			if (t64 > 0) {
				tot = (uint64_t)t64;
				fr = (uint64_t)f64;
				nd->mem_free_known = 1;
			}
		}
		if (!nd->mem_free_known && !sysfs_node_mem(nd->os, &tot, &fr))
			nd->mem_free_known = 1;
		if (nd->mem_free_known) {
			nd->mem_free = fr;
			if (!nd->mem_total)
				nd->mem_total = tot;
		}
	}
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
/* A cpuset file's list ("0-3,8"), as a count; -1 if it does not parse. */
static int cpuset_list(const char *text, int32_t *out, int cap)
{
	struct errinfo err;

	return text[0] ? parse_int_list(text, 0, 1 << 20, out, cap, &err) : -1;
}

/* Fills the allowed memory nodes and where the CPUs and nodes come from. */
static void load_cpuset(struct topo *t, int thissystem)
{
	char cpus[256], cpus_from[256], mems[256], mems_from[256];
	int32_t *list = malloc(sizeof(int32_t) * PARAM_MAX_LIST);
	int32_t allowed[TOPO_MAX_NODES];
	int n, na = 0;

	snprintf(t->cpus_source, sizeof(t->cpus_source), "sched_getaffinity");
	snprintf(t->mems_source, sizeof(t->mems_source), "every node");
	if (!thissystem) {
		snprintf(t->cpus_source, sizeof(t->cpus_source),
			 "the topology file's allowed cpuset");
		snprintf(t->mems_source, sizeof(t->mems_source),
			 "the topology file's allowed nodeset");
	}
	cgroup_cpuset(cpus, cpus_from, mems, mems_from, sizeof(cpus));
	{
		/* a file keeps the cgroup it was captured in: honour it */
		hwloc_const_nodeset_t an = hwloc_topology_get_allowed_nodeset(
			(hwloc_topology_t)t->hw);
		for (int i = 0; i < t->nnodes; i++)
			t->node[i].mem_allowed =
				thissystem || !an ||
				hwloc_bitmap_isset(an, (unsigned)t->node[i].os);
	}
	if (thissystem && t->numa_available) {
		struct bitmask *bm = numa_get_mems_allowed();
		if (bm) {
			for (int i = 0; i < t->nnodes; i++)
				t->node[i].mem_allowed =
					t->node[i].os < (int)bm->size &&
					numa_bitmask_isbitset(
						bm, (unsigned)t->node[i].os);
			numa_bitmask_free(bm);
			snprintf(t->mems_source, sizeof(t->mems_source),
				 "get_mempolicy(MPOL_F_MEMS_ALLOWED)");
		}
	}
	for (int i = 0; i < t->nnodes; i++)
		if (t->node[i].mem_allowed)
			allowed[na++] = t->node[i].os;
	t->nmems_allowed = na;
	format_int_list(allowed, na, t->allowed_mems_text,
			sizeof(t->allowed_mems_text));
	if (thissystem && mems_from[0] && !strcmp(mems, t->allowed_mems_text))
		snprintf(t->mems_source, sizeof(t->mems_source), "%s",
			 mems_from);
	if (!thissystem || !list) {
		free(list);
		return;
	}
	n = cpuset_list(cpus, list, PARAM_MAX_LIST);
	if (n > 0) {
		char canon[256];
		format_int_list(list, n, canon, sizeof(canon));
		if (!strcmp(canon, t->allowed_text))
			snprintf(t->cpus_source, sizeof(t->cpus_source), "%s",
				 cpus_from);
		else
			snprintf(t->cpus_source, sizeof(t->cpus_source),
				 "sched_getaffinity, narrower than %s %s",
				 cpus_from, canon);
	}
	free(list);
}

int topo_hypervisor(void)
{
	char line[8192];
	FILE *f = fopen("/proc/cpuinfo", "r");
	int vm = -1;

	if (!f)
		return -1;
	/* the first CPU's flags speak for all: x86 "flags", arm "Features" */
	while (vm < 0 && fgets(line, sizeof(line), f)) {
		size_t n = strcspn(line, "\n");
		if (strncmp(line, "flags", 5) && strncmp(line, "Features", 8))
			continue;
		line[n] = ' ';
		line[n + 1 < sizeof(line) ? n + 1 : n] = '\0';
		vm = strstr(line, " hypervisor ") != NULL;
	}
	fclose(f);
	return vm;
}

int topo_emulator(void)
{
#if defined(__x86_64__) || defined(__i386__)
	unsigned a, b, c, d;
	char sig[13] = {0};

	__cpuid(1, a, b, c, d);
	if (!(c & (1u << 31)))
		return 0; /* no hypervisor at all */
	__cpuid(0x40000000, a, b, c, d);
	memcpy(sig, &b, 4);
	memcpy(sig + 4, &c, 4);
	memcpy(sig + 8, &d, 4);
	return !strcmp(sig, "TCGTCGTCGTCG");
#else
	return -1;
#endif
}

/* Where the topology came from, its architecture and offline PUs. */
static void describe_source(struct topo *t, hwloc_topology_t hw)
{
	hwloc_obj_t root = hwloc_get_root_obj(hw);
	const char *val, *var = topo_source_var(&val);
	const char *arch = hwloc_obj_get_info_by_name(root, "Architecture");
	struct utsname u;

	if (t->thissystem)
		snprintf(t->source, sizeof(t->source), "this system");
	else if (var)
		snprintf(t->source, sizeof(t->source), "%s %s", var, val);
	else
		snprintf(t->source, sizeof(t->source), "a topology file");
	if (!arch && t->thissystem && !uname(&u))
		arch = u.machine;
	snprintf(t->arch, sizeof(t->arch), "%s", arch ? arch : "");
	if (root->complete_cpuset && root->cpuset)
		t->noffline = hwloc_bitmap_weight(root->complete_cpuset) -
			      hwloc_bitmap_weight(root->cpuset);
	if (t->noffline < 0)
		t->noffline = 0;
}

/* One PU: its indexes, its core, caches and package, its SMT rank. */
static void load_pu(struct topo *t, hwloc_topology_t hw, int i)
{
	hwloc_obj_t o = hwloc_get_obj_by_type(hw, HWLOC_OBJ_PU, i);
	struct topo_pu *p = &t->pu[i];
	hwloc_obj_t core =
		hwloc_get_ancestor_obj_by_type(hw, HWLOC_OBJ_CORE, o);

	p->os = (int)o->os_index;
	p->logical = i;
	p->core = core ? (int)core->logical_index : i;
	p->package = ancestor_index(o, HWLOC_OBJ_PACKAGE);
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
	p->node = local_node(hw, o);
}

/*
 * Every PU, and which this process may use: its affinity mask on this
 * system, the file's allowed cpuset for a topology file. -ENOMEM or 0.
 */
static int load_pus(struct topo *t, hwloc_topology_t hw, int thissystem)
{
	hwloc_const_cpuset_t file_allowed =
		thissystem ? NULL : hwloc_topology_get_allowed_cpuset(hw);
	int32_t allowed[PARAM_MAX_LIST];
	int nallowed = 0;
	cpu_set_t mask;

	CPU_ZERO(&mask);
	if (thissystem && sched_getaffinity(0, sizeof(mask), &mask))
		CPU_ZERO(&mask);
	t->npus = hwloc_get_nbobjs_by_type(hw, HWLOC_OBJ_PU);
	t->pu = calloc((size_t)t->npus + 1, sizeof(*t->pu));
	if (!t->pu)
		return -ENOMEM;
	for (int i = 0; i < t->npus; i++) {
		struct topo_pu *p = &t->pu[i];
		load_pu(t, hw, i);
		p->allowed = thissystem ? (p->os < CPU_SETSIZE &&
					   CPU_ISSET(p->os, &mask))
					: (!file_allowed ||
					   hwloc_bitmap_isset(file_allowed,
							      (unsigned)p->os));
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
	return 0;
}

static int load_here;

struct topo *topo_load_here(void)
{
	struct topo *t;

	load_here = 1;
	t = topo_load();
	load_here = 0;
	return t;
}

struct topo *topo_load(void)
{
	struct topo *t = calloc(1, sizeof(*t));
	hwloc_topology_t hw;
	int thissystem, rc;

	load_error[0] = '\0';
	if (!t)
		return NULL;
	hw = topo_source_load(load_error, sizeof(load_error), load_here);
	if (!hw) {
		int e = errno;
		free(t);
		errno = e;
		return NULL;
	}
	t->hw = hw;
	thissystem = hwloc_topology_is_thissystem(hw);
	t->thissystem = thissystem;
	describe_source(t, hw);
	t->numa_available = thissystem && numa_available() >= 0;
	t->vm = thissystem ? topo_hypervisor() : -1;
	t->emulator = thissystem ? topo_emulator() : -1;
	t->mem_caps = thissystem ? mem_caps() : NULL;
	t->line_size = 64;
	rc = load_pus(t, hw, thissystem);
	if (!rc && load_nodes(t, hw, thissystem))
		rc = -E2BIG;
	if (rc) {
		topo_free(t);
		errno = -rc;
		return NULL;
	}
	t->ncores = hwloc_get_nbobjs_by_type(hw, HWLOC_OBJ_CORE);
	t->npackages = hwloc_get_nbobjs_by_type(hw, HWLOC_OBJ_PACKAGE);
	topo_refresh_free(t);
	load_cpuset(t, thissystem);
	load_caches(t, hw);
	hwloc_obj_t pkg = hwloc_get_obj_by_type(hw, HWLOC_OBJ_PACKAGE, 0);
	const char *model =
		pkg ? hwloc_obj_get_info_by_name(pkg, "CPUModel") : NULL;
	snprintf(t->cpu_model, sizeof(t->cpu_model), "%s",
		 model ? model : "unknown");
	/* /proc/cpuinfo pads some models with spaces: not the model's */
	for (size_t n = strlen(t->cpu_model);
	     n && (t->cpu_model[n - 1] == ' ' || t->cpu_model[n - 1] == '\t');)
		t->cpu_model[--n] = '\0';
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

int topo_node_mem_allowed(const struct topo *t, int os)
{
	int k = topo_node_index(t, os);

	return k >= 0 && t->node[k].mem_allowed;
}

int topo_node_index(const struct topo *t, int os)
{
	for (int i = 0; i < t->nnodes; i++)
		if (t->node[i].os == os)
			return i;
	return -1;
}

int topo_node_has_memory(const struct topo *t, int os)
{
	int k = topo_node_index(t, os);

	return k >= 0 && (t->node[k].mem_total > 0 || t->nnodes == 1);
}

int topo_matrix_nodes(const struct topo *t, const int32_t *given, int n,
		      int32_t *out)
{
	int k = 0;

	for (int i = 0; i < n && k < TOPO_MAX_NODES; i++)
		out[k++] = given[i];
	for (int i = 0; !n && t && i < t->nnodes; i++)
		out[k++] = t->node[i].os;
	return k;
}
