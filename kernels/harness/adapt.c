/* adapt.c - how many rounds a point keeps: the stop rule, the redo rule, and the run's account of both */
#include "adapt.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "declares.h"
#include "errinfo.h"
#include "stats.h"

enum adapt_fate adapt_flaw(const struct adapt_point *p, double overlap,
			   double cpu_share)
{
	if (p->floor > 0 && overlap < p->floor)
		return ADAPT_REDO_APART;
	if (cpu_share < ADAPT_CPU_SHARE)
		return ADAPT_REDO_PREEMPTED;
	return ADAPT_KEEP;
}

int adapt_may_redo(const struct adapt_point *p, int redone, int clean,
		   double now)
{
	if (redone >= p->redo_most ||
	    (p->redo_until > 0 && now >= p->redo_until))
		return 0;
	return redone < p->least || 3 * clean >= redone;
}

enum adapt_fate adapt_judge(const struct adapt_point *p, double overlap,
			    double cpu_share, int redone, int clean, double now)
{
	enum adapt_fate f = adapt_flaw(p, overlap, cpu_share);

	return f != ADAPT_KEEP && adapt_may_redo(p, redone, clean, now)
		       ? f
		       : ADAPT_KEEP;
}

int adapt_enough(const struct adapt_point *p, const double *kept, int n,
		 double now)
{
	struct stats s;

	if (n >= p->most)
		return 1;
	if (n < p->least)
		return 0;
	if (p->half_width <= 0 || (p->deadline > 0 && now >= p->deadline))
		return 1;
	stats_compute(kept, n, &s);
	if (s.n != n || s.median == 0)
		return 1; /* nothing to scale the interval by: growing cannot
			     help */
	return (s.ci_hi - s.ci_lo) / 2 <= p->half_width * fabs(s.median);
}

int adapt_enough_ratios(const struct adapt_point *p, const double *ratios,
			int n, double now)
{
	struct adapt_point q = *p;

	q.half_width = 2 * p->half_width;
	return adapt_enough(&q, ratios, n, now);
}

int adapt_most_kept(int repeat)
{
	int most = ADAPT_MOST_FACTOR * repeat;

	if (most > ADAPT_MOST_ROUNDS)
		most = ADAPT_MOST_ROUNDS;
	return most > repeat ? most : repeat;
}

int adapt_most_redone(int repeat)
{
	return repeat > ADAPT_REDO_LEAST ? repeat : ADAPT_REDO_LEAST;
}

int adapt_parse_budget(const char *text, void *field, char *norm,
		       size_t normlen, struct errinfo *err)
{
	double v;
	char *end = NULL;

	if (!strcmp(text, "auto")) {
		v = ADAPT_BUDGET_AUTO;
		snprintf(norm, normlen, "auto");
	} else {
		/* plain decimals only (strtod would take " 5", "0x10", "1e-400"
		 * and "-0"), kept as written: the run records what was asked */
		size_t whole = strspn(text, "0123456789"), frac = 0;
		if (whole && text[whole] == '.')
			frac = strspn(text + whole + 1, "0123456789");
		v = whole ? strtod(text, &end) : NAN;
		if (!end || *end || text[whole + (frac ? frac + 1 : 0)] ||
		    !isfinite(v) || v > ADAPT_BUDGET_MOST)
			return errinfo_set(
				err, "budget",
				"budget '%.40s' is neither 'auto' nor seconds from 0 to %d, written as a plain decimal such as 2 or 0.5 (0: exactly 'repeat' rounds)",
				text, ADAPT_BUDGET_MOST);
		/* without the zeros a value may be written with at either end
		 * (007, 2.50): the same value, every digit that counts kept */
		while (whole > 1 && text[0] == '0') {
			text++;
			whole--;
		}
		snprintf(norm, normlen, "%s", text);
		if (frac && normlen > whole + 1) {
			size_t n = strlen(norm);
			while (n > whole + 1 && norm[n - 1] == '0')
				norm[--n] = '\0';
			if (norm[n - 1] == '.')
				norm[n - 1] = '\0';
		}
	}
	memcpy(field, &v, sizeof(v));
	return 0;
}

/* The one event the account reads: how far the run has come. Every other
 * event goes on to the run's own sink (sink.next) unchanged. */
static void watch_progress(void *ctx, double done, double total,
			   const char *what, const char *part)
{
	struct adapt_run *a = ctx;

	a->done = done;
	a->total = total;
	if (a->part_from < 0)
		a->part_from = done;
	sink_progress_part(a->sink.next, done, total, what, part);
}

static const struct sink_ops watching = {.progress = watch_progress};

void adapt_run_init(struct adapt_run *a, const struct experiment *exp,
		    const struct common_params *common, double budget_s,
		    struct sink *next)
{
	memset(a, 0, sizeof(*a));
	a->sink.ops = &watching;
	a->sink.ctx = a;
	a->sink.next = next;
	a->repeat = (int)common->repeat;
	a->exact = budget_s == 0;
	/*
	 * A quarter of the precision on each side: two points at that width
	 * give a ratio whose interval spans about half the precision either
	 * way, so a real difference of the precision separates and a ratio
	 * near 1 fits inside 1 +- precision ("no difference").
	 */
	a->half_width = experiment_precision(exp) / 4;
	a->floor = rules_together_floor(exp);
	a->end = budget_s > 0 ? clock_now() + budget_s : 0;
	a->part_from = -1;
}

double adapt_budget(const struct common_params *common, double estimate_s,
		    double limit_s)
{
	double b = common->budget;

	if (b == ADAPT_BUDGET_AUTO)
		b = estimate_s > 0 ? ADAPT_AUTO_FACTOR * estimate_s : -1;
	/* no estimate: no deadline, the ceiling on rounds alone bounds it */
	if (limit_s > 0 && (b < 0 || b > ADAPT_LIMIT_SHARE * limit_s))
		b = ADAPT_LIMIT_SHARE * limit_s;
	return b < 0 ? -1 : b;
}

void adapt_run_point(const struct adapt_run *a, int repeat, double now,
		     struct adapt_point *p)
{
	adapt_run_point_steps(a, repeat, 1, now, p);
}

void adapt_run_point_steps(const struct adapt_run *a, int repeat, int steps,
			   double now, struct adapt_point *p)
{
	memset(p, 0, sizeof(*p));
	p->least = p->most = repeat;
	if (!a || a->exact)
		return;
	p->most = adapt_most_kept(repeat);
	p->redo_most = adapt_most_redone(repeat);
	p->half_width = a->half_width;
	p->floor = a->floor;
	if (a->end > 0) {
		p->redo_until = a->end;
		double left = a->end - now, rest = a->total - a->done;
		if (a->part_end > 0) { /* the part's share, over its steps */
			left = a->part_end - now;
			rest = a->part_steps -
			       (a->part_from >= 0 ? a->done - a->part_from : 0);
		}
		/* this point's share: what is left over the steps left */
		if (left <= 0)
			p->deadline = now;
		else if (rest > steps)
			p->deadline = now + left * steps / rest;
		else
			p->deadline = now + left;
	}
}

void adapt_run_part(struct adapt_run *a, double share, int steps, double now)
{
	if (!a)
		return;
	a->part_end = 0;
	a->part_steps = steps;
	a->part_from = -1;
	if (a->exact || a->end <= 0 || share <= 0 || steps <= 0)
		return;
	if (share > 1)
		share = 1;
	a->part_end = now + (a->end > now ? (a->end - now) * share : 0);
}

void adapt_run_count(struct adapt_run *a, int kept, int apart, int preempted)
{
	if (!a)
		return;
	a->kept += kept;
	a->apart += apart;
	a->preempted += preempted;
}

void adapt_run_count_gate(struct adapt_run *a, int started_apart)
{
	if (a)
		a->started_apart += started_apart;
}

void adapt_words(long kept, long apart, long preempted, char *buf, size_t len)
{
	long redone = apart + preempted;

	if (!redone)
		snprintf(buf, len, "kept %ld round%s; redid none", kept,
			 kept == 1 ? "" : "s");
	else if (!preempted || !apart)
		snprintf(buf, len, "kept %ld round%s; redid %ld %s", kept,
			 kept == 1 ? "" : "s", redone,
			 apart ? "where the threads ran apart" : "preempted");
	else
		snprintf(
			buf, len,
			"kept %ld round%s; redid %ld: %ld where the threads ran apart, %ld preempted",
			kept, kept == 1 ? "" : "s", redone, apart, preempted);
}

void adapt_run_report(const struct adapt_run *a, struct sink *s)
{
	char words[160];

	if (!a || a->kept < 1)
		return;
	sink_summary(s, harness_summary_keys[0], (double)a->kept, "rounds");
	sink_summary(s, harness_summary_keys[1], (double)a->apart, "rounds");
	sink_summary(s, harness_summary_keys[2], (double)a->preempted,
		     "rounds");
	adapt_words(a->kept, a->apart, a->preempted, words, sizeof(words));
	if (!a->started_apart) {
		sink_note(s, "info", "%s", words);
		return;
	}
	sink_summary(s, harness_summary_keys[3], (double)a->started_apart,
		     "rounds");
	sink_note(s, "info",
		  "%s; %ld round%s started before every thread was on its cpu "
		  "(the gate gave up waiting for them)",
		  words, a->started_apart, a->started_apart == 1 ? "" : "s");
}
