/* affinity.c - where a thread runs and where its first-touched pages land, by how it was pinned; separate data sets under one cache or two */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cancel.h"
#include "compare.h"
#include "experiment.h"
#include "numa_mem.h"
#include "plan_view.h"
#include "stats.h"
#include "team.h"
#include "team_points.h"
#include "workcost.h"

enum af_mode {
	MODE_CREATED_PINNED, /* pthread_attr_setaffinity_np */
	MODE_PINNED_AFTER,   /* pthread_setaffinity_np once it has touched its
				data */
	MODE_PROCESS_MASK,   /* sched_setaffinity on the creator, inherited */
	MODE_UNPINNED,
	MODE_CACHE_SPLIT, /* separate data sets: one cache against two */
	MODE_COUNT
};

static const struct param_choice modes[] = {
	{"created_pinned", MODE_CREATED_PINNED},
	{"pinned_after", MODE_PINNED_AFTER},
	{"process_mask", MODE_PROCESS_MASK},
	{"unpinned", MODE_UNPINNED},
	{"cache_split", MODE_CACHE_SPLIT},
	{0}};

struct af_params {
	int64_t threads;
	int64_t size;
	int64_t passes;
	unsigned modes;
};

#define PARAM_STRUCT struct af_params
static const struct param params[] = {
	PARAM_INT(
		threads, "2", 1, 1024, "threads",
		"modes other than cache_split: threads placed each way (each with its own data; cache_split places two)",
		.flags = PARAM_F_CPUS,
		.only = "modes=created_pinned,pinned_after,process_mask,unpinned"),
	PARAM_SIZE(
		size, "4M", 64 << 10, 1LL << 32, "bytes",
		"modes other than cache_split: each thread's data, first-touched by the thread itself (cache_split sizes its data from the cache)",
		.only = "modes=created_pinned,pinned_after,process_mask,unpinned"),
	PARAM_INT(
		passes, "20", 1, 100000, NULL,
		"reads of its data per thread, asking sched_getcpu at every page"),
	PARAM_SET(
		modes, "all", modes,
		"created_pinned, pinned_after, process_mask, unpinned: the ways a thread is placed; cache_split: two threads with separate data under one cache, then under two"),
	{0}};

/*
 * The names run and describe share, defined once: the charts and their
 * series, and (af_key) the summary keys; the placement labels and the
 * points' x labels are the modes' own names, from the table above.
 */
#define AF_MOVES "moves"
#define AF_MOVES_SERIES "sched_getcpu"
#define AF_LOCAL "local"
#define AF_LOCAL_SERIES "first touch"
#define AF_CACHE "cache"
#define AF_CACHE_SERIES "separate data"

/* "created_pinned_local_pages": a mode's summary key for what. */
static void af_key(char *buf, size_t len, int mode, const char *what)
{
	snprintf(buf, len, "%s_%s", modes[mode].name, what);
}

static const struct chart charts[] = {
	CHART(AF_MOVES, CHART_BAR, "CPU changes sched_getcpu saw, per thread",
	      "placement", "changes per thread"),
	CHART(AF_LOCAL, CHART_BAR,
	      "Pages on the node of the CPU the thread ran on afterwards",
	      "placement", "pages (%)"),
	CHART(AF_CACHE, CHART_BAR,
	      "Two threads with separate data: under one cache or split",
	      "placement", "GB/s read, both threads"),
	{0}};

static const char *const summary_keys[] = {
	"created_pinned_*", "pinned_after_*", "process_mask_*", "unpinned_*",
	"cache_split_*",    "allowed_cpus",   "allowed_mems",	NULL};

struct af_thread {
	int tid, mode, target; /* target: the planned cpu */
	const cpu_set_t *all;  /* process_mask: the team's cpus */
	struct nmem_buf buf;
	int64_t passes;
	int first_cpu, last_cpu, changes, outside;
	const struct topo *t;
	double sum;
	int rc;
};

static void pin_self(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

static void note_cpu(struct af_thread *a, int cpu)
{
	const struct topo_pu *p = topo_pu_by_os(a->t, cpu);

	if (cpu != a->last_cpu && a->last_cpu >= 0)
		a->changes++;
	a->last_cpu = cpu;
	a->outside += !p || !p->allowed;
}

static void *af_body(void *arg)
{
	struct af_thread *a = arg;
	volatile const char *p = (volatile const char *)a->buf.base;
	double sum = 0;

	a->first_cpu = a->last_cpu = sched_getcpu();
	note_cpu(a, a->first_cpu);
	memset(a->buf.base, 1, a->buf.len); /* the first touch */
	if (a->mode == MODE_PINNED_AFTER)
		pin_self(a->target);
	for (int64_t r = 0; r < a->passes; r++)
		for (size_t o = 0; o < a->buf.len; o += 64) {
			sum += p[o];
			if (!(o & (a->buf.page - 1)))
				note_cpu(a, sched_getcpu());
		}
	a->sum = sum;
	return NULL;
}

/* What one round of a placement mode found. */
struct af_round {
	long local, pages, off_mems, outside, changes;
};

/*
 * One round of a placement mode: n threads placed that way, each first
 * touching and reading its own data; their census into *out and where
 * they ran into place (n entries). Returns 0 or -errno.
 */
static int run_round(struct run_ctx *ctx, int mode, const int *cpus, int n,
		     struct af_round *out, struct thread_place *place)
{
	const struct af_params *ap = ctx->params;
	const struct topo *t = ctx->topo;
	struct af_thread *a = calloc((size_t)n, sizeof(*a));
	pthread_t *th = calloc((size_t)n, sizeof(*th));
	cpu_set_t all, saved;
	int rc = 0, started = 0;

	memset(out, 0, sizeof(*out));
	if (!a || !th) {
		rc = -ENOMEM;
		goto out;
	}
	CPU_ZERO(&all);
	for (int i = 0; i < n; i++)
		CPU_SET(cpus[i], &all);
	if (mode == MODE_PROCESS_MASK) {
		sched_getaffinity(0, sizeof(saved), &saved);
		sched_setaffinity(0, sizeof(all), &all);
	}
	for (int i = 0; i < n; i++) {
		struct nmem_spec s = {.len = (size_t)ap->size, .thp = -1};
		pthread_attr_t attr;
		struct errinfo err;

		a[i] = (struct af_thread){.tid = i,
					  .mode = mode,
					  .target = cpus[i],
					  .all = &all,
					  .passes = ap->passes,
					  .t = t,
					  .last_cpu = -1};
		if ((rc = nmem_alloc(&s, NULL, &a[i].buf, &err)))
			break;
		pthread_attr_init(&attr);
		if (mode == MODE_CREATED_PINNED) {
			cpu_set_t one;
			CPU_ZERO(&one);
			CPU_SET(cpus[i], &one);
			pthread_attr_setaffinity_np(&attr, sizeof(one), &one);
		}
		rc = -pthread_create(&th[i], &attr, af_body, &a[i]);
		pthread_attr_destroy(&attr);
		if (rc) {
			nmem_free(&a[i].buf);
			break;
		}
		started++;
	}
	for (int i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	if (mode == MODE_PROCESS_MASK)
		sched_setaffinity(0, sizeof(saved), &saved);
	for (int i = 0; i < started; i++) {
		int *st = calloc(a[i].buf.npages, sizeof(int));
		int node = topo_cpu_node(t, a[i].last_cpu);
		int pinned = mode == MODE_CREATED_PINNED ||
			     mode == MODE_PINNED_AFTER;

		if (st && !nmem_where(&a[i].buf, st))
			for (size_t p = 0; p < a[i].buf.npages; p++) {
				out->pages++;
				out->local += st[p] == node;
				out->off_mems +=
					st[p] >= 0 &&
					!topo_node_mem_allowed(t, st[p]);
			}
		free(st);
		out->changes += a[i].changes;
		out->outside += a[i].outside;
		team_describe(t, i, pinned ? cpus[i] : -1, a[i].last_cpu,
			      &place[i]);
		nmem_free(&a[i].buf);
	}
out:
	free(a);
	free(th);
	return rc;
}

/*
 * One placement mode, warmup + repeat rounds of it: the kept rounds'
 * changes and local share as points (one sample a round), their medians
 * and the strays over every kept round as the summary, and where the
 * last round's threads ran.
 */
static int run_mode(struct run_ctx *ctx, int mode, const int *cpus, int n)
{
	int warmup = (int)ctx->common.warmup, repeat = (int)ctx->common.repeat;
	struct thread_place *place = calloc((size_t)n, sizeof(*place));
	double *moves = calloc((size_t)repeat, sizeof(double));
	double *share = calloc((size_t)repeat, sizeof(double));
	double *changes = calloc((size_t)repeat, sizeof(double));
	double *local = calloc((size_t)repeat, sizeof(double));
	double *pages = calloc((size_t)repeat, sizeof(double));
	long outside = 0, off_mems = 0, with_pages = 0;
	int rc = 0, kept = 0;
	char k[64];

	if (!place || !moves || !share || !changes || !local || !pages) {
		rc = -ENOMEM;
		goto out;
	}
	for (int r = 0; r < warmup + repeat && !rc; r++) {
		struct af_round rd;

		if (cancel_asked(ctx->cancel)) {
			rc = -ECANCELED;
			break;
		}
		rc = run_round(ctx, mode, cpus, n, &rd, place);
		if (rc || r < warmup)
			continue;
		moves[kept] = (double)rd.changes / n;
		changes[kept] = (double)rd.changes;
		local[kept] = (double)rd.local;
		pages[kept] = (double)rd.pages;
		share[kept] =
			rd.pages ? 100.0 * (double)rd.local / (double)rd.pages
				 : 0;
		with_pages += rd.pages > 0;
		outside += rd.outside;
		off_mems += rd.off_mems;
		kept++;
	}
	if (rc || !kept)
		goto out;
	sink_placement(ctx->sink, modes[mode].name, place, n);
	sink_point(ctx->sink, &(struct point){.chart = AF_MOVES,
					      .series = AF_MOVES_SERIES,
					      .x = mode,
					      .x_label = modes[mode].name,
					      .y = stats_median(moves, kept),
					      .samples = moves,
					      .nsamples = kept});
	af_key(k, sizeof(k), mode, "changes");
	sink_summary(ctx->sink, k, stats_median(changes, kept), "");
	af_key(k, sizeof(k), mode, "outside_cpus");
	sink_summary(ctx->sink, k, (double)outside, "samples");
	if (with_pages == kept) {
		sink_point(ctx->sink,
			   &(struct point){.chart = AF_LOCAL,
					   .series = AF_LOCAL_SERIES,
					   .x = mode,
					   .x_label = modes[mode].name,
					   .y = stats_median(share, kept),
					   .unit = "%",
					   .samples = share,
					   .nsamples = kept});
		af_key(k, sizeof(k), mode, "local_pages");
		sink_summary(ctx->sink, k, stats_median(local, kept), "pages");
		af_key(k, sizeof(k), mode, "pages");
		sink_summary(ctx->sink, k, stats_median(pages, kept), "pages");
		af_key(k, sizeof(k), mode, "outside_mems");
		sink_summary(ctx->sink, k, (double)off_mems, "pages");
	}
out:
	free(place);
	free(moves);
	free(share);
	free(changes);
	free(local);
	free(pages);
	return rc;
}

struct split_job {
	char *buf[2];
	size_t len;
	int64_t passes;
	double sum[2];
};

static void split_body(void *arg, int tid, int round)
{
	struct split_job *j = arg;
	const volatile char *p = j->buf[tid];
	double s = 0;

	(void)round;
	/* every pass marked: a round is timed over the stretches both
	 * threads were on their cpus */
	for (int64_t r = 0; r < j->passes; r++) {
		for (size_t o = 0; o < j->len; o += 64)
			s += p[o];
		team_mark((double)(r + 1));
	}
	j->sum[tid] = s;
}

static void split_setup(void *arg, int tid)
{
	struct split_job *j = arg;

	memset(j->buf[tid], 1, j->len);
}

/* Two threads, each with its own 3/4 of a cache: both under one instance, then
 * one each. */
static int run_cache_split(struct run_ctx *ctx)
{
	const struct topo *t = ctx->topo;
	const struct af_params *ap = ctx->params;
	int level = topo_pair_level(t), rc = 0;
	const struct topo_cache *c = NULL;
	struct split_job j = {.passes = ap->passes};
	struct errinfo err;

	sink_summary(ctx->sink, "cache_split_level", level, "");
	if (!level)
		return 0;
	for (int i = 0; i < t->npus && !c; i++)
		if (t->pu[i].allowed)
			c = topo_cache_find(t, level,
					    topo_pu_cache(&t->pu[i], level));
	if (!c || !c->size)
		return 0;
	j.len = (size_t)c->size * 3 / 4 / 64 * 64;
	sink_summary(ctx->sink, "cache_split_bytes", (double)j.len, "bytes");
	for (int k = 0; k < 2; k++)
		if (!(j.buf[k] = aligned_alloc(4096,
					       (j.len + 4095) / 4096 * 4096))) {
			rc = -ENOMEM;
			goto out;
		}
	for (int mode = PAIR_SHARED; mode <= PAIR_SPLIT && !rc; mode++) {
		int cpus[2];
		struct team_result res;
		struct team_job job = {.nthreads = 2,
				       .cpus = cpus,
				       .arg = &j,
				       .setup = split_setup,
				       .body = split_body,
				       .work = 2.0 * (double)j.passes};
		const char *label = mode == PAIR_SHARED ? "one cache" : "split";
		if (topo_plan_pairs(t, level, mode, 1, cpus, &err))
			break;
		rc = team_points_run(ctx, &job, &res,
				     mode == PAIR_SHARED
					     ? "cache_split one cache"
					     : "cache_split split",
				     NULL);
		if (rc)
			break;
		double gbps = team_points_rate(
			ctx->sink,
			(struct point){.chart = AF_CACHE,
				       .series = AF_CACHE_SERIES,
				       .x = mode,
				       .x_label = label,
				       .unit = "GB/s"},
			&res, 2.0 * (double)j.len * (double)j.passes / 1e9);
		if (gbps >= 0)
			sink_summary(ctx->sink,
				     mode == PAIR_SHARED
					     ? "cache_split_shared_gbps"
					     : "cache_split_split_gbps",
				     gbps, "GB/s");
		team_result_free(&res);
	}
out:
	free(j.buf[0]);
	free(j.buf[1]);
	return rc;
}

static int af_run(struct run_ctx *ctx)
{
	const struct af_params *ap = ctx->params;
	int n = (int)ap->threads, rc = 0, done = 0, total = 0;
	int *cpus = calloc((size_t)n + 1, sizeof(int));
	struct errinfo perr;

	if (!cpus)
		return -ENOMEM;
	sink_summary(ctx->sink, "allowed_cpus", ctx->topo->nallowed, "cpus");
	sink_summary(ctx->sink, "allowed_mems", ctx->topo->nmems_allowed,
		     "nodes");
	/* pinned threads go where the plan says; spread unless told */
	if ((rc = experiment_plan(ctx, n, cpus, &perr))) {
		sink_note(ctx->sink, "warn", "%s", perr.msg);
		free(cpus);
		return rc;
	}
	for (int i = 0; i < n; i++)
		if (cpus[i] <
		    0) /* placement=os plans no cpu: pin the spread plan */
			topo_plan(ctx->topo, PLACE_SPREAD, NULL, 0, n, cpus,
				  &perr);
	for (int m = 0; m < MODE_COUNT; m++)
		total += (ap->modes >> m) & 1;
	for (int m = 0; m < MODE_COUNT && !rc; m++) {
		if (!((ap->modes >> m) & 1))
			continue;
		if (cancel_asked(ctx->cancel)) {
			rc = -ECANCELED;
			break;
		}
		sink_progress(ctx->sink, done++, total, modes[m].name);
		rc = m == MODE_CACHE_SPLIT ? run_cache_split(ctx)
					   : run_mode(ctx, m, cpus, n);
	}
	free(cpus);
	if (!rc)
		sink_progress(ctx->sink, total, total, "done");
	return rc;
}

static void af_precheck(const void *params, const struct common_params *common,
			const struct topo *t, struct verdict *v)
{
	const struct af_params *ap = params;

	(void)common;
	if (t->nnodes < 2 && (ap->modes & ~(1u << MODE_CACHE_SPLIT)))
		verdict_note(
			v, "cannot",
			"one memory node: every first touch lands on it, so where a thread "
			"ran when it touched its data cannot show in the page census");
	if (t->nallowed < 2)
		verdict_note(
			v, "cannot",
			"one cpu allowed (%s, from %s): no thread can move, and no two "
			"placements differ",
			t->allowed_text, t->cpus_source);
	if ((ap->modes >> MODE_CACHE_SPLIT) & 1 && !topo_pair_level(t))
		verdict_note(
			v, "cannot",
			"cache_split: no cache level here has two instances with one over "
			"two allowed cpus, so two threads cannot be put under one cache and "
			"then under two");
}

/*
 * The article's point (6.4.3) when the run showed it: a thread pinned
 * when created first-touches its data on its own node, one pinned after
 * the touch keeps its pages where it started. Says it as the headline
 * into head (empty when the run could not show it), from the "local"
 * points of both modes through compare.h.
 */
static void article_point(const struct run_result *r, char *head, size_t len)
{
	const struct result_point *cp = result_point_find_label(
		r, AF_LOCAL, AF_LOCAL_SERIES, modes[MODE_CREATED_PINNED].name);
	const struct result_point *pa = result_point_find_label(
		r, AF_LOCAL, AF_LOCAL_SERIES, modes[MODE_PINNED_AFTER].name);
	const struct result_point *un = result_point_find_label(
		r, AF_LOCAL, AF_LOCAL_SERIES, modes[MODE_UNPINNED].name);
	struct comparison c;
	char tail[96] = "";

	head[0] = '\0';
	if (r->machine->nnodes < 2 || !cp || !pa)
		return;
	if (un)
		snprintf(tail, sizeof(tail), ", and one never pinned %.0f%%",
			 un->y);
	compare_points(cp, pa, experiment_precision(r->exp), &c);
	if (c.rel == CMP_MORE)
		snprintf(
			head, len,
			"a thread pinned when it was created had %.0f%% of its pages on its own node, one pinned after its first touch %.0f%%%s: choose the cpu when the thread is created, as the article advises",
			cp->y, pa->y, tail);
	else if (c.rel == CMP_SAME)
		snprintf(
			head, len,
			"pinned when created or after the first touch, the threads had %.0f%% and %.0f%% of their pages on their own node%s: they started on their target's node, so the article's difference did not show here",
			cp->y, pa->y, tail);
	else
		snprintf(
			head, len,
			"a thread pinned when it was created had %.0f%% of its pages on its own node, one pinned after its first touch %.0f%%%s, but %s",
			cp->y, pa->y, tail,
			c.rel == CMP_LESS
				? "the one pinned later did better, which the article's reasoning cannot explain: rerun"
				: compare_why_not(&c));
}

/*
 * One placement mode's notes: strays outside the cpuset, the cpu changes
 * sched_getcpu saw, the share of pages local. Returns 1 when something
 * ran or landed outside the cpuset.
 */
static int say_mode(const struct run_result *r, int mode, struct verdict *v)
{
	/* what ran or landed outside the cpuset: its key, said with the
	 * mode's name and the count */
	static const struct {
		const char *key, *say;
	} strays[] = {
		{"outside_cpus",
		 "%s: sched_getcpu saw a cpu outside the cpuset %.0f time%s"},
		{"outside_mems",
		 "%s: %.0f page%s landed outside the cpuset's memory nodes"},
	};
	const char *name = modes[mode].name;
	double x, pages, local;
	int stray = 0;
	char k[64];

	for (int i = 0; i < 2; i++) {
		af_key(k, sizeof(k), mode, strays[i].key);
		if (!result_summary_get(r, k, &x) && x > 0) {
			stray = 1;
			verdict_note(v, "warn", strays[i].say, name, x,
				     x == 1 ? "" : "s");
		}
	}
	af_key(k, sizeof(k), mode, "changes");
	if (!result_summary_get(r, k, &x))
		verdict_note(
			v, "info", "%s: sched_getcpu saw %.0f cpu change%s%s",
			name, x, x == 1 ? "" : "s",
			mode == MODE_PINNED_AFTER && x > 0
				? " (the move onto its cpu once pinned counts)"
				: "");
	af_key(k, sizeof(k), mode, "pages");
	if (r->machine->nnodes >= 2 && !result_summary_get(r, k, &pages) &&
	    pages > 0) {
		af_key(k, sizeof(k), mode, "local_pages");
		result_summary_get(r, k, &local);
		verdict_note(
			v,
			local >= pages || mode >= MODE_PINNED_AFTER ? "info"
								    : "warn",
			"%s: %.0f%% of the pages are on the node of the cpu the thread ran on%s",
			name, 100 * local / pages,
			mode == MODE_CREATED_PINNED
				? " (pinned from creation: the article's advice, every page should be)"
				: "");
	}
	return stray;
}

/* Separate data sets under one cache against under two, in a note. */
static void say_cache_split(const struct run_result *r, struct verdict *v)
{
	double x, shared, split;
	const struct result_point *a, *b;
	struct comparison c;

	if (result_summary_get(r, "cache_split_level", &x) || x == 0) {
		verdict_note(
			v, "cannot",
			"cache_split: this machine has no two caches of one level with "
			"one over two allowed cpus, so 'one cache' and 'split' cannot be compared");
		return;
	}
	if (result_summary_get(r, "cache_split_shared_gbps", &shared) ||
	    result_summary_get(r, "cache_split_split_gbps", &split))
		return;
	a = result_point_find_label(r, AF_CACHE, AF_CACHE_SERIES, "one cache");
	b = result_point_find_label(r, AF_CACHE, AF_CACHE_SERIES, "split");
	compare_points(b, a, experiment_precision(r->exp), &c);
	verdict_note(
		v, c.rel == CMP_MORE ? "info" : "warn",
		"cache_split: two threads with separate data read %.2f GB/s under one L%.0f "
		"and %.2f GB/s split%s%s",
		shared, x, split,
		c.rel == CMP_MORE ? ": split is faster, as the article says"
		: c.rel == CMP_LESS
			? ": one cache was faster, against the article"
		: c.rel == CMP_SAME ? ": the same within the rounds' spread"
				    : ": the rounds cannot tell them apart: ",
		c.rel == CMP_FEW || c.rel == CMP_UNSURE ? compare_why_not(&c)
							: "");
}

static void af_describe(const struct run_result *r, struct verdict *v)
{
	const struct af_params *ap = r->params;
	const struct machine_facts *m = r->machine;
	char head[VERDICT_TEXT_LEN];
	int stray = 0;

	for (int mode = 0; mode < MODE_CACHE_SPLIT; mode++)
		if ((ap->modes >> mode) & 1)
			stray |= say_mode(r, mode, v);
	if ((ap->modes & ~(1u << MODE_CACHE_SPLIT)) && m->nnodes < 2)
		verdict_note(
			v, "cannot",
			"one memory node: where a thread ran when it first touched its data "
			"cannot show in the page census");
	if ((ap->modes >> MODE_CACHE_SPLIT) & 1)
		say_cache_split(r, v);
	article_point(r, head, sizeof(head));
	if (stray)
		verdict_headline(
			v,
			"something ran or landed outside this process's cpuset");
	else if (head[0]) {
		verdict_headline(v, "%s", head);
		verdict_note(
			v, "info",
			"every thread ran inside the cpuset (%d cpu%s) and every page landed on its allowed nodes",
			m->nallowed, m->nallowed == 1 ? "" : "s");
	} else
		verdict_headline(
			v,
			"every thread ran inside the cpuset (%d cpu%s) and every page "
			"landed on its allowed nodes",
			m->nallowed, m->nallowed == 1 ? "" : "s");
}

static void af_estimate(const void *params, const struct common_params *common,
			const struct topo *t, double *seconds, uint64_t *bytes)
{
	const struct af_params *ap = params;
	double size = (double)ap->size, threads = (double)ap->threads;
	double rounds = cost_rounds(common);
	double one = rounds * (cost_teams_s(1) +
			       cost_touch_s(t, size * threads, (int)threads) +
			       cost_pass_s(t, COST_READ,
					   (double)ap->passes * size * threads,
					   size * threads, (int)threads));

	/*
	 * four ways of pinning, then the data under one cache and split;
	 * every round of a pinning starts its threads and touches afresh
	 */
	*seconds = 6 * one;
	*bytes = (uint64_t)ap->size * (uint64_t)ap->threads + (64u << 20);
}

/* The cache_split pairs: two threads under one cache, then under two. */
static void plan_cache_split(const struct topo *t, struct strbuf *out)
{
	int level = topo_pair_level(t), cpus[2];
	char what[64];
	struct errinfo err;

	if (!level) {
		strbuf_addstr(
			out,
			"cache_split: not placed: no cache level has two instances with one over two allowed cpus\n");
		return;
	}
	for (int mode = PAIR_SHARED; mode <= PAIR_SPLIT; mode++) {
		snprintf(what, sizeof(what), "cache_split, %s (L%d)",
			 mode == PAIR_SHARED ? "one cache" : "split", level);
		if (topo_plan_pairs(t, level, mode, 1, cpus, &err))
			strbuf_addf(out, "%s: not placed: %s\n", what, err.msg);
		else
			plan_view_cpus(t, what, cpus, 2, out);
	}
}

/*
 * Before the run: the cpus the pinned modes use (spread where
 * placement=os, as run() pins them), the unpinned threads, where each
 * thread's data goes, and the cache_split pairs.
 */
static void af_plan(const void *params, const struct common_params *common,
		    const struct topo *t, struct strbuf *out)
{
	const struct af_params *ap = params;
	int32_t n = (int32_t)ap->threads;
	struct plan_sweep p = {
		.s = common->placement == PLACE_OS
			     ? PLACE_SPREAD
			     : (enum place_strategy)common->placement,
		.cpus = common->cpus.v,
		.ncpus = common->cpus.n};
	static const char *const as[] = {
		[MODE_CREATED_PINNED] =
			"created_pinned (pinned when created), ",
		[MODE_PINNED_AFTER] =
			"pinned_after (pinned after its first touch), ",
		[MODE_PROCESS_MASK] =
			"process_mask (the creator's mask holds all of them), "};

	for (int m = 0; m < MODE_UNPINNED; m++)
		if ((ap->modes >> m) & 1) {
			p.what = as[m];
			plan_view_sweep(t, &p, &n, 1, out);
		}
	if ((ap->modes >> MODE_UNPINNED) & 1)
		strbuf_addf(
			out,
			"unpinned, threads=%d: where the kernel puts them, on cpus %s\n",
			n, t->allowed_text);
	if (ap->modes & ~(1u << MODE_CACHE_SPLIT))
		plan_view_first_touch(t, "each thread touches its own data",
				      out);
	if ((ap->modes >> MODE_CACHE_SPLIT) & 1)
		plan_cache_split(t, out);
}

static const struct lesson lessons[] = {
	LESSON("unpinned-moves", "A thread nobody pinned",
	       "how many times does a thread that was not pinned change CPU while it works?",
	       "repeat=3 warmup=1", "moves", "unpinned_changes", "moves"),
	{0}};

/* The rulebook (rules.h): what its comparisons need. */
static const struct rule rules[] = {
	RULE(RULE_CPUS, .param = "threads",
	     .what = "one cache against two for separate data"),
	{RULE_END}};
static const char *const compared[] = {"cache_split_*", NULL};

/* One way of placing the threads (key prefix k, said as w): its keys in
 * words. */
#define WAY_LABELS(k, w)                                                       \
	{k "_changes", w ": CPU changes per thread", "changes"},               \
		{k "_outside_cpus", w ": samples outside the allowed cpus",    \
		 "samples"},                                                   \
		{k "_local_pages", w ": pages on the thread's node", "pages"}, \
		{k "_outside_mems", w ": pages outside the allowed nodes",     \
		 "pages"},                                                     \
		{k "_pages", w ": pages touched", "pages"},                    \
	{                                                                      \
		k "_*", w ": %s", "count"                                      \
	}

/* what a person reads for each summary key */
static const struct key_label summary_labels[] = {
	WAY_LABELS("created_pinned", "created pinned"),
	WAY_LABELS("pinned_after", "pinned after start"),
	WAY_LABELS("process_mask", "process mask"),
	WAY_LABELS("unpinned", "unpinned"),
	{"cache_split_level", "cache level the pair shares", "level"},
	{"cache_split_bytes", "bytes each thread streams", "bytes"},
	{"cache_split_*_gbps", "cache sharing, %s pair", "GB/s"},
	{"cache_split_*", "cache sharing: %s", "count"},
	{"allowed_cpus", "cpus this process may use", "cpus"},
	{"allowed_mems", "nodes this process may use", "nodes"},
	{NULL, NULL, NULL}};

/* the series whose names are not words */
static const struct key_label series_labels[] = {
	{"sched_getcpu", "CPU changes seen by sched_getcpu", "changes"},
	{NULL, NULL, NULL}};

/* cache_split picks its pair of cpus from the cache topology, and an
 * unpinned thread goes where the scheduler puts it: the cpus asked for
 * place the modes that pin alone */
#define AF_PINNING "modes=created_pinned,pinned_after,process_mask"
static const struct unread_param unread[] = {
	{.param = "cpus",
	 .why = "only the modes that pin place threads on cpus",
	 .only = AF_PINNING},
	{.param = "placement",
	 .why = "only the modes that pin place threads on cpus",
	 .only = AF_PINNING},
	{0}};

const struct experiment exp_affinity = {
	.name = "affinity",
	.smoke = "threads=1 size=64K passes=1 repeat=1 warmup=0",
	.series_labels = series_labels,
	.headline_key = "unpinned_changes",
	.headline_chart = AF_MOVES,
	.title = "Thread affinity and cpusets",
	.summary =
		"Where a thread runs and where its data lands, by how it was pinned; "
		"separate data under one cache or two; the cpuset honoured",
	.section = "6.4.3, 6.5.6",
	.explain =
		"Each thread first-touches a buffer of its own, then reads it over and "
		"over, asking sched_getcpu at every page which CPU it is on. The threads "
		"are placed four ways: pinned when created (pthread_attr_setaffinity_np), "
		"pinned by themselves after their data is in place (pthread_setaffinity_np), "
		"confined through the creator's mask (sched_setaffinity on the process, "
		"which new threads inherit but which names no CPU per thread), or not "
		"pinned at all. The run counts how often each thread changed CPU and, "
		"with move_pages, on which node its pages landed. Each way is "
		"run repeat times after warmup rounds, every round with new "
		"threads and new data; the charts show the median round.\n\n"
		"The article's advice is to choose the CPUs at creation: the first touch "
		"then already happens on the right node. A thread pinned after the touch "
		"keeps pages on the node it happened to start on, and an unpinned thread "
		"may be moved by the scheduler away from its pages. On one node every "
		"page is local whatever happens, so only the CPU changes show.\n\n"
		"cache_split is the opposite of figures 6.13 and 6.14: two threads with "
		"separate data sets, each three quarters of one cache, under one shared "
		"cache (they evict each other) against under two (each fits). It needs a "
		"cache level with two instances.\n\n"
		"A cpuset (6.5.6) limits the CPUs and memory nodes a process may use; the "
		"topology shows the cpuset this process got, and where it was read "
		"(cgroup cpuset.cpus.effective and cpuset.mems.effective, or the affinity "
		"mask when that is narrower). Every placement honours it; the run checks "
		"that no thread was seen on, and no page landed on, anything outside it.",
	EXPERIMENT_PARTS(af),
	.plan = af_plan,
	/* five of its six parts run on its own threads, rounds fixed; only
	 * cache_split times through the team harness (af_estimate) */
	.fixed_share = 5.0 / 6,
	.uses_placement = 1,
	.unread = unread,
};
