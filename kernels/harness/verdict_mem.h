/* verdict_mem.h - when a buffer measures memory rather than cache: the multiple of the last-level cache it must reach */
#ifndef NUMALAB_VERDICT_MEM_H
#define NUMALAB_VERDICT_MEM_H

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

/* MEM_LLC_MULTIPLE x the total last-level cache; 0 when it is unknown. */
uint64_t mem_llc_floor(const struct machine_facts *m);

/* Whether bytes fit under that floor: its figures come from cache. */
int mem_from_cache(const struct machine_facts *m, uint64_t bytes);

/*
 * The default buffer: the floor rounded up to MiB, at least
 * MEM_DEFAULT_FLOOR, and at most an eighth of free_bytes (the free
 * memory of the smallest node; 0: unknown, no limit) so that a machine
 * whose caches are reported huge is not asked for most of its memory;
 * a default held back by that limit reads from cache and says so.
 */
uint64_t mem_default_bytes(const struct machine_facts *m, uint64_t free_bytes);

/* "128 MiB", "4 MiB", "512 KiB": for sentences. */
void mem_size_text(uint64_t bytes, char *buf, size_t len);

/*
 * Adds the note that says a buffer of bytes reads from cache on this
 * machine (level "warn"), naming what is measured; nothing when it does
 * not. Returns whether it fits (mem_from_cache).
 */
int mem_cache_note(const struct machine_facts *m, uint64_t bytes,
		   const char *what, struct verdict *v);

#endif
