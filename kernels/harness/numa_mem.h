/* numa_mem.h - the NUMA system calls: probe, allocate under a policy, ask where pages are, move them */
#ifndef NUMALAB_NUMA_MEM_H
#define NUMALAB_NUMA_MEM_H

#include <stddef.h>
#include <stdint.h>

#include "errinfo.h"
#include "mem_caps.h"
#include "params.h"
#include "topo.h"

enum nmem_policy {
	NMEM_DEFAULT,	 /* the system's rule: the node of the CPU that touches
			    first */
	NMEM_BIND,	 /* only the listed nodes */
	NMEM_PREFERRED,	 /* MPOL_PREFERRED: the lowest listed node first, any
			    other when it is full */
	NMEM_INTERLEAVE, /* round robin over the listed nodes, page by page */
	NMEM_LOCAL,	 /* explicitly the toucher's node */
	NMEM_PREFERRED_MANY /* MPOL_PREFERRED_MANY (Linux 5.15): any listed node
			       first */
};
/* The policy names in enum order, NULL-terminated: an ENUM param's choices. */
extern const char *const nmem_policy_names[];

enum nmem_scope {
	NMEM_VMA, /* mbind on the address range before the first touch */
	NMEM_TASK /* set_mempolicy in the thread that touches the pages */
};
extern const char *const nmem_scope_names[];

/* A request for memory under a policy. */
struct nmem_spec {
	size_t len;
	enum nmem_policy policy;
	enum nmem_scope scope;
	const int32_t *nodes; /* OS node numbers; n == 0 with
				 bind/preferred/interleave: every node */
	int nnodes;
	int thp; /* -1: no transparent huge pages (page-granular placement), 0:
		    the system's setting, 1: ask for them */
};

struct nmem_buf {
	char *base; /* page aligned */
	size_t len; /* whole pages */
	size_t page;
	size_t npages;
	enum nmem_policy policy;
	enum nmem_scope scope;
	int nodes[TOPO_MAX_NODES]; /* the policy's node set, ascending; empty
				      for default/local */
	int nnodes;
};

/*
 * Maps s->len bytes (rounded up to pages), no page allocated yet. With
 * scope NMEM_VMA the policy is set on the range here, so every page the
 * first touch creates follows it; with NMEM_TASK the toucher must call
 * nmem_task_apply first. t resolves "every node" (may be NULL: then an
 * empty node set is refused). Returns 0, or -errno with err saying why.
 */
int nmem_alloc(const struct nmem_spec *s, const struct topo *t,
	       struct nmem_buf *b, struct errinfo *err);
void nmem_free(struct nmem_buf *b);

/*
 * Sets the calling thread's task policy to b's (set_mempolicy), for a
 * first touch under scope=task. Returns 0 or -errno.
 */
int nmem_task_apply(const struct nmem_buf *b);

/*
 * The node of every page (move_pages in query mode): status[i] is the
 * node of page i, or -errno (-ENOENT: not allocated yet). status holds
 * b->npages entries. Returns 0 or -errno of the call.
 */
int nmem_where(const struct nmem_buf *b, int *status);

/*
 * Asks get_mempolicy(MPOL_F_NODE|MPOL_F_ADDR) for up to nsample pages
 * spread over the buffer that status says are present, and counts how
 * many answers agree with status. Returns the agreeing count (*checked:
 * how many were asked), or -errno.
 */
int nmem_sample_check(const struct nmem_buf *b, const int *status, int nsample,
		      int *checked);

/* The outcome of one migration. */
struct nmem_migration {
	size_t moved;	 /* pages that were off target before and on it after */
	size_t stayed;	 /* already on target before */
	size_t failed;	 /* still off target (or an error) after */
	double seconds;	 /* the system call alone */
	double gbps;	 /* moved bytes / seconds / 1e9 */
	int rc;		 /* 0, or -errno of the system call */
	int first_errno; /* the most frequent per-page error of move_pages, 0 if
			    none */
};

enum nmem_move {
	NMEM_MOVE_MBIND,	/* mbind(MPOL_BIND, MPOL_MF_MOVE) */
	NMEM_MOVE_MBIND_STRICT, /* ... | MPOL_MF_STRICT: fail if any page stays
				 */
	NMEM_MOVE_ALL /* mbind(MPOL_BIND, MPOL_MF_MOVE_ALL): needs CAP_SYS_NICE
		       */
};

/*
 * Moves b's pages onto the node set target[0..n) with mbind, which also
 * makes that set the range's policy (bind). Counts from move_pages
 * queries before and after. Returns 0, or -errno (m->rc) with err; the
 * counts are filled either way when the queries work.
 */
int nmem_migrate_mbind(struct nmem_buf *b, enum nmem_move how,
		       const int *target, int n, struct nmem_migration *m,
		       struct errinfo *err);

/*
 * Moves page i to dest[i] with move_pages (MPOL_MF_MOVE). Returns 0 or
 * -errno with err; per-page failures are counted, not errors.
 */
int nmem_migrate_pages(struct nmem_buf *b, const int *dest,
		       struct nmem_migration *m, struct errinfo *err);

#endif
