/* sink.c - the thin calls kernels use to emit results through a sink */
#include "sink.h"

#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "declares.h"

/* buf (an array) from the printf format fmt and the arguments after it. */
#define FORMAT(buf, fmt)                                                       \
	do {                                                                   \
		va_list ap;                                                    \
		va_start(ap, fmt);                                             \
		vsnprintf(buf, sizeof(buf), fmt, ap);                          \
		va_end(ap);                                                    \
	} while (0)

/* Records the first id a run emits that its descriptor does not declare. */
static void undeclared(struct sink *s, const char *what, const char *id)
{
	if (!s->undeclared[0])
		snprintf(s->undeclared, sizeof(s->undeclared), "%s '%.80s'",
			 what, id ? id : "(null)");
}

static void check_chart(struct sink *s, const char *chart)
{
	if (s && s->declared &&
	    (!chart || !experiment_declares_chart(s->declared, chart)))
		undeclared(s, "chart", chart);
}

void sink_point(struct sink *s, const struct point *p)
{
	check_chart(s, p->chart);
	if (s && s->ops->point)
		s->ops->point(s->ctx, p);
	else if (s && s->next)
		sink_point(s->next, p);
}

void sink_xy(struct sink *s, const char *chart, const char *series, double x,
	     double y, const char *unit)
{
	struct point p = {.chart = chart,
			  .series = series,
			  .x = x,
			  .y = y,
			  .unit = unit,
			  .samples = &y,
			  .nsamples = 1};
	sink_point(s, &p);
}

void sink_cell(struct sink *s, const struct cell *c)
{
	check_chart(s, c->chart);
	if (s && s->ops->cell)
		s->ops->cell(s->ctx, c);
	else if (s && s->next)
		sink_cell(s->next, c);
}

void sink_placement(struct sink *s, const char *label,
		    const struct thread_place *tp, int n)
{
	if (s && s->ops->placement)
		s->ops->placement(s->ctx, label, tp, n);
	else if (s && s->next)
		sink_placement(s->next, label, tp, n);
}

void sink_progress_part(struct sink *s, double done, double total,
			const char *what, const char *part)
{
	if (s && s->ops->progress)
		s->ops->progress(s->ctx, done, total, what, part);
	else if (s && s->next)
		sink_progress_part(s->next, done, total, what, part);
}

void sink_progress(struct sink *s, double done, double total, const char *what)
{
	sink_progress_part(s, done, total, what, NULL);
}

void sink_note(struct sink *s, const char *level, const char *fmt, ...)
{
	char buf[1024];

	FORMAT(buf, fmt);
	if (s && s->ops->note)
		s->ops->note(s->ctx, level, buf);
	else if (s && s->next)
		sink_note(s->next, level, "%s", buf);
}

void sink_skipped(struct sink *s, const char *label, const char *fmt, ...)
{
	char buf[1024];

	FORMAT(buf, fmt);
	if (!s)
		return;
	if (s->ops->skipped)
		s->ops->skipped(s->ctx, label, buf);
	else if (s->next)
		sink_skipped(s->next, label, "%s", buf);
	else
		sink_note(s, "warn", "%s: skipped: %s", label, buf);
}

void sink_summary(struct sink *s, const char *key, double value,
		  const char *unit)
{
	if (s && s->declared &&
	    (!key || !experiment_declares_summary(s->declared, key)))
		undeclared(s, "summary key", key);
	if (s && s->ops->summary)
		s->ops->summary(s->ctx, key, value, unit);
	else if (s && s->next)
		sink_summary(s->next, key, value, unit);
}

void sink_summary_interval(struct sink *s, const char *key, double value,
			   double lo, double hi, const char *unit)
{
	if (s && s->declared &&
	    (!key || !experiment_declares_summary(s->declared, key)))
		undeclared(s, "summary key", key);
	if (s && s->ops->summary_interval)
		s->ops->summary_interval(s->ctx, key, value, lo, hi, unit);
	else if (s && s->ops->summary)
		s->ops->summary(s->ctx, key, value, unit);
	else if (s && s->next)
		sink_summary_interval(s->next, key, value, lo, hi, unit);
}

void sink_headline(struct sink *s, const char *fmt, ...)
{
	char buf[1024];

	FORMAT(buf, fmt);
	if (s && s->ops->headline)
		s->ops->headline(s->ctx, buf);
	else if (s && s->next)
		sink_headline(s->next, "%s", buf);
}

/*
 * A qualifier's key is a pattern too: it names declared keys when it is "*",
 * matches one of their patterns, or one of them matches it
 * ("slowdown_*" covers "slowdown_*_threads*"). A key that covers none
 * would disown nothing, and the page would show the number.
 */
static int qualifier_declared(const struct experiment *e, const char *key)
{
	if (!strcmp(key, "*") || experiment_declares_summary(e, key))
		return 1;
	for (const char *const *k = e->summary_keys; k && *k; k++)
		if (!fnmatch(key, *k, 0))
			return 1;
	return 0;
}

void sink_qualify(struct sink *s, const char *key, const char *kind,
		  const char *why)
{
	if (s && s->declared && (!key || !qualifier_declared(s->declared, key)))
		undeclared(s, "mark key", key);
	if (s && s->ops->qualify)
		s->ops->qualify(s->ctx, key, kind, why ? why : "");
	else if (s && s->next)
		sink_qualify(s->next, key, kind, why);
}
