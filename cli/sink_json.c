/* sink_json.c - kernel output as JSON events (docs/events.md), built by events.c */
#include "sink_json.h"

#include <string.h>

#include "events.h"

void sink_json_emit(struct sink_json *s, json_t *event)
{
	if (!event)
		return;
	s->emit(s->arg, event);
	json_decref(event);
}

static void on_point(void *ctx, const struct point *p)
{
	sink_json_emit(ctx, event_sample(p));
}

static void on_cell(void *ctx, const struct cell *c)
{
	sink_json_emit(ctx, event_cell(c));
}

static void on_placement(void *ctx, const char *label,
			 const struct thread_place *tp, int n)
{
	sink_json_emit(ctx, event_placement(label, tp, n));
}

static void on_progress(void *ctx, double done, double total, const char *what,
			const char *part)
{
	sink_json_emit(ctx, event_progress(done, total, what, part));
}

static void on_note(void *ctx, const char *level, const char *text)
{
	sink_json_emit(ctx, event_note(level, text));
}

static void on_summary(void *ctx, const char *key, double value,
		       const char *unit)
{
	sink_json_emit(ctx, event_summary(key, value, unit));
}

static void on_summary_interval(void *ctx, const char *key, double value,
				double lo, double hi, const char *unit)
{
	sink_json_emit(ctx, event_summary_interval(key, value, lo, hi, unit));
}

static void on_headline(void *ctx, const char *text)
{
	sink_json_emit(ctx, event_headline(text));
}

static void on_qualify(void *ctx, const char *key, const char *kind,
		       const char *why)
{
	sink_json_emit(ctx, event_mark(key, kind, why));
}

/* a note a person reads, with the part and the reason as data beside it */
static void on_skipped(void *ctx, const char *label, const char *why)
{
	sink_json_emit(ctx, event_note_skipped(label, why));
}

static const struct sink_ops json_ops = {
	.point = on_point,
	.cell = on_cell,
	.placement = on_placement,
	.progress = on_progress,
	.note = on_note,
	.summary = on_summary,
	.summary_interval = on_summary_interval,
	.headline = on_headline,
	.qualify = on_qualify,
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
