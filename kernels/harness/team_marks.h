/* team_marks.h - a team thread's progress marks: team_mark for bodies, and the log it fills, its slots and clocks for the team */
#ifndef NUMALAB_TEAM_MARKS_H
#define NUMALAB_TEAM_MARKS_H

#include <stdint.h>

/*
 * Called by a body with team_job.work every few tens of microseconds or
 * more (every few thousand of its operations): the work this thread has
 * done so far this round, in the job's units (0 from a thread whose work
 * is not the round's, such as a partner that only keeps a line busy).
 * Marks change what the loop does: one every 1-5 us made false
 * sharing's shared line 20-30% slower, one every 6 us an L2-sized write
 * loop 18% slower, so bodies mark every 20-200 us. Once a slot of
 * TEAM_SLOT_CLOCKS reads of the cpu clock's cost is over, a mark notes
 * the wall clock, the work and the thread's cpu time. Does nothing
 * outside a team with work.
 */
void team_mark(double work);

/* One mark: when, the thread's work so far, and its cpu time then. */
struct team_stamp {
	double t, work, cpu;
};

/* A slot is this many times as long as a read of the cpu clock. */
#define TEAM_SLOT_CLOCKS 100
/*
 * A slot is on the cpu when the thread ran for this share of its wall
 * time: a partner off its cpu for the rest let the others run alone.
 */
#define TEAM_SLOT_ON_CPU 0.97

/*
 * One thread's marks in the round under way (team_mark), in lines of its
 * own: the threads write them while they contend for other lines.
 */
struct stamp_log {
	_Alignas(128) struct team_stamp *v;
	int n, cap;
	double slot;		   /* seconds between cpu clock reads */
	double rate;		   /* tick()s a second */
	uint64_t next;		   /* tick() of the next read */
	double work;		   /* the last work marked */
	double (*cpu_clock)(void); /* the thread's, or the process's */
};

/*
 * What one read of the cpu clock costs here, measured once: the least of
 * a few reads, so that a read the scheduler interrupted does not count.
 */
double team_cpu_clock_cost(void);

/* Starts the calling thread's log for a round: its first mark is the
 * body's start; team_mark fills it in slots of slot seconds. */
void stamp_log_start(struct stamp_log *l, double slot);
/* Ends it: the last mark is the body's end, with the last work marked. */
void stamp_log_end(struct stamp_log *l);

/*
 * A log for each of n threads (the process's cpu clock with
 * process_clock, else each thread's), and into *slot the seconds its
 * slots start at. NULL when memory ran out.
 */
struct stamp_log *stamp_logs_alloc(int n, int process_clock, double *slot);
void stamp_logs_free(struct stamp_log *logs, int n);

#endif
