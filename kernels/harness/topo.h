/* topo.h - the machine's topology as numalab needs it, read once from hwloc */
#ifndef NUMALAB_TOPO_H
#define NUMALAB_TOPO_H

#include <stddef.h>
#include <stdint.h>

#include "errinfo.h"

struct mem_caps;

#define TOPO_MAX_NODES 64

struct topo_pu {
	int os;	     /* OS index: what sched_getcpu and cpusets use */
	int logical; /* hwloc logical index: topological order */
	int core;
	int package; /* -1 when the machine names no package */
	/*
	 * The PU's local node (OS index): the node with the narrowest
	 * locality holding it, an ordinary (DRAM) node before a tier of
	 * another kind (HBM, NVM, CXL...); -1 when no node holds the PU
	 * (its node offline, or hidden by a cgroup).
	 */
	int node;
	int l1, l2, l3; /* cache instance (hwloc logical index), -1 if none */
	int smt_rank;	/* 0 for the first PU of its core */
	int allowed;	/* in the process's CPU affinity */
};

struct topo_cache {
	int level;
	int logical;
	uint64_t size;
	int line_size;
	int npus;
};

struct topo_node {
	int os;
	uint64_t mem_total, mem_free; /* bytes */
	/*
	 * Whether mem_free was read: a topology file, or a machine whose
	 * NUMA calls and sysfs are closed to this process, does not say it,
	 * and unknown is not zero.
	 */
	int mem_free_known;
	int npus;
	int mem_allowed; /* in the process's allowed memory nodes (cpuset mems)
			  */
	/* hwloc's subtype (HBM, NVM, CXL-DRAM, GPUMemory, MCDRAM...), "" when
	 * the topology does not say */
	char kind[24];
	/* its initiators: the cpus (OS indexes) hwloc puts it nearest to */
	char initiators[128];
	int cpuless; /* no PU has it as its local node: memory only */
	/* memory-side caches in front of it (hwloc MemCache): how many, and
	 * the size of the first */
	int nmemcaches;
	uint64_t memcache_size;
};

struct topo {
	void *hw; /* hwloc_topology_t */
	int npus, nallowed;
	struct topo_pu *pu;    /* in logical order */
	int ncores, npackages; /* npackages 0: the machine names none */
	int thissystem;	       /* the topology is this machine's */
	/* where the topology came from: "this system", "HWLOC_XMLFILE x" */
	char source[160];
	char arch[32]; /* the topology's architecture, "" if unknown */
	int noffline;  /* PUs the topology lists as offline */
	int nnodes;
	struct topo_node node[TOPO_MAX_NODES];
	int distance[TOPO_MAX_NODES][TOPO_MAX_NODES]; /* 0 when unknown */
	int ncaches;
	struct topo_cache *cache;
	int line_size;	    /* L1d line size, 64 if unknown */
	int numa_available; /* libnuma works: the kernel has NUMA syscalls */
	char allowed_text[256];
	/*
	 * Where the allowed CPUs come from ("cgroup cpuset.cpus.effective",
	 * or "sched_getaffinity" when the affinity mask is narrower than the
	 * cgroup's cpuset or no cpuset is readable), and the same for the
	 * allowed memory nodes, listed in allowed_mems_text.
	 */
	char cpus_source[96];
	char allowed_mems_text[256];
	char mems_source[96];
	int nmems_allowed;
	char cpu_model[128];
	int smt; /* some core has more than one PU */
	/*
	 * A hypervisor runs this machine (topo_hypervisor): 1, 0, or -1
	 * when unknown (a captured or synthetic topology, no /proc/cpuinfo).
	 */
	int vm;
	/*
	 * The hypervisor is an emulator (topo_emulator): 1, 0, or -1 when
	 * unknown. Its times are the emulator's: no memory system's costs.
	 */
	int emulator;
	/*
	 * What the kernel allows of the memory policy calls (mem_caps()),
	 * for this system; NULL for a captured or synthetic topology.
	 */
	const struct mem_caps *mem_caps;
};

/*
 * Loads the topology. HWLOC_XMLFILE or HWLOC_SYNTHETIC in the environment
 * give a captured or synthetic machine (then every PU counts as allowed).
 * Returns NULL with errno set on failure.
 */
struct topo *topo_load(void);
/*
 * This machine's topology whatever HWLOC_XMLFILE or HWLOC_SYNTHETIC say:
 * what the rates are measured on. Call it before threads start (it takes
 * the two out of the environment while hwloc loads).
 */
struct topo *topo_load_here(void);
/* Why the last topo_load failed, in words. */
const char *topo_load_error(void);
void topo_free(struct topo *t);

/*
 * Whether this machine runs under a hypervisor, from the CPU's
 * "hypervisor" flag in /proc/cpuinfo: 1, 0, or -1 when it cannot be read.
 */
int topo_hypervisor(void);

/*
 * Whether the hypervisor is an emulator that hides a machine's memory
 * costs: qemu's software emulation (TCG), which signs the hypervisor
 * cpuid leaf 0x40000000 "TCGTCGTCGTCG". 1, 0, or -1 where the cpu has
 * no such leaf to read (not x86).
 */
int topo_emulator(void);

/* The PU with this OS index, or NULL. */
const struct topo_pu *topo_pu_by_os(const struct topo *t, int os);
/* Index in t->node of the node with this OS index, or -1. */
int topo_node_index(const struct topo *t, int os);
/* Whether node os is in t and has memory (a machine of one node always
 * does, whatever it reports). */
int topo_node_has_memory(const struct topo *t, int os);
/* The nodes of a node matrix: the n given (OS indexes), or every node of
 * t when n is 0. out holds TOPO_MAX_NODES; returns how many. */
int topo_matrix_nodes(const struct topo *t, const int32_t *given, int n,
		      int32_t *out);

enum place_strategy { PLACE_COMPACT, PLACE_SPREAD, PLACE_OS };

/*
 * Plans one CPU (OS index) per thread: from the explicit list cpus (n > 0,
 * reused round-robin is NOT allowed: must hold at least nthreads CPUs,
 * every one allowed), or from a strategy over the allowed PUs. compact
 * fills SMT siblings, then cores of one cache, then packages; spread puts
 * consecutive threads as far apart as the topology allows (nodes,
 * packages, caches, cores, then SMT siblings). PLACE_OS gives -1 for each
 * thread (no pinning). Pure: reads only t. Returns 0 or -EINVAL with err.
 */
int topo_plan(const struct topo *t, enum place_strategy s, const int32_t *cpus,
	      int ncpus, int nthreads, int *out, struct errinfo *err);

/* The instance (hwloc logical index) of the level 1-3 cache above p, -1 if
 * none. */
int topo_pu_cache(const struct topo_pu *p, int level);

/* The level-`level` cache with this logical index, or NULL. */
const struct topo_cache *topo_cache_find(const struct topo *t, int level,
					 int logical);

/*
 * The cache level where pairs of threads can both share a cache and be
 * kept apart: the highest level (3, 2, 1) with two or more instances over
 * allowed PUs, one of them over at least two. 0 when no level has that
 * (one cache for all CPUs, only private caches, a single CPU). Pure.
 */
int topo_pair_level(const struct topo *t);

enum pair_mode {
	PAIR_SHARED, /* both threads of a pair under one cache instance */
	PAIR_SPLIT   /* the two threads of a pair under different instances */
};

/*
 * Plans npairs pairs of threads around the level-`level` caches:
 * out[2k] and out[2k+1] are the CPUs (OS index) of pair k. Pair k goes to
 * the k-th instance in turn (round-robin over the instances with allowed
 * PUs, in topological order); under SPLIT its second thread goes to the
 * next instance. Within an instance distinct cores come before SMT
 * siblings, so a shared pair shares no lower cache when it need not.
 * Pure: reads only t. Returns 0, or -EINVAL with err saying what is
 * missing (too few CPUs, one instance only for SPLIT).
 */
int topo_plan_pairs(const struct topo *t, int level, enum pair_mode mode,
		    int npairs, int *out, struct errinfo *err);

/* Node and CPU maps from the topology (placement.c). */

/* The node of a CPU (OS numbers), -1 if the topology does not know it. */
int topo_cpu_node(const struct topo *t, int cpu);

/*
 * Plans nthreads CPUs on the nodes listed (n == 0: every node): compact
 * fills the first node's CPUs before the next, spread takes one CPU from
 * each node in turn, cores before SMT siblings. Returns 0 or -EINVAL
 * with err (not enough allowed CPUs on those nodes).
 */
int topo_plan_nodes(const struct topo *t, enum place_strategy s,
		    const int32_t *nodes, int n, int nthreads, int *out,
		    struct errinfo *err);

/* The allowed CPUs of one node. */
int topo_node_ncpus(const struct topo *t, int node);

/* Checks for check hooks, before anything is allocated. */

/*
 * Refuses nodes the machine lacks, naming it: "node 3 does not exist
 * (this machine has nodes 0)"; with need_mem, nodes without memory;
 * with need_cpus, nodes without allowed CPUs. err->field is field.
 * Returns 0 or -EINVAL.
 */
int topo_check_nodes(const struct topo *t, const int32_t *nodes, int n,
		     const char *field, int need_mem, int need_cpus,
		     struct errinfo *err);

/*
 * Refuses bytes that do not fit into the free memory of the nodes
 * listed together (n == 0: all nodes). Where the free memory of a node
 * listed is unknown, bytes are judged against the nodes' total memory
 * instead, and the refusal says free memory is unknown; the run checks
 * again when it starts, on the machine it runs on. Returns 0 or -EINVAL.
 */
int topo_check_free(const struct topo *t, const int32_t *nodes, int n,
		    uint64_t bytes, const char *field, struct errinfo *err);
/* The same, where bytes is more than field asks for itself: why says
 * what makes it so ("three buffers of it"), in the refusal. */
int topo_check_free_why(const struct topo *t, const int32_t *nodes, int n,
			uint64_t bytes, const char *field, const char *why,
			struct errinfo *err);

/* Whether memory may be placed on node os (its cpuset mems hold it). */
int topo_node_mem_allowed(const struct topo *t, int os);

#endif
