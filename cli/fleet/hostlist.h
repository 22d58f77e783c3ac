/* hostlist.h - Slurm's host-list syntax (n[1-8],lab[01-30]) expanded to names */
#ifndef NUMALAB_HOSTLIST_H
#define NUMALAB_HOSTLIST_H

#include "errinfo.h"
#include "strvec.h"

/*
 * More names than this in one list is refused: a typo, not a cluster.
 * Repeats count too (n[1-8],n[1-8] makes 16), so expanding a list costs
 * at most this many names, each in constant time.
 */
#define HOSTLIST_MAX 65536

/*
 * Appends every name of text to out, in order, duplicates dropped:
 * comma-separated items, each a name with bracketed ranges ("n[1-3,7]",
 * "rack[1-2]-n[01-04]"); a range keeps the width of its lower bound when
 * that starts with 0. Returns 0, or -EINVAL with err naming what was
 * wrong (field "nodes"; "names more than 65536 hosts" past HOSTLIST_MAX),
 * or -ENOMEM. Linear in the names made.
 */
int hostlist_expand(const char *text, struct strvec *out, struct errinfo *err);

#endif
