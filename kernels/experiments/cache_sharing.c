/* cache_sharing.c - pairs of threads reading one data set: under one cache, or split across caches */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "experiment.h"
#include "plan_view.h"
#include "stats.h"
#include "strbuf.h"
#include "team.h"
#include "team_points.h"
#include "workcost.h"

/*
 * The names run and describe share, defined once: the charts, their
 * series and the summary keys (the points' x labels are the placements'
 * own names, from the table below).
 */
#define CS_TIME "time"
#define CS_RATE "rate"
#define SERIES_PAIR "one data set per pair"
#define SERIES_OWN "each thread its own data set"
#define KEY_WS "working_set"
#define KEY_PAIRS "pairs"
#define KEY_LEVEL "cache_level"
#define KEY_SPLIT "split_over_shared"
#define KEY_SEPARATE "separate_over_shared"

enum placement { P_SHARED, P_SPLIT, P_OS, P_SEPARATE, NPLACEMENTS };

/* in enum order: the choice's value indexes this table too */
static const struct param_choice placements[] = {{"shared", P_SHARED},
						 {"split", P_SPLIT},
						 {"os", P_OS},
						 {"separate_data", P_SEPARATE},
						 {0}};

struct cs_params {
	int64_t pairs;
	int64_t working_set;
	unsigned placements; /* 1u << enum placement */
	int64_t passes;
};

#define PARAM_STRUCT struct cs_params
static const struct param params[] = {
	PARAM_INT(
		pairs, "2", 1, 512, "pairs",
		"pairs of threads, each pair reading one data set (fewer when the cpus or caches do not hold that many)"),
	PARAM_SIZE(
		working_set, "0", 0, 1LL << 36, "bytes",
		"bytes of one data set; 0: from the topology, 3/4 of the shared cache per pair it holds, so one data set fits and two do not"),
	PARAM_SET(
		placements, "all", placements,
		"shared: each pair under one cache; split: a pair's threads under different caches; os: not pinned; separate_data: placed as shared, each thread reading a data set of its own"),
	PARAM_INT(passes, "10", 1, 100000, "per round",
		  "how often each thread reads its whole data set per round"),
	{0}};

static const struct chart charts[] = {
	CHART(CS_TIME, CHART_BAR, "Time per round", "placement", "time (s)"),
	CHART(CS_RATE, CHART_BAR,
	      "Data the threads read per second, all together", "placement",
	      "GB/s"),
	{0}};

static const char *const summary_keys[] = {
	KEY_WS, KEY_PAIRS, "time_*", KEY_SPLIT, KEY_SEPARATE, KEY_LEVEL, NULL};

/* Each thread's sum, on a line (pair) of its own. */
struct sum_slot {
	uint64_t sum;
	char pad[128 - sizeof(uint64_t)];
};

struct cs_job {
	int nthreads;
	uint64_t **data;    /* data set of each thread (pairs share one) */
	int *owner;	    /* the thread that first touches data[t], per t */
	size_t words, step; /* words in a data set; words per cache line */
	int passes;
	struct sum_slot *sums;
};

/*
 * One load per cache line, folded into the add: add (%rdi,%r8,8),%rax;
 * add %rdx,%r8; cmp; jb. Summing keeps the loads; starting from the
 * previous pass's sum makes every call different, so no call can be
 * merged with another even though the function only reads.
 */
static __attribute__((noinline)) uint64_t
read_lines(const uint64_t *p, size_t words, size_t step, uint64_t sum)
{
	for (size_t i = 0; i < words; i += step)
		sum += p[i];
	return sum;
}

static void cs_setup(void *arg, int tid)
{
	struct cs_job *j = arg;

	/* first touch by one thread of the pair: on its node, in its cache */
	if (j->owner[tid] == tid)
		for (size_t i = 0; i < j->words; i++)
			j->data[tid][i] = i;
}

static void cs_body(void *arg, int tid, int round)
{
	struct cs_job *j = arg;
	uint64_t sum = (uint64_t)round;

	/* every pass marked: a round is timed over the stretches every
	 * thread was on its cpu (the work: passes, all threads') */
	for (int k = 0; k < j->passes; k++) {
		sum = read_lines(j->data[tid], j->words, j->step, sum);
		team_mark(k + 1);
	}
	j->sums[tid].sum = sum;
}

/* What one cache level looks like over the allowed cpus. */
struct level_shape {
	int instances,
		widest; /* instances over allowed cpus; most cpus in one */
	uint64_t size;	/* bytes of the first such instance */
};

static void level_shape(const struct topo *t, int level, struct level_shape *ls)
{
	int *seen = calloc((size_t)t->npus + 1, sizeof(int));
	int *count = calloc((size_t)t->npus + 1, sizeof(int));

	memset(ls, 0, sizeof(*ls));
	if (!seen || !count)
		goto out;
	for (int i = 0; i < t->npus; i++) {
		int k = topo_pu_cache(&t->pu[i], level), j;
		if (!t->pu[i].allowed || k < 0)
			continue;
		for (j = 0; j < ls->instances && seen[j] != k; j++)
			;
		if (j == ls->instances) {
			seen[ls->instances++] = k;
			if (ls->instances == 1) {
				const struct topo_cache *c =
					topo_cache_find(t, level, k);
				ls->size = c ? c->size : 0;
			}
		}
		if (++count[j] > ls->widest)
			ls->widest = count[j];
	}
out:
	free(seen);
	free(count);
}

/* "L3: 1 of 32 MiB over 2 cpus; L2: 2 of 1 MiB, 1 cpu each; ..." */
static void describe_levels(const struct topo *t, struct strbuf *sb)
{
	size_t start = sb->len;

	for (int level = 3; level >= 1; level--) {
		struct level_shape ls;
		level_shape(t, level, &ls);
		if (!ls.instances)
			continue;
		strbuf_addf(sb, "%sL%d: %d of %llu KiB, up to %d cpu%s each",
			    sb->len > start ? "; " : "", level, ls.instances,
			    (unsigned long long)ls.size / 1024, ls.widest,
			    ls.widest == 1 ? "" : "s");
	}
	if (sb->len == start)
		strbuf_addstr(sb, "no caches known");
}

/* Distinct instances of `level` among the first cpus of the pairs, and the most
 * pairs on one. */
static int pairs_per_cache(const struct topo *t, int level, const int *plan,
			   int pairs)
{
	int most = 0;

	for (int k = 0; k < pairs; k++) {
		int c = topo_pu_cache(topo_pu_by_os(t, plan[2 * k]), level),
		    n = 0;
		for (int q = 0; q < pairs; q++)
			if (topo_pu_cache(topo_pu_by_os(t, plan[2 * q]),
					  level) == c)
				n++;
		if (n > most)
			most = n;
	}
	return most ? most : 1;
}

struct cs_result {
	double seconds, gbs;
};

/*
 * Runs one placement: cpus (2 per pair, -1 unpinned), each thread on the
 * data set of its pair or, with own_data, its own. Emits the points.
 * Returns 0, -ECANCELED or -errno.
 */
static int measure(struct run_ctx *ctx, enum placement pl, const int *cpus,
		   int pairs, size_t ws, int own_data, struct cs_result *out)
{
	const struct cs_params *cp = ctx->params;
	int n = 2 * pairs, passes = (int)cp->passes;
	size_t line = (size_t)ctx->topo->line_size;
	struct cs_job j = {.nthreads = n,
			   .words = ws / sizeof(uint64_t),
			   .step = line / sizeof(uint64_t),
			   .passes = passes};
	struct team_job job = {.nthreads = n,
			       .cpus = cpus,
			       .arg = &j,
			       .setup = cs_setup,
			       .body = cs_body,
			       .work = (double)n * passes};
	struct team_result res;
	char label[64];
	int rc = 0;

	j.data = calloc((size_t)n, sizeof(*j.data));
	j.owner = calloc((size_t)n, sizeof(int));
	j.sums = aligned_alloc(4096, ((size_t)n * sizeof(*j.sums) + 4095) /
					     4096 * 4096);
	if (!j.data || !j.owner || !j.sums) {
		rc = -ENOMEM;
		goto out;
	}
	for (int t = 0; t < n; t++) {
		j.owner[t] = own_data ? t : t - t % 2;
		if (j.owner[t] == t) {
			/* not touched here: the owning thread does it */
			j.data[t] = aligned_alloc(4096, ws);
			if (!j.data[t]) {
				rc = -ENOMEM;
				goto out;
			}
		} else {
			j.data[t] = j.data[j.owner[t]];
		}
	}
	snprintf(label, sizeof(label), "placement=%s", placements[pl].name);
	rc = team_points_run(ctx, &job, &res, label, NULL);
	if (rc)
		goto out;
	/* declared bytes: every thread reads whole lines of its set, passes
	 * times */
	double bytes = (double)n * passes *
		       (double)((j.words + j.step - 1) / j.step) * (double)line;
	static const char *const keys[] = {"working_set", "pairs", "threads",
					   "bytes_per_round"};
	double vals[] = {(double)ws, pairs, n, bytes};
	struct point p = {.chart = CS_TIME,
			  .series = own_data ? SERIES_OWN : SERIES_PAIR,
			  .x = pl,
			  .x_label = placements[pl].name,
			  .unit = "s",
			  .extra_keys = keys,
			  .extra_vals = vals,
			  .nextra = 4};
	out->seconds = team_points_time(ctx->sink, p, &res, 1);
	p.chart = CS_RATE;
	p.unit = "GB/s";
	out->gbs = team_points_rate(ctx->sink, p, &res, bytes / 1e9);
	/* the placement is the point of the run: say so when it did not hold */
	for (int t = 0; cpus[0] >= 0 && t < n; t++)
		if (res.place[t].cpu_observed != cpus[t]) {
			sink_note(
				ctx->sink, "warn",
				"%s: thread %d ran on cpu %d, not on cpu %d where it was pinned",
				placements[pl].name, t,
				res.place[t].cpu_observed, cpus[t]);
			break;
		}
	team_result_free(&res);
out:
	for (int t = 0; j.data && t < n; t++)
		if (j.owner && j.owner[t] == t)
			free(j.data[t]);
	free(j.data);
	free(j.owner);
	free(j.sums);
	return rc;
}

static int cs_check(const void *params, const struct common_params *common,
		    const struct topo *t, struct errinfo *err)
{
	const struct cs_params *cp = params;
	int64_t ws = cp->working_set;
	int64_t pairs = cp->pairs;
	uint64_t mem = 0;

	(void)common;
	if (ws > 0 && ws < 4096)
		return errinfo_set(
			err, "working_set",
			"working_set %lld is too small: 0 (from the topology) or at least 4K",
			(long long)ws);
	for (int i = 0; t && i < t->nnodes; i++)
		mem += t->node[i].mem_total;
	/* separate_data holds two data sets per pair */
	if (ws > 0 && mem > 0 && (uint64_t)ws * 2 * (uint64_t)pairs > mem / 2)
		return errinfo_set(
			err, "working_set",
			"working_set %lld MiB x %lld pairs x 2 is more than half of the machine's %llu MiB",
			(long long)(ws >> 20), (long long)pairs,
			(unsigned long long)(mem >> 20));
	return 0;
}

/* Nothing to run with fewer than 2 cpus: every placement asked for is
 * skipped, saying why. */
static int cs_no_pair(struct run_ctx *ctx)
{
	const struct topo *t = ctx->topo;
	const struct cs_params *cp = ctx->params;

	sink_note(
		ctx->sink, "warn",
		"a pair of threads needs 2 cpus, but this process may use only cpu %s: nothing was measured",
		t->allowed_text);
	for (int pl = 0; pl < NPLACEMENTS; pl++) {
		char label[64];
		if (!(cp->placements & (1u << pl)))
			continue;
		snprintf(label, sizeof(label), "placement=%s",
			 placements[pl].name);
		sink_skipped(
			ctx->sink, label,
			"a pair of threads needs 2 cpus, and this process may use only cpu %s",
			t->allowed_text);
	}
	return 0;
}

/* Where the pairs go: the cache level, how many pairs, each placement's
 * cpus (2 per pair; none: -1, unpinned) or why it cannot be held. */
struct pair_choice {
	int want, pairs, level, contrast;
	int *shared, *split, *none;
	int have_shared, have_split;
	char why_shared[PARAM_ERR_LEN], why_split[PARAM_ERR_LEN];
};

/* The outermost cache level there is: sized and placed by when no level
 * can contrast shared against split. */
static int outermost_level(const struct topo *t)
{
	int level;

	for (level = 3; level >= 1; level--) {
		struct level_shape ls;
		level_shape(t, level, &ls);
		if (ls.instances)
			break;
	}
	return level;
}

/* Chooses the level and the most pairs (up to the request) that both
 * plans can place. Returns 0 or -ENOMEM. */
static int choose_pairs(const struct topo *t, const struct cs_params *cp,
			struct pair_choice *pc)
{
	size_t n;

	pc->want = pc->pairs = (int)cp->pairs;
	pc->level = topo_pair_level(t);
	pc->contrast = pc->level > 0;
	if (2 * pc->pairs > t->nallowed)
		pc->pairs = t->nallowed / 2;
	if (!pc->contrast)
		pc->level = outermost_level(t);
	n = (size_t)2 * (size_t)pc->pairs;
	pc->shared = calloc(n, sizeof(int));
	pc->split = calloc(n, sizeof(int));
	pc->none = calloc(n, sizeof(int));
	if (!pc->shared || !pc->split || !pc->none)
		return -ENOMEM;
	for (; pc->level > 0 && pc->pairs >= 1; pc->pairs--) {
		struct errinfo shared, split;

		pc->have_shared =
			!topo_plan_pairs(t, pc->level, PAIR_SHARED, pc->pairs,
					 pc->shared, &shared);
		if (!pc->have_shared)
			snprintf(pc->why_shared, sizeof(pc->why_shared), "%s",
				 shared.msg);
		pc->have_split = !topo_plan_pairs(t, pc->level, PAIR_SPLIT,
						  pc->pairs, pc->split, &split);
		if (!pc->have_split)
			snprintf(pc->why_split, sizeof(pc->why_split), "%s",
				 split.msg);
		if ((pc->have_shared && pc->have_split) || pc->pairs == 1 ||
		    (!pc->contrast && (pc->have_shared || pc->have_split)))
			break;
	}
	if (pc->pairs < 1)
		pc->pairs = 1;
	if (pc->level == 0) {
		snprintf(pc->why_shared, sizeof(pc->why_shared),
			 "the topology names no cache over the allowed cpus");
		snprintf(pc->why_split, sizeof(pc->why_split), "%s",
			 pc->why_shared);
	}
	for (int i = 0; i < 2 * pc->pairs; i++)
		pc->none[i] = -1;
	return 0;
}

static int placement_ok(const struct pair_choice *pc, enum placement pl)
{
	return pl == P_OS || (pl == P_SPLIT ? pc->have_split : pc->have_shared);
}

/* Why shared against split cannot be shown here, and what runs instead. */
static void note_no_contrast(struct run_ctx *ctx, const struct pair_choice *pc)
{
	const struct topo *t = ctx->topo;
	const struct cs_params *cp = ctx->params;
	struct strbuf ran = STRBUF_INIT, skipped = STRBUF_INIT;
	struct strbuf levels = STRBUF_INIT;

	describe_levels(t, &levels);
	for (int pl = 0; pl < NPLACEMENTS; pl++) {
		struct strbuf *to =
			placement_ok(pc, (enum placement)pl) ? &ran : &skipped;
		if (!(cp->placements & (1u << pl)))
			continue;
		strbuf_addf(to, "%s%s", to->len ? ", " : "",
			    placements[pl].name);
	}
	sink_note(
		ctx->sink, "warn",
		"shared against split needs a cache level with 2 or more instances over the allowed cpus, one of them over 2 or more cpus (e.g. 2 sockets of 2 cores each, like the 2-node numa-vm guest); here %s (allowed cpus %s). Ran instead: %s%s%s%s",
		strbuf_str(&levels), t->allowed_text,
		ran.len ? strbuf_str(&ran) : "nothing",
		skipped.len ? "; skipped: " : "", strbuf_str(&skipped),
		pc->have_shared
			? ". separate_data keeps the shared placement and gives each thread its own data set: one cache then holds two data sets instead of one, the capacity half of what split costs"
			: "");
	strbuf_release(&ran);
	strbuf_release(&skipped);
	strbuf_release(&levels);
}

/* The bytes of one data set: the request's, or 3/4 of the shared cache
 * per pair it holds, said in a note. */
static size_t working_set(struct run_ctx *ctx, const struct pair_choice *pc)
{
	const struct topo *t = ctx->topo;
	const struct cs_params *cp = ctx->params;
	const struct topo_cache *c = NULL;
	size_t ws = (size_t)cp->working_set;
	int per = 1;

	if (ws)
		return ws & ~(size_t)(sizeof(uint64_t) - 1);
	if (pc->have_shared) {
		c = topo_cache_find(
			t, pc->level,
			topo_pu_cache(topo_pu_by_os(t, pc->shared[0]),
				      pc->level));
		per = pairs_per_cache(t, pc->level, pc->shared, pc->pairs);
	}
	if (c && c->size) {
		ws = (size_t)(c->size * 3 / 4 / (uint64_t)per) & ~(size_t)4095;
		sink_note(
			ctx->sink, "info",
			"working_set %zu KiB per pair: 3/4 of one L%d (%llu KiB), which holds %d pair%s under shared and twice the data under split or separate_data",
			ws >> 10, pc->level, (unsigned long long)c->size >> 10,
			per, per == 1 ? "" : "s");
	} else {
		ws = 8u << 20;
		sink_note(
			ctx->sink, "warn",
			"working_set: no shared cache size is known here, so 8 MiB per pair");
	}
	return ws < 4096 ? 4096 : ws;
}

/* Runs each placement asked for, then the ratio of the two compared. */
static int measure_all(struct run_ctx *ctx, const struct pair_choice *pc,
		       size_t ws)
{
	const struct cs_params *cp = ctx->params;
	int nset = __builtin_popcount(cp->placements), step = 0, rc = 0;
	struct cs_result r[NPLACEMENTS];
	int done[NPLACEMENTS] = {0};

	for (int k = 0; k < NPLACEMENTS && !rc; k++) {
		enum placement pl = (enum placement)k;
		const int *cpus = pl == P_SPLIT ? pc->split
				  : pl == P_OS	? pc->none
						: pc->shared;
		char key[64];

		if (!(cp->placements & (1u << pl)))
			continue;
		sink_progress(ctx->sink, step++, nset, placements[pl].name);
		if (!placement_ok(pc, pl)) {
			snprintf(key, sizeof(key), "placement=%s",
				 placements[pl].name);
			sink_skipped(ctx->sink, key, "%s",
				     pl == P_SPLIT ? pc->why_split
						   : pc->why_shared);
			continue;
		}
		rc = measure(ctx, pl, cpus, pc->pairs, ws, pl == P_SEPARATE,
			     &r[pl]);
		if (rc)
			break;
		done[pl] = 1;
		snprintf(key, sizeof(key), "time_%s", placements[pl].name);
		sink_summary(ctx->sink, key, r[pl].seconds, "s");
	}
	if (rc)
		return rc;
	sink_progress(ctx->sink, nset, nset, "done");
	if (done[P_SHARED] && done[P_SPLIT] && pc->contrast)
		sink_summary(ctx->sink, KEY_SPLIT,
			     r[P_SPLIT].seconds / r[P_SHARED].seconds, "x");
	else if (done[P_SHARED] && done[P_SEPARATE])
		sink_summary(ctx->sink, KEY_SEPARATE,
			     r[P_SEPARATE].seconds / r[P_SHARED].seconds, "x");
	return 0;
}

static int cs_run(struct run_ctx *ctx)
{
	struct pair_choice pc = {0};
	size_t ws;
	int rc;

	if (ctx->topo->nallowed < 2)
		return cs_no_pair(ctx);
	rc = choose_pairs(ctx->topo, ctx->params, &pc);
	if (rc)
		goto out;
	if (pc.pairs < pc.want)
		sink_note(
			ctx->sink, "warn",
			"pairs=%d needs %d cpus; the allowed cpus (%s) hold %d pair%s as placed here: ran %d",
			pc.want, 2 * pc.want, ctx->topo->allowed_text, pc.pairs,
			pc.pairs == 1 ? "" : "s", pc.pairs);
	if (!pc.contrast)
		note_no_contrast(ctx, &pc);
	ws = working_set(ctx, &pc);
	sink_summary(ctx->sink, KEY_WS, (double)ws, "bytes");
	sink_summary(ctx->sink, KEY_PAIRS, pc.pairs, "pairs");
	sink_summary(ctx->sink, KEY_LEVEL, pc.level, "");
	sink_note(
		ctx->sink, "info",
		"data read from memory is not measured: that needs the memory controller's counters, which numalab does not read; rate is what the threads read, from cache or memory");
	rc = measure_all(ctx, &pc, ws);
out:
	free(pc.shared);
	free(pc.split);
	free(pc.none);
	return rc;
}

/* Why a pair cannot be split across caches, or sit under one, on machine m. */
static const char *why_not(const struct machine_facts *m, enum placement pl)
{
	if (m->nallowed < 2)
		return "a pair of threads needs 2 cpus";
	if (pl == P_SPLIT)
		return m->llc_instances <= 1
			       ? "this machine has one last-level cache for all its cpus and no other level that both holds a pair and has a second instance to split it across"
			       : "no cache level here has two instances of which one is shared by 2 cpus";
	return "no cache here is shared by 2 cpus, so a pair cannot sit under one";
}

/*
 * The time point of placement pl, or NULL when the run did not measure
 * it: a placement this machine cannot hold is skipped by the run, so each
 * is optional, and they are read from what the run emitted rather than
 * asked for by name.
 */
static const struct result_point *measured(const struct run_result *r,
					   enum placement pl)
{
	const char *series = pl == P_SEPARATE ? SERIES_OWN : SERIES_PAIR;

	for (int i = 0; i < r->npoints; i++) {
		const struct result_point *p = &r->points[i];
		if (p->chart && p->series && p->x_label &&
		    !strcmp(p->chart, CS_TIME) && !strcmp(p->series, series) &&
		    !strcmp(p->x_label, placements[pl].name))
			return p;
	}
	return NULL;
}

/* What a pair's size and place were: the run's summary. */
struct cs_sized {
	double pairs, ws, level;
};

/* Split against shared, in the headline: "2 pairs reading 768 KiB each
 * took 1.4× longer split across L2 caches than with each pair under one". */
static void say_split(const struct comparison *c, const struct cs_sized *z,
		      const char *rt, struct verdict *v)
{
	double pairs = z->pairs, ws = z->ws, level = z->level;

	if (c->rel == CMP_MORE || c->rel == CMP_LESS) {
		struct comparison turned = *c;
		char tt[64];
		if (c->ratio < 1)
			compare_invert(&turned);
		verdict_headline(
			v,
			"%.0f pair%s reading %.0f KiB each took %s %s split across L%.0f caches than with each pair under one",
			pairs, pairs == 1 ? "" : "s", ws / 1024,
			compare_ratio_text(&turned, tt, sizeof(tt)),
			c->ratio >= 1 ? "longer" : "less time", level);
	} else if (c->rel == CMP_SAME)
		verdict_headline(
			v,
			"%.0f pair%s reading %.0f KiB each took the same time split across L%.0f caches as under one, within the noise (%s)",
			pairs, pairs == 1 ? "" : "s", ws / 1024, level, rt);
	else
		verdict_headline(
			v,
			"%.0f pair%s reading %.0f KiB each split across L%.0f caches or under one could not be told apart within the noise (%s): %s",
			pairs, pairs == 1 ? "" : "s", ws / 1024, level, rt,
			compare_why_not(c));
}

/* A data set per thread against one per pair, both under one cache. */
static void say_separate(const struct comparison *c, const struct cs_sized *z,
			 const char *rt, int split, struct verdict *v)
{
	const char *lead = split ? "" : "no pair was split across caches; ";
	double pairs = z->pairs;

	if (c->rel == CMP_MORE || c->rel == CMP_LESS)
		verdict_headline(
			v,
			"%s%.0f pair%s under one L%.0f: a data set of its own for each thread took %s the time of one per pair (%.0f KiB each)",
			lead, pairs, pairs == 1 ? "" : "s", z->level, rt,
			z->ws / 1024);
	else if (c->rel == CMP_SAME)
		verdict_headline(
			v,
			"%s%.0f pair%s under one L%.0f: a data set of its own for each thread took the same time as one per pair, within the noise (%s, %.0f KiB each)",
			lead, pairs, pairs == 1 ? "" : "s", z->level, rt,
			z->ws / 1024);
	else
		verdict_headline(
			v,
			"%s%.0f pair%s under one L%.0f: a data set of its own for each thread and one per pair could not be told apart within the noise (%s): %s",
			lead, pairs, pairs == 1 ? "" : "s", z->level, rt,
			compare_why_not(c));
}

/* Before the headline: what the machine or the run could not show. */
static void cs_cannot(const struct run_result *r, int shared, int split,
		      struct verdict *v)
{
	const struct cs_params *cp = r->params;
	const struct machine_facts *m = r->machine;

	if (m->vm == 1 && r->npoints)
		verdict_note(
			v, "info",
			"on a virtual machine the caches a pair shares are the guest's view: the host may run its vCPUs on other cores than the guest's topology says, and move them between runs");
	if ((cp->placements & (1u << P_SPLIT)) && !split && r->complete)
		verdict_note(
			v, "cannot",
			"what splitting a pair across caches costs could not be shown: %s",
			why_not(m, P_SPLIT));
	if ((cp->placements & (1u << P_SHARED)) && !shared && r->complete &&
	    m->nallowed >= 2)
		verdict_note(v, "cannot", "shared could not be measured: %s",
			     why_not(m, P_SHARED));
}

/* With one placement alone: its time and rate. */
static void say_one(const struct run_result *r, int split, struct verdict *v)
{
	for (int k = 0; k < r->npoints; k++) {
		const struct result_point *t = &r->points[k];
		const struct result_point *rate;
		if (strcmp(t->chart, CS_TIME))
			continue;
		rate = result_point_find_label(r, CS_RATE, t->series,
					       t->x_label);
		verdict_headline(v, "%s: %.3g s per round, %.1f GB/s read%s",
				 t->x_label, t->y, rate ? rate->y : 0,
				 split ? ""
				       : " (no pair was split across caches)");
		break;
	}
}

static void cs_describe(const struct run_result *r, struct verdict *v)
{
	const struct result_point *shared = measured(r, P_SHARED);
	const struct result_point *split = measured(r, P_SPLIT);
	const struct result_point *separate = measured(r, P_SEPARATE);
	const struct result_point *other = split ? split : separate;
	const char *key = other == split ? KEY_SPLIT : KEY_SEPARATE;
	struct cs_sized z = {.pairs = 1};
	struct comparison c;
	char rt[64];

	cs_cannot(r, shared != NULL, split != NULL, v);
	if (!r->npoints) {
		verdict_headline(
			v,
			r->machine->nallowed < 2
				? "nothing to measure: cache sharing needs at least 2 cpus (4, under two caches, to compare placements)"
				: "nothing was measured");
		return;
	}
	/* a run that measured something sized and placed it */
	result_summary_get(r, KEY_PAIRS, &z.pairs);
	result_summary_get(r, KEY_WS, &z.ws);
	result_summary_get(r, KEY_LEVEL, &z.level);
	if (!shared || !other) {
		say_one(r, split != NULL, v);
		return;
	}
	compare_points(other, shared, experiment_precision(r->exp), &c);
	compare_state_interval(v, key, &c);
	compare_ratio_text(&c, rt, sizeof(rt));
	if (c.rel == CMP_FEW || c.rel == CMP_UNSURE)
		verdict_qualify(v, key, VERDICT_DISOWNED, "%s",
				compare_why_not(&c));
	if (other == split)
		say_split(&c, &z, rt, v);
	else
		say_separate(&c, &z, rt, split != NULL, v);
}

/* Before the run: which placements this machine can hold. */
static void cs_precheck(const void *params, const struct common_params *common,
			const struct topo *t, struct verdict *v)
{
	const struct cs_params *cp = params;
	struct machine_facts m;
	struct errinfo err;
	int plan[2], level = topo_pair_level(t), shared_ok, split_ok;

	(void)common;
	machine_facts_from_topo(t, &m);
	if (level == 0)
		for (level = 3; level >= 1; level--) {
			struct level_shape ls;
			level_shape(t, level, &ls);
			if (ls.instances)
				break;
		}
	shared_ok = t->nallowed >= 2 && level > 0 &&
		    !topo_plan_pairs(t, level, PAIR_SHARED, 1, plan, &err);
	split_ok = t->nallowed >= 2 && level > 0 && topo_pair_level(t) > 0 &&
		   !topo_plan_pairs(t, level, PAIR_SPLIT, 1, plan, &err);
	if ((cp->placements & (1u << P_SPLIT)) && !split_ok)
		verdict_note(
			v, "cannot",
			"split: what splitting a pair across caches costs cannot be shown here: %s",
			why_not(&m, P_SPLIT));
	if ((cp->placements & ((1u << P_SHARED) | (1u << P_SEPARATE))) &&
	    !shared_ok)
		verdict_note(v, "cannot",
			     "shared and separate_data cannot run here: %s",
			     why_not(&m, P_SHARED));
}

static void cs_estimate(const void *params, const struct common_params *common,
			const struct topo *t, double *seconds, uint64_t *bytes)
{
	const struct cs_params *cp = params;
	double pairs = (double)cp->pairs;
	double ws = (double)cp->working_set;
	double rounds = cost_rounds(common);
	double passes = (double)cp->passes;
	int nset = __builtin_popcount(cp->placements);
	int n, any_shared = 0;

	if (t && 2 * pairs > t->nallowed)
		pairs = t->nallowed / 2 > 0 ? t->nallowed / 2 : 1;
	n = (int)(2 * pairs);
	/* as run() picks it: 3/4 of a cache two cpus share (the largest),
	 * else 8 MiB a pair */
	for (int i = 0; cp->working_set == 0 && t && i < t->ncaches; i++)
		if (t->cache[i].npus >= 2 &&
		    (double)t->cache[i].size * 3 / 4 > ws)
			ws = (double)t->cache[i].size * 3 / 4;
	if (ws == 0)
		ws = 8 << 20;
	/* shared and separate_data need two cpus under one cache: run()
	 * skips them where no cache is shared */
	for (int i = 0; t && i < t->ncaches; i++)
		any_shared |= t->cache[i].npus >= 2;
	if (t && !any_shared)
		nset = __builtin_popcount(
			cp->placements &
			~((1u << P_SHARED) | (1u << P_SEPARATE)));
	/*
	 * Each placement: a team; every thread fills its data set (two a
	 * pair under separate_data) and reads it passes times a round, at
	 * memory's rate at worst (split and separate_data miss the cache).
	 */
	*bytes = (uint64_t)(2 * pairs * ws);
	*seconds = nset *
		   (cost_teams_s(1) + cost_touch_s(t, n * ws, n) +
		    cost_stream_s(t, COST_WRITE, n * ws, n) +
		    rounds * cost_stream_s(t, COST_READ, n * ws * passes, n));
}

/* Before the run: the pairs of each placement, at the level they use. */
static void cs_plan(const void *params, const struct common_params *common,
		    const struct topo *t, struct strbuf *out)
{
	const struct cs_params *cp = params;
	int level = topo_pair_level(t), pairs = (int)cp->pairs;
	struct errinfo err;
	int *plan;

	(void)common;
	if (t->nallowed < 2) {
		strbuf_addstr(out, "pairs: none, a pair needs 2 cpus\n");
		return;
	}
	if (2 * pairs > t->nallowed)
		pairs = t->nallowed / 2;
	/* no contrast: the outermost cache there is, as run() takes it */
	if (level == 0)
		level = outermost_level(t);
	plan = calloc((size_t)2 * (size_t)pairs + 1, sizeof(int));
	if (!plan)
		return;
	for (int m = 0; m < 2; m++) {
		enum pair_mode mode = m ? PAIR_SPLIT : PAIR_SHARED;
		const char *name = m ? "split" : "shared";
		if (level <= 0 ||
		    topo_plan_pairs(t, level, mode, pairs, plan, &err)) {
			strbuf_addf(out, "%s: not placed: %s\n", name,
				    level <= 0 ? "the topology names no cache"
					       : err.msg);
			continue;
		}
		strbuf_addf(out, "%s (L%d):", name, level);
		for (int k = 0; k < pairs; k++)
			strbuf_addf(out, "%s pair %d on cpus %d and %d",
				    k ? ";" : "", k, plan[2 * k],
				    plan[2 * k + 1]);
		strbuf_addch(out, '\n');
	}
	free(plan);
}

/* The classroom's question; the run takes a few seconds on 2 cores. */
static const struct lesson lessons[] = {
	LESSON("split-pair", "A pair split across caches",
	       "how many times longer does a pair of threads take when its two threads do not share a cache?",
	       "pairs=1 passes=4 repeat=3", "x", KEY_SPLIT, CS_TIME,
	       /* a pair that shares a cache beside one split across two */
	       .min_cpus = 4),
	{0}};

/* The rulebook (rules.h): what its comparisons need. */
static const struct rule rules[] = {
	RULE(RULE_CPUS, .what = "shared against split placement"), {RULE_END}};
static const char *const compared[] = {"split_over_shared",
				       "separate_over_shared", NULL};

/* what a person reads for each summary key */
static const struct key_label summary_labels[] = {
	{KEY_WS, "working set per pair", "bytes"},
	{KEY_PAIRS, "thread pairs", "pairs"},
	{KEY_LEVEL, "cache level the pairs share", "level"},
	/* before time_*: the placement's name said in words */
	{"time_separate_data", "time, shared placement with separate data",
	 "s"},
	{"time_*", "time, %s placement", "s"},
	{KEY_SPLIT, "split over shared placement", "×"},
	{KEY_SEPARATE, "separate data over shared", "×"},
	{NULL, NULL, NULL}};

const struct experiment exp_cache_sharing = {
	.name = "cache_sharing",
	.smoke = "working_set=64K passes=1 repeat=1 warmup=0",
	.headline_key = KEY_SPLIT,
	.headline_chart = CS_TIME,
	.title = "Cache sharing by placement",
	.summary = "Pairs of threads read one data set each: both threads of "
		   "a pair under one cache, or split across two",
	.section = "6.4.3",
	.explain =
		"Each pair of threads reads one data set, over and over, and "
		"different pairs read different data. The only thing that "
		"changes between the runs is where the threads sit. With "
		"shared, both threads of a pair run on cores under one cache "
		"(one L3, say), so that cache holds the pair's data once and "
		"both threads hit it. With split, the two threads of a pair "
		"run under different caches: each cache now holds the data of "
		"two pairs, which by default no longer fits, and every data "
		"set is fetched from memory twice, once into each cache. os "
		"leaves the choice to the scheduler, and separate_data keeps "
		"the shared placement but gives every thread a data set of its "
		"own, which loads one cache the way split does.\n\n"
		"This is figures 6.13 and 6.14 of the article: threads that "
		"use the same data belong on cores that share a cache, "
		"because the kernel does not know which threads share data "
		"and the only way to tell it is thread affinity. The article "
		"gave no measurement for it; the cost it describes is memory "
		"bandwidth, which in 2007 one front side bus shared among all "
		"processors.\n\n"
		"The working set is sized from the topology: 3/4 of the shared "
		"cache for each pair it holds, so one data set fits and two "
		"do not. Expect split to be clearly slower on a machine with "
		"several L3s (sockets, or chiplets that each have their own "
		"L3): its data comes from memory, shared's from the L3. "
		"Machines with one L3 for every core cannot show it at that "
		"level, and the run says what it could do instead.",
	EXPERIMENT_PARTS(cs),
	.plan = cs_plan,
	.check = cs_check,
};
