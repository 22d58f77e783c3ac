/* team.c - N pinned threads behind a barrier: the one timing harness */
#define _GNU_SOURCE
#include "team.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

#include "stats.h"

/* A sense-reversing barrier that spins: for team_job.spin */
struct spin_barrier {
	atomic_uint count;
	atomic_uint gen;
	unsigned n;
};

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
 * The marks a marked log holds before every other one is dropped: a
 * round of 0.5 s in slots of 136 us, and for a large team no more than
 * STAMP_TEAM_BYTES in all (at least STAMP_LEAST a thread).
 */
#define STAMP_CAP 4096
#define STAMP_LEAST 256
#define STAMP_TEAM_BYTES (16u << 20)

static _Thread_local struct stamp_log *tl_log;

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
};

/*
 * Reading a thread's cpu time is a system call (about 3 us on the lab's
 * VM), and the read after the body falls inside the round's time. It is
 * made only in rounds that follow one this many times longer, where it
 * adds under 0.1%; a round that short is rarely preempted anyway.
 */
#define CPU_CLOCK_ROUNDS 1000

/*
 * What one read of the cpu clock costs here, measured once: the least of
 * a few reads, so that a read the scheduler interrupted does not count.
 */
static double cpu_clock_cost(void)
{
	static _Atomic double cost;
	double c = atomic_load_explicit(&cost, memory_order_relaxed);

	if (c > 0)
		return c;
	c = INFINITY;
	for (int i = 0; i < 32; i++) {
		double t0 = clock_now();
		(void)clock_thread_cpu();
		c = fmin(c, clock_now() - t0);
	}
	c = c > 0 ? c : 1e-9;
	atomic_store_explicit(&cost, c, memory_order_relaxed);
	return c;
}

/*
 * Appends a mark; a full log keeps every other mark (the first, at the
 * body's start, among them) and cuts slots twice as long from then on.
 */
static void log_put(struct stamp_log *l, double t, double work, double cpu)
{
	if (l->n == l->cap) {
		int k = 0;
		for (int i = 0; i < l->n; i += 2)
			l->v[k++] = l->v[i];
		l->n = k;
		l->slot *= 2;
	}
	l->v[l->n++] = (struct team_stamp){.t = t, .work = work, .cpu = cpu};
}

/*
 * A cheap clock that says when a slot is over: the time stamp counter
 * where there is one, read without a fence. clock_now() goes through the
 * vDSO, which fences before it reads the counter: with a mark every 8 MiB
 * (every 50 us) it made an L2-sized AVX-512 write loop 13% slower (173
 * and 179 GB/s against 199 and 204 without marks, 12 runs each in turns
 * of tests/bench/bw_alone write 1 131072), where this costs 2% (196 and
 * 200). What is recorded comes from clock_now(); a counter that drifts
 * only makes slots longer or shorter.
 */
static inline uint64_t tick(void)
{
#if defined(__x86_64__) || defined(__i386__)
	return __rdtsc();
#else
	return (uint64_t)(clock_now() * 1e9);
#endif
}

/* Ticks a second, measured once over a millisecond. */
static double ticks_per_second(void)
{
	static _Atomic double rate;
	double r = atomic_load_explicit(&rate, memory_order_relaxed), t0;
	uint64_t k0;

	if (r > 0)
		return r;
	t0 = clock_now();
	k0 = tick();
	while (clock_now() - t0 < 1e-3)
		;
	r = (double)(tick() - k0) / (clock_now() - t0);
	r = r > 0 ? r : 1e9;
	atomic_store_explicit(&rate, r, memory_order_relaxed);
	return r;
}

void team_mark(double work)
{
	struct stamp_log *l = tl_log;
	double cpu;

	if (!l)
		return;
	l->work = work;
	if (tick() < l->next)
		return;
	cpu = l->cpu_clock();
	log_put(l, clock_now(), work, cpu);
	l->next = tick() + (uint64_t)(l->slot * l->rate);
}

/* Starts thread tid's log for a round: its first mark is the body's start. */
static void log_start(struct stamp_log *l, double slot)
{
	double cpu = l->cpu_clock();

	l->n = 0;
	l->work = 0;
	l->slot = slot;
	log_put(l, clock_now(), 0, cpu);
	l->next = tick() + (uint64_t)(l->slot * l->rate);
	tl_log = l;
}

/* Ends it: the last mark is the body's end, with the last work marked. */
static void log_end(struct stamp_log *l)
{
	double cpu = l->cpu_clock();

	tl_log = NULL;
	log_put(l, clock_now(), l->work, cpu);
}

/* An interval of time, [a, b). */
struct span_iv {
	double a, b;
};

/*
 * The slots of one thread's marks it spent on the cpu, joined where they
 * meet, into out; returns how many. The slot after one off the cpu is
 * left out too: the thread starts it refilling the caches and TLB that
 * whatever ran meanwhile took, at a pace that is neither alone nor with
 * its partners.
 */
static int on_cpu(const struct team_stamp *s, int n, struct span_iv *out)
{
	int k = 0, was_off = 0;

	for (int i = 1; i < n; i++) {
		double w = s[i].t - s[i - 1].t, c = s[i].cpu - s[i - 1].cpu;
		int off = !(w > 0) || c < TEAM_SLOT_ON_CPU * w;
		int skip = off || was_off;
		was_off = off;
		if (skip)
			continue;
		if (k && out[k - 1].b >= s[i - 1].t)
			out[k - 1].b = s[i].t;
		else
			out[k++] = (struct span_iv){s[i - 1].t, s[i].t};
	}
	return k;
}

/* The times in both sorted lists x and y, into out (nx + ny at most). */
static int intersect(const struct span_iv *x, int nx, const struct span_iv *y,
		     int ny, struct span_iv *out)
{
	int i = 0, j = 0, k = 0;

	while (i < nx && j < ny) {
		double a = fmax(x[i].a, y[j].a), b = fmin(x[i].b, y[j].b);
		if (a < b)
			out[k++] = (struct span_iv){a, b};
		if (x[i].b < y[j].b)
			i++;
		else
			j++;
	}
	return k;
}

/*
 * One thread's pace inside the sorted stretches c: the work over the
 * time of its slots that lie wholly inside one. A slot that straddles a
 * stretch's edge is left out, not cut: part of it ran while a partner
 * was off its cpu, at the uncontended pace, and its work cannot be
 * told apart. Into *work and *time (both 0 when no slot fits); returns
 * the work of the slots that straddle, in proportion to their time
 * inside (a slot's work taken as spread evenly), for a thread none of
 * whose slots fits whole.
 */
static double pace_inside(const struct team_stamp *s, int n,
			  const struct span_iv *c, int nc, double *work,
			  double *time)
{
	double cut = 0;
	int j = 0;

	*work = *time = 0;
	for (int i = 1; i < n && j < nc; i++) {
		double a = s[i - 1].t, b = s[i].t,
		       d = s[i].work - s[i - 1].work, inside = 0;
		if (!(b > a))
			continue;
		while (j < nc && c[j].b <= a)
			j++;
		if (j < nc && c[j].a <= a && c[j].b >= b) {
			*work += d > 0 ? d : 0;
			*time += b - a;
			continue;
		}
		for (int k = j; k < nc && c[k].a < b; k++)
			inside += fmin(b, c[k].b) - fmax(a, c[k].a);
		if (d > 0)
			cut += d * inside / (b - a);
	}
	return cut;
}

int team_corun(const struct team_stamp *const *stamp, const int *nstamp, int n,
	       struct team_corun *out)
{
	struct span_iv *cur = NULL, *one = NULL, *next = NULL;
	double first = INFINITY, last = -INFINITY;
	int total = 0, most = 0, nc = 0;

	memset(out, 0, sizeof(*out));
	for (int i = 0; i < n; i++) {
		total += nstamp[i];
		most = nstamp[i] > most ? nstamp[i] : most;
		if (nstamp[i] < 1)
			continue;
		first = fmin(first, stamp[i][0].t);
		last = fmax(last, stamp[i][nstamp[i] - 1].t);
	}
	out->span = last > first ? last - first : 0;
	if (n < 1 || total < 2)
		return 0;
	cur = calloc((size_t)total, sizeof(*cur));
	next = calloc((size_t)total, sizeof(*next));
	one = calloc((size_t)most + 1, sizeof(*one));
	if (!cur || !next || !one) {
		free(cur);
		free(next);
		free(one);
		return -ENOMEM;
	}
	nc = on_cpu(stamp[0], nstamp[0], cur);
	for (int i = 1; i < n && nc; i++) {
		struct span_iv *t;
		int k = on_cpu(stamp[i], nstamp[i], one);
		nc = intersect(cur, nc, one, k, next);
		t = cur;
		cur = next;
		next = t;
	}
	for (int k = 0; k < nc; k++)
		out->length += cur[k].b - cur[k].a;
	/* each thread's pace from its whole slots, over all the stretches */
	for (int i = 0; i < n && nc; i++) {
		double w, t,
			cut = pace_inside(stamp[i], nstamp[i], cur, nc, &w, &t);
		out->work += t > 0 ? w / t * out->length : cut;
	}
	free(cur);
	free(next);
	free(one);
	return 0;
}

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

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ volatile("yield");
#endif
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
			cpu_relax();
	}
}

static void team_wait(struct team *tm)
{
	if (tm->job->spin)
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
	if (r + 1 >= tm->capacity)
		tm->stop = 1;
	else if (tm->arms > 1)
		job->arm_of[r + 1] = next_arm(tm, r + 1);
	tm->cpu_clock =
		tm->adapt && seconds >= CPU_CLOCK_ROUNDS * cpu_clock_cost();
	/* seen by all after the next barrier */
	if (job->cancel && *job->cancel)
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
		int cpu = tm->cpu_clock || tm->logs;
		double (*cpu_now)(void) = job->process_clock ? clock_process_cpu
							     : clock_thread_cpu;
		if (cpu)
			c0 = cpu_now();
		if (tm->logs)
			log_start(&tm->logs[tid], tm->slot);
		if (tid == 0)
			t0 = clock_now();
		span->start = clock_now();
		job->body(job->arg, tid, r);
		span->end = clock_now();
		if (tm->logs)
			log_end(&tm->logs[tid]);
		span->cpu = cpu ? cpu_now() - c0 : -1;
		team_wait(tm);
		if (tid == 0)
			round_end(tm, r, clock_now() - t0);
	}
	return NULL;
}

/* A log per thread for a job with work, and the slot its marks start at. */
static int logs_alloc(struct team *tm, int n)
{
	size_t cap = STAMP_TEAM_BYTES / sizeof(struct team_stamp) / (size_t)n;

	cap = cap > STAMP_CAP	  ? STAMP_CAP
	      : cap < STAMP_LEAST ? STAMP_LEAST
				  : cap;
	tm->slot = fmin(fmax(TEAM_SLOT_CLOCKS * cpu_clock_cost(), 50e-6), 5e-3);
	tm->logs = aligned_alloc(_Alignof(struct stamp_log),
				 (size_t)n * sizeof(*tm->logs));
	if (!tm->logs)
		return -ENOMEM;
	memset(tm->logs, 0, (size_t)n * sizeof(*tm->logs));
	for (int i = 0; i < n; i++) {
		tm->logs[i].cap = (int)cap;
		tm->logs[i].rate = ticks_per_second();
		tm->logs[i].cpu_clock = tm->job->process_clock
						? clock_process_cpu
						: clock_thread_cpu;
		tm->logs[i].v = calloc(cap, sizeof(struct team_stamp));
		if (!tm->logs[i].v)
			return -ENOMEM;
	}
	return 0;
}

static void logs_free(struct team *tm, int n)
{
	for (int i = 0; tm->logs && i < n; i++)
		free(tm->logs[i].v);
	free(tm->logs);
	tm->logs = NULL;
}

int team_run(const struct team_job *job, const struct topo *t,
	     struct team_result *res)
{
	const struct adapt_point *a = job->adapt;
	/* the first round reads the cpu clock: none before it says how long
	 * a round is */
	struct team tm = {.job = job,
			  .res = res,
			  .adapt = a != NULL,
			  .cpu_clock = a != NULL};
	pthread_t *th = NULL;
	struct member *mem = NULL;
	int n = job->nthreads, started = 0, rc = 0, kept;

	memset(res, 0, sizeof(*res));
	tm.arms = job->arms > 1 ? 2 : 1;
	tm.warmup = job->warmup * tm.arms;
	tm.least = job->repeat * tm.arms;
	if (n < 1 || job->repeat < 1 || job->warmup < 0 || job->arms > 2 ||
	    (job->rounds_most && job->rounds_most < tm.warmup + tm.least) ||
	    (tm.arms > 1 && (!job->arm_of || !job->rounds_most)))
		return -EINVAL;
	kept = (a && a->most > job->repeat ? a->most : job->repeat) * tm.arms;
	for (int i = 0; job->cpus && i < n; i++)
		for (int k = 0; k < i; k++)
			if (job->cpus[i] >= 0 && job->cpus[i] == job->cpus[k])
				tm.crowded = 1;
	tm.capacity = tm.warmup + kept + (a ? a->redo_most : 0);
	if (job->rounds_most && tm.capacity > job->rounds_most)
		tm.capacity = job->rounds_most;
	if (tm.arms > 1) {
		job->arm_of[0] = next_arm(&tm, 0);
		tm.ratios = calloc((size_t)kept / 2 + 1, sizeof(double));
		if (!tm.ratios) {
			rc = -ENOMEM;
			goto out;
		}
	}
	th = calloc((size_t)n, sizeof(*th));
	mem = calloc((size_t)n, sizeof(*mem));
	tm.span = calloc((size_t)n, sizeof(*tm.span));
	tm.observed = calloc((size_t)n, sizeof(int));
	res->place = calloc((size_t)n, sizeof(*res->place));
	res->seconds = calloc((size_t)kept, sizeof(double));
	res->overlap = calloc((size_t)kept, sizeof(double));
	res->corun = calloc((size_t)kept, sizeof(double));
	res->wall = calloc((size_t)kept, sizeof(double));
	res->round = calloc((size_t)kept, sizeof(int));
	res->arm = calloc((size_t)kept, sizeof(int));
	if (!th || !mem || !tm.span || !tm.observed || !res->place ||
	    !res->seconds || !res->overlap || !res->corun || !res->wall ||
	    !res->round || !res->arm) {
		rc = -ENOMEM;
		goto out;
	}
	if (job->work > 0) {
		rc = logs_alloc(&tm, n);
		if (rc)
			goto out;
	}
	for (int i = 0; i < n; i++) {
		size_t bytes = (size_t)tm.capacity * sizeof(struct team_span);
		bytes = (bytes + SPAN_ALIGN - 1) / SPAN_ALIGN * SPAN_ALIGN;
		tm.span[i] = aligned_alloc(SPAN_ALIGN, bytes);
		if (!tm.span[i]) {
			rc = -ENOMEM;
			goto out;
		}
		memset(tm.span[i], 0, bytes);
	}
	if (pthread_barrier_init(&tm.bar, NULL, (unsigned)n)) {
		rc = -ENOMEM;
		goto out;
	}
	tm.sbar.n = (unsigned)n;
	pthread_mutex_init(&tm.gate_lock, NULL);
	pthread_cond_init(&tm.gate_cond, NULL);
	for (int i = 0; i < n; i++) {
		pthread_attr_t attr;
		cpu_set_t set;

		pthread_attr_init(&attr);
		if (job->cpus && job->cpus[i] >= 0) {
			/* pinned from the first instruction: first touch lands
			 * on its node */
			CPU_ZERO(&set);
			CPU_SET(job->cpus[i], &set);
			pthread_attr_setaffinity_np(&attr, sizeof(set), &set);
		}
		mem[i].team = &tm;
		mem[i].tid = i;
		int e = pthread_create(&th[i], &attr, member_main, &mem[i]);
		pthread_attr_destroy(&attr);
		if (e) {
			rc = -e;
			break;
		}
		started++;
	}
	/* the barrier counts n threads: if one is missing, none may start */
	pthread_mutex_lock(&tm.gate_lock);
	tm.gate = started == n ? 1 : -1;
	pthread_cond_broadcast(&tm.gate_cond);
	pthread_mutex_unlock(&tm.gate_lock);
	for (int i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	pthread_barrier_destroy(&tm.bar);
	pthread_mutex_destroy(&tm.gate_lock);
	pthread_cond_destroy(&tm.gate_cond);
	if (rc)
		goto out;
	res->nthreads = n;
	for (int i = 0; i < n; i++)
		team_describe(t, i, job->cpus ? job->cpus[i] : -1,
			      tm.observed[i], &res->place[i]);
	if (tm.cancelled) {
		rc = -ECANCELED;
		goto out;
	}
	res->check_rc = job->check ? job->check(job->arg) : 0;
out:
	free(th);
	free(mem);
	for (int i = 0; tm.span && i < n; i++)
		free(tm.span[i]);
	free(tm.span);
	free(tm.observed);
	free(tm.ratios);
	logs_free(&tm, n);
	if (rc && rc != -ECANCELED) {
		team_result_free(res);
	}
	return rc;
}

void team_result_free(struct team_result *res)
{
	free(res->place);
	free(res->seconds);
	free(res->overlap);
	free(res->corun);
	res->corun = NULL;
	free(res->wall);
	res->wall = NULL;
	free(res->round);
	free(res->arm);
	res->round = NULL;
	res->arm = NULL;
	res->place = NULL;
	res->seconds = NULL;
	res->overlap = NULL;
}

double team_overlap_median(const struct team_result *res)
{
	if (!res->overlap || res->rounds < 1)
		return 1;
	return stats_median(res->overlap, res->rounds);
}

double team_corun_median(const struct team_result *res)
{
	if (!res->corun || res->rounds < 1)
		return 1;
	return stats_median(res->corun, res->rounds);
}

int team_result_arm(const struct team_result *res, int arm,
		    struct team_result *out)
{
	int n = res->rounds > 0 ? res->rounds : 1;

	memset(out, 0, sizeof(*out));
	out->nthreads = res->nthreads;
	out->redone_apart = res->redone_apart;
	out->redone_preempted = res->redone_preempted;
	out->stretched = res->stretched;
	out->check_rc = res->check_rc;
	out->place = calloc((size_t)(res->nthreads > 0 ? res->nthreads : 1),
			    sizeof(*out->place));
	out->seconds = calloc((size_t)n, sizeof(double));
	out->overlap = calloc((size_t)n, sizeof(double));
	out->corun = calloc((size_t)n, sizeof(double));
	out->wall = calloc((size_t)n, sizeof(double));
	out->round = calloc((size_t)n, sizeof(int));
	out->arm = calloc((size_t)n, sizeof(int));
	if (!out->place || !out->seconds || !out->overlap || !out->corun ||
	    !out->wall || !out->round || !out->arm) {
		team_result_free(out);
		return -ENOMEM;
	}
	if (res->nthreads > 0)
		memcpy(out->place, res->place,
		       sizeof(*out->place) * (size_t)res->nthreads);
	for (int r = 0; r < res->rounds; r++) {
		if ((res->arm ? res->arm[r] : 0) != arm)
			continue;
		out->seconds[out->rounds] = res->seconds[r];
		out->overlap[out->rounds] = res->overlap[r];
		out->corun[out->rounds] = res->corun ? res->corun[r] : 1;
		out->wall[out->rounds] = res->wall ? res->wall[r] : 0;
		out->round[out->rounds] = res->round[r];
		out->arm[out->rounds++] = arm;
	}
	return 0;
}

int team_result_ratios(const struct team_result *res, double *ratio)
{
	int n = 0;

	for (int r = 0; res->arm && r + 1 < res->rounds; r += 2) {
		int a0 = res->arm[r] == 0 ? r : r + 1, a1 = a0 == r ? r + 1 : r;
		if (res->arm[a0] != 0 || res->arm[a1] != 1)
			continue; /* not a pair: both on one arm */
		ratio[n++] = res->seconds[a1] > 0
				     ? res->seconds[a0] / res->seconds[a1]
				     : 0;
	}
	return n;
}
