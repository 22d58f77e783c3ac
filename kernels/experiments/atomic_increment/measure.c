/* measure.c - atomic_increment's measurement: a team of threads increments in rounds, and each variant's rounds become its points */
#include <errno.h>
#include <math.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "stats.h"
#include "team.h"
#include "team_points.h"

#include "ai.h"

static struct slot *my_slot(const struct ai_job *j, int tid, int round)
{
	return &j->mine[(size_t)tid * j->mine_stride + (size_t)round];
}

static void ai_setup(void *arg, int tid)
{
	struct ai_job *j = arg;

	/* first touch by the owner: thread 0 owns the shared counters */
	if (tid == 0)
		memset(j->shared, 0, (size_t)j->rounds * sizeof(*j->shared));
	memset(my_slot(j, tid, 0), 0, j->mine_stride * sizeof(struct slot));
}

static enum variant round_variant(const struct ai_job *j, int round)
{
	return j->arm_of ? j->pair[j->arm_of[round]] : j->pair[0];
}

/* What a thread has seen of its team this round (watch). */
#define SEEN_START 1 /* every thread had started its loop */
#define SEEN_END 2   /* one had finished it */

/*
 * Between two chunks of a thread that has done done increments: notes
 * them when it first sees every thread of the team started, and when it
 * first sees one finished. Returns what it has seen.
 */
static int watch(struct ai_flags *f, int n, struct slot *s, uint64_t done,
		 int seen)
{
	if (!(seen & SEEN_START) &&
	    atomic_load_explicit(&f->started, memory_order_relaxed) == n) {
		s->at_start = done;
		seen |= SEEN_START;
	}
	if (!(seen & SEEN_END) &&
	    atomic_load_explicit(&f->ended, memory_order_relaxed)) {
		s->at_end = done;
		seen |= SEEN_END;
	}
	return seen;
}

static void ai_body(void *arg, int tid, int round)
{
	struct ai_job *j = arg;
	enum variant v = round_variant(j, round);
	struct slot *s = my_slot(j, tid, round);
	struct ai_flags *f = &j->flags[round];
	uint64_t *c = &j->shared[round].count, done = 0;
	struct returned ret = {0, 0, UINT64_MAX - 1};
	int seen;

	/*
	 * Clock reads outside the loop tell whether the loops really ran at
	 * the same time, and if not, why: a thread that was descheduled ran
	 * for less cpu time than wall time; one stalled on the line did not.
	 * The marks between chunks let the harness time the round from the
	 * stretches all threads were on a cpu: every thread's increments are
	 * the round's work. Between chunks a thread also watches the round's
	 * flags (a line only written at a loop's start and end), for its
	 * share of the increments while all were in their loops.
	 */
	/* the wall clock read around the cpu clock at both ends: the cpu
	 * time it is divided by falls inside it (ai_cpu_share) */
	double w0 = clock_now(), c0 = clock_thread_cpu();
	s->t0 = clock_now();
	s->retries = 0;
	s->at_start = 0;
	seen = atomic_fetch_add_explicit(&f->started, 1, memory_order_relaxed) +
				       1 ==
			       j->nthreads
		       ? SEEN_START
		       : 0;
	while (done < j->incs) {
		uint64_t m =
			j->incs - done < AI_MARK ? j->incs - done : AI_MARK;
		ai_chunk(j, v, s, c, m, &ret);
		done += m;
		team_mark((double)done);
		if (seen != (SEEN_START | SEEN_END))
			seen = watch(f, j->nthreads, s, done, seen);
	}
	/* it never saw the others all in: none of its work was theirs */
	if (!(seen & SEEN_START))
		s->at_start = done;
	if (!(seen & SEEN_END)) {
		atomic_store_explicit(&f->ended, 1, memory_order_relaxed);
		s->at_end = done;
	}
	s->rsum = ret.sum;
	s->runs = ret.runs;
	s->t1 = clock_now();
	s->cpu = clock_thread_cpu() - c0;
	s->wall = clock_now() - w0;
}

double ai_cpu_share(double cpu, double wall, double step)
{
	if (!(step > 0) || !(wall >= AI_CPU_STEPS * step) || !(cpu >= 0))
		return NAN;
	return cpu < wall ? cpu / wall : 1;
}

/* 1 + 2 + ... + m, modulo 2^64 like the sums the threads make */
static uint64_t triangle(uint64_t m)
{
	return m % 2 ? m * ((m + 1) / 2) : (m / 2) * (m + 1);
}

/* What one round left behind, read after timing. */
struct round_result {
	double final, lost, retries, runs;
	/* the least share of a cpu a thread got in its loop (ai_cpu_share);
	 * NaN: a loop too short for the clocks to tell */
	double cpu_share;
	double late; /* share of the round the last thread started late */
	double overlap, corun;		/* the harness's, of the round */
	double share_most, share_least; /* read_shares's; NaN: none */
	int rsum_ok;
};

/*
 * A round's shares stand on at least this many chunks (AI_MARK) a thread
 * in the stretch every thread was in its loop: each thread's count at
 * either end of it is read at the end of the chunk it falls in, so the
 * shares are within a few percent (two chunks of the team's in 16 of
 * each thread's).
 */
#define AI_SHARE_CHUNKS 16

/*
 * The busiest and the least busy thread's share of the increments made
 * while every thread was in its loop, into rr; NaN with one thread, or
 * when that stretch held too few increments to tell.
 */
static void read_shares(const struct ai_job *j, int round,
			struct round_result *rr)
{
	double sum = 0, most = 0, least = 0;

	rr->share_most = rr->share_least = NAN;
	if (j->nthreads < 2)
		return;
	for (int t = 0; t < j->nthreads; t++) {
		const struct slot *s = my_slot(j, t, round);
		double w = s->at_end > s->at_start
				   ? (double)(s->at_end - s->at_start)
				   : 0;
		sum += w;
		if (t == 0 || w > most)
			most = w;
		if (t == 0 || w < least)
			least = w;
	}
	if (sum < (double)AI_SHARE_CHUNKS * j->nthreads * AI_MARK)
		return;
	rr->share_most = most / sum;
	rr->share_least = least / sum;
}

static void read_round(const struct ai_job *j, int round,
		       struct round_result *rr)
{
	uint64_t final = 0, retries = 0, rsum = 0, runs = 0, total;
	double first = 0, last_start = 0, last = 0;
	enum variant v = round_variant(j, round);

	total = (uint64_t)j->nthreads * j->incs;
	rr->cpu_share = 1;
	for (int t = 0; t < j->nthreads; t++) {
		const struct slot *s = my_slot(j, t, round);
		final += s->count;
		retries += s->retries;
		rsum += s->rsum;
		runs += s->runs;
		double share = ai_cpu_share(s->cpu, s->wall, j->clock_step);
		/* one thread's untold share leaves the least untold */
		if (!isnan(rr->cpu_share) &&
		    (isnan(share) || share < rr->cpu_share))
			rr->cpu_share = share;
		if (t == 0 || s->t0 < first)
			first = s->t0;
		if (t == 0 || s->t0 > last_start)
			last_start = s->t0;
		if (t == 0 || s->t1 > last)
			last = s->t1;
	}
	if (v != V_PER_THREAD)
		final = j->shared[round].count;
	rr->final = (double) final;
	rr->lost = (double)total - (double) final;
	rr->retries = (double)retries;
	rr->runs = (double)runs;
	rr->late = last > first ? (last_start - first) / (last - first) : 0;
	/* the returned values must be 1..total (or 0..total-1), each once */
	if (v == V_ADD_FETCH)
		rr->rsum_ok = rsum == triangle(total);
	else if (v == V_FETCH_ADD)
		rr->rsum_ok = rsum == triangle(total - 1);
	else
		rr->rsum_ok = 1;
	read_shares(j, round, rr);
}

/* The median over n rounds of the number at off in each round_result. */
static double median_of(const struct round_result *rr, int n, size_t off,
			double *tmp)
{
	for (int r = 0; r < n; r++)
		tmp[r] = *(const double *)((const char *)&rr[r] + off);
	return stats_median(tmp, n);
}

#define MEDIAN(field)                                                          \
	median_of(rr, res->rounds, offsetof(struct round_result, field), tmp)

/*
 * Reads the rounds res kept into m (their medians) and lost (each
 * round's lost updates). Returns 0, 1 when an atomic variant returned
 * wrong values, or -ENOMEM.
 */
static int read_rounds(const struct ai_job *j, const struct team_result *res,
		       struct measured *m, double *lost)
{
	struct round_result *rr = calloc((size_t)res->rounds + 1, sizeof(*rr));
	double *tmp = calloc((size_t)res->rounds + 1, sizeof(double));
	int bad_sum = 0, k;

	if (!rr || !tmp) {
		free(rr);
		free(tmp);
		return -ENOMEM;
	}
	m->lost_max = 0;
	for (int r = 0; r < res->rounds; r++) {
		read_round(j, res->round[r], &rr[r]);
		/* the harness's: 1 when the round was timed from the
		   stretches all threads were on a cpu */
		rr[r].overlap = res->overlap[r];
		rr[r].corun = res->corun[r];
		lost[r] = rr[r].lost;
		bad_sum |= !rr[r].rsum_ok;
		if (rr[r].lost > m->lost_max)
			m->lost_max = rr[r].lost;
	}
	m->seconds = stats_median(res->seconds, res->rounds);
	m->wall = res->wall ? stats_median(res->wall, res->rounds) : 0;
	m->lost = MEDIAN(lost);
	m->final = MEDIAN(final);
	m->retries = MEDIAN(retries);
	m->overlap = MEDIAN(overlap);
	m->runs = MEDIAN(runs);
	/* over the rounds whose loops were long enough to tell it */
	k = 0;
	for (int r = 0; r < res->rounds; r++)
		if (!isnan(rr[r].cpu_share))
			tmp[k++] = rr[r].cpu_share;
	m->cpu_share = k ? stats_median(tmp, k) : NAN;
	m->late = MEDIAN(late);
	m->corun = MEDIAN(corun);
	m->share_rounds = 0;
	for (int r = 0; r < res->rounds; r++)
		if (!isnan(rr[r].share_most))
			tmp[m->share_rounds++] = rr[r].share_most;
	m->share_most = stats_median(tmp, m->share_rounds);
	for (int r = 0, k = 0; r < res->rounds; r++)
		if (!isnan(rr[r].share_least))
			tmp[k++] = rr[r].share_least;
	m->share_least = stats_median(tmp, m->share_rounds);
	free(rr);
	free(tmp);
	return bad_sum;
}

/* The most numbers a point of a variant carries. */
#define AI_EXTRAS 20

/*
 * The numbers kept with variant v's point (m measured): the keys and
 * their values into keys and vals. Returns how many.
 */
static int point_extras(enum variant v, const struct measured *m,
			double expected, const char **keys, double *vals)
{
	/* wall_s: until the last thread finished (the article's time);
	 * corun_s: the work over the rate while all threads ran */
	static const char *const common[] = {
		"wall_s",	"expected",	    "final",
		"lost_updates", "lost_updates_max", "overlap",
		"cpu_share",	"late_start",	    "corun",
		"corun_s"};
	const double cv[] = {m->wall,	  expected,   m->final,	    m->lost,
			     m->lost_max, m->overlap, m->cpu_share, m->late,
			     m->corun,	  m->seconds};
	int k = 0;

	for (size_t i = 0; i < sizeof(common) / sizeof(common[0]); i++) {
		/* a share the clocks could not tell is left out, never a
		 * number (after the two the lost chart takes, keys 1-2) */
		if (isnan(cv[i]))
			continue;
		keys[k] = common[i];
		vals[k++] = cv[i];
	}
	if (v == V_CAS) {
		keys[k] = "cas_retries";
		vals[k++] = m->retries;
		keys[k] = "cas_retries_per_increment";
		vals[k++] = m->retries / expected;
	}
	if (v == V_ADD_FETCH || v == V_FETCH_ADD) {
		keys[k] = "runs";
		vals[k++] = m->runs;
		keys[k] = "increments_per_run";
		vals[k++] = m->runs > 0 ? expected / m->runs : 0;
	}
	if (m->share_rounds > 0) {
		keys[k] = "share_most";
		vals[k++] = m->share_most;
		keys[k] = "share_least";
		vals[k++] = m->share_least;
	}
	if (m->pairs.n > 0) {
		keys[k] = CMP_PAIR_RATIO;
		vals[k++] = m->pairs.median;
		keys[k] = CMP_PAIR_LO;
		vals[k++] = m->pairs.ci_lo;
		keys[k] = CMP_PAIR_HI;
		vals[k++] = m->pairs.ci_hi;
		keys[k] = CMP_PAIRS;
		vals[k++] = m->pairs.n;
	}
	return k;
}

/*
 * Reads the rounds res kept of variant v (one arm of the team) and emits
 * its points; the first arm of a pair carries the per-pair ratio over
 * the second (CMP_PAIR_*). Returns 0, -EIO when an atomic variant lost
 * updates or returned wrong values, or -ENOMEM.
 */
static int emit_variant(struct run_ctx *ctx, const struct ai_job *j,
			enum variant v, const struct team_result *res,
			struct measured *m)
{
	int n = j->nthreads, bad_sum;
	double expected = (double)n * (double)j->incs;
	double *lost = calloc((size_t)res->rounds + 1, sizeof(double));
	const char *keys[AI_EXTRAS];
	double vals[AI_EXTRAS];

	if (!lost)
		return -ENOMEM;
	bad_sum = read_rounds(j, res, m, lost);
	if (bad_sum < 0) {
		free(lost);
		return bad_sum;
	}
	struct point p = {.chart = AI_NS,
			  .series = ai_variants[v].name,
			  .x = n,
			  .unit = "ns",
			  .extra_keys = keys,
			  .extra_vals = vals,
			  .nextra = point_extras(v, m, expected, keys, vals)};
	m->ns = team_points_time(ctx->sink, p, res, 1e9 / expected);
	p.chart = AI_TIME;
	p.unit = "s";
	team_points_time(ctx->sink, p, res, 1);
	p.chart = AI_LOST;
	p.y = m->lost;
	p.unit = "increments";
	p.samples = lost;
	p.nsamples = res->rounds;
	p.extra_keys = keys + 1;
	p.extra_vals = vals + 1;
	p.nextra = 2;
	sink_point(ctx->sink, &p);
	free(lost);

	if (v != V_PLAIN && m->lost_max > 0) {
		sink_note(
			ctx->sink, "warn",
			"%s, %d threads: the counter ended %.0f short of %.0f: an atomic increment lost updates, the kernel is wrong",
			ai_variants[v].name, n, m->lost_max, expected);
		return -EIO;
	}
	if (bad_sum) {
		sink_note(
			ctx->sink, "warn",
			"%s, %d threads: the values the increments returned are not 1..%.0f each once: the kernel is wrong",
			ai_variants[v].name, n, expected);
		return -EIO;
	}
	return 0;
}

int ai_measure(struct run_ctx *ctx, const enum variant *vs, int nv,
	       const int *cpus, int n, struct measured *m)
{
	const struct ai_params *ap = ctx->params;
	uint64_t incs = (uint64_t)ap->increments;
	int rounds = team_points_rounds_most(ctx) * nv;
	size_t stride =
		((size_t)rounds * SLOT_BYTES + 4095) / 4096 * 4096 / SLOT_BYTES;
	int *arm_of = nv > 1 ? calloc((size_t)rounds, sizeof(int)) : NULL;
	double wall_step = clock_granularity(),
	       cpu_step = clock_thread_cpu_step();
	struct ai_job j = {.pair = {vs[0], vs[nv > 1]},
			   .arm_of = arm_of,
			   .nthreads = n,
			   .rounds = rounds,
			   .incs = incs,
			   .mine_stride = stride,
			   .multi = n > 1,
			   .clock_step =
				   wall_step > cpu_step ? wall_step : cpu_step};
	struct team_job job = {.nthreads = n,
			       .cpus = cpus,
			       .arg = &j,
			       .setup = ai_setup,
			       .body = ai_body,
			       /* start together, all on their cpus: beside
				  busy neighbours each thread did its round in
				  a slice of its own otherwise (the gate's
				  barriers then sleep) */
			       .together = 1,
			       /* threads sharing a cpu get no gate: their
				  barriers spin, or a thread woken late finds
				  the counter to itself */
			       .spin = 1,
			       .rounds_most = rounds,
			       .arms = nv,
			       .arm_of = arm_of,
			       .work = (double)n * (double)incs};
	struct team_result res, arm;
	char label[96];
	int rc;

	/* page-aligned and untouched: ai_setup is the first touch */
	j.shared = aligned_alloc(4096, ((size_t)rounds * SLOT_BYTES + 4095) /
					       4096 * 4096);
	j.mine = aligned_alloc(4096, (size_t)n * stride * SLOT_BYTES);
	j.flags = aligned_alloc(SLOT_BYTES, (size_t)rounds * sizeof(*j.flags));
	if (!j.shared || !j.mine || !j.flags || (nv > 1 && !arm_of)) {
		rc = -ENOMEM;
		goto out;
	}
	memset(j.flags, 0, (size_t)rounds * sizeof(*j.flags));
	/* both arms run in one team: its placement is said under each */
	ai_label(label, sizeof(label), n, vs[0]);
	rc = team_points_run(ctx, &job, &res, label, NULL);
	if (rc)
		goto out;
	for (int i = 1; i < nv; i++) {
		ai_label(label, sizeof(label), n, vs[i]);
		sink_placement(ctx->sink, label, res.place, res.nthreads);
	}
	for (int i = 0; i < nv; i++)
		memset(&m[vs[i]].pairs, 0, sizeof(m[vs[i]].pairs));
	if (nv > 1)
		rc = team_points_pairs(&res, &m[vs[0]].pairs);
	for (int i = 0; i < nv && !rc; i++) {
		rc = team_result_arm(&res, i, &arm);
		if (rc)
			break;
		rc = emit_variant(ctx, &j, vs[i], &arm, &m[vs[i]]);
		team_result_free(&arm);
	}
	team_result_free(&res);
out:
	free(arm_of);
	free(j.shared);
	free(j.mine);
	free(j.flags);
	return rc;
}
