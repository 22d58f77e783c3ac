/* sink_json.c - kernel output as JSON events (docs/events.md) */
#include "sink_json.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "stats.h"

/* NaN and infinities are not JSON: they become null. */
static json_t *num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

json_t *json_stats(const double *samples, int n)
{
	struct stats s;

	stats_compute(samples, n, &s);
	return json_pack("{s:i, s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "n", s.n,
			 "median", num(s.median), "min", num(s.min), "max",
			 num(s.max), "mean", num(s.mean), "stddev",
			 num(s.stddev), "ci_lo", num(s.ci_lo), "ci_hi",
			 num(s.ci_hi));
}

static json_t *samples_array(const double *v, int n)
{
	json_t *a = json_array();

	for (int i = 0; i < n; i++)
		json_array_append_new(a, num(v[i]));
	return a;
}

void sink_json_emit(struct sink_json *s, json_t *event)
{
	if (!event)
		return;
	s->emit(s->arg, event);
	json_decref(event);
}

static void on_point(void *ctx, const struct point *p)
{
	json_t *ev = json_pack("{s:s, s:s, s:s, s:o, s:o, s:s, s:o, s:o}",
			       "type", "sample", "chart", p->chart, "series",
			       p->series, "x", num(p->x), "y", num(p->y),
			       "unit", p->unit ? p->unit : "", "samples",
			       samples_array(p->samples, p->nsamples), "stats",
			       json_stats(p->samples, p->nsamples));
	if (p->x_label)
		json_object_set_new(ev, "x_label", json_string(p->x_label));
	if (p->nextra > 0) {
		json_t *extra = json_object();
		for (int i = 0; i < p->nextra; i++)
			json_object_set_new(extra, p->extra_keys[i],
					    num(p->extra_vals[i]));
		json_object_set_new(ev, "extra", extra);
	}
	sink_json_emit(ctx, ev);
}

static void on_cell(void *ctx, const struct cell *c)
{
	json_t *ev = json_pack(
		"{s:s, s:s, s:i, s:i, s:s, s:s, s:o, s:s, s:o, s:o}", "type",
		"cell", "chart", c->chart, "row", c->row, "col", c->col,
		"row_label", c->row_label ? c->row_label : "", "col_label",
		c->col_label ? c->col_label : "", "value",
		c->nsamples > 0 || !c->note ? num(c->value) : json_null(),
		"unit", c->unit ? c->unit : "", "samples",
		samples_array(c->samples, c->nsamples), "stats",
		json_stats(c->samples, c->nsamples));
	if (c->note)
		json_object_set_new(ev, "note", json_string(c->note));
	sink_json_emit(ctx, ev);
}

static void on_placement(void *ctx, const char *label,
			 const struct thread_place *tp, int n)
{
	json_t *threads = json_array();

	for (int i = 0; i < n; i++)
		json_array_append_new(
			threads,
			json_pack("{s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:i}",
				  "thread", tp[i].thread, "cpu",
				  tp[i].cpu_requested, "cpu_observed",
				  tp[i].cpu_observed, "core", tp[i].core,
				  "package", tp[i].package, "node", tp[i].node,
				  "l2", tp[i].l2, "l3", tp[i].l3));
	sink_json_emit(ctx, json_pack("{s:s, s:s, s:o}", "type", "placement",
				      "label", label ? label : "", "threads",
				      threads));
}

static void on_progress(void *ctx, double done, double total, const char *what)
{
	sink_json_emit(ctx, json_pack("{s:s, s:o, s:o, s:s}", "type",
				      "progress", "done", num(done), "total",
				      num(total), "what", what ? what : ""));
}

static void on_note(void *ctx, const char *level, const char *text)
{
	sink_json_emit(ctx,
		       json_pack("{s:s, s:s, s:s}", "type", "note", "level",
				 level ? level : "info", "text", text));
}

static void on_summary(void *ctx, const char *key, double value,
		       const char *unit)
{
	sink_json_emit(ctx, json_pack("{s:s, s:s, s:o, s:s}", "type", "summary",
				      "key", key, "value", num(value), "unit",
				      unit ? unit : ""));
}

static void on_headline(void *ctx, const char *text)
{
	sink_json_emit(
		ctx, json_pack("{s:s, s:s}", "type", "headline", "text", text));
}

static void on_mark(void *ctx, const char *key, const char *kind,
		    const char *why)
{
	sink_json_emit(ctx, json_pack("{s:s, s:s, s:s, s:s}", "type", "mark",
				      "key", key, "mark", kind, "why", why));
}

/* a note a person reads, with the part and the reason as data beside it */
static void on_skipped(void *ctx, const char *label, const char *why)
{
	char text[1200];

	snprintf(text, sizeof(text), "%s: skipped: %s", label, why);
	sink_json_emit(ctx, json_pack("{s:s, s:s, s:s, s:s, s:s}", "type",
				      "note", "level", "warn", "text", text,
				      "skipped", label, "why", why));
}

static const struct sink_ops json_ops = {
	.point = on_point,
	.cell = on_cell,
	.placement = on_placement,
	.progress = on_progress,
	.note = on_note,
	.summary = on_summary,
	.headline = on_headline,
	.mark = on_mark,
	.skipped = on_skipped,
};

void sink_json_init(struct sink_json *s, event_fn emit, void *arg)
{
	memset(s, 0, sizeof(*s));
	s->sink.ops = &json_ops;
	s->sink.ctx = s;
	s->emit = emit;
	s->arg = arg;
}
