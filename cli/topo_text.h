/* topo_text.h - the machine drawn in plain ASCII boxes for `numalab topology` */
#ifndef NUMALAB_TOPO_TEXT_H
#define NUMALAB_TOPO_TEXT_H

#include "strbuf.h"
#include "topo.h"

/* No line of the drawing is wider than this. */
#define TOPO_TEXT_WIDTH 100

/*
 * Appends the drawing of t to out: one box per package holding one box
 * per NUMA node (with its memory), in it the caches nested as lstopo
 * nests them (L3 around L2 around L1d around cores around PUs), each PU
 * named by its logical and OS index ("PU L#3 P#6", a line saying which
 * is which). A group with one child shares its box (the child's caption
 * on a line under its own); more than 4 children show the first,
 * "... N more" and the last; boxes wrap onto rows to stay within
 * TOPO_TEXT_WIDTH. When the process may not use every PU, the allowed
 * ones carry a '*'. Pure: reads only t; on a failed allocation out->oom
 * is set.
 */
void topo_text(const struct topo *t, struct strbuf *out);

/*
 * Appends the facts under the drawing: counts, where the topology came
 * from when it is not this system's, offline PUs and PUs in no node, and
 * a line a node (its kind, memory, free memory or "free unknown", local
 * PUs or "memory only" with its initiators, memory-side caches,
 * distances). Pure.
 */
void topo_facts_text(const struct topo *t, struct strbuf *out);

#endif
