/* cancel.h - a run's cancel flag: set by a signal handler, read by any of the run's threads */
#ifndef NUMALAB_CANCEL_H
#define NUMALAB_CANCEL_H

#include <signal.h>

/*
 * The handler runs on whichever thread the signal reaches and the
 * measuring threads read the flag on theirs: plain accesses of a
 * volatile sig_atomic_t are only safe within one thread, so both sides
 * go through atomics (lock-free for an int, so safe in a handler).
 */
static inline int cancel_asked(volatile sig_atomic_t *c)
{
	return c && __atomic_load_n(c, __ATOMIC_RELAXED);
}

static inline void cancel_set(volatile sig_atomic_t *c)
{
	__atomic_store_n(c, 1, __ATOMIC_RELAXED);
}

#endif
