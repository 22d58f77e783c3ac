/* team_gate.h - a round's start gate: the team's threads begin their timed work only once all are on their cpus at once */
#ifndef NUMALAB_TEAM_GATE_H
#define NUMALAB_TEAM_GATE_H

#include <stdatomic.h>

/*
 * A barrier is passed when the last thread arrives, whether or not the
 * others are still on their cpus: beside busy neighbours, a thread that
 * spun there has spent its slice, is taken off its cpu, and the last one
 * runs its round alone. A gate is passed only while every thread is at
 * it at once: a thread at the gate wakes the others and waits for them
 * on its cpu up to the gate's wait; if they do not all come, it steps
 * out and sleeps (a sleeper woken goes back on its cpu at once, where a
 * spinner waits out its neighbours' slices) until another thread comes
 * to the gate, or a wait is over, and comes back. Past its most, a
 * thread opens the gate for all: a round that cannot start together
 * starts apart, and is judged by what its marks saw.
 */
struct team_gate {
	_Alignas(128) atomic_uint word; /* threads at it; TEAM_GATE_OPEN */
	unsigned n;			/* the team's threads */
	double wait; /* seconds a thread waits for the rest on its cpu */
	double most; /* seconds a thread tries before it opens the gate */
};

/* The gate is open (passed together or forced): set in word. */
#define TEAM_GATE_OPEN (1u << 30)
/* It was forced open: not every thread was there at once. */
#define TEAM_GATE_FORCED (1u << 29)

/* What a thread spinning on a word does between two looks at it. */
static inline void team_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ volatile("yield");
#endif
}

/* A gate for n threads (n >= 1; 1 passes at once), closed. */
void team_gate_init(struct team_gate *g, unsigned n, double wait, double most);

/*
 * Closes it again for the next round: by one thread, while no thread is
 * at it (between the barriers around a round's end).
 */
void team_gate_close(struct team_gate *g);

/*
 * Waits at the gate until every thread of the team is at it at once, or
 * until this thread or another has tried for the gate's most. Returns 1
 * when the threads passed together, 0 when the gate was forced open.
 * Every thread that calls it returns; none waits for ever.
 */
int team_gate_pass(struct team_gate *g);

#endif
