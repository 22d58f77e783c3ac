/* estimate_now.c - a run's estimate for the machine as it is now: the cpus the run can get, and the rounds a busy machine adds */
#define _GNU_SOURCE
#include "estimate_now.h"
#include "adapt.h"
#include "clock.h"
#include "experiment.h"
#include "rates.h"

#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/*
 * How long each probe thread spins, and how much of it is left out first:
 * a new thread waits its turn behind those already queued (the scheduler
 * starts it a slice late), which a run's long-lived threads do only once.
 */
#define PROBE_S 0.2
#define PROBE_SKIP_S 0.05
/* slower than this is a busy machine: its rounds grow into the budget */
#define BUSY 1.15
/* a probe is reused this long: a server asked for many estimates at once
 * probes once */
#define KEEP_S 5.0
#define PROBES_MAX 64

/* The total and steal ticks of /proc/stat's "cpu" line. */
static int read_steal(unsigned long long *total, unsigned long long *steal)
{
	FILE *f = fopen("/proc/stat", "re");
	unsigned long long v[8];
	int ok;

	if (!f)
		return -1;
	ok = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0],
		    &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]) == 8;
	fclose(f);
	if (!ok)
		return -1;
	*total = 0;
	for (int i = 0; i < 8; i++)
		*total += v[i];
	*steal = v[7];
	return 0;
}

/* One probe thread: where it spins (-1: anywhere), and the share it got. */
struct probe_arg {
	int cpu;
	double share;
};

/* One probe: spins PROBE_S of wall time on its cpu; its share is the cpu
 * time it got over the wall time after the first PROBE_SKIP_S. */
static void *probe(void *arg)
{
	struct probe_arg *pa = arg;
	double *share = &pa->share, start, t0, c0, t;

	if (pa->cpu >= 0) {
		cpu_set_t one;
		CPU_ZERO(&one);
		CPU_SET(pa->cpu, &one);
		pthread_setaffinity_np(pthread_self(), sizeof(one), &one);
	}
	start = clock_now();

	while ((t0 = clock_now()) - start < PROBE_SKIP_S)
		;
	c0 = clock_thread_cpu();
	while ((t = clock_now()) - start < PROBE_S)
		;
	*share = (clock_thread_cpu() - c0) / (t - t0);
	return NULL;
}

/*
 * The share of a cpu each of n spinning threads gets now (0 when it
 * cannot be told), each on a cpu of its own of those in set, as a run's
 * team pins its threads: unpinned, new threads start on their parent's
 * cpu and two of them shared one beside a spinner on each of 2 cpus
 * (21-41% where the run's pinned threads got 50%).
 */
static double measure_share(int n, const cpu_set_t *set)
{
	pthread_t th[PROBES_MAX];
	struct probe_arg pa[PROBES_MAX];
	double sum = 0;
	int started = 0, cpu = -1;

	for (int i = 0; i < n; i++) {
		do
			cpu++;
		while (cpu < CPU_SETSIZE && !CPU_ISSET(cpu, set));
		pa[i].cpu = cpu < CPU_SETSIZE ? cpu : -1;
		pa[i].share = 0;
		if (!pthread_create(&th[i], NULL, probe, &pa[i]))
			started++;
		else
			break;
	}
	for (int i = 0; i < started; i++) {
		pthread_join(th[i], NULL);
		sum += pa[i].share;
	}
	return started ? sum / started : 0;
}

static int passive;

void cpu_room_passive(int on)
{
	__atomic_store_n(&passive, on, __ATOMIC_RELAXED);
}

/* The threads ready to run beside this one (procs_running less this
 * one), averaged over ~50 ms of sleeping reads; -1 when not readable. */
static double ready_threads(void)
{
	double sum = 0, run;
	char line[256];
	int n = 0;

	for (int i = 0; i < 10; i++) {
		FILE *f = fopen("/proc/stat", "re");
		if (!f)
			return -1;
		while (fgets(line, sizeof(line), f))
			if (sscanf(line, "procs_running %lf", &run) == 1) {
				sum += run - 1;
				n++;
			}
		fclose(f);
		nanosleep(&(struct timespec){0, 5000000L}, NULL);
	}
	return n ? sum / n : -1;
}

/* The share of a cpu each of `want` threads would get beside `ready`
 * others on cpus less what is stolen. */
static double share_of(double ready, int want, int cpus, double steal)
{
	double avail = cpus * (1 - steal);

	if (ready < 0)
		return 0;
	return ready + want > avail ? avail / (ready + want) : 1;
}

void cpu_room_now(int want, struct cpu_room *r)
{
	static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
	static double at = -1, share, steal, ready, start_now;
	static int probed;
	cpu_set_t set;
	double now, load[1];
	int pas = __atomic_load_n(&passive, __ATOMIC_RELAXED);

	memset(r, 0, sizeof(*r));
	if (sched_getaffinity(0, sizeof(set), &set)) {
		CPU_ZERO(&set);
		r->cpus = 1;
	} else {
		r->cpus = CPU_COUNT(&set);
	}
	r->slowdown = 1;
	r->start = 1;
	r->ready = -1;
	if (want <= 0 || want > r->cpus)
		want = r->cpus;
	if (want > PROBES_MAX)
		want = PROBES_MAX;
	r->load = getloadavg(load, 1) == 1 ? load[0] : -1;
	now = clock_now();
	pthread_mutex_lock(&mu);
	if (at < 0 || now - at > KEEP_S || probed != want * (pas ? -1 : 1)) {
		unsigned long long t0, s0, t1, s1;
		int have = !read_steal(&t0, &s0);
		ready = pas ? ready_threads() : -1;
		share = pas ? 1 : measure_share(want, &set);
		steal = have && !read_steal(&t1, &s1) && t1 > t0
				? (double)(s1 - s0) / (double)(t1 - t0)
				: 0;
		if (pas)
			share = share_of(ready, want, r->cpus, steal);
		/* a server starts no worker beside the runs it serves */
		start_now = pas ? -1 : rates_start_now();
		probed = want * (pas ? -1 : 1);
		at = clock_now();
	}
	r->share = share;
	r->steal = steal;
	r->ready = ready;
	r->start = start_now > 0 ? start_now / rates_get()->start_s : 1;
	pthread_mutex_unlock(&mu);
	/* a start within noise of the rates' is the rates' */
	if (!(r->start >= BUSY))
		r->start = 1;
	if (r->share > 0 && r->share < 1)
		r->slowdown = 1 / (r->share < 0.02 ? 0.02 : r->share);
	/*
	 * Two threads that need each other advance only while both are on a
	 * cpu: each for its share of the time, so at about the square of one
	 * thread's share (core_to_core beside a load of 10 on 2 cpus: 30x
	 * slower at a share of 19%). A probe of its own handing a line back
	 * and forth read 200-800x there: its threads, unlike a team's,
	 * never sleep and wake together.
	 */
	r->lockstep = r->slowdown * r->slowdown;
}

/* A round trip now over the rates' (1 when either is unknown, or when
 * passive); one measurement is reused for KEEP_S, as the probe is. */
static double trip_now(const struct topo *t)
{
	static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
	static double at = -1, ratio = 1;
	double rtt = rates_get()->rtt_ns * 1e-9, now;

	/* a server spins nothing beside the runs it serves */
	if (__atomic_load_n(&passive, __ATOMIC_RELAXED))
		return 1;
	pthread_mutex_lock(&mu);
	now = clock_now();
	if (at < 0 || now - at > KEEP_S) {
		double s = rates_round_trip_now(t);
		ratio = s > 0 && rtt > 0 ? s / rtt : 1;
		at = clock_now();
	}
	pthread_mutex_unlock(&mu);
	return ratio;
}

/* How the share was found, for the basis. */
static void how(const struct cpu_room *r, char *buf, size_t len)
{
	if (r->ready >= 0)
		snprintf(buf, len,
			 "from the %.1f threads ready to run, "
			 "load average %.1f on %d cpus, %.0f%% stolen",
			 r->ready, r->load, r->cpus, 100 * r->steal);
	else
		snprintf(buf, len,
			 "a spinning thread's, load average %.1f on %d cpus, "
			 "%.0f%% stolen",
			 r->load, r->cpus, 100 * r->steal);
}

double estimate_busy_s(double start, double fixed, double rounds, double budget,
		       double slowdown, double per_round, double start_now)
{
	double slow = rounds * per_round;
	double full = budget > slow ? sqrt(slow * budget) : slow;
	double once = sqrt(slowdown);

	return start * (start_now > slowdown ? start_now : slowdown) +
	       fixed * (start_now > once ? start_now : once) + full;
}

/* What the estimate was made of, into basis (the API keeps 256 bytes):
 * the worker's start, how busy the machine is, and on a busy one what
 * that did to the run (times its quiet estimate; lock: its rounds). */
static void say_basis(char *basis, size_t len, const struct cpu_room *r,
		      int busy, double times, const char *lock)
{
	double start = rates_get()->start_s * 1e3;
	char h[160], st[64];

	how(r, h, sizeof(h));
	if (r->start > 1)
		snprintf(st, sizeof(st), "a worker's start %.1f ms, %.1f now",
			 start, start * r->start);
	else
		snprintf(st, sizeof(st), "a worker's start %.1f ms", start);
	if (!busy)
		snprintf(basis, len,
			 "the rates measured here (%s); the machine is quiet "
			 "now: a thread of the run would get %.0f%% of a cpu "
			 "(%s)",
			 st, 100 * r->share, h);
	else
		snprintf(basis, len,
			 "the rates measured here (%s); busy now: a thread of "
			 "the run would get %.0f%% of a cpu (%s), so the run "
			 "%.1fx its quiet estimate%s",
			 st, 100 * r->share, h, times, lock);
}

int experiment_estimate_now(const struct experiment *exp, const void *params,
			    const struct common_params *common,
			    const struct topo *t, double *seconds,
			    uint64_t *bytes, char *basis, size_t len)
{
	struct common_params least_p = *common;
	struct cpu_room room;
	double least = 0, start = rates_get()->start_s, body, fixed, rounds,
	       per_round, budget, quiet;
	uint64_t b;
	char lock[96] = "";
	int rc = experiment_estimate(exp, params, common, t, seconds, bytes);

	if (rc)
		return rc;
	cpu_room_now((int)common->cpus.n, &room);
	/* the rounds' slowdown: a lockstep experiment's hand-offs, and the
	 * round trip between its cpus now over the rates' (a VM's two cpus
	 * sat 52 ns apart at the calibration and 330 ns a minute later) */
	per_round = exp->lockstep && room.lockstep > room.slowdown
			    ? room.lockstep
			    : room.slowdown;
	if (exp->lockstep)
		per_round *= trip_now(t);
	if (per_round < BUSY && room.start < BUSY) {
		say_basis(basis, len, &room, 0, 1, "");
		return 0;
	}
	least_p.budget = 0;
	experiment_estimate(exp, params, &least_p, t, &least, &b);
	body = least - start;
	if (body < 0)
		body = 0;
	/*
	 * The rates are the machine's own (rates.c times them on the cpu's
	 * clocks), so the run waits its turn for a cpu now: the worker's
	 * start and the rounds fully. The work done once (allocating,
	 * touching, forking, sleeping while threads move) partly: by the
	 * square root, the middle of not at all and fully (affinity's, mostly
	 * such work, took 2.3x beside a probe's 9x; memory_policy_semantics's
	 * 4-5x beside 4-10x). A worker started now says more of both than
	 * the probe where it waited longer: each of its wake-ups waits for a
	 * cpu that a spinning thread, even at nice 19, holds for its slice
	 * (memory_policy_semantics took 1.3x beside two such spinners, whose
	 * probe said 1.03x; the start 1.5x). The rounds then grow, while a
	 * point's interval is wide, into the budget, a deadline on the wall
	 * clock set from the machine's own rates: slowed rounds that already
	 * pass it add none, others stop between their least and the budget.
	 * Their geometric middle, as experiment_estimate takes on a quiet
	 * machine (where this is the same at a slowdown of 1).
	 */
	/* the basis fits the API's 256 bytes: a lockstep run's rounds, past
	 * the budget at once, say their own slowdown instead of the growth */
	fixed = body * exp->fixed_share;
	rounds = body - fixed;
	budget = rounds > 0 ? adapt_budget(common, rounds, 0) : 0;
	if (per_round > room.slowdown)
		snprintf(lock, sizeof(lock), ", its rounds %.0fx (lockstep)",
			 per_round);
	else if (budget > rounds * per_round)
		snprintf(lock, sizeof(lock),
			 ", its rounds grown toward the budget");
	quiet = *seconds;
	*seconds = estimate_busy_s(start, fixed, rounds, budget, room.slowdown,
				   per_round, room.start);
	/* what the sentence says is what the estimate did: the whole run
	 * over the quiet estimate, not the cpu share's slowdown alone (the
	 * work done once grows less, the rounds may grow more) */
	say_basis(basis, len, &room, 1, quiet > 0 ? *seconds / quiet : 1, lock);
	return 0;
}
