/* team.c - N pinned threads behind a barrier: the one timing harness */
#define _GNU_SOURCE
#include "team.h"
#include "cancel.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "team_gate.h"

/* A sense-reversing barrier that spins: for team_job.spin */
struct spin_barrier {
	atomic_uint count;
	atomic_uint gen;
	unsigned n;
};

struct team {
	const struct team_job *job;
	pthread_barrier_t bar;
	struct spin_barrier sbar;
	int capacity;	/* rounds it may run, warmup included */
	int arms;	/* 1, or 2: job->arms */
	int warmup;	/* rounds discarded: job->warmup per arm */
	int least;	/* rounds kept at the least: job->repeat per arm */
	double *ratios; /* with two arms: scratch for the per-pair ratios */
	int adapt;	/* job->adapt: threads may read their cpu time */
	/* two threads pinned to one cpu: they take turns by design, so no
	 * round is redone for it */
	int clean; /* rounds neither apart nor preempted */
	int crowded;
	int together; /* job->together, unless crowded */
	/*
	 * The threads read their cpu time around the body this round:
	 * written by thread 0 between barriers (see CPU_CLOCK_ROUNDS).
	 */
	volatile int cpu_clock;
	volatile int stop; /* written by thread 0 between barriers only */
	int cancelled;	   /* stopped by job->cancel, written by thread 0 */
	pthread_mutex_t gate_lock; /* start gate: all created, or abort */
	pthread_cond_t gate_cond;
	int gate; /* 0 wait, 1 go, -1 abort */
	/* the rounds kept, written by thread 0: res's arrays */
	struct team_result *res;
	struct team_span **span; /* per thread, per round */
	int *observed;
	struct stamp_log *logs; /* per thread, with job->work; else NULL */
	double slot;		/* a slot's seconds to start with */
	/* where each round starts, with job->together */
	struct team_gate round_gate;
};

/*
 * Reading a thread's cpu time is a system call (about 3 us on the lab's
 * VM), and the read after the body falls inside the round's time. It is
 * made only in rounds that follow one this many times longer, where it
 * adds under 0.1%; a round that short is rarely preempted anyway.
 */
#define CPU_CLOCK_ROUNDS 1000

/* Each thread's own span array, in lines of its own: no false sharing. */
#define SPAN_ALIGN 128

struct member {
	struct team *team;
	int tid;
};

void team_describe(const struct topo *t, int thread, int requested,
		   int observed, struct thread_place *place)
{
	const struct topo_pu *p = topo_pu_by_os(t, observed);

	memset(place, 0, sizeof(*place));
	place->thread = thread;
	place->cpu_requested = requested;
	place->cpu_observed = observed;
	place->core = p ? p->core : -1;
	place->package = p ? p->package : -1;
	place->node = p ? p->node : -1;
	place->l2 = p ? p->l2 : -1;
	place->l3 = p ? p->l3 : -1;
}

static void spin_barrier_wait(struct spin_barrier *b)
{
	unsigned gen = atomic_load_explicit(&b->gen, memory_order_acquire);
	unsigned long spins = 0;

	if (atomic_fetch_add_explicit(&b->count, 1, memory_order_acq_rel) ==
	    b->n - 1) {
		atomic_store_explicit(&b->count, 0, memory_order_relaxed);
		atomic_store_explicit(&b->gen, gen + 1, memory_order_release);
		return;
	}
	while (atomic_load_explicit(&b->gen, memory_order_acquire) == gen) {
		/* a partner that lost its CPU must get it back: yield then */
		if (++spins > (1ul << 20))
			sched_yield();
		else
			team_cpu_relax();
	}
}

static void team_wait(struct team *tm)
{
	if (tm->job->spin && !tm->together)
		spin_barrier_wait(&tm->sbar);
	else
		pthread_barrier_wait(&tm->bar);
}

double team_overlap(const struct team_span *const *span, int n, int r)
{
	double first = 0, last_start = 0, first_end = 0, last = 0, off = 0;

	if (n < 2)
		return 1;
	for (int i = 0; i < n; i++) {
		double s = span[i][r].start, e = span[i][r].end;
		if (i == 0 || s < first)
			first = s;
		if (i == 0 || s > last_start)
			last_start = s;
		if (i == 0 || e < first_end)
			first_end = e;
		if (i == 0 || e > last)
			last = e;
	}
	if (last <= first)
		return 1; /* an empty body: nothing could fail to overlap */
	if (first_end <= last_start)
		return 0;
	/* each thread's time off the cpu, spread evenly over its body */
	for (int i = 0; i < n; i++) {
		const struct team_span *sp = &span[i][r];
		double body = sp->end - sp->start;
		if (sp->cpu >= 0 && body > sp->cpu)
			off += (1 - sp->cpu / body) * (first_end - last_start);
	}
	return first_end - last_start > off
		       ? (first_end - last_start - off) / (last - first)
		       : 0;
}

/* The least share of its body's wall time any thread of round r ran. */
static double round_cpu_share(const struct team *tm, int n, int r)
{
	double least = 1;

	for (int i = 0; i < n; i++) {
		const struct team_span *sp = &tm->span[i][r];
		double wall = sp->end - sp->start;
		if (sp->cpu >= 0 && wall > 0 && sp->cpu / wall < least)
			least = sp->cpu / wall;
	}
	return least;
}

/*
 * The arm of the next round, from the rounds kept so far (q): pairs AB,
 * BA, AB, ... so arm 1 runs at q % 4 of 1 and 2. A redone round keeps
 * q, so it is measured again on its own arm. Warmup rounds alternate.
 */
static int next_arm(const struct team *tm, int r)
{
	int q = tm->res->rounds;

	if (tm->arms < 2)
		return 0;
	if (r < tm->warmup)
		return r % 2;
	return q % 4 == 1 || q % 4 == 2;
}

/* The stop rule over what was kept: per round, or per complete pair. */
static int enough(const struct team *tm, double now)
{
	const struct adapt_point *a = tm->job->adapt;
	const struct team_result *res = tm->res;
	int n;

	if (tm->arms < 2)
		return a ? adapt_enough(a, res->seconds, res->rounds, now)
			 : res->rounds >= tm->least;
	if (res->rounds % 2)
		return 0; /* a pair is never cut in half */
	if (!a)
		return res->rounds >= tm->least;
	n = team_result_ratios(res, tm->ratios);
	return adapt_enough_ratios(a, tm->ratios, n, now);
}

/*
 * The stretches of the round just ended (from the threads' marks): its
 * share of the round all ran on a cpu at once into *corun, and when they
 * are long enough to time, the round's time at their pace into *seconds.
 * Returns 1 then, 0 when the round is to be judged as a whole.
 */
static int round_stretches(struct team *tm, double *seconds, double *corun)
{
	const struct team_job *job = tm->job;
	int n = job->nthreads, ok = 0;
	const struct team_stamp **st = calloc((size_t)n, sizeof(*st));
	int *ns = calloc((size_t)n, sizeof(int));
	struct team_corun c;

	if (st && ns) {
		for (int i = 0; i < n; i++) {
			st[i] = tm->logs[i].v;
			ns[i] = tm->logs[i].n;
		}
		ok = team_corun(st, ns, n, &c) == 0;
	}
	free(st);
	free(ns);
	if (!ok || !(c.span > 0))
		return 0;
	*corun = c.length / c.span;
	if (c.length < fmin(TEAM_CORUN_LEAST * tm->slot, c.span / 2) ||
	    !(c.work > 0))
		return 0;
	*seconds = job->work * c.length / c.work;
	return 1;
}

/*
 * How long the next round's start gate may wait for every thread: up to
 * TEAM_GATE_MOST, no longer than the point has left before its deadline,
 * but TEAM_GATE_LEAST at least, time for a sleeping thread to be woken.
 */
static double gate_most(const struct adapt_point *a, double now)
{
	double left = a && a->deadline > 0 ? a->deadline - now : TEAM_GATE_MOST;

	return left > TEAM_GATE_MOST	? TEAM_GATE_MOST
	       : left < TEAM_GATE_LEAST ? TEAM_GATE_LEAST
					: left;
}

/*
 * Thread 0, between the barriers after round r took seconds: keeps the
 * round or counts it redone, decides whether another follows and on
 * which arm.
 */
static void round_end(struct team *tm, int r, double seconds)
{
	const struct team_job *job = tm->job;
	const struct adapt_point *a = job->adapt;
	struct team_result *res = tm->res;
	double wall = seconds, now = clock_now(),
	       ov = team_overlap((const struct team_span *const *)tm->span,
				 job->nthreads, r),
	       corun = ov, share = round_cpu_share(tm, job->nthreads, r);
	int stretched = 0;
	enum adapt_fate f = ADAPT_KEEP;

	if (tm->logs && r >= tm->warmup)
		stretched = round_stretches(tm, &seconds, &corun);
	if (stretched)
		ov = share = 1; /* the time is the stretches' own */
	else if (tm->logs && r >= tm->warmup && corun < ov && job->nthreads > 1)
		ov = corun; /* the marks saw the threads apart for longer */
	if (r >= tm->warmup) {
		if (a && !tm->crowded) {
			f = adapt_flaw(a, ov, share);
			tm->clean += f == ADAPT_KEEP;
			if (!adapt_may_redo(a,
					    res->redone_apart +
						    res->redone_preempted,
					    tm->clean, now))
				f = ADAPT_KEEP;
		}
		/* a redo never costs the point its least rounds */
		if (f != ADAPT_KEEP &&
		    tm->capacity - (r + 1) < tm->least - res->rounds)
			f = ADAPT_KEEP;
		/* one thread kept though preempted: its time on the cpu */
		if (f == ADAPT_KEEP && !stretched && job->nthreads == 1 &&
		    tm->span[0][r].cpu > 0 && share < ADAPT_CPU_SHARE)
			seconds = tm->span[0][r].cpu;
		if (f == ADAPT_REDO_APART) {
			res->redone_apart++;
		} else if (f == ADAPT_REDO_PREEMPTED) {
			res->redone_preempted++;
		} else {
			res->overlap[res->rounds] = ov;
			res->corun[res->rounds] = corun;
			res->stretched += stretched;
			res->round[res->rounds] = r;
			res->arm[res->rounds] =
				job->arm_of ? job->arm_of[r] : 0;
			res->wall[res->rounds] = wall;
			res->seconds[res->rounds++] = seconds;
		}
		if (enough(tm, now))
			tm->stop = 1;
	}
	if (tm->together) {
		team_gate_close(&tm->round_gate);
		tm->round_gate.most = gate_most(a, now);
	}
	if (r + 1 >= tm->capacity)
		tm->stop = 1;
	else if (tm->arms > 1)
		job->arm_of[r + 1] = next_arm(tm, r + 1);
	tm->cpu_clock = tm->adapt &&
			seconds >= CPU_CLOCK_ROUNDS * team_cpu_clock_cost();
	/* seen by all after the next barrier */
	if (cancel_asked(job->cancel))
		tm->stop = tm->cancelled = 1;
}

static void *member_main(void *arg)
{
	struct member *m = arg;
	struct team *tm = m->team;
	const struct team_job *job = tm->job;
	int tid = m->tid;

	pthread_mutex_lock(&tm->gate_lock);
	while (tm->gate == 0)
		pthread_cond_wait(&tm->gate_cond, &tm->gate_lock);
	pthread_mutex_unlock(&tm->gate_lock);
	if (tm->gate < 0)
		return NULL;
	tm->observed[tid] = sched_getcpu();
	if (job->setup)
		job->setup(job->arg, tid);
	for (int r = 0;; r++) {
		double t0 = 0, c0 = 0;
		struct team_span *span = &tm->span[tid][r];
		team_wait(tm);
		if (tm->stop)
			break;
		/* counted for the rounds after the warmup, as the rest of
		 * the account is */
		if (tm->together && !team_gate_pass(&tm->round_gate) &&
		    tid == 0 && r >= tm->warmup)
			tm->res->started_apart++;
		int cpu = tm->cpu_clock || tm->logs;
		double (*cpu_now)(void) = job->process_clock ? clock_process_cpu
							     : clock_thread_cpu;
		if (cpu)
			c0 = cpu_now();
		if (tm->logs)
			stamp_log_start(&tm->logs[tid], tm->slot);
		if (tid == 0)
			t0 = clock_now();
		span->start = clock_now();
		job->body(job->arg, tid, r);
		span->end = clock_now();
		if (tm->logs)
			stamp_log_end(&tm->logs[tid]);
		span->cpu = cpu ? cpu_now() - c0 : -1;
		team_wait(tm);
		if (tid == 0)
			round_end(tm, r, clock_now() - t0);
	}
	return NULL;
}

/*
 * The team's shape from job: its arms, warmup and least rounds, whether
 * two threads share a cpu, and how many rounds it may run (capacity)
 * and keep (*kept). -EINVAL for a job that cannot run.
 */
static int team_plan(struct team *tm, const struct team_job *job, int *kept)
{
	const struct adapt_point *a = job->adapt;
	int n = job->nthreads;

	tm->arms = job->arms > 1 ? 2 : 1;
	tm->warmup = job->warmup * tm->arms;
	tm->least = job->repeat * tm->arms;
	if (n < 1 || job->repeat < 1 || job->warmup < 0 || job->arms > 2 ||
	    (job->rounds_most && job->rounds_most < tm->warmup + tm->least) ||
	    (tm->arms > 1 && (!job->arm_of || !job->rounds_most)))
		return -EINVAL;
	*kept = (a && a->most > job->repeat ? a->most : job->repeat) * tm->arms;
	for (int i = 0; job->cpus && i < n; i++)
		for (int k = 0; k < i; k++)
			if (job->cpus[i] >= 0 && job->cpus[i] == job->cpus[k])
				tm->crowded = 1;
	/* threads that share a cpu cannot all be on their cpus at once */
	tm->together = job->together && !tm->crowded;
	tm->capacity = tm->warmup + *kept + (a ? a->redo_most : 0);
	if (job->rounds_most && tm->capacity > job->rounds_most)
		tm->capacity = job->rounds_most;
	if (tm->arms > 1)
		job->arm_of[0] = next_arm(tm, 0);
	return 0;
}

/* The team's arrays and res's for kept rounds: 0 or -ENOMEM. */
static int team_alloc(struct team *tm, int n, int kept)
{
	struct team_result *res = tm->res;

	if (tm->arms > 1 &&
	    !(tm->ratios = calloc((size_t)kept / 2 + 1, sizeof(double))))
		return -ENOMEM;
	tm->span = calloc((size_t)n, sizeof(*tm->span));
	tm->observed = calloc((size_t)n, sizeof(int));
	if (!tm->span || !tm->observed || team_result_alloc(res, n, kept))
		return -ENOMEM;
	if (tm->job->work > 0 &&
	    !(tm->logs =
		      stamp_logs_alloc(n, tm->job->process_clock, &tm->slot)))
		return -ENOMEM;
	for (int i = 0; i < n; i++) {
		size_t bytes = (size_t)tm->capacity * sizeof(struct team_span);
		bytes = (bytes + SPAN_ALIGN - 1) / SPAN_ALIGN * SPAN_ALIGN;
		tm->span[i] = aligned_alloc(SPAN_ALIGN, bytes);
		if (!tm->span[i])
			return -ENOMEM;
		memset(tm->span[i], 0, bytes);
	}
	return 0;
}

/*
 * Starts the n members, each pinned from its first instruction where
 * job->cpus says (first touch lands on its node), lets them through the
 * gate once all are there (none when one could not start), and joins
 * them. Returns 0, or the -errno of a thread that could not start.
 */
static int team_members(struct team *tm, int n)
{
	const struct team_job *job = tm->job;
	pthread_t *th = calloc((size_t)n, sizeof(*th));
	struct member *mem = calloc((size_t)n, sizeof(*mem));
	int started = 0, rc = 0;

	if (!th || !mem || pthread_barrier_init(&tm->bar, NULL, (unsigned)n)) {
		free(th);
		free(mem);
		return -ENOMEM;
	}
	tm->sbar.n = (unsigned)n;
	team_gate_init(&tm->round_gate, (unsigned)n, TEAM_GATE_WAIT,
		       gate_most(job->adapt, clock_now()));
	pthread_mutex_init(&tm->gate_lock, NULL);
	pthread_cond_init(&tm->gate_cond, NULL);
	for (int i = 0; i < n && !rc; i++) {
		pthread_attr_t attr;
		cpu_set_t set;

		pthread_attr_init(&attr);
		if (job->cpus && job->cpus[i] >= 0) {
			CPU_ZERO(&set);
			CPU_SET(job->cpus[i], &set);
			pthread_attr_setaffinity_np(&attr, sizeof(set), &set);
		}
		mem[i] = (struct member){.team = tm, .tid = i};
		rc = -pthread_create(&th[i], &attr, member_main, &mem[i]);
		pthread_attr_destroy(&attr);
		started += !rc;
	}
	/* the barrier counts n threads: if one is missing, none may start */
	pthread_mutex_lock(&tm->gate_lock);
	tm->gate = started == n ? 1 : -1;
	pthread_cond_broadcast(&tm->gate_cond);
	pthread_mutex_unlock(&tm->gate_lock);
	for (int i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	pthread_barrier_destroy(&tm->bar);
	pthread_mutex_destroy(&tm->gate_lock);
	pthread_cond_destroy(&tm->gate_cond);
	free(th);
	free(mem);
	return rc;
}

int team_run(const struct team_job *job, const struct topo *t,
	     struct team_result *res)
{
	/* the first round reads the cpu clock: none before it says how long
	 * a round is */
	struct team tm = {.job = job,
			  .res = res,
			  .adapt = job->adapt != NULL,
			  .cpu_clock = job->adapt != NULL};
	int n = job->nthreads, rc, kept;

	memset(res, 0, sizeof(*res));
	rc = team_plan(&tm, job, &kept);
	if (rc)
		return rc;
	rc = team_alloc(&tm, n, kept);
	if (!rc)
		rc = team_members(&tm, n);
	if (!rc) {
		res->nthreads = n;
		for (int i = 0; i < n; i++)
			team_describe(t, i, job->cpus ? job->cpus[i] : -1,
				      tm.observed[i], &res->place[i]);
		if (tm.cancelled)
			rc = -ECANCELED;
		else
			res->check_rc = job->check ? job->check(job->arg) : 0;
	}
	for (int i = 0; tm.span && i < n; i++)
		free(tm.span[i]);
	free(tm.span);
	free(tm.observed);
	free(tm.ratios);
	stamp_logs_free(tm.logs, n);
	if (rc && rc != -ECANCELED)
		team_result_free(res);
	return rc;
}
