/* mem_size.h - when a buffer measures memory rather than cache: the multiple of the last-level cache it must reach */
#ifndef NUMALAB_MEM_SIZE_H
#define NUMALAB_MEM_SIZE_H

#include <stddef.h>
#include <stdint.h>

#include "verdict.h"

/*
 * A buffer meant to measure memory must be at least this many times the
 * machine's last-level cache, all instances together. Streaming over a
 * buffer twice the cache already evicts most lines before they are used
 * again, but not all: non-inclusive caches add the L2s to the L3, some
 * replacement policies keep part of a stream, and a thread may reach
 * every socket's L3. Four times leaves at most a quarter of the buffer
 * that could have been kept anywhere, while the default stays small
 * enough (128 MiB for a 32 MiB L3) to run in seconds.
 */
#define MEM_LLC_MULTIPLE 4
/* The default where the machine's caches are unknown, and the least one. */
#define MEM_DEFAULT_FLOOR (64ull << 20)

/*
 * A default buffer takes at most this share (1/8) of the smallest node's
 * memory, so that a machine with little memory per core is not asked for
 * most of it.
 */
#define MEM_DEFAULT_NODE_SHARE 8

/*
 * What a PARAM_F_MEMORY row's help says of its default, in the words of
 * mem_default_bytes: a row that says it in this sentence cannot disagree
 * with the default it gets.
 */
#define MEM_DEFAULT_HELP                                                       \
	"default: 4 times the machine's last-level cache (a plausible one "    \
	"where it reports a cache no real machine has), at least 64M and at "  \
	"most an eighth of the smallest node, so it streams from memory; a "   \
	"size under 4 times the cache is labelled from cache"

/*
 * MEM_LLC_MULTIPLE x the last-level cache judged (rules.h
 * machine_llc_judged: the reported total, or a plausible one where the
 * machine reports a cache no real one has); 0 when it is unknown.
 */
uint64_t mem_llc_floor(const struct machine_facts *m);

/* Whether bytes fit under that floor: its figures come from cache. */
int mem_from_cache(const struct machine_facts *m, uint64_t bytes);

/*
 * The default buffer, the one rule for every PARAM_F_MEMORY param: the
 * floor rounded up to MiB, at most 1/MEM_DEFAULT_NODE_SHARE of
 * node_bytes (the size of the smallest node; 0: unknown, no limit), and
 * at least MEM_DEFAULT_FLOOR. Only where the node is that small does the
 * default read from cache (and its run says so).
 */
uint64_t mem_default_bytes(const struct machine_facts *m, uint64_t node_bytes);

/* "128 MiB", "4 MiB", "512 KiB": for sentences. */
void mem_size_text(uint64_t bytes, char *buf, size_t len);

/*
 * The cache sizes are judged against, in words: "this machine's 32 MiB
 * of L3 cache", or "the plausible 32 MiB of L3 cache this machine is
 * judged by" where it reports one no real machine has. Returns buf.
 */
const char *mem_cache_words(const struct machine_facts *m, char *buf,
			    size_t len);

/*
 * Adds the note that says a buffer of bytes reads from cache on this
 * machine (level "warn"), naming what is measured and the cache judged;
 * nothing when it does not. Returns whether it fits (mem_from_cache).
 * The rulebook's RULE_MEMORY says it for every experiment that declares
 * one (rules.h).
 */
int mem_cache_note(const struct machine_facts *m, uint64_t bytes,
		   const char *what, struct verdict *v);

#endif
