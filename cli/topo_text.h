/* topo_text.h - the machine drawn in plain ASCII boxes for `numalab topology` */
#ifndef NUMALAB_TOPO_TEXT_H
#define NUMALAB_TOPO_TEXT_H

#include "strbuf.h"
#include "topo.h"

/* No line of the drawing is wider than this. */
#define TOPO_TEXT_WIDTH 100

/*
 * Appends the drawing of t to out: one box per package holding one box
 * per NUMA node (with its memory), a row of cores with their PUs (OS
 * numbers) and under it one row per cache level, each cache as wide as
 * the cores it covers. A node with more cores than fit in a row shows
 * the first, "... N more" and the last. When the process may not use
 * every PU, the allowed ones carry a '*'. Pure: reads only t; on a
 * failed allocation out->oom is set.
 */
void topo_text(const struct topo *t, struct strbuf *out);

#endif
