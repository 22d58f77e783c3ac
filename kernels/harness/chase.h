/* chase.h - a dependent-load pointer chase: one random cycle through a buffer's cache lines, and the loop that follows it */
#ifndef NUMALAB_CHASE_H
#define NUMALAB_CHASE_H

#include <stddef.h>
#include <stdint.h>

/*
 * The unit neighbours in the chain never share: a 4 KiB page, the span
 * the hardware prefetchers work within (they never cross it), whatever
 * page size the buffer is mapped with.
 */
#define CHASE_PAGE 4096
/* The least buffer a chain fits in: two pages, so neighbours can differ. */
#define CHASE_MIN_BYTES (2 * CHASE_PAGE)

/*
 * The chain's published design, google/multichase's defaults: nodes 256
 * bytes apart, so the line a load brings and its adjacent-line
 * prefetcher's buddy never hold the next node; and a "TLB locality" of
 * 64 pages (256 KiB), which the chain stays inside until it has visited
 * every node of it, so a first-level TLB of 4 KiB pages covers a block
 * and a load misses the caches but not the TLB, even where huge pages
 * are not to be had (or a hypervisor backs them with small ones). A
 * locality of 0 pages makes one block of the whole buffer: fully random.
 */
#define CHASE_STRIDE 256
#define CHASE_BLOCK_PAGES 64

/*
 * The order of a chain through nnodes nodes of stride bytes each,
 * grouped CHASE_PAGE / stride to a page (nnodes a multiple of that, at
 * least two pages): order[k] is the node visited k-th. Every node once,
 * and no two consecutive nodes (the last and the first included) in the
 * same page. The pages are cut into blocks of block_pages to twice that
 * (0: one block of them all), visited in a random order; within a block,
 * every node in a random order, or where that cannot part neighbours
 * (a block of very few pages), rounds of one node from every page. Pure:
 * the same seed, the same order. Returns 0, -EINVAL for a size it cannot
 * chain, or -ENOMEM.
 */
int chase_order(size_t nnodes, size_t stride, size_t block_pages, uint64_t seed,
		uint32_t *order);

/*
 * Writes the chain into base[0..len): the first pointer-sized word of
 * each stride-sized node points at the next node of chase_order's cycle.
 * len must be a multiple of CHASE_PAGE, at least CHASE_MIN_BYTES and
 * under 2^32 nodes; stride a power of two from 16 to CHASE_PAGE / 2.
 * Touches every node (the buffer's first touch). Returns 0, -EINVAL or
 * -ENOMEM.
 */
int chase_build(void *base, size_t len, size_t stride, size_t block_pages,
		uint64_t seed);

/*
 * Follows the chain from p for loads dependent loads and returns where
 * it stopped (the next round starts there). Each load's address is the
 * value of the one before, so no two overlap and no prefetcher guesses
 * the next; nothing else is in the loop.
 */
void *chase_walk(void *p, uint64_t loads);

/*
 * The loads between two of chase_walk_marked's marks: 20-400 us at
 * memory's latency, a few us from L1, where a mark's time stamp read
 * (a few ns) costs under 1%.
 */
#define CHASE_MARK_LOADS 2048

/*
 * The same, marking the loads done so far (team_mark) every
 * CHASE_MARK_LOADS, so that a round in a team with work = loads is
 * timed over the stretches its thread was on its cpu.
 */
void *chase_walk_marked(void *p, uint64_t loads);

/*
 * The bytes of [base, base+len) that the kernel maps with transparent
 * huge pages (AnonHugePages of /proc/self/smaps over the mappings that
 * hold the range). Returns them, or -1 when smaps cannot be read.
 */
long long chase_huge_bytes(const void *base, size_t len);

#endif
