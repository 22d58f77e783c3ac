/* team.c - N pinned threads behind a barrier: the one timing harness */
#define _GNU_SOURCE
#include "team.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"

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
	int rounds_total;
	volatile int stop; /* written by thread 0 between barriers only */
	int completed;	   /* rounds finished, written by thread 0 */
	pthread_mutex_t gate_lock; /* start gate: all created, or abort */
	pthread_cond_t gate_cond;
	int gate;	 /* 0 wait, 1 go, -1 abort */
	double *times;	 /* per round, written by thread 0 */
	double *overlap; /* per round, written by thread 0 */
	double **span;	 /* per thread: body start, end of each round */
	int *observed;
};

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

/* The share of round r all n threads spent in their bodies at once. */
static double round_overlap(const struct team *tm, int n, int r)
{
	double first = 0, last_start = 0, first_end = 0, last = 0;

	if (n < 2)
		return 1;
	for (int i = 0; i < n; i++) {
		double s = tm->span[i][2 * r], e = tm->span[i][2 * r + 1];
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
	return first_end > last_start
		       ? (first_end - last_start) / (last - first)
		       : 0;
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
	for (int r = 0; r < tm->rounds_total; r++) {
		double t0 = 0, *span = tm->span[tid] + 2 * r;
		team_wait(tm);
		if (tm->stop)
			break;
		if (tid == 0)
			t0 = clock_now();
		span[0] = clock_now();
		job->body(job->arg, tid, r);
		span[1] = clock_now();
		team_wait(tm);
		if (tid == 0) {
			tm->times[r] = clock_now() - t0;
			tm->overlap[r] = round_overlap(tm, job->nthreads, r);
			tm->completed = r + 1;
			/* seen by all after the next barrier */
			if (job->cancel && *job->cancel)
				tm->stop = 1;
		}
	}
	return NULL;
}

int team_run(const struct team_job *job, const struct topo *t,
	     struct team_result *res)
{
	struct team tm = {.job = job};
	pthread_t *th = NULL;
	struct member *mem = NULL;
	int n = job->nthreads, started = 0, rc = 0;

	memset(res, 0, sizeof(*res));
	if (n < 1 || job->repeat < 1 || job->warmup < 0)
		return -EINVAL;
	tm.rounds_total = job->warmup + job->repeat;
	th = calloc((size_t)n, sizeof(*th));
	mem = calloc((size_t)n, sizeof(*mem));
	tm.times = calloc((size_t)tm.rounds_total, sizeof(double));
	tm.overlap = calloc((size_t)tm.rounds_total, sizeof(double));
	tm.span = calloc((size_t)n, sizeof(*tm.span));
	tm.observed = calloc((size_t)n, sizeof(int));
	res->place = calloc((size_t)n, sizeof(*res->place));
	res->seconds = calloc((size_t)job->repeat, sizeof(double));
	res->overlap = calloc((size_t)job->repeat, sizeof(double));
	if (!th || !mem || !tm.times || !tm.overlap || !tm.span ||
	    !tm.observed || !res->place || !res->seconds || !res->overlap) {
		rc = -ENOMEM;
		goto out;
	}
	for (int i = 0; i < n; i++) {
		size_t bytes = (size_t)tm.rounds_total * 2 * sizeof(double);
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
	for (int r = job->warmup; r < tm.completed; r++) {
		res->overlap[res->rounds] = tm.overlap[r];
		res->seconds[res->rounds++] = tm.times[r];
	}
	if (tm.stop) {
		rc = -ECANCELED;
		goto out;
	}
	res->check_rc = job->check ? job->check(job->arg) : 0;
out:
	free(th);
	free(mem);
	free(tm.times);
	free(tm.overlap);
	for (int i = 0; tm.span && i < n; i++)
		free(tm.span[i]);
	free(tm.span);
	free(tm.observed);
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
