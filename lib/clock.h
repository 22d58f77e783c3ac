/* clock.h - the one monotonic clock, and the cpu time of a thread and of the process */
#ifndef NUMALAB_CLOCK_H
#define NUMALAB_CLOCK_H

/* Seconds from CLOCK_MONOTONIC. */
double clock_now(void);
/*
 * CPU seconds the calling thread has run (CLOCK_THREAD_CPUTIME_ID): set
 * against clock_now it tells running (or stalled) from descheduled.
 */
double clock_thread_cpu(void);
/*
 * CPU seconds the whole process has run, threads that have ended
 * included (CLOCK_PROCESS_CPUTIME_ID): for a body whose work runs in
 * threads it starts and joins.
 */
double clock_process_cpu(void);
/* Smallest step the clock shows, in seconds (STREAM's checktick, ours). */
double clock_granularity(void);
/*
 * Smallest step clock_thread_cpu shows, in seconds: the least change
 * seen over a few tries, each spinning until it changes. A kernel whose
 * scheduler clock counts ticks shows a tick (1-10 ms); otherwise it is
 * about the cost of one read. A share of a cpu taken over a stretch of
 * few such steps says nothing.
 */
double clock_thread_cpu_step(void);

#endif
