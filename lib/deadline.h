/* deadline.h - an absolute time some ms from now, for timed waits */
#ifndef NUMALAB_DEADLINE_H
#define NUMALAB_DEADLINE_H

#include <time.h>

/* clock: the one the condition variable waits on (REALTIME unless set
 * otherwise). */
static inline struct timespec deadline_in(clockid_t clock, int timeout_ms)
{
	struct timespec dl;

	clock_gettime(clock, &dl);
	dl.tv_sec += timeout_ms / 1000;
	dl.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
	if (dl.tv_nsec >= 1000000000L) {
		dl.tv_sec++;
		dl.tv_nsec -= 1000000000L;
	}
	return dl;
}

#endif
