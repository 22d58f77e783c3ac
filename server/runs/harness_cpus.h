/* harness_cpus.h - the server's threads kept off the CPUs a run measures on */
#ifndef NUMALAB_HARNESS_CPUS_H
#define NUMALAB_HARNESS_CPUS_H

#include <sched.h> /* cpu_set_t: the includer defines _GNU_SOURCE */
#include <stdint.h>

/*
 * While a run measures on some of the CPUs the server may use (the ones
 * it names in its "cpus" param, or those its last point ran on), every
 * server thread (runner, listener, each connection's) moves to the others,
 * so streaming a point never takes a measured CPU from the kernel and a
 * woken thread never waits behind it. A run on every CPU leaves them
 * where they are, there is nowhere else to go, and they yield to it
 * instead: SCHED_BATCH, so that a server thread woken (a batch of events
 * to store and send, a request) never preempts one of the run's threads
 * on the spot; it runs when a CPU is free or the running thread's slice
 * is over, and then finds more to do at once. A server started under
 * another policy than SCHED_OTHER (chrt, a real-time one) is left as it is.
 */
/*
 * And while they yield, a batch of events waits this long for those that
 * follow (not WORKER_BATCH_MS): the runner and the viewers' threads wake
 * a tenth as often while the run times, and a chart follows it 10 ms
 * late at most.
 */
#define HARNESS_YIELD_BATCH_MS 10

struct harness_cpus {
	cpu_set_t all; /* the server's mask at start: the worker gets it back */
	cpu_set_t now; /* what its threads were last given */
	int moved;
	int policy;  /* the server's policy at start: the worker gets it back */
	int yielded; /* its threads are SCHED_BATCH (policy SCHED_OTHER) */
};

/* Records the mask the server started with. 0 or -errno. */
int harness_cpus_init(struct harness_cpus *h);
/*
 * cpus: a run's "cpus" value ("0,2-3"); NULL, empty or unparsable:
 * every thread back on the starting mask (where the last run, ended
 * with another queued, may have left them). Returns the number of
 * threads moved (0 when nothing is left for them).
 */
int harness_cpus_avoid(struct harness_cpus *h, const char *cpus);
/*
 * The same for a list (the CPUs of one point, from its placement event).
 * A list that leaves no CPU free puts every thread back and yields.
 */
int harness_cpus_avoid_list(struct harness_cpus *h, const int32_t *cpus, int n);
/* Every thread back on the starting mask and policy. */
void harness_cpus_restore(struct harness_cpus *h);
/* The policy a worker started now should take (sched_setscheduler), or
 * -1 when it inherits the right one from the thread that starts it. */
int harness_cpus_worker_policy(const struct harness_cpus *h);

#endif
