/* describe.c - what an atomic_increment run says: cas against fetch_add (the headline), and a note per thing each point shows */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "compare.h"
#include "strbuf.h"

#include "ai.h"

/*
 * Why loops that hardly overlapped did so: a thread that got under this
 * share of a cpu while in its loop, or a last thread that started this
 * far into the round, was held up by other processes (the scheduler);
 * otherwise one core kept the line while the other waited (the hardware).
 * These name a cause in a note; whether a comparison may be stated is
 * the rulebook's floor alone.
 */
#define AI_CPU_HELD 0.9
#define AI_LATE 0.25

/* What one (variant, threads) point says about how its loops ran. */
struct ai_seen {
	const struct result_point *p;
	double overlap, cpu_share, late;
	int apart;	/* the loops overlapped under the floor */
	int took_turns; /* ... because other processes held the cpus */
	int one_cpu;	/* the observed placement used one cpu */
};

/*
 * The article's measure beside the one compared: each variant's time
 * until the last of n threads finished, and the time at the rate while
 * all threads ran (what the comparison uses).
 */
static void wall_note(const struct run_result *r, int n, struct verdict *v)
{
	const struct result_point *c = result_point_find(
					  r, AI_NS, ai_variants[V_CAS].name, n),
				  *f = result_point_find(
					  r, AI_NS,
					  ai_variants[V_FETCH_ADD].name, n);
	double cw, fw, cc, fc;

	if (!c || !f || result_point_extra(c, "wall_s", &cw) ||
	    result_point_extra(f, "wall_s", &fw) ||
	    result_point_extra(c, "corun_s", &cc) ||
	    result_point_extra(f, "corun_s", &fc) || !(cw > 0) || !(fw > 0) ||
	    !(cc > 0) || !(fc > 0))
		return;
	verdict_note(
		v, "info",
		"with %d threads, the time until the last thread finished (the article's measure, medians): cas %.3g s, fetch_add %.3g s (%.2f×); the comparison stated is each variant's work at its rate while all threads ran at once: cas %.3g s, fetch_add %.3g s (%.2f×), which leaves out what other processes took and any thread that finished early",
		n, cw, fw, cw / fw, cc, fc, cc / fc);
}

/*
 * What the article's time depends on beside the rate: how evenly the n
 * threads shared the increments while all were in their loops (the
 * busiest and the least busy thread's shares, as cas and fetch_add
 * measured them). Says nothing for a run that did not measure them.
 */
static void fairness_note(const struct run_result *r, int n, struct verdict *v)
{
	const struct result_point *c =
		result_point_find(r, AI_NS, ai_variants[V_CAS].name, n);
	const struct result_point *f =
		result_point_find(r, AI_NS, ai_variants[V_FETCH_ADD].name, n);
	double cm, cl, fm, fl;

	if (!c || !f || result_point_extra(c, "share_most", &cm) ||
	    result_point_extra(c, "share_least", &cl) ||
	    result_point_extra(f, "share_most", &fm) ||
	    result_point_extra(f, "share_least", &fl))
		return;
	verdict_note(
		v, "info",
		"with %d threads, each thread's share of the increments while every thread was in its loop (medians; an even share is %.0f%%): fetch_add %.0f%% for the busiest thread and %.0f%% for the least busy, cas %.0f%% and %.0f%%; a thread that gets the line more often finishes first and the rest then increment without it, which the time until the last thread finished includes",
		n, 100.0 / n, 100 * fm, 100 * fl, 100 * cm, 100 * cl);
}

static int ai_seen(const struct run_result *r, enum variant v, int n,
		   struct ai_seen *s)
{
	char label[96];
	const struct result_placement *pl;

	memset(s, 0, sizeof(*s));
	s->p = result_point_find(r, AI_NS, ai_variants[v].name, n);
	if (!s->p)
		return 0;
	s->overlap = 1;
	/* none: loops too short for the clocks to tell (ai_cpu_share) */
	s->cpu_share = NAN;
	result_point_extra(s->p, "overlap", &s->overlap);
	result_point_extra(s->p, "cpu_share", &s->cpu_share);
	/* a run of older versions read its cpu time over a wider stretch
	 * than the loop it divided it by: over 1 it says nothing */
	if (!(s->cpu_share >= 0 && s->cpu_share <= 1))
		s->cpu_share = NAN;
	result_point_extra(s->p, "late_start", &s->late);
	s->apart = n > 1 && s->overlap < contend_floor(r->exp);
	s->took_turns =
		s->apart && (s->cpu_share < AI_CPU_HELD || s->late >= AI_LATE);
	ai_label(label, sizeof(label), n, v);
	pl = result_placement_find(r, label);
	s->one_cpu = n > 1 && pl && result_placement_distinct_cpus(pl) < 2;
	return 1;
}

/* How variant name's loops overlapped with n threads, when they hardly did. */
static void overlap_note(const struct ai_seen *s, const char *name, int n,
			 struct verdict *v)
{
	char share[96];

	if (isnan(s->cpu_share))
		snprintf(
			share, sizeof(share),
			"the loops were too short for the cpu clock to tell a thread's share of a cpu");
	else
		snprintf(share, sizeof(share),
			 "one got %.0f%% of a cpu while in its loop",
			 100 * s->cpu_share);
	if (s->took_turns)
		verdict_note(
			v, "warn",
			"%s, %d threads: the loops ran at the same time for only %.0f%% of the median round (the last thread started %.0f%% into it, and %s): other processes held the cpus, the threads took turns, and this understates contention",
			name, n, 100 * s->overlap, 100 * s->late, share);
	else if (s->apart && isnan(s->cpu_share))
		verdict_note(
			v, "info",
			"%s, %d threads: the loops ran at the same time for only %.0f%% of the median round, and were too short for the cpu clock to tell whether every thread kept its cpu (more increments make them longer)",
			name, n, 100 * s->overlap);
	else if (s->apart)
		verdict_note(
			v, "info",
			"%s, %d threads: every thread kept its cpu (%.0f%% or more), yet the loops ran at the same time for only %.0f%% of the median round: one core kept the line until it was nearly done while the other waited, an unfair handover by the hardware",
			name, n, 100 * s->cpu_share, 100 * s->overlap);
}

/* fetch_add's runs: increments a core made in a row. */
static void runs_note(const struct ai_seen *s, int n, struct verdict *v)
{
	double runs = 0, expected = 0;

	result_point_extra(s->p, "expected", &expected);
	if (!result_point_extra(s->p, "runs", &runs) && runs > 0 && !s->apart)
		verdict_note(
			v, "info",
			"fetch_add, %d threads: the values came back in %.0f runs, %.0f increments in a row on average: a core that holds the line mostly keeps it for the next increment too, so one increment costs far less than one line transfer",
			n, runs, expected / runs);
}

/* plain's lost updates, or why there were none. */
static void lost_note(const struct ai_seen *s, int n, struct verdict *v)
{
	double expected = 0, lost = 0, lost_max = 0, final = 0;

	result_point_extra(s->p, "expected", &expected);
	result_point_extra(s->p, "lost_updates", &lost);
	result_point_extra(s->p, "lost_updates_max", &lost_max);
	result_point_extra(s->p, "final", &final);
	if (lost_max > 0)
		verdict_note(
			v, "info",
			"plain, %d threads: the counter ended at %.0f of %.0f in the median round, %.0f increments (%.1f%%) lost; up to %.0f over %d rounds: two cores read the same value and one store overwrote the other",
			n, final, expected, lost,
			expected > 0 ? 100 * lost / expected : 0, lost_max,
			s->p->n);
	else if (s->apart || s->one_cpu)
		verdict_note(
			v, "info",
			"plain, %d threads: no update was lost this time: the loops ran at the same time for only %.0f%% of a round (more increments make them overlap longer)",
			n, 100 * s->overlap);
	else
		verdict_note(
			v, "info",
			"plain, %d threads: no update was lost in %d rounds although the loops overlapped for %.0f%% of a round",
			n, s->p->n, 100 * s->overlap);
}

/* The per-point notes: how the loops overlapped, runs, lost updates. */
static void ai_point_notes(const struct run_result *r, struct verdict *v)
{
	const struct ai_params *ap = r->params;

	for (int ti = 0; ti < ap->threads.n; ti++) {
		int n = ap->threads.v[ti];
		for (int k = 0; k < NVARIANTS; k++) {
			struct ai_seen s;

			if (n < 2 || !(ap->variants & (1u << k)) ||
			    !ai_seen(r, (enum variant)k, n, &s))
				continue;
			overlap_note(&s, ai_variants[k].name, n, v);
			if (k == V_FETCH_ADD)
				runs_note(&s, n, v);
			if (k == V_PLAIN)
				lost_note(&s, n, v);
		}
	}
}

/* The article's cas over fetch_add (0.73 s / 0.21 s), from its references. */
static double article_cas_ratio(const struct experiment *exp)
{
	double cas = 0, fa = 0;

	if (experiment_figure_in(exp, "cas-4-threads", "s", &cas) ||
	    experiment_figure_in(exp, "fetch_add-4-threads", "s", &fa) ||
	    !(fa > 0))
		return 0;
	return cas / fa;
}

/* The article's three figures in one note, from its references. */
static void article_note(const struct experiment *exp, struct verdict *v)
{
	const struct reference *fa =
		experiment_figure(exp, "fetch_add-4-threads");
	const struct reference *af =
		experiment_figure(exp, "add_fetch-4-threads");
	const struct reference *cas = experiment_figure(exp, "cas-4-threads");

	if (!fa || !af || !cas)
		return;
	verdict_note(
		v, "info",
		"reference, from the article (not measured here): %s (fetch_add returns the old value), %s, %s: cas %.1f× the fetch_add",
		fa->words, af->words, cas->words, article_cas_ratio(exp));
}

/* What the thread counts showed of cas against fetch_add. */
struct ai_head {
	int most;	       /* the most threads asked for */
	int valid_n;	       /* the most threads where the comparison holds */
	struct comparison cmp; /* ... and what it found there */
	int turns_n;	       /* the most whose loops hardly overlapped */
	double turns_overlap;  /* ... how little */
	int turns_cause;       /* ... because other processes held the cpus */
	int alone_n;	       /* the most whose threads shared one cpu */
	int one_n;	       /* one thread was measured */
	const struct result_point *cas1, *fa1; /* ... its points */
	double plain_lost; /* % plain lost with the most threads */
};

/*
 * Goes over the thread counts for h: where cas against fetch_add can be
 * compared, and why not elsewhere (each such key marked with why).
 */
static void classify(const struct run_result *r, struct verdict *v,
		     struct ai_head *h)
{
	const struct ai_params *ap = r->params;
	double tol = experiment_precision(r->exp);
	struct ai_seen sc, sf;
	char key[64];

	for (int ti = 0; ti < ap->threads.n; ti++) {
		int n = ap->threads.v[ti];
		if (n > h->most)
			h->most = n;
		if (!(ap->variants & (1u << V_CAS)) ||
		    !(ap->variants & (1u << V_FETCH_ADD)) ||
		    !ai_seen(r, V_CAS, n, &sc) ||
		    !ai_seen(r, V_FETCH_ADD, n, &sf))
			continue;
		key_cas_over(key, sizeof(key), n);
		if (n == 1) {
			h->one_n = 1;
			h->cas1 = sc.p;
			h->fa1 = sf.p;
		} else if (sc.one_cpu || sf.one_cpu) {
			h->alone_n = n > h->alone_n ? n : h->alone_n;
			verdict_qualify(
				v, key, VERDICT_DISOWNED,
				"the %d threads all ran on one cpu: nothing contended, so cas against fetch_add under contention could not be measured",
				n);
		} else if (sc.apart || sf.apart) {
			double o = sc.overlap < sf.overlap ? sc.overlap
							   : sf.overlap;
			verdict_qualify(
				v, key, VERDICT_DISOWNED,
				"the %d threads ran at the same time for only %.0f%% of a round: cas against fetch_add under contention could not be measured",
				n, 100 * o);
			if (n > h->turns_n) {
				h->turns_n = n;
				h->turns_overlap = o;
				h->turns_cause = sc.took_turns || sf.took_turns;
			}
		} else {
			struct comparison cn;
			compare_paired(sc.p, sf.p, tol, &cn);
			compare_state_interval(v, key, &cn);
			if (n > h->valid_n) {
				h->valid_n = n;
				h->cmp = cn;
			}
		}
	}
	key_lost(key, sizeof(key), h->most);
	if (h->most > 1 && (ap->variants & (1u << V_PLAIN)))
		result_summary_get(r, key, &h->plain_lost);
}

/* add_fetch against fetch_add with n threads, beside the article's. */
static void add_fetch_note(const struct run_result *r, int n, struct verdict *v)
{
	const struct ai_params *ap = r->params;
	const struct result_point *af =
		ap->variants & (1u << V_ADD_FETCH)
			? result_point_find(r, AI_NS,
					    ai_variants[V_ADD_FETCH].name, n)
			: NULL;
	const struct result_point *fa =
		result_point_find(r, AI_NS, ai_variants[V_FETCH_ADD].name, n);
	const struct reference *fa_ref =
		experiment_figure(r->exp, "fetch_add-4-threads");
	const struct reference *af_ref =
		experiment_figure(r->exp, "add_fetch-4-threads");
	struct comparison c2;

	if (!af || !fa_ref || !af_ref)
		return;
	compare_points(af, fa, experiment_precision(r->exp), &c2);
	verdict_note(
		v, "info",
		"add_fetch against fetch_add with %d threads: %s (the article: %s, %s, \"a little bit faster\" to return the old value)",
		n,
		c2.rel == CMP_MORE   ? "add_fetch was slower"
		: c2.rel == CMP_LESS ? "add_fetch was faster"
		: c2.rel == CMP_SAME
			? "the same within the rounds' spread"
			: "not told apart, the rounds varied too much",
		fa_ref->words, af_ref->words);
}

/*
 * The headline where cas against fetch_add held: at h->valid_n threads,
 * what h->cmp found, with plain's lost updates after it.
 */
static void say_contended(const struct run_result *r, struct verdict *v,
			  const struct ai_head *h)
{
	const struct comparison *cmp = &h->cmp;
	double tol = experiment_precision(r->exp);
	double article = article_cas_ratio(r->exp);
	int n = h->valid_n;
	char key[64], rt[64], why[VERDICT_TEXT_LEN], tail[128] = "";

	key_cas_over(key, sizeof(key), n);
	wall_note(r, n, v);
	fairness_note(r, n, v);
	if (h->plain_lost > 0)
		snprintf(
			tail, sizeof(tail),
			"; plain lost %.0f%% of its increments with %d threads",
			h->plain_lost, h->most);
	compare_ratio_text(cmp, rt, sizeof(rt));
	if (cmp->rel == CMP_MORE && cmp->lower_bound) {
		snprintf(
			why, sizeof(why),
			"the loops ran together only %.0f%% of a round, so the full gap under contention may be larger",
			100 * cmp->together);
		verdict_qualify(v, key, VERDICT_AT_LEAST, "%s", why);
		verdict_headline(
			v,
			"cas was %s slower than fetch_add with %d threads (the article, 2007: %.1f× slower with 4): %s%s",
			rt, n, article, why, tail);
	} else if (cmp->rel == CMP_MORE)
		verdict_headline(
			v,
			"cas was %s slower than fetch_add with %d threads (the article, 2007: %.1f× slower with 4)%s",
			rt, n, article, tail);
	else if (cmp->rel == CMP_LESS)
		verdict_headline(
			v,
			"cas was faster than fetch_add with %d threads, taking %s its time (the article, 2007: %.1f× slower with 4)%s",
			n, rt, article, tail);
	else if (cmp->rel == CMP_SAME)
		verdict_headline(
			v,
			"cas and fetch_add took the same time with %d threads (%s, within %.0f%%; the article, 2007: cas %.1f× slower with 4)%s",
			n, rt, 100 * tol, article, tail);
	else {
		verdict_qualify(v, key, VERDICT_DISOWNED, "%s",
				compare_why_not(cmp));
		verdict_headline(
			v,
			"cas and fetch_add could not be told apart with %d threads (%s: %s; the article, 2007: cas %.1f× slower with 4)%s",
			n, rt, compare_why_not(cmp), article, tail);
	}
	add_fetch_note(r, n, v);
}

/* The headline with one thread: nothing contends. */
static void say_one_thread(const struct run_result *r, struct verdict *v,
			   const struct ai_head *h)
{
	struct comparison c1;
	char key[64], rt[64];

	compare_paired(h->cas1, h->fa1, experiment_precision(r->exp), &c1);
	key_cas_over(key, sizeof(key), 1);
	compare_state_interval(v, key, &c1);
	compare_ratio_text(&c1, rt, sizeof(rt));
	if (c1.rel == CMP_MORE || c1.rel == CMP_LESS)
		verdict_headline(
			v,
			"with 1 thread nothing contends: cas cost %s fetch_add; 2 or more threads show what sharing the counter costs",
			rt);
	else if (c1.rel == CMP_SAME)
		verdict_headline(
			v,
			"with 1 thread nothing contends: cas and fetch_add took the same time (%s); 2 or more threads show what sharing the counter costs",
			rt);
	else
		verdict_headline(
			v,
			"with 1 thread nothing contends: cas and fetch_add could not be told apart (%s); 2 or more threads show what sharing the counter costs",
			rt);
}

/*
 * The headline compares cas with fetch_add at the most threads where the
 * comparison is valid: two or more threads on distinct cpus whose loops
 * ran together for the rulebook's floor of a round, through compare.h
 * (a partial overlap makes a slowdown a lower bound). The summary key of
 * a comparison that cannot be stated is marked with the headline's reason.
 */
void ai_describe(const struct run_result *r, struct verdict *v)
{
	const struct ai_params *ap = r->params;
	struct ai_head h = {.most = 1, .turns_overlap = 1};

	article_note(r->exp, v);
	if (r->machine->nallowed > 0 && r->machine->nallowed < 2)
		verdict_note(
			v, "cannot",
			"only 1 cpu was available to this process: the threads took turns, nothing contended and plain could not lose updates; 2 or more cpus are needed to see either");
	ai_point_notes(r, v);
	classify(r, v, &h);
	if (h.valid_n)
		say_contended(r, v, &h);
	else if (h.turns_n)
		verdict_headline(
			v,
			"the %d threads ran at the same time for only %.0f%% of a round: cas against fetch_add under contention could not be measured (%s); rerun on an idle machine",
			h.turns_n, 100 * h.turns_overlap,
			h.turns_cause
				? "other processes held the cpus"
				: "one core kept the line while the other waited");
	else if (h.alone_n)
		verdict_headline(
			v,
			"the %d threads all ran on one cpu: nothing contended, so cas against fetch_add under contention could not be measured",
			h.alone_n);
	else if (h.one_n)
		say_one_thread(r, v, &h);
	else if (h.plain_lost > 0)
		verdict_headline(
			v,
			"plain lost %.0f%% of its increments with %d threads: only atomic increments count right",
			h.plain_lost, h.most);
	else
		verdict_headline(
			v,
			"measured %d variant%s; select cas and fetch_add to compare them with the article",
			__builtin_popcount(ap->variants),
			__builtin_popcount(ap->variants) == 1 ? "" : "s");
}
