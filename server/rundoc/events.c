/* events.c - the run's event types, their fold into a run document, and back */
#include "events.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "stats.h"

const struct event_kind event_kinds[EV_NTYPES] = {
	[EV_UNKNOWN] = {"", EVO_NONE, 0},
	[EV_START] = {"start", EVO_WORKER, 0},
	[EV_PLACEMENT] = {"placement", EVO_WORKER, 0},
	[EV_SAMPLE] = {"sample", EVO_WORKER, 0},
	[EV_CELL] = {"cell", EVO_WORKER, 0},
	[EV_PROGRESS] = {"progress", EVO_WORKER, 0},
	[EV_NOTE] = {"note", EVO_WORKER, 0},
	[EV_SUMMARY] = {"summary", EVO_WORKER, 0},
	[EV_HEADLINE] = {"headline", EVO_WORKER, 0},
	[EV_END] = {"end", EVO_WORKER, 0},
	[EV_STATUS] = {"status", EVO_SERVER, 0},
	[EV_DONE] = {"done", EVO_SERVER, 1},
	[EV_FAILED] = {"failed", EVO_SERVER, 1},
	[EV_CANCELLED] = {"cancelled", EVO_SERVER, 1},
	[EV_INTERRUPTED] = {"interrupted", EVO_SERVER, 1},
	[EV_IMPORTED] = {"imported", EVO_IMPORT, 0},
	[EV_MARK] = {"mark", EVO_WORKER, 0},
};

enum event_type event_type_of(const char *name)
{
	if (!name || !*name)
		return EV_UNKNOWN;
	for (int t = EV_UNKNOWN + 1; t < EV_NTYPES; t++)
		if (!strcmp(name, event_kinds[t].name))
			return (enum event_type)t;
	return EV_UNKNOWN;
}

enum event_type event_type_of_event(json_t *ev)
{
	return event_type_of(json_string_value(json_object_get(ev, "type")));
}

int event_reserved(const char *type)
{
	return event_kinds[event_type_of(type)].origin == EVO_SERVER;
}

int event_status_final(const char *status)
{
	return event_kinds[event_type_of(status)].final;
}

json_t *events_doc_new(void)
{
	return json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "params",
			 json_object(), "placement", json_array(), "samples",
			 json_array(), "cells", json_array(), "notes",
			 json_array(), "marks", json_array(), "summary",
			 json_object(), "machine", json_object());
}

/*
 * ev without its "type" (and server-side "seq"): a shallow copy, sharing
 * ev's members, which nothing changes once an event is folded; ev itself
 * when the caller gives it (take).
 */
static json_t *strip(json_t *ev, int take)
{
	json_t *c = take ? json_incref(ev) : json_copy(ev);

	json_object_del(c, "type");
	json_object_del(c, "seq");
	return c;
}

/* Each returns 0, or -1 when memory ran out (item is released). */
static int append(json_t *doc, const char *key, json_t *item)
{
	json_t *a = json_object_get(doc, key);

	if (!json_is_array(a)) {
		a = json_array();
		if (json_object_set_new(doc, key, a)) {
			json_decref(item);
			return -1;
		}
	}
	return json_array_append_new(a, item);
}

static int copy_field(json_t *doc, json_t *ev, const char *from, const char *to)
{
	json_t *v = json_object_get(ev, from);

	return v ? json_object_set(doc, to, v) : 0;
}

/* A summary event's entry: {"value", "unit"}, and "lo", "hi" where the
 * verdict states an interval (a copy of ev's value when it is not) */
static json_t *summary_entry(json_t *ev)
{
	json_t *lo = json_object_get(ev, "lo"), *hi = json_object_get(ev, "hi");

	if (json_is_number(lo) && json_is_number(hi))
		return json_pack("{s:O?, s:O?, s:O, s:O}", "value",
				 json_object_get(ev, "value"), "unit",
				 json_object_get(ev, "unit"), "lo", lo, "hi",
				 hi);
	return json_pack("{s:O?, s:O?}", "value", json_object_get(ev, "value"),
			 "unit", json_object_get(ev, "unit"));
}

int events_fold(json_t *doc, json_t *ev, unsigned int flags)
{
	int outcome = flags & EVENTS_FOLD_OUTCOME;
	int take = !!(flags & EVENTS_FOLD_TAKE);
	json_t *s;
	const char *key;
	/* any step that ran out of memory: the document lacks the event */
	int bad = 0;

	if (!json_is_object(doc) || !json_is_object(ev) ||
	    !json_is_string(json_object_get(ev, "type")))
		return -EINVAL;
	switch (event_type_of_event(ev)) {
	case EV_START:
		bad |= copy_field(doc, ev, "experiment", "experiment");
		bad |= copy_field(doc, ev, "params", "params");
		bad |= copy_field(doc, ev, "machine", "machine");
		bad |= copy_field(doc, ev, "version", "version");
		bad |= copy_field(doc, ev, "estimate_s", "estimate_s");
		bad |= copy_field(doc, ev, "estimate_basis", "estimate_basis");
		break;
	case EV_PLACEMENT:
		if (!outcome)
			bad |= append(doc, "placement", strip(ev, take));
		break;
	case EV_SAMPLE:
		if (!outcome)
			bad |= append(doc, "samples", strip(ev, take));
		break;
	case EV_CELL:
		if (!outcome)
			bad |= append(doc, "cells", strip(ev, take));
		break;
	case EV_NOTE:
		if (!outcome)
			bad |= append(doc, "notes", strip(ev, take));
		break;
	case EV_MARK:
		if (!outcome)
			bad |= append(doc, "marks", strip(ev, take));
		break;
	case EV_PROGRESS:
		bad |= json_object_set_new(doc, "progress", strip(ev, take));
		break;
	case EV_SUMMARY:
		key = json_string_value(json_object_get(ev, "key"));
		if (!key)
			return -EINVAL;
		s = json_object_get(doc, "summary");
		if (!json_is_object(s)) {
			s = json_object();
			if (json_object_set_new(doc, "summary", s))
				return -ENOMEM;
		}
		bad |= json_object_set_new(s, key, summary_entry(ev));
		break;
	case EV_HEADLINE:
		bad |= copy_field(doc, ev, "text", "headline");
		break;
	case EV_IMPORTED:
		bad |= json_object_set_new(doc, "imported", strip(ev, take));
		break;
	case EV_STATUS:
		bad |= copy_field(doc, ev, "estimate_s", "estimate_s");
		bad |= copy_field(doc, ev, "estimate_basis", "estimate_basis");
		bad |= copy_field(doc, ev, "status", "status");
		bad |= copy_field(doc, ev, "error", "error");
		break;
	case EV_END:
	case EV_DONE:
	case EV_FAILED:
	case EV_CANCELLED:
	case EV_INTERRUPTED:
		bad |= copy_field(doc, ev, "status", "status");
		bad |= copy_field(doc, ev, "error", "error");
		break;
	case EV_UNKNOWN:
	case EV_NTYPES:
		break;
	}
	return bad ? -ENOMEM : 0;
}

int events_fold_unread(json_t *doc, enum event_type type)
{
	const char *key = type == EV_SAMPLE	 ? "samples"
			  : type == EV_PLACEMENT ? "placement"
			  : type == EV_CELL	 ? "cells"
			  : type == EV_NOTE	 ? "notes"
			  : type == EV_MARK	 ? "marks"
						 : NULL;

	if (!json_is_object(doc) || !key)
		return -EINVAL;
	return append(doc, key, json_null()) ? -ENOMEM : 0;
}

json_t *events_final(const char *status, const char *error, json_t *summary,
		     const char *headline)
{
	json_t *ev = json_pack("{s:s, s:s, s:O}", "type", status, "status",
			       status, "summary", summary);

	/* not "s:s*": json_pack drops an optional key whose text it could
	 * not copy, and the end would go without its headline */
	if (ev && error && json_object_set_new(ev, "error", json_string(error)))
		goto fail;
	if (ev && headline &&
	    json_object_set_new(ev, "headline", json_string(headline)))
		goto fail;
	return ev;
fail:
	json_decref(ev);
	return NULL;
}

/* NULL when memory ran out: an event without its type is no event */
static json_t *typed(json_t *ev, enum event_type t)
{
	if (ev &&
	    json_object_set_new(ev, "type", json_string(event_kinds[t].name))) {
		json_decref(ev);
		return NULL;
	}
	return ev;
}

/* Each item of doc[key], as an event of type t. */
static void each(json_t *out, json_t *doc, const char *key, enum event_type t)
{
	json_t *item;
	size_t i;

	json_array_foreach (json_object_get(doc, key), i, item)
		json_array_append_new(out, typed(json_deep_copy(item), t));
}

json_t *events_from_doc(json_t *doc, json_t *imported)
{
	json_t *out = json_array(), *v,
	       *summary = json_object_get(doc, "summary");
	const char *status = json_string_value(json_object_get(doc, "status"));
	const char *headline =
		json_string_value(json_object_get(doc, "headline"));
	const char *key;
	size_t n;

	if (!out || !status)
		goto fail;
	json_array_append_new(
		out,
		typed(json_pack("{s:O, s:O, s:O, s:O?}", "experiment",
				json_object_get(doc, "experiment"), "params",
				json_object_get(doc, "params"), "machine",
				json_object_get(doc, "machine"), "version",
				json_object_get(doc, "version")),
		      EV_START));
	/* the estimate the run was started with, where it had one */
	if (json_is_number(json_object_get(doc, "estimate_s")))
		json_object_set(json_array_get(out, 0), "estimate_s",
				json_object_get(doc, "estimate_s"));
	if (json_is_string(json_object_get(doc, "estimate_basis")))
		json_object_set(json_array_get(out, 0), "estimate_basis",
				json_object_get(doc, "estimate_basis"));
	each(out, doc, "placement", EV_PLACEMENT);
	each(out, doc, "samples", EV_SAMPLE);
	each(out, doc, "cells", EV_CELL);
	each(out, doc, "notes", EV_NOTE);
	each(out, doc, "marks", EV_MARK);
	if (json_is_object(json_object_get(doc, "progress")))
		json_array_append_new(
			out,
			typed(json_deep_copy(json_object_get(doc, "progress")),
			      EV_PROGRESS));
	json_object_foreach (summary, key, v) {
		json_t *ev = summary_entry(v);
		if (ev && json_object_set_new(ev, "key", json_string(key))) {
			json_decref(ev);
			ev = NULL;
		}
		json_array_append_new(out, typed(ev, EV_SUMMARY));
	}
	if (headline)
		json_array_append_new(
			out, typed(json_pack("{s:s}", "text", headline),
				   EV_HEADLINE));
	if (imported)
		json_array_append_new(
			out, typed(json_deep_copy(imported), EV_IMPORTED));
	json_t *sum =
		json_is_object(summary) ? json_incref(summary) : json_object();
	json_array_append_new(
		out,
		events_final(status,
			     json_string_value(json_object_get(doc, "error")),
			     sum, headline));
	json_decref(sum);
	/* an item that could not be built is a NULL that was not appended */
	n = 2 + json_array_size(json_object_get(doc, "placement")) +
	    json_array_size(json_object_get(doc, "samples")) +
	    json_array_size(json_object_get(doc, "cells")) +
	    json_array_size(json_object_get(doc, "notes")) +
	    json_array_size(json_object_get(doc, "marks")) +
	    (json_is_object(json_object_get(doc, "progress")) ? 1 : 0) +
	    json_object_size(summary) + (headline ? 1 : 0) + (imported ? 1 : 0);
	if (json_array_size(out) != n)
		goto fail;
	return out;
fail:
	json_decref(out);
	return NULL;
}

/* NaN and infinities are not JSON: they become null. */
static json_t *num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

/* The stats object of samples[0..n): n, median, min, max, mean, stddev and
 * the 95% interval. */
static json_t *stats_json(const double *samples, int n)
{
	struct stats s;

	stats_compute(samples, n, &s);
	return json_pack("{s:i, s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "n", s.n,
			 "median", num(s.median), "min", num(s.min), "max",
			 num(s.max), "mean", num(s.mean), "stddev",
			 num(s.stddev), "ci_lo", num(s.ci_lo), "ci_hi",
			 num(s.ci_hi));
}

static json_t *samples_json(const double *v, int n)
{
	json_t *a = json_array();

	for (int i = 0; a && i < n; i++)
		json_array_append_new(a, num(v[i]));
	return a;
}

/* A new event of type t (its "type" first, as it is printed) holding the
 * fields built for it (stolen); NULL on ENOMEM. */
static json_t *event_of(enum event_type t, json_t *fields)
{
	json_t *ev =
		fields ? json_pack("{s:s}", "type", event_kinds[t].name) : NULL;

	if (ev && json_object_update(ev, fields)) {
		json_decref(ev);
		ev = NULL;
	}
	json_decref(fields);
	return ev;
}

json_t *event_start(const char *experiment, json_t *params, json_t *machine,
		    const char *version)
{
	return event_of(EV_START,
			json_pack("{s:s, s:o, s:o, s:s}", "experiment",
				  experiment, "params", params, "machine",
				  machine, "version", version));
}

json_t *event_sample(const struct point *p)
{
	json_t *ev = json_pack("{s:s, s:s, s:o, s:o, s:s, s:o, s:o}", "chart",
			       p->chart, "series", p->series, "x", num(p->x),
			       "y", num(p->y), "unit", p->unit ? p->unit : "",
			       "samples", samples_json(p->samples, p->nsamples),
			       "stats", stats_json(p->samples, p->nsamples));

	if (ev && p->x_label)
		json_object_set_new(ev, "x_label", json_string(p->x_label));
	if (ev && p->nextra > 0) {
		json_t *extra = json_object();
		for (int i = 0; i < p->nextra; i++)
			json_object_set_new(extra, p->extra_keys[i],
					    num(p->extra_vals[i]));
		json_object_set_new(ev, "extra", extra);
	}
	return event_of(EV_SAMPLE, ev);
}

json_t *event_cell(const struct cell *c)
{
	json_t *ev = json_pack(
		"{s:s, s:i, s:i, s:s, s:s, s:o, s:s, s:o, s:o}", "chart",
		c->chart, "row", c->row, "col", c->col, "row_label",
		c->row_label ? c->row_label : "", "col_label",
		c->col_label ? c->col_label : "", "value",
		c->nsamples > 0 || !c->note ? num(c->value) : json_null(),
		"unit", c->unit ? c->unit : "", "samples",
		samples_json(c->samples, c->nsamples), "stats",
		stats_json(c->samples, c->nsamples));

	if (ev && c->note)
		json_object_set_new(ev, "note", json_string(c->note));
	return event_of(EV_CELL, ev);
}

json_t *event_placement(const char *label, const struct thread_place *tp, int n)
{
	json_t *threads = json_array();

	for (int i = 0; threads && i < n; i++)
		json_array_append_new(
			threads,
			json_pack("{s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:i}",
				  "thread", tp[i].thread, "cpu",
				  tp[i].cpu_requested, "cpu_observed",
				  tp[i].cpu_observed, "core", tp[i].core,
				  "package", tp[i].package, "node", tp[i].node,
				  "l2", tp[i].l2, "l3", tp[i].l3));
	return event_of(EV_PLACEMENT,
			json_pack("{s:s, s:o}", "label", label ? label : "",
				  "threads", threads));
}

json_t *event_progress(double done, double total, const char *what,
		       const char *part)
{
	json_t *o = json_pack("{s:o, s:o, s:s}", "done", num(done), "total",
			      num(total), "what", what ? what : "");

	if (o && part)
		json_object_set_new(o, "part", json_string(part));
	return event_of(EV_PROGRESS, o);
}

json_t *event_note(const char *level, const char *text)
{
	return event_of(EV_NOTE,
			json_pack("{s:s, s:s}", "level", level ? level : "info",
				  "text", text));
}

json_t *event_note_skipped(const char *label, const char *why)
{
	char text[1200];

	snprintf(text, sizeof(text), "%s: skipped: %s", label, why);
	return event_of(EV_NOTE,
			json_pack("{s:s, s:s, s:s, s:s}", "level", "warn",
				  "text", text, "skipped", label, "why", why));
}

json_t *event_summary(const char *key, double value, const char *unit)
{
	return event_of(EV_SUMMARY,
			json_pack("{s:s, s:o, s:s}", "key", key, "value",
				  num(value), "unit", unit ? unit : ""));
}

json_t *event_summary_interval(const char *key, double value, double lo,
			       double hi, const char *unit)
{
	return event_of(EV_SUMMARY,
			json_pack("{s:s, s:o, s:s, s:o, s:o}", "key", key,
				  "value", num(value), "unit", unit ? unit : "",
				  "lo", num(lo), "hi", num(hi)));
}

json_t *event_headline(const char *text)
{
	return event_of(EV_HEADLINE, json_pack("{s:s}", "text", text));
}

json_t *event_mark(const char *key, const char *kind, const char *why)
{
	return event_of(EV_MARK, json_pack("{s:s, s:s, s:s}", "key", key,
					   "mark", kind, "why", why));
}

json_t *event_end(const char *status, const char *error, const char *field)
{
	json_t *ev = json_pack("{s:s}", "status", status);

	if (ev && error && json_object_set_new(ev, "error", json_string(error)))
		goto fail;
	if (ev && field && json_object_set_new(ev, "field", json_string(field)))
		goto fail;
	return event_of(EV_END, ev);
fail:
	json_decref(ev);
	return NULL;
}

json_t *event_status(const char *status)
{
	return event_of(EV_STATUS, json_pack("{s:s}", "status", status));
}

json_t *event_class(int64_t serial, int64_t answered, int revealed, int64_t run)
{
	return json_pack("{s:s, s:I, s:I, s:b, s:o}", "type", "class", "serial",
			 (json_int_t)serial, "answered", (json_int_t)answered,
			 "revealed", revealed, "run",
			 run ? json_integer(run) : json_null());
}

json_t *event_campaign(json_t *summary, json_t *node)
{
	static const char *const keys[] = {
		"id",
		"state",
		"total",
		"counts",
		"error",
		"finished_at",
		"cancel_requested",
	};
	json_t *ev = json_pack("{s:s}", "type", "campaign");

	for (size_t i = 0; ev && i < sizeof(keys) / sizeof(keys[0]); i++) {
		json_t *v = json_object_get(summary, keys[i]);

		if (json_object_set_new(ev, keys[i],
					v ? json_incref(v) : json_null())) {
			json_decref(ev);
			return NULL;
		}
	}
	if (ev && json_object_set_new(ev, "node",
				      node ? json_incref(node) : json_null())) {
		json_decref(ev);
		return NULL;
	}
	return ev;
}
