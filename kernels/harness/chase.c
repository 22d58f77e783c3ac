/* chase.c - a dependent-load pointer chase: one random cycle through a buffer's cache lines, and the loop that follows it */
#include "chase.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "team.h"

/* splitmix64: a small generator of our own, enough to shuffle */
static uint64_t next_rand(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* A number in [0, n), n > 0. */
static size_t below(uint64_t *s, size_t n)
{
	return (size_t)(next_rand(s) % n);
}

static void shuffle32(uint32_t *v, size_t n, uint64_t *s)
{
	for (size_t i = n; i > 1; i--) {
		size_t j = below(s, i);
		uint32_t x = v[i - 1];
		v[i - 1] = v[j];
		v[j] = x;
	}
}

static void swap32(uint32_t *v, size_t a, size_t b)
{
	uint32_t x = v[a];

	v[a] = v[b];
	v[b] = x;
}

static int line_ok(size_t line)
{
	return line >= 16 && line <= CHASE_PAGE / 2 && !(line & (line - 1));
}

/*
 * The order of the npages pages from page lo: rounds of one node from
 * every page, the pages shuffled anew each round, no round starting on
 * the page the last one ended on, nor the last round ending on the page
 * the first began with. out gets npages * per_page node indexes.
 */
static void order_block(size_t lo, size_t npages, size_t per_page,
			uint32_t *pages, uint32_t *inpage, uint64_t *s,
			uint32_t *out)
{
	uint32_t first = 0, last = 0;

	/* each page's nodes in an order of their own */
	for (size_t p = 0; p < npages; p++) {
		for (size_t k = 0; k < per_page; k++)
			inpage[p * per_page + k] = (uint32_t)k;
		shuffle32(inpage + p * per_page, per_page, s);
		pages[p] = (uint32_t)p;
	}
	for (size_t r = 0; r < per_page; r++) {
		shuffle32(pages, npages, s);
		if (r > 0 && pages[0] == last)
			swap32(pages, 0, 1 + below(s, npages - 1));
		/* with two pages the rule above already alternates them */
		if (r == per_page - 1 && pages[npages - 1] == first &&
		    npages > 2)
			swap32(pages, npages - 1, 1 + below(s, npages - 2));
		if (r == 0)
			first = pages[0];
		last = pages[npages - 1];
		for (size_t p = 0; p < npages; p++)
			out[r * npages + p] =
				(uint32_t)((lo + pages[p]) * per_page +
					   inpage[pages[p] * per_page + r]);
	}
}

/* Whether nodes a and b lie in one page. */
static int same_page(uint32_t a, uint32_t b, size_t per_page)
{
	return a / per_page == b / per_page;
}

/* Whether v may stand at k of out[0..n): no page shared with k-1 or k+1
 * (skip: a position not to look at, the one v comes from). */
static int fits(const uint32_t *out, size_t n, size_t k, uint32_t v,
		size_t per_page, size_t skip)
{
	return (k == 0 || k - 1 == skip ||
		!same_page(out[k - 1], v, per_page)) &&
	       (k + 1 >= n || k + 1 == skip ||
		!same_page(out[k + 1], v, per_page));
}

/*
 * Makes out[k] share no page with out[k - 1]: swaps in a node from later
 * in the block (any that does not), or else from earlier, where the swap
 * leaves both places fitting. 0, or -1 when no node can go there.
 */
static int repair_at(uint32_t *out, size_t n, size_t k, size_t per_page,
		     uint64_t *s)
{
	size_t m = n - (k + 1), start;

	if (m) {
		start = below(s, m);
		for (size_t t = 0; t < m; t++) {
			size_t j = k + 1 + (start + t) % m;
			if (!same_page(out[j], out[k - 1], per_page)) {
				swap32(out, k, j);
				return 0;
			}
		}
	}
	start = below(s, k);
	for (size_t t = 0; t < k; t++) {
		size_t j = (start + t) % k;
		if (j + 1 < k && !same_page(out[j], out[k - 1], per_page) &&
		    (k + 1 >= n || !same_page(out[j], out[k + 1], per_page)) &&
		    fits(out, n, j, out[k], per_page, k)) {
			swap32(out, k, j);
			return 0;
		}
	}
	return -1;
}

/*
 * The order of the npages pages from page lo as multichase orders a
 * block: every node of the block in one random order, then each node
 * that would follow one of its own page swapped for another. alone: the
 * block is the whole chain, so its last node leads back to its first
 * and must not share that one's page either. 0, or -1 when no swap can
 * part two neighbours (a block of very few pages): out is then
 * unfinished.
 */
static int spread_block(size_t lo, size_t npages, size_t per_page, int alone,
			uint64_t *s, uint32_t *out)
{
	size_t n = npages * per_page;

	for (size_t k = 0; k < n; k++)
		out[k] = (uint32_t)(lo * per_page + k);
	shuffle32(out, n, s);
	for (size_t k = 1; k < n; k++)
		if (same_page(out[k], out[k - 1], per_page) &&
		    repair_at(out, n, k, per_page, s))
			return -1;
	if (!alone || !same_page(out[n - 1], out[0], per_page))
		return 0;
	/* the wrap: a last node from the middle that fits at both ends */
	for (size_t j = 1; j + 1 < n; j++)
		if (!same_page(out[j], out[0], per_page) &&
		    !same_page(out[j], out[n - 2], per_page) &&
		    fits(out, n, j, out[n - 1], per_page, n - 1)) {
			swap32(out, j, n - 1);
			return 0;
		}
	return -1;
}

int chase_order(size_t nnodes, size_t line, size_t block_pages, uint64_t seed,
		uint32_t *order)
{
	size_t per_page, npages, nblocks, most;
	uint32_t *pages = NULL, *inpage = NULL, *blocks = NULL;
	uint64_t s = seed;

	if (!line_ok(line) || !order)
		return -EINVAL;
	per_page = CHASE_PAGE / line;
	if (nnodes % per_page || nnodes / per_page < 2 || nnodes > UINT32_MAX)
		return -EINVAL;
	npages = nnodes / per_page;
	/* blocks of block_pages to 2 x block_pages - 1 pages */
	nblocks =
		block_pages && npages / block_pages ? npages / block_pages : 1;
	most = npages / nblocks + 1;
	pages = malloc(most * sizeof(*pages));
	inpage = malloc(most * per_page * sizeof(*inpage));
	blocks = malloc(nblocks * sizeof(*blocks));
	if (!pages || !inpage || !blocks) {
		free(pages);
		free(inpage);
		free(blocks);
		return -ENOMEM;
	}
	for (size_t b = 0; b < nblocks; b++)
		blocks[b] = (uint32_t)b;
	shuffle32(blocks, nblocks, &s);
	for (size_t k = 0, at = 0; k < nblocks; k++) {
		size_t b = blocks[k], lo = b * npages / nblocks,
		       hi = (b + 1) * npages / nblocks;
		/* laps over the pages where a random order cannot part
		 * every two neighbours (blocks of a few pages) */
		if (spread_block(lo, hi - lo, per_page, nblocks == 1, &s,
				 order + at))
			order_block(lo, hi - lo, per_page, pages, inpage, &s,
				    order + at);
		at += (hi - lo) * per_page;
	}
	free(pages);
	free(inpage);
	free(blocks);
	return 0;
}

int chase_build(void *base, size_t len, size_t line, size_t block_pages,
		uint64_t seed)
{
	size_t n;
	uint32_t *order;
	char *b = base;
	int rc;

	if (!base || !line_ok(line) || len % CHASE_PAGE ||
	    len < CHASE_MIN_BYTES || len / line > UINT32_MAX)
		return -EINVAL;
	n = len / line;
	order = malloc(n * sizeof(*order));
	if (!order)
		return -ENOMEM;
	rc = chase_order(n, line, block_pages, seed, order);
	for (size_t k = 0; !rc && k < n; k++)
		*(void **)(b + (size_t)order[k] * line) =
			b + (size_t)order[(k + 1) % n] * line;
	free(order);
	return rc;
}

/* sixteen loads per turn, so the loop's own branch is rarely taken */
#define STEP q = (void **)*q
#define STEP4                                                                  \
	STEP;                                                                  \
	STEP;                                                                  \
	STEP;                                                                  \
	STEP

void *chase_walk(void *p, uint64_t loads)
{
	void **q = p;

	for (uint64_t n = loads / 16; n; n--) {
		STEP4;
		STEP4;
		STEP4;
		STEP4;
	}
	for (uint64_t n = loads % 16; n; n--)
		STEP;
	return q;
}

void *chase_walk_marked(void *p, uint64_t loads)
{
	uint64_t done = 0;

	while (done < loads) {
		uint64_t n = loads - done < CHASE_MARK_LOADS ? loads - done
							     : CHASE_MARK_LOADS;
		p = chase_walk(p, n);
		done += n;
		team_mark((double)done);
	}
	return p;
}

long long chase_huge_bytes(const void *base, size_t len)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	uintptr_t lo = (uintptr_t)base, hi = lo + len;
	int inside = 0;
	long long total = 0;
	char line[512];

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		unsigned long a, b;
		long long kb;

		if (sscanf(line, "%lx-%lx ", &a, &b) == 2 &&
		    strchr(line, '-') < strchr(line, ' '))
			inside = a < hi && b > lo;
		else if (inside &&
			 sscanf(line, "AnonHugePages: %lld kB", &kb) == 1)
			total += kb * 1024;
	}
	fclose(f);
	return total;
}
