/* team.h - N pinned threads behind a barrier, and the one timing harness */
#ifndef NUMALAB_TEAM_H
#define NUMALAB_TEAM_H

#include <signal.h>

#include "adapt.h"
#include "sink.h"
#include "team_marks.h"
#include "topo.h"

/*
 * The measurement harness: every thread is created already pinned, calls
 * setup (first touch of its own data), then for each of warmup + repeat
 * rounds: barrier, clock, body, barrier, clock. Round times of the warmup
 * rounds are discarded. check runs once after timing, on thread 0.
 * Every thread also reads the clock right before and after its body, so
 * the harness can tell how much of a round all threads ran at once.
 * With adapt, each thread also reads its cpu time around its body: a
 * round where the threads ran apart or one was preempted is measured
 * again, and rounds follow the least until the stop rule is met.
 */
struct team_job {
	int nthreads;
	const int *cpus; /* one per thread; -1 = not pinned */
	void *arg;
	/* per-thread hooks; setup and check may be NULL */
	void (*setup)(void *arg, int tid);
	void (*body)(void *arg, int tid, int round);
	int (*check)(void *arg); /* 0 if results are right, -EIO if not */
	int warmup, repeat;
	volatile sig_atomic_t *cancel;
	/*
	 * Wait at the round barriers by spinning instead of sleeping: a
	 * sleeping thread needs a futex wake-up to start (about 3 us per
	 * round on the 2-CPU lab VM), which swamps rounds of a few
	 * microseconds. Every thread then needs a CPU of its own.
	 */
	int spin;
	/*
	 * The rules of the point (adapt.h): rounds kept, redone, and when
	 * to stop. NULL: exactly repeat rounds, none redone.
	 */
	const struct adapt_point *adapt;
	/*
	 * For a body that keeps something per round: the most rounds,
	 * warmup included, it may be called for (round < rounds_most). 0:
	 * any. At least warmup + repeat; a redo never costs the point its
	 * repeat rounds, so rounds_most = warmup + repeat runs exactly the
	 * rounds a plain run would (for bodies whose effects two teams
	 * compare).
	 */
	int rounds_most;
	/*
	 * Two things measured in turns (0 or 1: one). The rounds alternate
	 * between arm 0 and arm 1 in pairs, AB then BA (ABBA...), so that a
	 * machine drifting between rounds weighs on both alike; a redone
	 * round is measured again on its own arm. warmup and repeat count
	 * per arm, and the stop rule looks at the per-pair ratio (arm 0's
	 * time over arm 1's, adapt_enough_ratios) with complete pairs only.
	 * rounds_most, when set, counts the rounds of both arms.
	 */
	int arms;
	/*
	 * With arms: round r's arm, written by the harness into arm_of[r]
	 * before the round starts, for the body to read. It has rounds_most
	 * entries: both are required with arms.
	 */
	int *arm_of;
	/*
	 * The round's work, in the units the body passes to team_mark (its
	 * increments, say), when the body marks its progress; 0: it does not.
	 * With marks, a round's time is taken from the stretches of it every
	 * thread was on a cpu at once (team_corun): what other processes did
	 * to one thread's cpu is left out instead of averaged in, and such a
	 * round is not measured again for it. A round whose stretches are
	 * too short to time (TEAM_CORUN_LEAST) is judged
	 * as a round without marks. A single thread's marks leave out the
	 * time it was off its cpu the same way, and a round of one thread
	 * that is kept although it was preempted is timed by its cpu clock.
	 */
	double work;
	/*
	 * The body's work runs in threads it starts and joins (thread
	 * start): its marks and cpu reads take the whole process's cpu
	 * clock, which counts those threads, instead of the thread's own.
	 */
	int process_clock;
	/*
	 * Each round's timed work starts only once every thread is on its
	 * cpu at once (team_gate.h), up to TEAM_GATE_MOST (less when the
	 * point's deadline is nearer, TEAM_GATE_LEAST at least): for
	 * contention, where a thread that starts while a partner waits for its
	 * cpu runs alone. Beside busy neighbours each thread of
	 * atomic_increment did its round in one or two slices, 10-65 ms apart
	 * from its partner's, without it. A round is still timed as without it
	 * (the stretches, with work), should a thread be taken off its cpu
	 * after the start. The barriers then sleep (spin is left aside): a
	 * thread that spun out its partners' lateness has spent its share of
	 * its cpu, and is the first taken off it once the round starts (with
	 * spinning barriers, in 7 of 20 rounds that passed the gate together
	 * one thread was taken off its cpu at the start, for 0.7-8 ms). Threads
	 * pinned to one cpu take turns by design, and pass no gate.
	 */
	int together;
};

/* How long a thread waits at the gate on its cpu for the others, and
 * how long it tries before the round starts apart (team_job.together). */
#define TEAM_GATE_WAIT 0.3e-3
#define TEAM_GATE_MOST 0.25
/* the least it waits when the point's deadline is near or past */
#define TEAM_GATE_LEAST 0.02

struct team_result {
	int nthreads;
	struct thread_place *place; /* nthreads entries */
	double *seconds; /* repeat entries: wall time of each round */
	/*
	 * Per kept round: the share (0..1) of it during which every thread
	 * was inside its body and running at once: from the latest body
	 * start to the earliest body end, less the time any thread was
	 * descheduled in its body (with adapt), over the first start to the
	 * last end. 1 for one thread; near 0 when the threads took turns
	 * (other processes held the cpus, or one thread started late).
	 */
	double *overlap;
	/*
	 * Per kept round: the share of it every thread was on a cpu at once,
	 * from the marks (team_corun); the overlap when the body makes none.
	 */
	double *corun;
	/*
	 * Per kept round: its wall time, from thread 0's clock before the
	 * body to after the barrier that follows it: until the last thread
	 * finished, whatever else held the cpus meanwhile (the time a round
	 * is defined by where the stretches give seconds another one).
	 */
	double *wall;
	int stretched; /* kept rounds whose time came from those stretches */
	int *round; /* per kept round: the round number body was called with */
	int *arm;   /* per kept round: its arm (0 without arms) */
	int rounds; /* rounds kept (< repeat if cancelled) */
	/* rounds measured again: the threads ran apart, or one was preempted
	 */
	int redone_apart, redone_preempted;
	/* rounds after the warmup (kept or redone) that started apart: the
	 * gate was forced (team_job.together) */
	int started_apart;
	int check_rc;
};

/*
 * Runs the job. Returns 0, -ECANCELED, or -errno when threads cannot be
 * created or pinned (e.g. -EINVAL for a CPU outside the affinity mask,
 * or a rounds_most under (warmup + repeat) x arms).
 * res must be released with team_result_free.
 */
int team_run(const struct team_job *job, const struct topo *t,
	     struct team_result *res);
void team_result_free(struct team_result *res);
/* res's arrays for nthreads places and rounds rounds, zeroed: 0, or
 * -ENOMEM with res's arrays freed. */
int team_result_alloc(struct team_result *res, int nthreads, int rounds);

/*
 * The rounds of one arm of res, in order, as a result of their own in
 * out (the placement and the redone counts are the whole team's: the
 * two arms were redone together). Returns 0, or -ENOMEM with nothing to
 * release; out is released with team_result_free.
 */
int team_result_arm(const struct team_result *res, int arm,
		    struct team_result *out);

/*
 * The per-pair ratios of a result with two arms: for each complete pair
 * of kept rounds, arm 0's seconds over arm 1's, into ratio (res->rounds
 * / 2 entries). Returns how many.
 */
int team_result_ratios(const struct team_result *res, double *ratio);

/* One thread's body in one round: when it started and ended (clock_now)
 * and the cpu time it ran in between (-1: not read). */
struct team_span {
	double start, end, cpu;
};

/*
 * The share of round r that all n threads (span[i][r], thread i's) spent
 * in their bodies and running at once: the window every thread was
 * inside its body, less the part of it each was off the cpu (its share
 * of its body off the cpu, taken as spread evenly), over the first start
 * to the last end. 1 for one thread or empty bodies; 0 when the bodies
 * did not overlap at all.
 */
double team_overlap(const struct team_span *const *span, int n, int r);

/* The median of res->overlap (1 when no round completed). */
double team_overlap_median(const struct team_result *res);

/* The median of res->corun (1 when no round completed). */
double team_corun_median(const struct team_result *res);

/*
 * A round's stretches are long enough to time when they hold this many
 * whole slots, or half the round: the floor a figure stands on, a
 * duration rather than a share. Beside a neighbour that holds one
 * thread's cpu, the thread on the free cpu finishes its share early and
 * the two overlap for 0-9% of a round however long it is; a share floor
 * (10% was tried) disowned every contended round there, while the pace
 * from whole slots inside the stretches is unbiased at any share. A
 * round under the floor is measured again (its overlap is its share of
 * stretches) or, kept, judged by the rulebook's together floor.
 */
#define TEAM_CORUN_LEAST 8

/* The stretches of a round every thread was on a cpu at once. */
struct team_corun {
	double span;   /* the first body start to the last body end */
	double length; /* seconds every thread was on a cpu at once */
	double work;   /* the work the threads did in that time */
};

/*
 * From each of n threads' marks (stamp[i], nstamp[i] of them, the first
 * at its body's start, the last at its end): a slot between two marks
 * is on the cpu when the thread ran for at least TEAM_SLOT_ON_CPU of its
 * wall time and the slot before it was on the cpu too (after time off
 * it, a thread refills its caches first); the stretches are the times
 * every thread was in such a slot. Their work is each thread's pace in
 * the slots that lie wholly inside a stretch, times the stretches'
 * length, summed over the threads: a slot across a stretch's edge ran
 * partly beside a partner off its cpu, and would bring uncontended work
 * in (only a thread with no whole slot inside is taken from the part of
 * its slots inside, a slot's work spread evenly). Returns 0, or
 * -ENOMEM.
 */
int team_corun(const struct team_stamp *const *stamp, const int *nstamp, int n,
	       struct team_corun *out);

/* Fills place for cpu/observed cpu from the topology. */
void team_describe(const struct topo *t, int thread, int requested,
		   int observed, struct thread_place *place);

#endif
