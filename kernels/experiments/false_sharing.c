/* false_sharing.c - threads incrementing their own counters, on one cache line or on many */
#include <errno.h>
#include <math.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "contend.h"
#include "experiment.h"
#include "plan_view.h"
#include "rates.h"
#include "stats.h"
#include "strbuf.h"
#include "team.h"
#include "team_points.h"
#include "workcost.h"

enum fs_layout { LAYOUT_SEPARATE, LAYOUT_SHARED, LAYOUT_BOTH };

static const struct param_choice layouts[] = {{"separate", LAYOUT_SEPARATE},
					      {"shared", LAYOUT_SHARED},
					      {"both", LAYOUT_BOTH},
					      {0}};

struct fs_params {
	struct int_list threads;
	int64_t increments;
	int layout; /* enum fs_layout */
	struct int_list stride;
};

#define PARAM_STRUCT struct fs_params
static const struct param params[] = {
	PARAM_SWEEP(threads, "1-4", 1, 1024, "threads",
		    "thread counts to measure", .flags = PARAM_F_CPUS),
	PARAM_INT(increments, "100000000", 1, 4000000000LL, "per thread",
		  "how often each thread increments its counter per round"),
	PARAM_ENUM(
		layout, "both", layouts,
		"separate: counters two cache lines apart (128 B on 64 B lines), out of each other's way; shared: counters stride bytes apart from one line's start; both: each in turn"),
	PARAM_SWEEP(
		stride, "4", 4, 4096, "bytes",
		"layout=shared, both: bytes between counters in the shared layout (a multiple of 4); 4,8,64,128 shows where the line ends",
		.only = "layout=shared,both"),
	{0}};

/*
 * The names run and describe share, defined once: the charts, the
 * separate layout's series, the shared layout's series, the placement
 * labels and the summary key of each comparison.
 */
#define FS_TIME "time"
#define FS_OVERHEAD "overhead"
static const char fs_separate[] = "separate";

static const struct chart charts[] = {
	CHART(FS_TIME, CHART_BAR, "Time per round, while all threads ran",
	      "threads", "time (s)", .per_param = "increments",
	      .per = "increment"),
	CHART(FS_OVERHEAD, CHART_BAR,
	      "Overhead: shared-line time divided by separate-line time (100% = no penalty)",
	      "threads", "shared / separate (%)"),
	{0}};

static const char *const summary_keys[] = {"slowdown_*_threads*", "overlap_min",
					   NULL};

/*
 * Figure 6.10: 500 million increments per thread on four Pentium 4
 * processors. The article computes its overhead by dividing the shared
 * time by the separate time, so 390% is a 3.9x slowdown; our chart uses
 * the same definition. The figures live here once: the references, the
 * lessons (by .id) and the explain text all take them from these.
 */
#define P4_2 390
#define P4_3 734
#define P4_4 1147
#define STR_(x) #x
#define STR(x) STR_(x)
static const struct reference references[] = {
	REFERENCE(
		FS_OVERHEAD, "article 2007: 4x Pentium 4", 2, P4_2, "%",
		.id = "p4-2-threads",
		.words = STR(
			P4_2) "% of the separate-line time with 2 threads on four Pentium 4 processors (2007)"),
	REFERENCE(
		FS_OVERHEAD, "article 2007: 4x Pentium 4", 3, P4_3, "%",
		.id = "p4-3-threads",
		.words = STR(
			P4_3) "% of the separate-line time with 3 threads on four Pentium 4 processors (2007)"),
	REFERENCE(
		FS_OVERHEAD, "article 2007: 4x Pentium 4", 4, P4_4, "%",
		.id = "p4-4-threads",
		.words = STR(
			P4_4) "% of the separate-line time with 4 threads on four Pentium 4 processors (2007)"),
	{0}};

static void shared_series(char *buf, size_t len, int nstrides, int stride)
{
	if (nstrides > 1)
		snprintf(buf, len, "shared, stride %d B", stride);
	else
		snprintf(buf, len, "shared");
}

/* stride < 0: the separate layout */
static void fs_label(char *buf, size_t len, int n, int stride)
{
	if (stride < 0)
		snprintf(buf, len, "threads=%d layout=separate", n);
	else
		snprintf(buf, len, "threads=%d layout=shared stride=%d", n,
			 stride);
}

static void slowdown_key(char *buf, size_t len, int nstrides, int n, int stride)
{
	if (nstrides > 1)
		snprintf(buf, len, "slowdown_%d_threads_stride_%d", n, stride);
	else
		snprintf(buf, len, "slowdown_%d_threads", n);
}

/* Bytes of one counter. */
#define FS_COUNTER ((int)sizeof(uint32_t))

/*
 * Whether the counters of n threads stride bytes apart sit in one line
 * of line bytes, from a line-aligned base: the last one starts (n - 1) x
 * stride in and ends FS_COUNTER bytes later (2 threads 48 B apart: bytes
 * 0-3 and 48-51, one 64 B line).
 */
static int in_one_line(int n, int stride, int line)
{
	return (int64_t)(n - 1) * stride + FS_COUNTER <= line;
}

struct fs_job {
	char *base;	/* line aligned */
	size_t spacing; /* bytes between counters */
	uint64_t increments;
	int nthreads;
	uint64_t *done; /* per thread: the increments of its last round */
	/*
	 * Per round (rounds of them): the threads that have entered its
	 * body, and per round and thread the increments made from when
	 * every thread had entered until it saw thread 0 through (thread
	 * 0's: until it was; 0 when it finished before the last started).
	 */
	int rounds;
	atomic_int *entered;
	uint64_t *window;
	/* round + 1 once thread 0 has made its increments: the others stop */
	_Alignas(128) atomic_int through;
};

/* The others look whether thread 0 is through once every this many
 * increments (a few microseconds). */
#define FS_BATCH 4096
/*
 * Every thread marks its progress (team_mark) once every this many
 * increments (tens of microseconds): a clock read among the increments
 * changes how the line travels, so they are rare.
 */
#define FS_MARK (16 * FS_BATCH)

static inline volatile uint32_t *counter(const struct fs_job *j, int tid)
{
	return (volatile uint32_t *)(j->base + (size_t)tid * j->spacing);
}

/* Once every thread has entered round r's body, k: where this thread's
 * share of the round begins. */
static inline void fs_all_in(struct fs_job *j, int round, uint64_t k,
			     uint64_t *from)
{
	if (*from == UINT64_MAX &&
	    atomic_load_explicit(&j->entered[round], memory_order_acquire) ==
		    j->nthreads)
		*from = k;
}

/*
 * Thread 0 makes `increments` increments; the others keep incrementing
 * until it is through, so every thread stops together. A partner that
 * lost its cpu for a while then never leaves the end of the round to one
 * thread alone (which measured no contention), and thread 0's increments
 * are the round's work: it marks them as it goes, the others mark none,
 * and the round's time is taken from the stretches all were on a cpu.
 * Every thread also counts what it made once all had entered the round
 * (fs_job.window): the threads' shares of the line, thread 0's included.
 */
static void fs_body(void *arg, int tid, int round)
{
	struct fs_job *j = arg;
	volatile uint32_t *c = counter(j, tid);
	uint64_t n = j->increments, k = 0, from = UINT64_MAX;
	int counted = round < j->rounds;

	*c = 0;
	if (counted)
		atomic_fetch_add_explicit(&j->entered[round], 1,
					  memory_order_acq_rel);
	else
		from = 0;
	/*
	 * The volatile counter keeps one load and one store per increment:
	 * on x86-64 gcc -O2 emits `mov (%rdx),%eax; add $0x1,%eax;
	 * mov %eax,(%rdx)` in the loop, so every iteration writes the line.
	 * Thread 0 looks whether all have entered every FS_BATCH increments
	 * until they have, then marks every FS_MARK as before.
	 */
	if (tid == 0) {
		while (k < n) {
			uint64_t step = from == UINT64_MAX
						? FS_BATCH
						: FS_MARK - k % FS_MARK;
			uint64_t m = n - k < step ? n - k : step;
			fs_all_in(j, round, k, &from);
			for (uint64_t i = 0; i < m; i++)
				*c = *c + 1;
			k += m;
			if (k % FS_MARK == 0 || k == n)
				team_mark((double)k);
		}
		j->done[0] = n;
		if (counted)
			j->window[(size_t)round * j->nthreads] =
				from == UINT64_MAX ? 0 : n - from;
		atomic_store_explicit(&j->through, round + 1,
				      memory_order_release);
		return;
	}
	while (atomic_load_explicit(&j->through, memory_order_acquire) <=
	       round) {
		fs_all_in(j, round, k, &from);
		for (int i = 0; i < FS_BATCH; i++)
			*c = *c + 1;
		k += FS_BATCH;
		if (k % FS_MARK == 0)
			team_mark(0);
	}
	j->done[tid] = k;
	if (counted)
		j->window[(size_t)round * j->nthreads + tid] =
			from == UINT64_MAX ? 0 : k - from;
}

static int fs_check(void *arg)
{
	const struct fs_job *j = arg;

	for (int t = 0; t < j->nthreads; t++)
		if (*counter(j, t) != (uint32_t)j->done[t])
			return -EIO;
	return j->done[0] == j->increments ? 0 : -EIO;
}

/* A thread's share of the increments is extra "share_thread_<tid>". */
#define FS_SHARE "share_thread_"

/*
 * Each thread's median share (0..1) over the kept rounds of res of the
 * increments all made while every one was in the round, into share;
 * a round thread 0 finished before the last thread entered counts for
 * none. Returns the rounds counted (0: no share measured).
 */
static int fs_shares(const struct fs_job *j, const struct team_result *res,
		     double *share)
{
	int n = j->nthreads, used = 0;
	double *of = calloc((size_t)res->rounds + 1, sizeof(double));

	for (int t = 0; of && t < n; t++) {
		used = 0;
		for (int k = 0; k < res->rounds; k++) {
			const uint64_t *w;
			double sum = 0;
			if (res->round[k] >= j->rounds)
				continue;
			w = &j->window[(size_t)res->round[k] * n];
			for (int i = 0; i < n; i++)
				sum += (double)w[i];
			if (w[0] && sum > 0)
				of[used++] = (double)w[t] / sum;
		}
		share[t] = used ? stats_median(of, used) : 0;
	}
	free(of);
	return used;
}

/*
 * The time point of one measured layout: its extras carry the cost per
 * increment, the median share of a round all threads ran at once, and,
 * with several threads, each thread's share of the increments.
 * Returns the median, or -ENOMEM unsaid (as team_points_time).
 */
static double fs_point(struct run_ctx *ctx, const struct fs_job *j,
		       const struct team_result *res, const char *series,
		       double *overlap_min)
{
	int n = j->nthreads, nx = 3;
	const char **keys = calloc((size_t)n + 3, sizeof(*keys));
	double *vals = calloc((size_t)n + 3, sizeof(*vals)), median;
	char(*names)[32] = calloc((size_t)n, sizeof(*names));

	if (!keys || !vals || !names) {
		free(keys);
		free(vals);
		free(names);
		return -ENOMEM;
	}
	keys[0] = "ns_per_increment";
	keys[1] = "overlap";
	keys[2] = "corun";
	vals[0] = stats_median(res->seconds, res->rounds) /
		  (double)j->increments * 1e9;
	vals[1] = team_overlap_median(res);
	vals[2] = team_corun_median(res);
	/* the share the round's time stands on: its stretches when it was
	 * timed over them (rules.c says the same share the same way) */
	if (n > 1 && fmin(vals[1], vals[2]) < *overlap_min)
		*overlap_min = fmin(vals[1], vals[2]);
	if (n > 1 && fs_shares(j, res, vals + 3))
		for (int t = 0; t < n; t++) {
			snprintf(names[t], sizeof(names[t]), FS_SHARE "%d", t);
			keys[nx++] = names[t];
		}
	median = team_points_time(ctx->sink,
				  (struct point){.chart = FS_TIME,
						 .series = series,
						 .x = n,
						 .unit = "s",
						 .extra_keys = keys,
						 .extra_vals = vals,
						 .nextra = nx},
				  res, 1);
	free(keys);
	free(vals);
	free(names);
	return median;
}

/*
 * Measures one layout for one thread count and emits its time point
 * (fs_point). Returns 0, -ECANCELED, or -errno.
 */
static int measure(struct run_ctx *ctx, const int *cpus, int nthreads,
		   size_t spacing, const char *label, const char *series,
		   double *median, double *overlap_min)
{
	const struct fs_params *fp = ctx->params;
	int rounds = team_points_rounds_most(ctx);
	struct fs_job j = {.spacing = spacing,
			   .increments = (uint64_t)fp->increments,
			   .nthreads = nthreads,
			   .rounds = rounds};
	struct team_job job = {.nthreads = nthreads,
			       .cpus = cpus,
			       .arg = &j,
			       .body = fs_body,
			       .check = fs_check,
			       .rounds_most = rounds,
			       .work = (double)fp->increments};
	struct team_result res;
	size_t bytes = ((size_t)nthreads * spacing + 4096 + 4095) & ~4095ul;
	char wrong[96];
	int rc = -ENOMEM;

	j.base = aligned_alloc(4096, bytes);
	j.done = calloc((size_t)nthreads, sizeof(*j.done));
	j.entered = calloc((size_t)rounds + 1, sizeof(*j.entered));
	j.window = calloc((size_t)rounds * (size_t)nthreads + 1,
			  sizeof(*j.window));
	if (!j.base || !j.done || !j.entered || !j.window)
		goto out;
	for (int r = 0; r < rounds; r++)
		atomic_init(&j.entered[r], 0);
	atomic_init(&j.through, 0);
	memset(j.base, 0, bytes);
	snprintf(
		wrong, sizeof(wrong),
		"a counter did not hold the increments its thread made (thread 0: %llu): the kernel is wrong",
		(unsigned long long)j.increments);
	rc = team_points_run(ctx, &job, &res, label, wrong);
	if (rc)
		goto out;
	/* as team_points_time: -ENOMEM unsaid, the ratio then skipped */
	*median = fs_point(ctx, &j, &res, series, overlap_min);
	team_result_free(&res);
out:
	free(j.base);
	free(j.done);
	free(j.entered);
	free(j.window);
	return rc;
}

static int fs_check_params(const void *params,
			   const struct common_params *common,
			   const struct topo *t, struct errinfo *err)
{
	const struct fs_params *fp = params;
	const struct int_list *st = &fp->stride;

	(void)common;
	(void)t;
	/* each stride is a series of the time chart, beside the separate
	 * layout's: a run of more could be drawn by no one, nor imported */
	if (fp->layout == LAYOUT_SHARED && st->n > CHART_MAX_SERIES)
		return errinfo_set(
			err, "stride",
			"'stride' lists %d strides, but a chart draws each as a series: at most %d",
			st->n, CHART_MAX_SERIES);
	if (fp->layout == LAYOUT_BOTH && st->n + 1 > CHART_MAX_SERIES)
		return errinfo_set(
			err, "stride",
			"'stride' lists %d strides, but a chart draws each as a series beside the separate layout's: at most %d (layout=shared: %d)",
			st->n, CHART_MAX_SERIES - 1, CHART_MAX_SERIES);
	/* a slowdown for each thread count and stride, and overlap_min */
	if (fp->layout == LAYOUT_BOTH &&
	    summary_room((long)fp->threads.n * st->n + 1, "stride",
			 "thread count and stride, and the least overlap", err))
		return -EINVAL;
	for (int i = 0; i < st->n; i++)
		if (st->v[i] % 4)
			return errinfo_set(
				err, "stride",
				"stride %d is not a multiple of 4 (each counter is 4 bytes)",
				st->v[i]);
	return 0;
}

static int fs_run(struct run_ctx *ctx)
{
	const struct fs_params *fp = ctx->params;
	const struct int_list *threads = &fp->threads;
	const struct int_list *strides = &fp->stride;
	int do_sep = fp->layout != LAYOUT_SHARED;
	int do_shared = fp->layout != LAYOUT_SEPARATE;
	size_t apart = contend_apart(ctx->topo->line_size);
	int steps = threads->n * (do_sep + (do_shared ? strides->n : 0));
	int step = 0, rc = 0;
	double overlap_min = 1;
	int *cpus = calloc(PARAM_MAX_LIST, sizeof(int));

	if (!cpus)
		return -ENOMEM;
	for (int ti = 0; ti < threads->n && !rc; ti++) {
		int n = threads->v[ti];
		struct errinfo perr;
		double sep = 0;
		char label[96];

		rc = experiment_plan(ctx, n, cpus, &perr);
		if (rc) {
			sink_note(ctx->sink, "warn", "%s", perr.msg);
			break;
		}
		if (do_sep) {
			fs_label(label, sizeof(label), n, -1);
			sink_progress(ctx->sink, step, steps, label);
			rc = measure(ctx, cpus, n, apart, label, fs_separate,
				     &sep, &overlap_min);
			if (rc)
				break;
			step++;
		}
		for (int si = 0; do_shared && si < strides->n && !rc; si++) {
			char series[48];
			double shared;
			int stride = strides->v[si];

			shared_series(series, sizeof(series), strides->n,
				      stride);
			fs_label(label, sizeof(label), n, stride);
			sink_progress(ctx->sink, step, steps, label);
			rc = measure(ctx, cpus, n, (size_t)stride, label,
				     series, &shared, &overlap_min);
			if (rc)
				break;
			step++;
			if (do_sep && sep > 0) {
				double ratio = shared / sep;
				char key[64];
				sink_xy(ctx->sink, FS_OVERHEAD, series, n,
					ratio * 100, "%");
				slowdown_key(key, sizeof(key), strides->n, n,
					     stride);
				sink_summary(ctx->sink, key, ratio, "x");
			}
		}
	}
	free(cpus);
	if (rc)
		return rc;
	sink_progress(ctx->sink, steps, steps, "done");
	sink_summary(ctx->sink, "overlap_min", round(overlap_min * 100), "%");
	return 0;
}

/* What became of one (threads, stride) comparison, for the headline. */
struct fs_case {
	int n, stride, found;
	struct comparison c;
	char key[64];
};

/* Keeps c in *best when it beats it: higher ratio, or the first found. */
static void keep(struct fs_case *best, const struct fs_case *c)
{
	if (!best->found || c->c.ratio > best->c.ratio)
		*best = *c;
	best->found = 1;
}

/* "; the article: 390% ... with 2 threads ..." for n threads, or "". */
static const char *article_for(const struct experiment *exp, int n, char *buf,
			       size_t len)
{
	const struct reference *a;
	char id[32];

	snprintf(id, sizeof(id), "p4-%d-threads", n);
	a = experiment_figure(exp, id);
	if (!a || !a->words)
		return "";
	snprintf(buf, len, "; the article: %s", a->words);
	return buf;
}

/*
 * Why a case's comparison cannot be stated as measured, in the words the
 * headline and the summary key's mark both use; "" when it can.
 */
static const char *fs_why(const struct fs_case *k, int line, double floor,
			  char *buf, size_t len)
{
	const struct comparison *c = &k->c;

	if (!in_one_line(k->n, k->stride, line))
		snprintf(
			buf, len,
			"%d threads' counters %d B apart span more than one %d B line: the one-line comparison needs (threads − 1) × stride + %d ≤ %d",
			k->n, k->stride, line, FS_COUNTER, line);
	else if (contend_overlap(c, floor) == CONTEND_TOO_LITTLE)
		snprintf(
			buf, len,
			"the %d threads ran at the same time for only %.0f%% of a round, so they hardly contended for the line: false sharing could not be measured (other processes held the cpus, or one thread finished before the other started)",
			k->n, 100 * c->together);
	else
		contend_why(
			c,
			"the shared line came out faster than separate lines, which false sharing cannot cause: the machine's load changed between the layouts",
			buf, len);
	return buf;
}

/* What became of every comparison of a run, for the headline and notes. */
struct fs_cases {
	struct fs_case pen, flat, apart, alone, apart_line, little;
	int smt_n, compared;
};

/* What the sentences on one run read: the run, its line and thresholds. */
struct fs_say {
	const struct run_result *r;
	const struct fs_params *fp;
	int line;
	double tol, floor;
};

/*
 * Files one (threads, stride) comparison under what became of it and
 * marks its summary key when it cannot be stated as measured.
 */
static void fs_judge(const struct fs_say *s, const struct fs_case *k,
		     struct verdict *v, struct fs_cases *cs)
{
	const struct result_placement *pl;
	char label[96], why[VERDICT_TEXT_LEN];

	fs_why(k, s->line, s->floor, why, sizeof(why));
	if (!in_one_line(k->n, k->stride, s->line)) {
		if (k->stride < s->line)
			verdict_qualify(v, k->key, VERDICT_DISOWNED, "%s", why);
		keep(k->stride >= s->line ? &cs->apart_line : &cs->apart, k);
		return;
	}
	fs_label(label, sizeof(label), k->n, k->stride);
	pl = result_placement_find(s->r, label);
	if (pl && result_placement_distinct_cpus(pl) < 2) {
		verdict_qualify(
			v, k->key, VERDICT_DISOWNED,
			"the %d threads all ran on one cpu and took turns: no line could travel between caches",
			k->n);
		keep(&cs->alone, k);
		return;
	}
	if (contend_overlap(&k->c, s->floor) == CONTEND_TOO_LITTLE) {
		verdict_qualify(v, k->key, VERDICT_DISOWNED, "%s", why);
		if (!cs->little.found || k->c.together < cs->little.c.together)
			cs->little = *k;
		cs->little.found = 1;
		return;
	}
	if (pl && result_placement_distinct_cores(pl) <
			  result_placement_distinct_cpus(pl))
		cs->smt_n = k->n;
	cs->compared++;
	if (why[0])
		verdict_qualify(v, k->key,
				k->c.rel == CMP_MORE ? VERDICT_AT_LEAST
						     : VERDICT_DISOWNED,
				"%s", why);
	keep(k->c.rel == CMP_MORE ? &cs->pen : &cs->flat, k);
}

/* Every shared layout against the separate one, thread count by count. */
static void fs_collect(const struct fs_say *s, struct verdict *v,
		       struct fs_cases *cs)
{
	const struct fs_params *fp = s->fp;
	char series[48];

	for (int ti = 0; ti < fp->threads.n; ti++) {
		int n = fp->threads.v[ti];
		const struct result_point *sep =
			result_point_find(s->r, FS_TIME, fs_separate, n);

		if (n < 2 || !sep)
			continue;
		for (int si = 0; si < fp->stride.n; si++) {
			int stride = fp->stride.v[si];
			const struct result_point *sh;
			struct fs_case k = {.n = n, .stride = stride};

			shared_series(series, sizeof(series), fp->stride.n,
				      stride);
			sh = result_point_find(s->r, FS_TIME, series, n);
			if (!sh)
				continue;
			slowdown_key(k.key, sizeof(k.key), fp->stride.n, n,
				     stride);
			compare_points(sh, sep, s->tol, &k.c);
			compare_state_interval(v, k.key, &k.c);
			fs_judge(s, &k, v, cs);
		}
	}
}

/* The headline of a penalty measured beyond the rounds' spread. */
static void fs_say_penalty(const struct fs_say *s, const struct fs_case *pen,
			   struct verdict *v)
{
	char why[VERDICT_TEXT_LEN], art[VERDICT_TEXT_LEN], rt[64];

	compare_ratio_text(&pen->c, rt, sizeof(rt));
	fs_why(pen, s->line, s->floor, why, sizeof(why));
	if (pen->c.lower_bound)
		verdict_headline(
			v,
			"one shared cache line made %d threads %s slower than separate lines (false sharing%s): %s",
			pen->n, rt,
			article_for(s->r->exp, pen->n, art, sizeof(art)), why);
	else if (pen->c.lo < 1 + s->tol)
		verdict_headline(
			v,
			"one shared cache line made %d threads %s slower than separate lines: a small penalty, but beyond the rounds' spread",
			pen->n, rt);
	else
		verdict_headline(
			v,
			"one shared cache line made %d threads %s slower than separate lines (false sharing%s)",
			pen->n, rt,
			article_for(s->r->exp, pen->n, art, sizeof(art)));
}

/* The headline when no penalty stood out of the rounds' spread. */
static void fs_say_flat(const struct fs_say *s, const struct fs_case *flat,
			struct verdict *v)
{
	char why[VERDICT_TEXT_LEN], rt[64];

	compare_ratio_text(&flat->c, rt, sizeof(rt));
	fs_why(flat, s->line, s->floor, why, sizeof(why));
	if (flat->c.rel == CMP_FEW)
		verdict_headline(
			v,
			"with %d threads the shared line took %s the separate lines' time, but %s: ask for repeat=3 or more",
			flat->n, rt, why);
	else if (flat->c.rel == CMP_UNSURE)
		verdict_headline(
			v,
			"with %d threads the shared line took %s the separate lines' time, but %s: more rounds (repeat) or more increments narrow them",
			flat->n, rt, why);
	else if (flat->c.rel == CMP_LESS)
		verdict_headline(
			v,
			"with %d threads the shared line took %s the separate lines' time: %s; rerun when the machine is idle",
			flat->n, rt, why);
	else
		verdict_headline(
			v,
			"sharing one cache line did not measurably slow %d threads here (%s, within %.0f%% by the rounds' 95%% intervals)%s",
			flat->n, rt, 100 * s->tol,
			flat->c.together < CMP_FULL_OVERLAP
				? "; but they ran together only part of a round"
				: "");
}

/* The headline when every stride put the counters in lines of their own. */
static void fs_say_apart_lines(const struct fs_say *s, struct verdict *v)
{
	const struct int_list *st = &s->fp->stride;
	struct strbuf sb = STRBUF_INIT;
	int k = 0, m = 0;

	for (int si = 0; si < st->n; si++)
		m += st->v[si] >= s->line;
	for (int si = 0; si < st->n; si++)
		if (st->v[si] >= s->line)
			strbuf_addf(&sb, "%s%d",
				    k++ == 0 ? ""
				    : k == m ? " and "
					     : ", ",
				    st->v[si]);
	verdict_headline(
		v,
		"counters %s B apart sit in separate lines: no sharing to measure",
		strbuf_str(&sb));
	strbuf_release(&sb);
}

/* The strongest comparison that was valid, else why none was. */
static void fs_headline(const struct fs_say *s, const struct fs_cases *cs,
			struct verdict *v)
{
	char why[VERDICT_TEXT_LEN];

	if (cs->pen.found)
		fs_say_penalty(s, &cs->pen, v);
	else if (cs->flat.found)
		fs_say_flat(s, &cs->flat, v);
	else if (cs->little.found) {
		fs_why(&cs->little, s->line, s->floor, why, sizeof(why));
		verdict_headline(v, "%s; rerun when the machine is idle", why);
	} else if (cs->alone.found)
		verdict_headline(
			v,
			"the %d threads all ran on one cpu and took turns: no line could travel between caches, so false sharing could not be measured",
			cs->alone.n);
	else if (cs->apart_line.found)
		fs_say_apart_lines(s, v);
	else if (cs->apart.found)
		verdict_headline(v, "%s",
				 fs_why(&cs->apart, s->line, s->floor, why,
					sizeof(why)));
}

/*
 * "thread 0 52%, thread 1 48%" of one point's share extras, or, above 8
 * threads, the least and the most; 0 when the point has none.
 */
static int shares_text(const struct result_point *p, int n, struct strbuf *sb)
{
	double x, lo = 2, hi = -1;
	int tlo = 0, thi = 0;
	char key[32];

	for (int t = 0; p && t < n; t++) {
		snprintf(key, sizeof(key), FS_SHARE "%d", t);
		if (result_point_extra(p, key, &x))
			return 0;
		if (x < lo)
			lo = x, tlo = t;
		if (x > hi)
			hi = x, thi = t;
		if (n <= 8)
			strbuf_addf(sb, "%sthread %d %.0f%%", t ? ", " : "", t,
				    100 * x);
	}
	if (p && n > 8)
		strbuf_addf(
			sb,
			"thread %d the least, %.0f%%, thread %d the most, %.0f%%",
			tlo, 100 * lo, thi, 100 * hi);
	return p != NULL;
}

/*
 * Each thread's share of the increments at the headline's point, shared
 * line against separate lines: the time is thread 0's, so a split far
 * from even says the line was not handed round fairly, or the
 * scheduler ran one thread less (the co-run share beside it says how
 * much of the round all were on a cpu).
 */
static void fs_say_shares(const struct fs_say *s, const struct fs_cases *cs,
			  struct verdict *v)
{
	const struct fs_case *k = cs->pen.found	   ? &cs->pen
				  : cs->flat.found ? &cs->flat
						   : NULL;
	struct strbuf sh = STRBUF_INIT, sep = STRBUF_INIT;
	const struct result_point *p;
	char series[48];
	double corun = 1;

	if (!k)
		return;
	shared_series(series, sizeof(series), s->fp->stride.n, k->stride);
	p = result_point_find(s->r, FS_TIME, series, k->n);
	if (shares_text(p, k->n, &sh)) {
		result_point_extra(p, "corun", &corun);
		shares_text(result_point_find(s->r, FS_TIME, fs_separate, k->n),
			    k->n, &sep);
		verdict_note(
			v, "info",
			"%d threads, one shared line: of the increments made while every thread was in the round, %s (even would be %.0f%% each; the time is thread 0's)%s%s; all were on a cpu at once for %.0f%% of a round (median), and a thread off its cpu makes fewer",
			k->n, strbuf_str(&sh), 100.0 / k->n,
			sep.len ? "; on separate lines " : "", strbuf_str(&sep),
			100 * corun);
	}
	strbuf_release(&sh);
	strbuf_release(&sep);
}

/* What the headline did not say. */
static void fs_notes(const struct fs_say *s, const struct fs_cases *cs,
		     struct verdict *v)
{
	const struct int_list *st = &s->fp->stride;

	for (int si = 0; si < st->n &&
			 (cs->compared || cs->little.found || cs->alone.found);
	     si++) {
		int stride = st->v[si];
		if (stride >= s->line)
			verdict_note(
				v, "info",
				"stride %d B: counters %d B apart sit in separate lines: no line is shared (a control: it matches the separate layout, %d B apart, unless a prefetcher that fetches lines in pairs drags the neighbour's line along)",
				stride, stride, (int)contend_apart(s->line));
	}
	if (cs->little.found && (cs->compared || cs->alone.found))
		verdict_note(
			v, "warn",
			"%d threads: they ran at the same time for only %.0f%% of a round: that point says nothing about false sharing",
			cs->little.n, 100 * cs->little.c.together);
	if (cs->alone.found && cs->compared)
		verdict_note(
			v, "cannot",
			"%d threads: they all ran on one cpu, so nothing could bounce between caches",
			cs->alone.n);
	if (cs->smt_n)
		verdict_note(
			v, "info",
			"%d threads: some shared one core (smt siblings), whose L1 they share: the line need not move there, so expect little penalty between them",
			cs->smt_n);
	fs_say_shares(s, cs, v);
}

/*
 * The sentence on one run: a penalty is stated only for points whose
 * counters really sat in one line ((threads - 1) x stride + 4 <= line),
 * whose threads ran on two or more distinct cpus and together for at
 * least the rulebook's floor of a round, and whose shared and separate
 * medians differ beyond their 95% intervals (compare.h); under full
 * overlap the penalty is stated as a lower bound. A summary key whose
 * comparison cannot be stated is marked with the same reason.
 */
static void fs_describe(const struct run_result *r, struct verdict *v)
{
	const struct fs_params *fp = r->params;
	struct fs_say s = {
		.r = r,
		.fp = fp,
		.line = r->machine->line_size > 0 ? r->machine->line_size : 64,
		.tol = experiment_precision(r->exp),
		.floor = contend_floor(r->exp)};
	struct fs_cases cs = {0};

	if (fp->layout != LAYOUT_BOTH) {
		verdict_headline(
			v,
			"measured the %s layout only: layout=both compares counters in one line with counters on lines of their own",
			fp->layout == LAYOUT_SHARED ? "shared" : "separate");
		return;
	}
	if (int_list_max(&fp->threads) < 2) {
		verdict_headline(
			v,
			"with one thread the layout does not matter: false sharing needs two or more threads");
		return;
	}
	fs_collect(&s, v, &cs);
	fs_headline(&s, &cs, v);
	fs_notes(&s, &cs, v);
}

/*
 * Before the run: does the resolved placement put two or more threads on
 * distinct cpus, and does the stride keep every counter in one line?
 */
static void fs_precheck(const void *params, const struct common_params *common,
			const struct topo *t, struct verdict *v)
{
	const struct fs_params *fp = params;
	int line = t->line_size > 0 ? t->line_size : 64;
	int most = int_list_max(&fp->threads), fits_any = 0;

	if (fp->layout != LAYOUT_BOTH)
		verdict_note(
			v, "warn",
			"layout=%s measures one layout only: the comparison of one shared line against separate lines needs layout=both",
			fp->layout == LAYOUT_SHARED ? "shared" : "separate");
	if (most < 2) {
		verdict_note(
			v, "cannot",
			"false sharing needs 2 or more threads: one thread's counter is written by no other core");
		return;
	}
	if (t->nallowed < 2) {
		verdict_note(
			v, "cannot",
			"only 1 cpu is available to this process: the threads would take turns on it and no line could travel between caches");
		return;
	}
	experiment_precheck_placement(
		t, common, most,
		"they would take turns and no line could travel between caches",
		"they share its L1, so between them the line need not move: expect little penalty",
		v);
	if (fp->layout == LAYOUT_SEPARATE)
		return;
	for (int si = 0; si < fp->stride.n; si++)
		for (int ti = 0; ti < fp->threads.n; ti++)
			if (fp->threads.v[ti] >= 2 &&
			    in_one_line(fp->threads.v[ti], fp->stride.v[si],
					line))
				fits_any = 1;
	for (int si = 0; si < fp->stride.n; si++) {
		int s = fp->stride.v[si], fit = 0, nofit = 0;
		for (int ti = 0; ti < fp->threads.n; ti++) {
			int n = fp->threads.v[ti];
			if (n < 2)
				continue;
			if (in_one_line(n, s, line))
				fit = n > fit ? n : fit;
			else
				nofit = 1;
		}
		if (s >= line)
			verdict_note(
				v, fits_any ? "info" : "cannot",
				"stride %d B: counters %d B apart sit in separate %d B lines: no sharing to measure%s",
				s, s, line,
				fits_any
					? " (a control beside the strides that share)"
					: "");
		else if (!fit)
			verdict_note(
				v, fits_any ? "info" : "cannot",
				"stride %d B: the counters of %d or more threads span more than one %d B line: the one-line comparison needs (threads − 1) × stride + %d ≤ %d",
				s, (line - FS_COUNTER) / s + 2, line,
				FS_COUNTER, line);
		else if (nofit)
			verdict_note(
				v, "warn",
				"stride %d B: only up to %d threads keep their counters in one %d B line; larger thread counts spread over several lines",
				s, fit, line);
	}
}

static void fs_estimate(const void *params, const struct common_params *common,
			const struct topo *t, double *seconds, uint64_t *bytes)
{
	const struct fs_params *fp = params;
	const struct int_list *threads = &fp->threads;
	const struct int_list *strides = &fp->stride;
	const struct rates *r = rates_get();
	int line = t && t->line_size > 0 ? t->line_size : 64;
	double incs = (double)fp->increments;
	double rounds = cost_rounds(common);
	int do_sep = fp->layout != LAYOUT_SHARED;
	int do_shared = fp->layout != LAYOUT_SEPARATE;
	double total = 0;

	/*
	 * A round: every thread's increments, the threads side by side (in
	 * turns where they outnumber the cpus). A shared line is handed from
	 * core to core: n threads make n/2 times the traffic the 2-thread
	 * rate was measured at.
	 */
	for (int i = 0; i < threads->n; i++) {
		int n = threads->v[i];
		double alone = incs * r->inc_ns * 1e-9 * cost_crowd(t, n);
		double bounce = incs * r->bounce_ns * 1e-9 * (n / 2.0);

		if (bounce < alone)
			bounce = alone;
		if (do_sep)
			total += rounds * alone + cost_teams_s(1);
		for (int si = 0; do_shared && si < strides->n; si++)
			total += rounds * (n > 1 && strides->v[si] < line
						   ? bounce
						   : alone) +
				 cost_teams_s(1);
	}
	*seconds = total;
	*bytes = (uint64_t)PARAM_MAX_LIST * 4096 * 2;
}

/* Before the run: the cpus of each thread count, and where the counters go. */
static void fs_plan(const void *params, const struct common_params *common,
		    const struct topo *t, struct strbuf *out)
{
	const struct fs_params *fp = params;
	struct plan_sweep p = {.what = "",
			       .s = (enum place_strategy)common->placement,
			       .cpus = common->cpus.v,
			       .ncpus = common->cpus.n};

	plan_view_sweep(t, &p, fp->threads.v, fp->threads.n, out);
	plan_view_first_touch(
		t,
		"a layout's counters share one page, which the thread that starts the run touches",
		out);
}

/*
 * The classroom's questions. 200 million increments make a round of the
 * separate layout last about 60 ms on a 2-core VM (the shared one 230
 * ms), long enough that two threads started together overlap for most
 * of it even on a busy machine; 6 rounds are the fewest whose median has
 * a 95% interval of its own (stats.c; fewer give their whole range). The
 * run takes about 2 s there, 6 s when other work holds half the cpus.
 */
static const struct lesson lessons[] = {
	LESSON("shared-line", "One shared line, two threads",
	       "how many times slower are 2 threads when their counters share one cache line?",
	       "threads=2 increments=50000000 layout=both stride=4 repeat=6 warmup=1",
	       "x", "slowdown_2_threads", FS_OVERHEAD,
	       .figure = "p4-2-threads"),
	/* a single thread would fail the rulebook (2 cpus): the spacing is
	 * the other question two threads answer */
	LESSON("one-line-apart", "Counters one line apart",
	       "2 threads' counters sit 64 B apart, each in a line of its own: how many times slower than counters two lines (128 B) apart?",
	       "threads=2 increments=100000000 layout=both stride=4,64 repeat=6 warmup=1",
	       "x", "slowdown_2_threads_stride_64", FS_OVERHEAD),
	{0}};

/* The rulebook (rules.h): what its comparisons need. */
static const struct rule rules[] = {
	RULE(RULE_TOGETHER, .param = "threads", .floor = 0.25,
	     .what = "the slowdown of one shared line"),
	RULE(RULE_CPUS, .param = "threads",
	     .what = "the slowdown of one shared line"),
	{RULE_END}};
static const char *const compared[] = {"slowdown_*", NULL};

/* what a person reads for each summary key */
static const struct key_label summary_labels[] = {
	{"slowdown_1_threads_stride_*", "slowdown with 1 thread, stride %s B",
	 "×"},
	{"slowdown_1_threads", "slowdown with 1 thread", "×"},
	{"slowdown_*_threads_stride_*", "slowdown with %s threads, stride %s B",
	 "×"},
	{"slowdown_*_threads*", "slowdown with %s threads", "×"},
	{NULL, NULL, NULL}};

const struct experiment exp_false_sharing = {
	.name = "false_sharing",
	.smoke = "threads=1-2 increments=1000 stride=4,64 repeat=1 warmup=0",
	.headline_key = "slowdown_*_threads*",
	.headline_chart = FS_TIME,
	.title = "False sharing",
	.summary = "Threads increment their own counters: on separate cache "
		   "lines, or packed into one line that every core fights for",
	.section = "6.4.1",
	.explain =
		"Every thread increments a counter of its own and nothing else. "
		"No thread ever reads another thread's counter, so in theory the "
		"threads are independent and the time per round should stay "
		"flat as threads are added.\n\n"
		"Caches do not track bytes, they track lines (64 bytes on "
		"almost every machine today). To write a line, a core must own "
		"it exclusively, so when several counters sit in one line each "
		"write forces that line out of the other cores' caches (a "
		"request for ownership). The line ping-pongs between the cores "
		"and every increment waits for it: that is false sharing.\n\n"
		"In 2007 the article measured this on four separate Pentium 4 "
		"processors: with one shared line, 2, 3 and 4 threads took " STR(P4_2) "%, " STR(P4_3) "% and " STR(
			P4_4) "% of the "
			      "separate-line time. It then ran the same test "
			      "on one Core 2 QX6700, a quad-core package built from two "
			      "dual-core dies, each with an L2 of its own, and the article "
			      "stresses that even with those two separate L2s the penalty "
			      "stayed small and did not grow with the cores; it expected a "
			      "machine with several such processors to look like the Pentium "
			      "4 again. Today expect a clear slowdown "
			      "(often 3-10x) whenever the threads run on different cores, "
			      "larger across sockets or chiplets, and almost none when two "
			      "threads share one core (SMT siblings share the L1). Sweep the "
			      "stride (4,8,64,128) to watch the penalty vanish once counters "
			      "sit a whole line apart.\n\n"
			      "The separate layout puts the counters two lines apart (128 B "
			      "on 64 B lines), not one: Intel's adjacent-line prefetcher "
			      "fetches lines in pairs, so counters one line apart can still "
			      "slow each other. atomic_increment and variable_layout keep "
			      "their words apart by the same distance. The counters of n "
			      "threads stride bytes apart share one line when (n − 1) × "
			      "stride + 4 ≤ the line size (2 threads 48 B apart still do). "
			      "When the threads ran together for only part of a round, the "
			      "slowdown measured is a lower bound (\"at least\"); under half "
			      "a round, none is stated.",
	EXPERIMENT_PARTS(fs),
	.plan = fs_plan,
	.references = references,
	.uses_placement = 1,
	.check = fs_check_params,
};
