/* estimate_now.c - a run's estimate for the machine as it is now: the cpus the run can get, and the rounds a busy machine adds */
#define _GNU_SOURCE
#include "estimate_now.h"
#include "adapt.h"
#include "clock.h"
#include "estimate_history.h"
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

/* The ticks of /proc/stat's "cpu" line: all, and stolen. */
struct cpu_ticks {
	unsigned long long total, steal;
};

static int read_ticks(struct cpu_ticks *c)
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
	c->total = 0;
	for (int i = 0; i < 8; i++)
		c->total += v[i];
	c->steal = v[7];
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
	static double at = -1, share, steal, ready, start_now, mean;
	static int probed, seen;
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
		struct cpu_ticks c0, c1;
		int have = !read_ticks(&c0);
		char path[4096];
		struct timespec wall;
		ready = pas ? ready_threads() : -1;
		share = pas ? 1 : measure_share(want, &set);
		steal = have && !read_ticks(&c1) && c1.total > c0.total
				? (double)(c1.steal - c0.steal) /
					  (double)(c1.total - c0.total)
				: 0;
		if (pas)
			share = share_of(ready, want, r->cpus, steal);
		/* a server starts no worker beside the runs it serves */
		start_now = pas ? -1 : rates_start_now();
		probed = want * (pas ? -1 : 1);
		at = clock_now();
		/* the minute's probes: a server keeps its own, the CLI's
		 * are kept in a file between its estimates */
		clock_gettime(CLOCK_REALTIME, &wall);
		if (!pas)
			room_default_path(path, sizeof(path));
		mean = room_history(pas ? NULL : path,
				    (double)wall.tv_sec + wall.tv_nsec * 1e-9,
				    probed, share, &seen);
	}
	r->probe = share;
	r->seen = seen;
	r->minute = mean;
	r->steal = steal;
	r->ready = ready;
	r->start_now = start_now > 0 ? start_now / rates_get()->start_s : 1;
	/*
	 * A probe is a moment's, and the load of a shared machine moves by
	 * seconds: beside bursts of 0.05-0.8 s a probe read 21-83% within a
	 * minute while the runs after it took about half a cpu. The share
	 * is the geometric middle of this probe's and the mean of the others
	 * of the last minute (this one's alone where there are none): half
	 * the way to a new load at once, where the mean alone was held by
	 * a minute of quiet probes (82% where the probe read 22%, and the
	 * run took 3x). The load average, in the basis, is no stand-in: it
	 * counts the runs just before this one (back to back they kept it
	 * near 2.5 where the probes and the runs found the machine quiet)
	 * and misses the short-lived processes of a build, which took 80%
	 * of the cpu where it read 5.
	 */
	r->share = mean > 0 && share > 0 ? sqrt(share * mean) : share;
	pthread_mutex_unlock(&mu);
	if (r->share > 0 && r->share < 1)
		r->slowdown = 1 / (r->share < 0.02 ? 0.02 : r->share);
	/*
	 * Three starts are a moment's too (4.3 to 59.9 ms within a minute
	 * at a load of 5; affinity, mostly work done once, took 4.6x its
	 * quiet time where a start now 12x the rates' made its estimate
	 * 9.7x): the start that counts is the middle of it and the
	 * slowdown. A start within noise of the rates' is the rates'.
	 */
	if (r->start_now >= BUSY)
		r->start = sqrt(r->start_now * r->slowdown);
	if (!(r->start >= BUSY))
		r->start = 1;
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
 * passive), and in *paced the wall time a lockstep team took a trip now
 * over its low window (its gates and waits for a cpu; 1 when unknown);
 * one measurement is reused for KEEP_S, as the probe is. */
static double trip_now(const struct topo *t, double *paced)
{
	static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
	static double at = -1, ratio = 1, pace = 1;
	double rtt = rates_get()->rtt_ns * 1e-9, now;

	*paced = 1;
	/* a server spins nothing beside the runs it serves */
	if (__atomic_load_n(&passive, __ATOMIC_RELAXED))
		return 1;
	pthread_mutex_lock(&mu);
	now = clock_now();
	if (at < 0 || now - at > KEEP_S) {
		double w, s = rates_round_trip_now(t, &w);
		ratio = s > 0 && rtt > 0 ? s / rtt : 1;
		pace = s > 0 && w > s ? w / s : 1;
		at = clock_now();
	}
	*paced = pace;
	pthread_mutex_unlock(&mu);
	return ratio;
}

/*
 * Whether a rate now, over the rates', is one to estimate with: dearer
 * than noise (1.15x), and never cheaper. Rates that read a bounce dearer
 * than it is now also gave the run its budget (3x its own estimate), and
 * a run grows into it as soon as its intervals are wide: beside nice-19
 * spinners, whose calibration read a bounce 2.5x, false_sharing took 4x
 * its least, where the bounce now made its estimate 0.34x the run.
 */
static int moved(double ratio)
{
	return ratio >= BUSY;
}

/*
 * The rates with those of a line two threads fight for measured now
 * (rates_contended_now) into *now where they moved; returns such a rate
 * now over the rates' (a plain write's where both moved; 1 where neither
 * did, or neither was measured: passive, one cpu). Reused for KEEP_S, as
 * the probe is. On an idle 2-vCPU guest one calibration read 5.0 ns a
 * bounce and one ten minutes later 1.0 (where the host put the vCPUs,
 * most likely), and false_sharing's run took 10.9 s and 2.2 s.
 */
static double line_now(const struct topo *t, struct rates *now)
{
	static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
	static double at = -1, bounce = -1, atomic = -1;
	const struct rates *r = rates_get();
	double ratio = 1, tnow;

	*now = *r;
	if (__atomic_load_n(&passive, __ATOMIC_RELAXED))
		return 1;
	pthread_mutex_lock(&mu);
	tnow = clock_now();
	if (at < 0 || tnow - at > KEEP_S) {
		struct rates m = *r;
		int ok = rates_contended_now(t, &m) == 0;
		bounce = ok ? m.bounce_ns : -1;
		atomic = ok ? m.atomic_shared_ns : -1;
		at = clock_now();
	}
	if (atomic > 0 && r->atomic_shared_ns > 0 &&
	    moved(atomic / r->atomic_shared_ns)) {
		now->atomic_shared_ns = atomic;
		ratio = atomic / r->atomic_shared_ns;
	}
	/* the plain writes' say it where both moved */
	if (bounce > 0 && r->bounce_ns > 0 && moved(bounce / r->bounce_ns)) {
		now->bounce_ns = bounce;
		ratio = bounce / r->bounce_ns;
	}
	pthread_mutex_unlock(&mu);
	return ratio;
}

/* How the share was found, for the basis: the probe's now, the mean of
 * the minute's probes where there were others, the load average, and the
 * stolen share where there is any. */
static void how(const struct cpu_room *r, char *buf, size_t len)
{
	char probe[64], minute[64] = "", stolen[24] = "";

	if (r->ready >= 0)
		snprintf(probe, sizeof(probe),
			 "from the %.1f threads ready to run: %.0f%%", r->ready,
			 100 * r->probe);
	else
		snprintf(probe, sizeof(probe), "spinning: %.0f%%",
			 100 * r->probe);
	if (r->seen > 0)
		snprintf(minute, sizeof(minute),
			 ", %.0f%% over the last minute's %d probe%s",
			 100 * r->minute, r->seen, r->seen == 1 ? "" : "s");
	if (r->steal >= 0.01)
		snprintf(stolen, sizeof(stolen), ", %.0f%% stolen",
			 100 * r->steal);
	snprintf(buf, len, "%s%s; load average %.1f on %d cpus%s", probe,
		 minute, r->load, r->cpus, stolen);
}

double estimate_busy_s(double start, double fixed, double rounds, double budget,
		       double slowdown, double per_round, double start_now)
{
	/* rounds faster than the rates' (a lockstep run's round trips
	 * shorter now) grow as a quiet run's do, to the middle of their
	 * least and 3x: the budget was set from the rates' */
	double slow = rounds * per_round, from = slow > rounds ? slow : rounds;
	double full = budget > from ? slow * sqrt(budget / from) : slow;
	double once = sqrt(slowdown);

	return start * (start_now > slowdown ? start_now : slowdown) +
	       fixed * (start_now > once ? start_now : once) + full;
}

/* What the estimate was made of, into basis (the API keeps 256 bytes):
 * the worker's start, a line two threads share now over the rates' where
 * that moved the estimate (line; 1: not), how busy the machine is, and on
 * a busy one what that did to the run (times its quiet estimate; lock:
 * its rounds). */
static void say_basis(char *basis, size_t len, const struct cpu_room *r,
		      int busy, double times, const char *lock, double line)
{
	double start = rates_get()->start_s * 1e3;
	char h[160], st[96], ln[32] = "", said[80];

	/* which rates: measured here, this machine's for a topology file's,
	 * or (some) built-in guesses */
	rates_said(said, sizeof(said));
	how(r, h, sizeof(h));
	if (line != 1)
		snprintf(ln, sizeof(ln), "; a shared line %.*fx now",
			 line < 0.1  ? 2
			 : line < 10 ? 1
				     : 0,
			 line);
	if (r->start_now >= BUSY)
		snprintf(st, sizeof(st), "a worker's start %.1f ms, %.1f now%s",
			 start, start * r->start_now, ln);
	else
		snprintf(st, sizeof(st), "a worker's start %.1f ms%s", start,
			 ln);
	if (!busy && !*lock)
		snprintf(basis, len,
			 "%s (%s); the machine is quiet "
			 "now: a thread of the run would get %.0f%% of a cpu "
			 "(%s)",
			 said, st, 100 * r->share, h);
	else if (!busy)
		snprintf(basis, len,
			 "%s (%s); quiet now: a thread of "
			 "the run would get %.0f%% of a cpu (%s), so the run "
			 "%.1fx its quiet estimate%s",
			 said, st, 100 * r->share, h, times, lock);
	else
		snprintf(basis, len,
			 "%s (%s); busy now: a thread of "
			 "the run would get %.0f%% of a cpu (%s), so the run "
			 "%.1fx its quiet estimate%s",
			 said, st, 100 * r->share, h, times, lock);
}

static int estimate_now_in(const struct experiment *exp, const void *params,
			   const struct common_params *common,
			   const struct topo *t, double *seconds,
			   uint64_t *bytes, char *basis, size_t len,
			   double line, double budget_rounds)
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
	if (exp->lockstep) {
		double paced, ratio = trip_now(t, &paced);
		/*
		 * On a busy machine, a lockstep team's rounds as paced now
		 * where that is slower than the square: each round's gate
		 * wakes threads whose cpus others hold for a slice
		 * (core_to_core beside a nice-0 spinner on each of 2 cpus
		 * took 20-30x its quiet time at a share of 47%: 402 gates
		 * of 55 us of trips each). The pace of a few ms of trips is
		 * a moment's too (30x where the run took 7x): the middle of
		 * the two.
		 */
		if (room.slowdown >= BUSY && paced > per_round)
			per_round = sqrt(paced * per_round);
		per_round *= ratio;
	}
	/* quiet, and a lockstep run's round trips within noise of the
	 * rates' (the calibration's read 292 ns, a run's 55-92 minutes
	 * later: core_to_core's quiet estimate was 5x the run) */
	if (per_round < BUSY && per_round > 1 / BUSY && room.slowdown < BUSY &&
	    room.start < BUSY && line == 1) {
		say_basis(basis, len, &room, 0, 1, "", line);
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
	budget = rounds > 0 ? adapt_budget(common,
					   budget_rounds > 0 ? budget_rounds
							     : rounds,
					   0)
			    : 0;
	if (exp->lockstep && fabs(per_round / room.slowdown - 1) > 0.05)
		snprintf(lock, sizeof(lock), ", its rounds %.*fx (lockstep)",
			 per_round < 10 ? 1 : 0, per_round);
	else if (budget > rounds * per_round &&
		 (room.slowdown >= BUSY || room.start >= BUSY))
		snprintf(lock, sizeof(lock),
			 ", its rounds grown to the budget");
	quiet = *seconds;
	*seconds = estimate_busy_s(start, fixed, rounds, budget, room.slowdown,
				   per_round, room.start);
	/* what the sentence says is what the estimate did: the whole run
	 * over the quiet estimate, not the cpu share's slowdown alone (the
	 * work done once grows less, the rounds may grow more) */
	say_basis(basis, len, &room,
		  room.slowdown >= BUSY || room.start >= BUSY,
		  quiet > 0 ? *seconds / quiet : 1, lock, line);
	return 0;
}

int experiment_estimate_now(const struct experiment *exp, const void *params,
			    const struct common_params *common,
			    const struct topo *t, double *seconds,
			    uint64_t *bytes, char *basis, size_t len)
{
	struct common_params least_p = *common;
	struct cpu_room room;
	struct rates now;
	double line = 1, rates_s = 0, least = 0, budget_rounds = -1;
	uint64_t b;
	int rc;

	/*
	 * With a line two threads share costing what it costs now, where
	 * that moved it: a run of an experiment that bounces none is
	 * estimated as before, and says nothing of the line. On a quiet
	 * machine only: beside a spinner on each cpu the two threads of the
	 * measurement seldom ran together, and it read 4x the bounce the
	 * calibration had read beside the same spinners (false_sharing then
	 * 2.2-2.6x its run, the cpu's share counted twice).
	 */
	cpu_room_now((int)common->cpus.n, &room);
	if (room.slowdown < BUSY && room.start < BUSY)
		line = line_now(t, &now);
	if (line != 1 &&
	    experiment_estimate(exp, params, common, t, &rates_s, &b) == 0) {
		double now_s = 0;
		/*
		 * The run grows its rounds into a budget it sets from its
		 * own estimate, the rates' (experiment_run.c): that budget
		 * stays, whatever the line costs now. Rates taken beside
		 * nice-19 spinners read the bounce 2.5x, and a run beside
		 * them grew into that budget (5.4 s, 4x its least).
		 */
		least_p.budget = 0;
		if (!experiment_estimate(exp, params, &least_p, t, &least, &b))
			budget_rounds = (least - rates_get()->start_s) *
					(1 - exp->fixed_share);
		rates_use_here(&now);
		if (experiment_estimate(exp, params, common, t, &now_s, &b) ||
		    fabs(now_s - rates_s) <= 0.05 * rates_s)
			line = 1;
		rates_use_here(NULL);
	}
	if (line != 1)
		rates_use_here(&now);
	rc = estimate_now_in(exp, params, common, t, seconds, bytes, basis, len,
			     line, line != 1 ? budget_rounds : -1);
	rates_use_here(NULL);
	return rc;
}
