/* estimate_now.h - a run's estimate for the machine as it is now: the cpus the run can get, and the rounds a busy machine adds */
#ifndef NUMALAB_ESTIMATE_NOW_H
#define NUMALAB_ESTIMATE_NOW_H

#include <stddef.h>
#include <stdint.h>

#include "descriptor.h"
#include "topo.h"

/* What the cpus this process may use are doing now. */
struct cpu_room {
	int cpus;	  /* the cpus this process may run on */
	double share;	  /* of a cpu each thread of the run would get: the
			     geometric middle of probe and minute */
	double probe;	  /* the share a probe says now: spinning threads', or
			     the ready threads' (passive) */
	double minute;	  /* the mean of the last minute's probes before this
			     one (-1: none) */
	int seen;	  /* how many probes that is */
	double ready;	  /* threads ready to run beside it (-1: probed) */
	double load;	  /* the 1-minute load average (-1: unknown) */
	double steal;	  /* share of the cpus' time the hypervisor took */
	double slowdown;  /* how much slower cpu-bound work runs now, >= 1 */
	double lockstep;  /* how much slower two threads that hand a line back
			     and forth advance now, >= 1 */
	double start_now; /* a worker's start now over the rates' start_s (1:
			     passive, or no worker) */
	double start;	  /* what the estimate takes of it: the middle of
			     start_now and slowdown, >= 1 (1: within noise) */
};

/*
 * Spins `want` threads (0: one a cpu this process may use), each pinned
 * to a cpu of its own as a run's team pins its threads, for 0.2 s and
 * takes the share of a cpu each got (after their first 50 ms): what
 * threads of a run would get now beside whatever else runs, at its weight
 * (nice), less what the hypervisor steals. That is a moment's: the share
 * taken is the geometric middle of it and the mean of the probes of the
 * last minute before it (estimate_history.h:
 * kept in a file beside the rates' for the CLI, in the process for a
 * server). The slowdown of cpu-bound work is its inverse.
 * Then starts numalab-worker 3 times (rates_start_now): its start now over
 * the rates' is the slowdown of a process's start and of whatever waits
 * and wakes, which a spinning thread's share misses; the estimate takes
 * the middle of it and the slowdown.
 * The lockstep slowdown, of two threads that hand a line back and forth, is
 * its square. A probe is reused for 5 s.
 */
void cpu_room_now(int want, struct cpu_room *r);

/*
 * On: cpu_room_now spins nothing, and takes the share from the threads
 * ready to run instead (/proc/stat's procs_running, read ten times over
 * 50 ms): a server, whose probe would take cpu from the run it serves
 * and count as its own. Blind to the others' weights (nice, cgroups).
 */
void cpu_room_passive(int on);

/*
 * The seconds of a run on a busy machine: its worker's start slowed by
 * slowdown, its work done once by the square root of it, either by
 * start_now instead where that is more (a worker's start now over the
 * rates'), and its rounds by per_round (slowdown, or the lockstep one),
 * then grown toward budget (seconds; 0: none) to the geometric middle of
 * the two. At slowdowns of 1 it is experiment_estimate's quiet estimate.
 */
double estimate_busy_s(double start, double fixed, double rounds, double budget,
		       double slowdown, double per_round, double start_now);

/*
 * experiment_estimate for the machine as it is now (cpu_room_now): on a
 * quiet one the same; on a busy one every round slower, and the rounds
 * grown into the run's whole budget (adaptive measurement keeps rounds
 * while a point's interval is wide, and a busy machine widens it).
 * basis (len bytes) says what it was made of. Returns as
 * experiment_estimate does.
 */
int experiment_estimate_now(const struct experiment *exp, const void *params,
			    const struct common_params *common,
			    const struct topo *t, double *seconds,
			    uint64_t *bytes, char *basis, size_t len);

#endif
