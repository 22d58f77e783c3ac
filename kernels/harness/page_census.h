/* page_census.h - what an array of page nodes says: counts per node, runs, the interleave pattern */
#ifndef NUMALAB_PAGE_CENSUS_H
#define NUMALAB_PAGE_CENSUS_H

#include <stddef.h>

#include "strbuf.h"
#include "topo.h"

/* What a page-node array says. Pure: computed from the array alone. */
struct page_census {
	size_t npages;
	size_t on_node[TOPO_MAX_NODES]; /* indexed by OS node number */
	size_t on_other;  /* on a node numbered TOPO_MAX_NODES or more */
	size_t absent;	  /* not allocated (-ENOENT) */
	size_t failed;	  /* any other error */
	size_t forbidden; /* present on a node outside the allowed set */
	int first_forbidden_node; /* -1 if none */
	size_t first_forbidden_page;
	int nused; /* distinct nodes holding pages */
	/* runs: maximal stretches of consecutive present pages on one node */
	size_t runs, run_min, run_max;
	/*
	 * 1 when the runs step through the allowed nodes in ascending
	 * cyclic order, every run but the first and the last of one length
	 * (run_len) and every allowed node used: the interleave pattern.
	 */
	int interleaved;
	size_t run_len;
};

/*
 * Fills c from status[0..n). allowed[0..nallowed) is the set the policy
 * permits, ascending; nallowed == 0: every node allowed (then interleaved
 * is computed over the nodes seen).
 */
void page_census_of(const int *status, size_t n, const int *allowed,
		    int nallowed, struct page_census *c);

/* Describes the interleave pattern: "0,1,0,1,... one page per run". */
void page_census_pattern(const struct page_census *c, const int *status,
			 size_t n, struct strbuf *sb);

#endif
