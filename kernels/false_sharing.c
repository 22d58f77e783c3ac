/* false_sharing.c - threads incrementing their own counters, on one cache line or on many */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "experiment.h"
#include "stats.h"
#include "team.h"

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

static const struct param params[] = {
	{.name = "threads",
	 .type = PARAM_SWEEP,
	 .def = "1-4",
	 .min = 1,
	 .max = 1024,
	 .unit = "threads",
	 .help = "thread counts to measure: one (2) or a sweep (1-4, 1,2,4)",
	 .flags = PARAM_F_CPUS,
	 .offset = offsetof(struct fs_params, threads)},
	{.name = "increments",
	 .type = PARAM_INT,
	 .def = "100000000",
	 .min = 1,
	 .max = 4000000000LL,
	 .unit = "per thread",
	 .help = "how often each thread increments its counter per round",
	 .offset = offsetof(struct fs_params, increments)},
	{.name = "layout",
	 .type = PARAM_ENUM,
	 .def = "both",
	 .choices = layouts,
	 .help = "separate: each counter on its own cache line; shared: "
		 "counters stride bytes apart from one line's start; both",
	 .offset = offsetof(struct fs_params, layout)},
	{.name = "stride",
	 .type = PARAM_SWEEP,
	 .def = "4",
	 .min = 4,
	 .max = 4096,
	 .unit = "bytes",
	 .help = "bytes between counters in the shared layout (a multiple of "
		 "4); a sweep such as 4,8,64,128 shows where the line ends",
	 .offset = offsetof(struct fs_params, stride)},
	{0}};

static const struct chart charts[] = {
	{.id = "time",
	 .kind = CHART_BAR,
	 .title = "Wall time per round",
	 .x_label = "threads",
	 .y_label = "time (s)"},
	{.id = "overhead",
	 .kind = CHART_BAR,
	 .title = "Overhead: shared-line time divided by separate-line time (100% = no penalty)",
	 .x_label = "threads",
	 .y_label = "shared / separate (%)"},
	{0}};

static const char *const summary_keys[] = {"slowdown_*_threads*", NULL};

/*
 * Figure 6.10: 500 million increments per thread on four Pentium 4
 * processors. The article computes its overhead by dividing the shared
 * time by the separate time, so 390% is a 3.9x slowdown; our chart uses
 * the same definition.
 */
static const struct reference references[] = {
	{.chart = "overhead", .series = "article 2007: 4x Pentium 4", .x = 2, .y = 390, .unit = "%"},
	{.chart = "overhead", .series = "article 2007: 4x Pentium 4", .x = 3, .y = 734, .unit = "%"},
	{.chart = "overhead", .series = "article 2007: 4x Pentium 4", .x = 4, .y = 1147, .unit = "%"},
	{0}};

struct fs_job {
	char *base;	/* line aligned */
	size_t spacing; /* bytes between counters */
	uint64_t increments;
	int nthreads;
};

static inline volatile uint32_t *counter(const struct fs_job *j, int tid)
{
	return (volatile uint32_t *)(j->base + (size_t)tid * j->spacing);
}

static void fs_body(void *arg, int tid, int round)
{
	const struct fs_job *j = arg;
	volatile uint32_t *c = counter(j, tid);
	uint64_t n = j->increments;

	(void)round;
	*c = 0;
	/*
	 * The volatile counter keeps one load and one store per increment:
	 * on x86-64 gcc -O2 emits `mov (%rdx),%eax; add $0x1,%eax;
	 * mov %eax,(%rdx)` in the loop, so every iteration writes the line.
	 */
	for (uint64_t i = 0; i < n; i++)
		*c = *c + 1;
}

static int fs_check(void *arg)
{
	const struct fs_job *j = arg;

	for (int t = 0; t < j->nthreads; t++)
		if (*counter(j, t) != (uint32_t)j->increments)
			return -EIO;
	return 0;
}

/*
 * Measures one layout for one thread count. Returns 0 and the round times
 * (caller frees res), -ECANCELED, or -errno.
 */
static int measure(struct run_ctx *ctx, const int *cpus, int nthreads,
		   size_t spacing, struct team_result *res, const char *label)
{
	const struct fs_params *fp = ctx->params;
	struct fs_job j = {.spacing = spacing,
			   .increments = (uint64_t)fp->increments,
			   .nthreads = nthreads};
	struct team_job job = {.nthreads = nthreads,
			       .cpus = cpus,
			       .arg = &j,
			       .body = fs_body,
			       .check = fs_check,
			       .warmup = (int)ctx->common.warmup,
			       .repeat = (int)ctx->common.repeat,
			       .cancel = ctx->cancel};
	size_t bytes = (size_t)nthreads * spacing + 4096;
	int rc;

	bytes = (bytes + 4095) & ~(size_t)4095;
	j.base = aligned_alloc(4096, bytes);
	if (!j.base)
		return -ENOMEM;
	memset(j.base, 0, bytes);
	rc = team_run(&job, ctx->topo, res);
	if (rc == 0 || rc == -ECANCELED)
		sink_placement(ctx->sink, label, res->place, res->nthreads);
	if (rc == 0 && res->check_rc) {
		sink_note(ctx->sink, "warn",
			  "%s: a counter did not reach %llu: the kernel is wrong",
			  label, (unsigned long long)j.increments);
		rc = -EIO;
	}
	free(j.base);
	return rc;
}

static void emit_time(struct run_ctx *ctx, const char *series, int nthreads,
		      const struct team_result *res, double *median_out)
{
	struct stats s;
	const struct fs_params *fp = ctx->params;
	double incs = (double)fp->increments;
	static const char *const keys[] = {"ns_per_increment"};
	double ns;
	struct point p = {.chart = "time",
			  .series = series,
			  .x = nthreads,
			  .unit = "s",
			  .samples = res->seconds,
			  .nsamples = res->rounds,
			  .extra_keys = keys,
			  .extra_vals = &ns,
			  .nextra = 1};

	stats_compute(res->seconds, res->rounds, &s);
	p.y = s.median;
	ns = s.median / incs * 1e9;
	sink_point(ctx->sink, &p);
	*median_out = s.median;
}

static int fs_check_params(const void *params,
			   const struct common_params *common,
			   const struct topo *t, struct errinfo *err)
{
	const struct fs_params *fp = params;
	const struct int_list *st = &fp->stride;

	(void)common;
	(void)t;
	for (int i = 0; i < st->n; i++)
		if (st->v[i] % 4) {
			snprintf(err->field, sizeof(err->field), "stride");
			snprintf(err->msg, sizeof(err->msg),
				 "stride %d is not a multiple of 4 (each counter is 4 bytes)",
				 st->v[i]);
			return -EINVAL;
		}
	return 0;
}

static int fs_run(struct run_ctx *ctx)
{
	const struct fs_params *fp = ctx->params;
	const struct int_list *threads = &fp->threads;
	const struct int_list *strides = &fp->stride;
	int do_sep = fp->layout != LAYOUT_SHARED;
	int do_shared = fp->layout != LAYOUT_SEPARATE;
	size_t line = (size_t)ctx->topo->line_size;
	int steps = threads->n * (do_sep + (do_shared ? strides->n : 0));
	int step = 0, rc = 0;
	double best_ratio = 0;
	int best_threads = 0;
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
			struct team_result res;
			snprintf(label, sizeof(label), "threads=%d layout=separate", n);
			sink_progress(ctx->sink, step, steps, label);
			rc = measure(ctx, cpus, n, line, &res, label);
			if (rc)
				break;
			emit_time(ctx, "separate", n, &res, &sep);
			team_result_free(&res);
			step++;
		}
		for (int si = 0; do_shared && si < strides->n && !rc; si++) {
			struct team_result res;
			char series[48];
			double shared;
			int stride = strides->v[si];

			if (strides->n > 1)
				snprintf(series, sizeof(series), "shared, stride %d B",
					 stride);
			else
				snprintf(series, sizeof(series), "shared");
			snprintf(label, sizeof(label),
				 "threads=%d layout=shared stride=%d", n, stride);
			sink_progress(ctx->sink, step, steps, label);
			rc = measure(ctx, cpus, n, (size_t)stride, &res, label);
			if (rc)
				break;
			emit_time(ctx, series, n, &res, &shared);
			team_result_free(&res);
			step++;
			if (do_sep && sep > 0) {
				double ratio = shared / sep;
				char key[64];
				sink_xy(ctx->sink, "overhead", series, n,
					ratio * 100, "%");
				snprintf(key, sizeof(key), "slowdown_%d_threads%s%.0d",
					 n, strides->n > 1 ? "_stride_" : "",
					 strides->n > 1 ? stride : 0);
				sink_summary(ctx->sink, key, ratio, "x");
				/* one thread shares no line: not a candidate */
				if (n > 1 && ratio > best_ratio && si == 0) {
					best_ratio = ratio;
					best_threads = n;
				}
			}
		}
	}
	free(cpus);
	if (rc)
		return rc;
	sink_progress(ctx->sink, steps, steps, "done");
	if (best_threads > 1 && best_ratio >= 1.2)
		sink_headline(ctx->sink,
			      "one shared cache line made %d threads %.1f× slower than separate lines (false sharing)",
			      best_threads, best_ratio);
	else if (best_threads > 1 && best_ratio >= 1.0)
		sink_headline(ctx->sink,
			      "sharing one cache line cost %d threads only %.2f× here: the line did not bounce between caches much",
			      best_threads, best_ratio);
	else if (best_threads > 1)
		sink_headline(ctx->sink,
			      "sharing one cache line did not slow %d threads down here (%.2f×): rounds this short are noise, ask for more increments",
			      best_threads, best_ratio);
	else if (do_sep && do_shared)
		sink_headline(ctx->sink,
			      "with one thread the layout does not matter: false sharing needs two or more threads");
	return 0;
}

static void fs_estimate(const void *params, const struct common_params *common,
			const struct topo *t, double *seconds, uint64_t *bytes)
{
	const struct fs_params *fp = params;
	const struct int_list *threads = &fp->threads;
	const struct int_list *strides = &fp->stride;
	double incs = (double)fp->increments;
	double rounds = (double)(common->repeat + common->warmup);
	double total = 0;

	(void)t;
	/* about 1 ns per uncontended increment, up to 50 ns when the line bounces */
	for (int i = 0; i < threads->n; i++)
		total += incs * rounds * (1e-9 + 50e-9 * (1 + strides->n));
	*seconds = total;
	*bytes = (uint64_t)PARAM_MAX_LIST * 4096 * 2;
}

/* The classroom's questions; each run takes a few seconds on 2 cores. */
static const struct lesson lessons[] = {
	{.id = "shared-line",
	 .title = "One shared line, two threads",
	 .question = "how many times slower are 2 threads when their counters share one cache line?",
	 .params = "threads=2 increments=20000000 layout=both stride=4 repeat=3 warmup=1",
	 .unit = "x",
	 .answer = "slowdown_2_threads",
	 .chart = "overhead",
	 .article = "390% of the separate-line time with 2 threads on four Pentium 4 processors (2007)",
	 .article_value = 3.9},
	{.id = "one-thread",
	 .title = "One thread alone",
	 .question = "with a single thread, how many times slower is the packed layout than the separate one?",
	 .params = "threads=1 increments=20000000 layout=both stride=4 repeat=3 warmup=1",
	 .unit = "x",
	 .answer = "slowdown_1_threads",
	 .chart = "overhead"},
	{0}};

const struct experiment exp_false_sharing = {
	.name = "false_sharing",
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
		"processors: with one shared line, 2, 3 and 4 threads took 390%, 734% "
		"and 1,147% of the separate-line time. On a single quad-core chip whose cores shared "
		"a cache the penalty was small. Today expect a clear slowdown "
		"(often 3-10x) whenever the threads run on different cores, "
		"larger across sockets or chiplets, and almost none when two "
		"threads share one core (SMT siblings share the L1). Sweep the "
		"stride (4,8,64,128) to watch the penalty vanish once counters "
		"sit a whole line apart.",
	.params = params,
	.params_size = sizeof(struct fs_params),
	.charts = charts,
	.summary_keys = summary_keys,
	.references = references,
	.uses_placement = 1,
	.check = fs_check_params,
	.run = fs_run,
	.estimate = fs_estimate,
	/* the classroom */
	.lessons = lessons,
};
