/* node_mem.h - a buffer bound to one node, and how many of its pages are there */
#ifndef NUMALAB_NODE_MEM_H
#define NUMALAB_NODE_MEM_H

#include <stddef.h>

#include "errinfo.h"
#include "numa_mem.h"
#include "page_census.h"
#include "sink.h"
#include "topo.h"

/*
 * Maps len bytes bound to OS node node (MPOL_BIND over the range; no
 * policy where this kernel allows none), no page touched yet; thp as
 * struct nmem_spec's. Returns 0, or -errno after a warning through s
 * that says why.
 */
int node_mem_alloc(struct sink *s, const struct topo *t, int node, size_t len,
		   int thp, struct nmem_buf *b);

/*
 * Asks where b's pages are and counts them against node:
 * c->on_node[node] on it, c->forbidden on another node, c->absent and
 * c->failed nowhere. Returns 0, -ENOMEM, or nmem_where's -errno.
 */
int node_mem_census(const struct nmem_buf *b, int node, struct page_census *c);

/*
 * The same as two counts: pages on node, and the others (elsewhere, absent
 * or failed). Returns 0 or -errno as node_mem_census, both counts 0 then.
 */
int node_mem_count(const struct nmem_buf *b, int node, size_t *on, size_t *off);

/*
 * The check of an experiment that binds memory and counts where its pages
 * went: refuses (err's field, -EINVAL) where this kernel or container
 * allows no NUMA memory policy, or no move_pages to say where what
 * ("the pages are") is. Returns 0 where both are allowed.
 */
int node_mem_census_check(struct errinfo *err, const char *field,
			  const char *what);

#endif
