/* stale_retry.h - runs a full disk left unmarked, marked interrupted as soon as the store can write */
#ifndef NUMALAB_STALE_RETRY_H
#define NUMALAB_STALE_RETRY_H

#include <stdint.h>

#include "store.h"

struct stale_retry;

/*
 * Tries store_interrupt_stale(st, why, upto) again every second, from a
 * thread of its own, until it succeeds or fails for another reason than a
 * full disk; says on stderr when it does. NULL on ENOMEM or when the
 * thread cannot start (errno set).
 */
struct stale_retry *stale_retry_start(struct store *st, const char *why,
				      int64_t upto);
/* Stops the thread (waiting for a try under way) and frees r; NULL is fine. */
void stale_retry_stop(struct stale_retry *r);

#endif
