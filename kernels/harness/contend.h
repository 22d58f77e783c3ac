/* contend.h - what the experiments of threads contending for a line share: the spacing that keeps words apart, and how long the threads must have run together */
#ifndef NUMALAB_CONTEND_H
#define NUMALAB_CONTEND_H

#include <stddef.h>

#include "compare.h"
#include "descriptor.h"

/*
 * Bytes between two words that must not share a line: two 64-byte lines,
 * because x86's adjacent-line prefetcher fetches lines in pairs, so
 * words one line apart still drag each other's line along. For statics
 * and struct padding, which need a constant; contend_apart() gives the
 * figure for a machine's own line size.
 */
#define CONTEND_APART 128

/* Two of the machine's lines (64 B when unknown), never under CONTEND_APART. */
size_t contend_apart(int line_size);

/*
 * The least share of a round the threads must have run together for a
 * comparison to be stated: the floor of exp's RULE_TOGETHER rule, or
 * CONTEND_FLOOR when it declares none.
 */
#define CONTEND_FLOOR 0.5
double contend_floor(const struct experiment *exp);

/*
 * How a comparison of contending threads stands, from c->together and
 * the floor: under it nothing may be stated (CONTEND_TOO_LITTLE), under
 * CMP_FULL_OVERLAP a slowdown is a lower bound (CONTEND_PARTLY).
 */
enum contend_overlap { CONTEND_FULL, CONTEND_PARTLY, CONTEND_TOO_LITTLE };
enum contend_overlap contend_overlap(const struct comparison *c, double floor);

/*
 * Why a comparison of contending threads that ran together long enough
 * is not stated as it stands, into buf (len bytes), which it returns: a
 * lower bound when they ran together only part of a round; faster, the
 * experiment's sentence, when the contended case came out faster, which
 * contention cannot cause; or compare_why_not's reason when the rounds
 * could not tell. "" when the comparison stands.
 */
const char *contend_why(const struct comparison *c, const char *faster,
			char *buf, size_t len);

#endif
