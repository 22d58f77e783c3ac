/* sink_table.c - a sink that prints results as readable lines on a terminal */
#include "sink_table.h"

#include <stdio.h>
#include <string.h>

#include "stats.h"

static void on_point(void *ctx, const struct point *p)
{
	FILE *f = ctx;
	struct stats s;

	stats_compute(p->samples, p->nsamples, &s);
	if (p->x_label)
		fprintf(f, "  %-10s %-24s %-14s %12.6g %-3s", p->chart,
			p->series, p->x_label, p->y, p->unit ? p->unit : "");
	else
		fprintf(f, "  %-10s %-24s x=%-12g %12.6g %-3s", p->chart,
			p->series, p->x, p->y, p->unit ? p->unit : "");
	if (s.n > 1)
		fprintf(f, "  [min %.4g, max %.4g, n=%d]", s.min, s.max, s.n);
	for (int i = 0; i < p->nextra; i++)
		fprintf(f, "  %s=%.4g", p->extra_keys[i], p->extra_vals[i]);
	fputc('\n', f);
	fflush(f);
}

static void on_cell(void *ctx, const struct cell *c)
{
	FILE *f = ctx;

	if (c->nsamples == 0 && c->note)
		fprintf(f, "  %-10s %s -> %s: %s\n", c->chart,
			c->row_label ? c->row_label : "", c->col_label ? c->col_label : "",
			c->note);
	else
		fprintf(f, "  %-10s %s -> %s: %.4g %s\n", c->chart,
			c->row_label ? c->row_label : "",
			c->col_label ? c->col_label : "", c->value,
			c->unit ? c->unit : "");
	fflush(f);
}

static void on_placement(void *ctx, const char *label,
			 const struct thread_place *tp, int n)
{
	FILE *f = ctx;

	fprintf(f, "%s:", label);
	for (int i = 0; i < n; i++) {
		if (tp[i].cpu_requested < 0)
			fprintf(f, " t%d@cpu%d(unpinned)", tp[i].thread,
				tp[i].cpu_observed);
		else
			fprintf(f, " t%d@cpu%d%s", tp[i].thread, tp[i].cpu_observed,
				tp[i].cpu_observed != tp[i].cpu_requested ? "(!)"
									  : "");
	}
	fputc('\n', f);
}

static void on_progress(void *ctx, double done, double total, const char *what)
{
	(void)ctx;
	/* progress goes to stderr, only on a terminal */
	if (isatty_stderr())
		fprintf(stderr, "\r[%3.0f%%] %-60.60s\r", total > 0 ? 100 * done / total : 0,
			what ? what : "");
}

static void on_note(void *ctx, const char *level, const char *text)
{
	fprintf(ctx, "%s: %s\n", level, text);
}

static void on_summary(void *ctx, const char *key, double value,
		       const char *unit)
{
	fprintf(ctx, "  summary   %-36s %10.4g %s\n", key, value, unit ? unit : "");
}

static void on_headline(void *ctx, const char *text)
{
	fprintf(ctx, "\n%s\n", text);
}

static const struct sink_ops table_ops = {
	.point = on_point,
	.cell = on_cell,
	.placement = on_placement,
	.progress = on_progress,
	.note = on_note,
	.summary = on_summary,
	.headline = on_headline,
};

void sink_table_init(struct sink *s, FILE *f)
{
	s->ops = &table_ops;
	s->ctx = f;
}
