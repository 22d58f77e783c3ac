/* mem_size.c - when a buffer measures memory rather than cache: the multiple of the last-level cache it must reach */
#include "mem_size.h"

#include <stdio.h>

#include "verdict.h"

uint64_t mem_llc_floor(const struct machine_facts *m)
{
	return MEM_LLC_MULTIPLE * machine_llc_judged(m);
}

int mem_from_cache(const struct machine_facts *m, uint64_t bytes)
{
	return bytes < mem_llc_floor(m);
}

uint64_t mem_default_bytes(const struct machine_facts *m, uint64_t node_bytes)
{
	uint64_t mib = 1ull << 20;
	uint64_t b = (mem_llc_floor(m) + mib - 1) / mib * mib;
	uint64_t most = node_bytes / MEM_DEFAULT_NODE_SHARE / mib * mib;

	if (node_bytes && b > most)
		b = most;
	return b > MEM_DEFAULT_FLOOR ? b : MEM_DEFAULT_FLOOR;
}

void mem_size_text(uint64_t bytes, char *buf, size_t len)
{
	double v = (double)bytes;
	const char *unit = "KiB";

	if (bytes >= (1ull << 30)) {
		v /= 1 << 30;
		unit = "GiB";
	} else if (bytes >= (1ull << 20)) {
		v /= 1 << 20;
		unit = "MiB";
	} else {
		v /= 1 << 10;
	}
	snprintf(buf, len, v == (double)(uint64_t)v ? "%.0f %s" : "%.1f %s", v,
		 unit);
}

const char *mem_cache_words(const struct machine_facts *m, char *buf,
			    size_t len)
{
	char llc[32];

	mem_size_text(machine_llc_judged(m), llc, sizeof(llc));
	/* a cache no real machine has is judged as a plausible one, and the
	 * words say so */
	if (machine_cache_unknown(m))
		snprintf(buf, len,
			 "the plausible %s of cache this machine is judged by",
			 llc);
	else if (machine_cache_implausible(m))
		snprintf(
			buf, len,
			"the plausible %s of L%d cache this machine is judged by",
			llc, m->llc_level);
	else
		snprintf(buf, len, "this machine's %s of L%d cache", llc,
			 m->llc_level);
	return buf;
}

int mem_cache_note(const struct machine_facts *m, uint64_t bytes,
		   const char *what, struct verdict *v)
{
	char size[32], floor[32], cache[160];
	uint64_t judged = machine_llc_judged(m);

	if (!mem_from_cache(m, bytes))
		return 0;
	mem_size_text(bytes, size, sizeof(size));
	mem_size_text(mem_llc_floor(m), floor, sizeof(floor));
	mem_cache_words(m, cache, sizeof(cache));
	if (bytes <= judged)
		verdict_note(
			v, "warn",
			"the buffer of %s fits in %s, so %s came from cache, not memory (labelled \"from cache\"); memory needs at least %d times the cache, %s",
			size, cache, what, MEM_LLC_MULTIPLE, floor);
	else
		verdict_note(
			v, "warn",
			"the buffer of %s is less than %d times %s, %s, so part of %s may have come from cache, not memory (labelled \"from cache\")",
			size, MEM_LLC_MULTIPLE, cache, floor, what);
	return 1;
}
