/* ai.h - what the files of atomic_increment share: its variants and params, its names, the counters' slots, the measurement and what a run says */
#ifndef NUMALAB_AI_H
#define NUMALAB_AI_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "contend.h"
#include "experiment.h"
#include "stats.h"

enum variant {
	V_ADD_FETCH,
	V_FETCH_ADD,
	V_CAS,
	V_C11_RELAXED,
	V_C11_SEQ_CST,
	V_LOCK_SKIP,
	V_PLAIN,
	V_PER_THREAD,
	NVARIANTS
};

/* in enum order: the choice's value indexes this table too
 * (names.c) */
extern const struct param_choice ai_variants[];

struct ai_params {
	unsigned variants; /* 1u << enum variant */
	struct int_list threads;
	int64_t increments;
};

#if defined(__x86_64__)
/* lock_skip jumps over the x86 lock prefix (loops.c) */
#define HAVE_LOCK_SKIP 1
#else
#define HAVE_LOCK_SKIP 0
#endif

/*
 * The names run and describe share, defined once: the charts, the
 * placement label of each team and the summary keys (the series are the
 * variants' own names, from the table above).
 */
#define AI_NS "ns"
#define AI_TIME "time"
#define AI_LOST "lost"

/* The placement label of a team, and the summary keys of thread count n
 * (names.c). */
void ai_label(char *buf, size_t len, int n, int v);
void key_ns(char *buf, size_t len, int v, int n);
void key_cas_over(char *buf, size_t len, int n);
void key_retries(char *buf, size_t len, int n);
void key_lost(char *buf, size_t len, int n);

/*
 * One slot per counter or per thread and round, CONTEND_APART bytes
 * apart: two 64-byte lines, because Intel's adjacent-line prefetcher
 * pulls lines in pairs and would make neighbouring slots share after all
 * (false_sharing and variable_layout keep their words as far apart).
 */
#define SLOT_BYTES CONTEND_APART
struct slot {
	uint64_t count;	  /* round's shared counter, or a per_thread counter */
	uint64_t retries; /* cas: failed compare-and-swaps of this thread */
	uint64_t rsum;	  /* add_fetch, fetch_add: sum of returned values */
	uint64_t runs;	  /* add_fetch, fetch_add: runs of consecutive values */
	double t0, t1;	  /* when this thread started and ended its loop */
	/*
	 * The cpu seconds the thread ran from just before t0 to just after
	 * t1, and the wall seconds of a stretch around both cpu readings:
	 * the cpu time falls inside the wall time it is set against.
	 */
	double cpu, wall;
	/*
	 * This thread's increments when it saw every thread of the team
	 * started, and when it saw the first one finished (or finished
	 * itself): what it did while all were in their loops, to a chunk
	 * (AI_MARK) at either end.
	 */
	uint64_t at_start, at_end;
	char pad[SLOT_BYTES - 6 * sizeof(uint64_t) - 4 * sizeof(double)];
};

/*
 * One per round, a slot apart from the counters: how many threads have
 * started their loop, and whether one has finished it.
 */
struct ai_flags {
	atomic_int started, ended;
	char pad[SLOT_BYTES - 2 * sizeof(atomic_int)];
};

struct ai_job {
	/*
	 * The variant of each arm: pair[0] alone, or two measured in turns
	 * round by round (arm_of, the harness's: each round's arm), so that
	 * a busy machine's drift weighs on both alike.
	 */
	enum variant pair[2];
	const int *arm_of;
	int nthreads, rounds;
	uint64_t incs;
	struct slot *shared; /* one per round: round r increments shared[r] */
	struct slot *mine;   /* per thread, rounds entries each */
	size_t mine_stride;  /* slots between two threads' first slots */
	struct ai_flags *flags; /* one per round */
	int multi;		/* lock_skip: more than one thread is running */
	double clock_step; /* the coarser step of the wall and cpu clocks */
};

/*
 * A share of a cpu is told only over a stretch of at least this many
 * steps of the clocks that time it: within 1% of a step either way.
 */
#define AI_CPU_STEPS 100

/*
 * The share of a cpu a thread got: cpu seconds read inside a stretch of
 * wall seconds, by clocks whose coarser step is step seconds. NaN when
 * the stretch is under AI_CPU_STEPS steps (or either is unknown): the
 * clocks cannot tell. Never over 1: cpu time past the wall time around
 * it is the clocks' steps, not the thread's.
 */
double ai_cpu_share(double cpu, double wall, double step);

/*
 * What the loops that use the returned values keep across the chunks of
 * one round: their sum, the runs so far and the last value.
 */
struct returned {
	uint64_t sum, runs, prev;
};

/*
 * A thread marks its progress (team_mark) once every this many
 * increments: a few hundred microseconds while contending, rare enough
 * not to change how the line travels.
 */
#define AI_MARK 16384

/* Runs variant v for n increments: one chunk of a thread's round
 * (loops.c). */
void ai_chunk(struct ai_job *j, enum variant v, struct slot *s, uint64_t *c,
	      uint64_t n, struct returned *ret);

struct measured {
	double ns, seconds, wall, lost, lost_max, final, retries, overlap, runs;
	double cpu_share, late, corun;
	/*
	 * The busiest and the least busy thread's share (0-1) of the
	 * increments made while every thread was in its loop: medians over
	 * the share_rounds rounds where that stretch held any (none with
	 * one thread).
	 */
	double share_most, share_least;
	int share_rounds;
	struct stats pairs; /* arm 0's per-pair ratio over arm 1 (n 0: none) */
};

/*
 * Runs nv variants (1, or 2 in turns: vs[0]'s rounds alternate with
 * vs[1]'s, ABBA) with n threads and emits their points, m[vs[i]] what
 * each measured (measure.c). Returns 0, -ECANCELED, -EIO when an atomic
 * variant lost updates, or -errno.
 */
int ai_measure(struct run_ctx *ctx, const enum variant *vs, int nv,
	       const int *cpus, int n, struct measured *m);

/* What a run showed (describe.c): the describe hook. */
void ai_describe(const struct run_result *r, struct verdict *v);

#endif
