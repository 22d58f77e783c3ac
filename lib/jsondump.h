/* jsondump.h - jansson's compact dump, byte for byte, at a fraction of its cost */
#ifndef NUMALAB_JSONDUMP_H
#define NUMALAB_JSONDUMP_H

#include <stddef.h>

#include <jansson.h>

#include "strbuf.h"

/*
 * Appends what json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY) writes for v
 * to sb, the same bytes (tests/unit/test_jsondump.c holds it to jansson's
 * own), without jansson's costs that were most of a run document's
 * serialisation: a loop check that formats each container's address and
 * keeps it in a hash table, a check of every character of every string,
 * a buffer of its own and a copy of it. 0; -1 where jansson's dump fails
 * (a string that is not UTF-8), for a tree deeper than
 * JSONDUMP_MAX_DEPTH (a loop: jansson's dump fails too) or when memory ran
 * out (sb->oom); what was added then is not to be used.
 */
#define JSONDUMP_MAX_DEPTH 2048
int jsondump(const json_t *v, struct strbuf *sb);

/* A string of len bytes as jsondump writes it (quotes included): 0, or -1
 * where jansson would refuse it (not UTF-8) or memory ran out. */
int jsondump_string(const char *s, size_t len, struct strbuf *sb);

/* The same as json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY): malloc'd, its
 * length in *len (may be NULL); NULL where that returns NULL. */
char *jsondump_text(const json_t *v, size_t *len);

#endif
