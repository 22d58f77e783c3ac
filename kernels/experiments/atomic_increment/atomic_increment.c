/* atomic_increment.c - threads incrementing one shared counter: atomic variants, a plain increment, per-thread counters; the loops, the measurement and the sentences in files of their own */
#include <errno.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan_view.h"
#include "rates.h"
#include "strbuf.h"
#include "team_points.h"
#include "workcost.h"

#include "ai.h"

#define PARAM_STRUCT struct ai_params
static const struct param params[] = {
	PARAM_SET(
		variants, "all", ai_variants,
		"how to increment: __sync add_fetch / fetch_add, a cas loop, C11 relaxed / seq_cst, lock_skip (x86), plain (not atomic), per_thread (own line each, summed at the end)"),
	PARAM_SWEEP(threads, "1-4", 1, 1024, "threads",
		    "thread counts to measure", .flags = PARAM_F_CPUS),
	PARAM_INT(increments, "1000000", 1, 4000000000LL, "per thread",
		  "how often each thread increments the counter per round"),
	{0}};

static const struct chart charts[] = {
	CHART(AI_NS, CHART_BAR,
	      "Cost of one increment (wall time / all increments)", "threads",
	      "ns per increment"),
	CHART(AI_TIME, CHART_BAR, "Time per round, while all threads ran",
	      "threads", "time (s)", .per_param = "increments",
	      .per = "increment"),
	CHART(AI_LOST, CHART_BAR,
	      "Lost updates per round (expected minus final counter)",
	      "threads", "increments lost"),
	{0}};

static const char *const summary_keys[] = {
	"ns_per_increment_*_threads", "cas_over_fetch_add_*_threads",
	"cas_retries_per_increment_*_threads", "lost_updates_plain_*_threads",
	NULL};

/*
 * The article's table (section 6.4.2), drawn beside this machine's wall
 * times at 4 threads. It says "1 million increments by four concurrent
 * threads" without saying whether per thread or in all; the default
 * increments (a million per thread) takes the first reading.
 *
 * Which time is which: figure 6.12 numbers its loops 1 = add_and_fetch
 * ("Add and Read Result"), 2 = fetch_and_add ("Add and Return Old
 * Value"), 3 = CAS, and the table under it lists 0.23 s | 0.21 s | 0.73 s
 * in that order; the text then says "returning the old value is a little
 * bit faster". The numbering and the sentence agree: fetch_add took
 * 0.21 s and add_fetch 0.23 s. Only the table's column titles ("1.
 * Exchange Add | 2. Add Fetch") read the other way, so we follow the two
 * that agree.
 */
#define FA_S 0.21
#define AF_S 0.23
#define CAS_S 0.73
#define STR_(x) #x
#define STR(x) STR_(x)
static const struct reference references[] = {
	REFERENCE(
		AI_TIME, "article 2007: fetch_add (returns the old value)", 4,
		FA_S, "s", .ops = 4e6, .per = "increment", .per_chart = AI_NS,
		.id = "fetch_add-4-threads",
		.words = "fetch_add " STR(
			FA_S) " s for 1 million increments by 4 threads (2007)"),
	REFERENCE(AI_TIME, "article 2007: add_fetch (returns the new value)", 4,
		  AF_S, "s", .ops = 4e6, .per = "increment", .per_chart = AI_NS,
		  .id = "add_fetch-4-threads",
		  .words = "add_fetch " STR(AF_S) " s"),
	REFERENCE(AI_TIME, "article 2007: cas", 4, CAS_S, "s", .ops = 4e6,
		  .per = "increment", .per_chart = AI_NS, .id = "cas-4-threads",
		  .words = "cas " STR(CAS_S) " s"),
	{0}};

/*
 * Measures each variant asked for with n threads on cpus, in the
 * table's order (cas in turns with fetch_add when both are asked): m
 * and have what each measured, *step the progress of steps. Returns 0,
 * or what ai_measure returned.
 */
static int run_variants(struct run_ctx *ctx, const int *cpus, int n, int *step,
			int steps, struct measured *m, int *have)
{
	const struct ai_params *ap = ctx->params;
	/* the article's comparison in turns: cas, fetch_add */
	static const enum variant pair[2] = {V_CAS, V_FETCH_ADD};
	int rc = 0;

	memset(have, 0, NVARIANTS * sizeof(*have));
	for (int k = 0; k < NVARIANTS && !rc; k++) {
		enum variant v = (enum variant)k;
		int nv = 1;
		char what[96], key[96];

		if (!(ap->variants & (1u << v)) || have[v])
			continue;
		ai_label(what, sizeof(what), n, v);
		if (v == V_FETCH_ADD && (ap->variants & (1u << V_CAS))) {
			nv = 2;
			snprintf(what, sizeof(what),
				 "threads=%d variants=cas,fetch_add in turns",
				 n);
		}
		sink_progress(ctx->sink, *step, steps, what);
		*step += nv;
		if (v == V_LOCK_SKIP && !HAVE_LOCK_SKIP)
			continue;
		rc = ai_measure(ctx, nv > 1 ? pair : &v, nv, cpus, n, m);
		for (int i = 0; i < nv && !rc; i++) {
			enum variant w = nv > 1 ? pair[i] : v;
			have[w] = 1;
			key_ns(key, sizeof(key), w, n);
			sink_summary(ctx->sink, key, m[w].ns, "ns");
		}
	}
	return rc;
}

/* The summary keys comparing the variants measured with n threads. */
static void compare_variants(struct run_ctx *ctx, int n,
			     const struct measured *m, const int *have)
{
	const struct ai_params *ap = ctx->params;
	double expected = (double)n * (double)ap->increments;
	char key[64];

	if (have[V_CAS] && have[V_FETCH_ADD] && m[V_FETCH_ADD].ns > 0) {
		key_cas_over(key, sizeof(key), n);
		/* measured in turns: the median of the pairs' ratios */
		sink_summary(ctx->sink, key,
			     m[V_CAS].pairs.n > 0
				     ? m[V_CAS].pairs.median
				     : m[V_CAS].ns / m[V_FETCH_ADD].ns,
			     "x");
		key_retries(key, sizeof(key), n);
		sink_summary(ctx->sink, key, m[V_CAS].retries / expected, "");
	}
	if (have[V_PLAIN]) {
		key_lost(key, sizeof(key), n);
		sink_summary(ctx->sink, key, 100 * m[V_PLAIN].lost / expected,
			     "%");
	}
}

/* Room for the summary values: for each thread count, a time for each
 * variant, cas over fetch_add and its retries, and plain's lost updates. */
static int ai_check(const void *params, const struct common_params *common,
		    const struct topo *t, struct errinfo *err)
{
	const struct ai_params *ap = params;
	unsigned both = (1u << V_CAS) | (1u << V_FETCH_ADD);
	long each = __builtin_popcount(ap->variants);

	(void)common;
	(void)t;
	if ((ap->variants & both) == both)
		each += 2;
	if (ap->variants & (1u << V_PLAIN))
		each++;
	return summary_room(each * ap->threads.n, "threads",
			    "thread count and variant compared", err);
}

static int ai_run(struct run_ctx *ctx)
{
	const struct ai_params *ap = ctx->params;
	const struct int_list *threads = &ap->threads;
	int steps = threads->n * __builtin_popcount(ap->variants), step = 0;
	struct measured m[NVARIANTS];
	int have[NVARIANTS], rc = 0;
	int *cpus = calloc(PARAM_MAX_LIST, sizeof(int));

	if (!cpus)
		return -ENOMEM;
	if (!HAVE_LOCK_SKIP && (ap->variants & (1u << V_LOCK_SKIP)))
		sink_note(
			ctx->sink, "warn",
			"lock_skip: not available on this architecture (it jumps over the x86 lock prefix); skipped");
	for (int ti = 0; ti < threads->n && !rc; ti++) {
		int n = threads->v[ti];
		struct errinfo perr;

		rc = experiment_plan(ctx, n, cpus, &perr);
		if (rc) {
			sink_note(ctx->sink, "warn", "%s", perr.msg);
			break;
		}
		rc = run_variants(ctx, cpus, n, &step, steps, m, have);
		if (!rc)
			compare_variants(ctx, n, m, have);
	}
	free(cpus);
	if (rc)
		return rc;
	sink_progress(ctx->sink, steps, steps, "done");
	return 0;
}

/* Before the run: can the placement make the threads contend at all? */
static void ai_precheck(const void *params, const struct common_params *common,
			const struct topo *t, struct verdict *v)
{
	const struct ai_params *ap = params;
	int most = int_list_max(&ap->threads);
	if (!(ap->variants & (1u << V_CAS)) ||
	    !(ap->variants & (1u << V_FETCH_ADD)))
		verdict_note(
			v, "info",
			"cas against fetch_add, the article's comparison, needs both in variants");
	if (!HAVE_LOCK_SKIP && (ap->variants & (1u << V_LOCK_SKIP)))
		verdict_note(
			v, "info",
			"lock_skip jumps over the x86 lock prefix: not available on this architecture, it will be skipped");
	if (t->nallowed < 2) {
		verdict_note(
			v, "cannot",
			"only 1 cpu is available to this process: the threads would take turns, nothing would contend and plain could not lose updates");
		return;
	}
	if (most < 2) {
		verdict_note(
			v, "warn",
			"with 1 thread nothing contends: threads=2 or more show what sharing the counter costs");
		return;
	}
	experiment_precheck_placement(
		t, common, most,
		"they would take turns and nothing would contend",
		"the counter's line stays in that core, so contention there is cheaper than between cores",
		v);
}

/*
 * Nanoseconds one increment of variant v costs a thread among n (n > 1:
 * the counter's line is contended). cas may fail and retry: three
 * times a locked add, as the article measured it.
 */
static double ai_op_ns(const struct rates *r, int v, int n)
{
	double locked = n > 1 ? r->atomic_shared_ns * (n / 2.0) : r->atomic_ns;
	double plain = n > 1 ? r->bounce_ns * (n / 2.0) : r->inc_ns;

	switch (v) {
	case V_CAS:
		return 3 * locked;
	case V_PLAIN:
		return plain;
	case V_PER_THREAD:
		return r->inc_ns;
	case V_LOCK_SKIP:
		return n > 1 ? locked : r->inc_ns;
	default:
		return locked;
	}
}

static void ai_estimate(const void *params, const struct common_params *common,
			const struct topo *t, double *seconds, uint64_t *bytes)
{
	const struct ai_params *ap = params;
	const struct int_list *threads = &ap->threads;
	const struct rates *r = rates_get();
	double incs = (double)ap->increments;
	double rounds = (double)(common->repeat + common->warmup);
	double total = 0;
	uint64_t most = 0;

	/* a round: each thread's increments side by side, in turns where they
	 * outnumber the cpus */
	for (int i = 0; i < threads->n; i++) {
		int n = threads->v[i];
		uint64_t b = ((uint64_t)rounds * SLOT_BYTES + 4095) / 4096 *
			     4096 * (uint64_t)(n + 1);
		for (int v = 0; v < NVARIANTS; v++) {
			double op = ai_op_ns(r, v, n) * 1e-9;
			if (!(ap->variants & (1u << v)))
				continue;
			if (n > 1 && v == V_PER_THREAD)
				op *= cost_crowd(t, n);
			total += rounds * incs * op + cost_teams_s(1);
		}
		if (b > most)
			most = b;
	}
	*seconds = total;
	*bytes = most;
}

/*
 * The classroom's questions. 5 million increments make a round of about
 * 0.12 s on a 2-core VM, long enough that two threads started together
 * overlap for most of it on a busy machine; 6 rounds are the fewest whose
 * median has a 95% interval of its own (stats.c). Each run takes about
 * 2 s there, 6 s when other work holds half the cpus.
 */
static const struct lesson lessons[] = {
	LESSON("cas-or-add", "A CAS loop against one fetch_add",
	       "when 2 threads increment one counter, how many times slower is a compare-and-swap loop than fetch_add?",
	       "variants=fetch_add,cas threads=2 increments=1000000 repeat=6",
	       "x", "cas_over_fetch_add_2_threads", AI_NS,
	       .figure = "cas-4-threads", .figure_over = "fetch_add-4-threads"),
	LESSON("contended-add", "The price of one contended increment",
	       "how many nanoseconds does one fetch_add cost when 2 threads hit the same counter?",
	       "variants=fetch_add threads=2 increments=1000000 repeat=6", "ns",
	       "ns_per_increment_fetch_add_2_threads", AI_NS),
	{0}};

/* The rulebook (rules.h): what its comparisons need. */
static const struct rule rules[] = {
	RULE(RULE_TOGETHER, .param = "threads", .floor = 0.25,
	     .what = "the cost of contended increments"),
	RULE(RULE_CPUS, .param = "threads",
	     .what = "the cost of contended increments"),
	{RULE_END}};
static const char *const compared[] = {"cas_over_fetch_add_*_threads", NULL};

/* what a person reads for each summary key */
static const struct key_label summary_labels[] = {
	{"ns_per_increment_*_1_threads", "%s: time per increment, 1 thread",
	 "ns"},
	{"cas_over_fetch_add_1_threads", "CAS over fetch-and-add, 1 thread",
	 "×"},
	{"cas_retries_per_increment_1_threads",
	 "CAS retries per increment, 1 thread", "retries"},
	{"lost_updates_plain_1_threads",
	 "increments lost by plain ++, 1 thread", "%"},
	{"ns_per_increment_*_*_threads", "%s: time per increment, %s threads",
	 "ns"},
	{"ns_per_increment_*_threads", "time per increment, %s threads", "ns"},
	{"cas_over_fetch_add_*_threads", "CAS over fetch-and-add, %s threads",
	 "×"},
	{"cas_retries_per_increment_*_threads",
	 "CAS retries per increment, %s threads", "retries"},
	{"lost_updates_plain_*_threads",
	 "increments lost by plain ++, %s threads", "%"},
	{NULL, NULL, NULL}};

/* the series whose names are not words */
static const struct key_label series_labels[] = {
	{"add_fetch", "__atomic_add_fetch", NULL},
	{"fetch_add", "__atomic_fetch_add", NULL},
	{"cas", "compare-and-swap loop", NULL},
	{"c11_relaxed", "C11 atomic, relaxed", NULL},
	{"c11_seq_cst", "C11 atomic, seq_cst", NULL},
	{"lock_skip", "lock prefix skipped when alone", NULL},
	{"plain", "plain ++ (not atomic)", NULL},
	{"per_thread", "one counter per thread", NULL},
	{NULL, NULL, NULL}};

/*
 * Before the run: the cpus of each thread count's team, and where its
 * counters are: nothing is bound, thread 0 touches the shared counters
 * first and each thread its own.
 */
static void ai_plan(const void *params, const struct common_params *common,
		    const struct topo *t, struct strbuf *out)
{
	const struct ai_params *ap = params;
	struct plan_sweep p = {.what = "",
			       .s = (enum place_strategy)common->placement,
			       .cpus = common->cpus.v,
			       .ncpus = common->cpus.n};

	plan_view_sweep(t, &p, ap->threads.v, ap->threads.n, out);
	plan_view_first_touch(
		t,
		"a team's thread 0 touches the shared counters, each thread its own",
		out);
}

const struct experiment exp_atomic_increment = {
	.plan = ai_plan,
	.name = "atomic_increment",
	.smoke = "threads=1-2 increments=1000 repeat=1 warmup=0",
	.series_labels = series_labels,
	.headline_key = "cas_over_fetch_add_*_threads",
	.headline_chart = AI_NS,
	.title = "Atomic increments",
	.summary = "Threads increment one shared counter: with atomic add, "
		   "with a compare-and-swap loop, without atomicity, or each "
		   "in a counter of its own",
	.section = "6.4.2",
	.explain =
		"Every thread adds 1 to one shared counter, again and again, "
		"and the run times how long the whole team takes and checks "
		"the counter at the end. The variants differ only in how the "
		"increment is done: an atomic add that returns the new value "
		"(add_fetch) or the old one (fetch_add), a loop that reads the "
		"counter and tries to swap in the value plus one until no "
		"other thread got in between (cas, figure 6.12), C11 atomics "
		"with relaxed and sequentially consistent ordering, the x86 "
		"trick of jumping over the lock prefix when only one thread "
		"runs (lock_skip), a plain load-add-store that is not atomic "
		"at all (plain), and the fix: every thread counts in a cache "
		"line of its own and the counts are added up at the end "
		"(per_thread). Those counters sit 128 B apart, two 64 B "
		"lines, because the adjacent-line prefetcher fetches lines in "
		"pairs; false_sharing and variable_layout use the same "
		"spacing.\n\n"
		"To change the counter a core must hold its cache line "
		"exclusively, so with several threads the line travels from "
		"core to core and the increments queue up behind each other. "
		"An atomic add keeps its read and its write together while it "
		"holds the line: at most one transfer per increment. The cas "
		"loop reads "
		"the line first and writes it later; in between another core "
		"may take it, the swap fails and the whole read-add-swap starts "
		"again. The plain increment never waits, which is why it is "
		"fast and why two cores reading the same value lose one of "
		"their two increments: the run counts those lost updates. A core "
		"that has the line often gets many increments done before the "
		"other core takes it away (fetch_add and add_fetch report these "
		"runs), so the cost per increment can stay well below one line "
		"transfer.\n\n"
		/* the figures stand in the sentence, one clause a line */
		/* clang-format off */
		"In 2007 the article timed 1 million increments by 4 threads: "
		STR(FA_S) " s with fetch_add, "
		STR(AF_S) " s with add_fetch and "
		STR(CAS_S) " s with cas, three and a half times the fetch_add; "
		"the wall time chart shows those three beside this machine's at "
		"4 threads. (It does not say whether the million was per thread "
		"or in all. Its table's column titles would swap the first two, "
		"but the figure's numbering of the loops, 1 for add-and-fetch and "
		"2 for fetch-and-add, puts " STR(FA_S) " s under fetch_add, and so "
		"does its sentence that returning the old value is a little "
		"faster; we follow those two. The ratio of cas to the others is "
		"the figure to compare.) "
		"Expect the same order today: cas well behind the atomic adds "
		"once two or more cores share the counter, with more failed swaps "
		"as threads are added; add_fetch, fetch_add and the C11 forms "
		"close together (on x86 they are all one locked instruction, and "
		"the memory order changes nothing); lock_skip close to plain with "
		"one thread and as slow as a locked add with more; per_thread "
		"flat and far ahead of everything that shares a line. The spread "
		"between cores on one chip and cores on different chips is "
		"large: the core_to_core experiment shows what one line transfer "
		"costs between any two CPUs.",
	/* clang-format on */
	EXPERIMENT_PARTS(ai),
	.check = ai_check,
	.references = references,
	.uses_placement = 1,
	/*
	 * The question is whether one way of incrementing costs a multiple
	 * of another (the article's cas took 3.5x fetch_add): a tenth is the
	 * smallest difference worth calling one, and what the rounds on a
	 * shared machine can resolve in a lesson's time.
	 */
	.precision = 0.10,
};
