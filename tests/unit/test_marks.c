/* test_marks.c - a verdict's marks on their way out: the sink's event, the run document, today's verdict and the closing table */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "compare.h"
#include "describe_doc.h"
#include "events.h"
#include "experiment.h"
#include "registry.h"
#include "report.h"
#include "sink_json.h"
#include "sink_record.h"
#include "verdict.h"

#define WHY_APART "the threads ran together only 10% of the time"

/* Each event the sink writes, kept in order. */
static void keep_event(void *arg, json_t *ev)
{
	json_array_append(arg, ev);
}

static void two_marks(struct verdict *v)
{
	memset(v, 0, sizeof(*v));
	verdict_headline(v, "could not be measured");
	verdict_note(v, "warn", "busy machine");
	verdict_qualify(v, "slowdown_2_threads*", VERDICT_DISOWNED, "%s",
			WHY_APART);
	verdict_qualify(v, "slowdown_1_threads", VERDICT_AT_LEAST,
			"ran together 80%% of the time");
}

static const char *str(json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

/* The events a done false_sharing run document gives back. */
static json_t *rebuilt(json_t *doc)
{
	json_t *out;

	json_object_set_new(doc, "status", json_string("done"));
	json_object_set_new(doc, "experiment", json_string("false_sharing"));
	out = events_from_doc(doc, NULL);
	assert_non_null(out);
	return out;
}

/* The one event of type t in events (there must be exactly one). */
static json_t *only_of(json_t *events, enum event_type t)
{
	json_t *ev, *found = NULL;
	size_t i, n = 0;

	json_array_foreach (events, i, ev)
		if (event_type_of_event(ev) == t) {
			found = ev;
			n++;
		}
	assert_int_equal(n, 1);
	return found;
}

/* A closing table of false_sharing being written to text. */
struct table_run {
	struct sink_table t;
	FILE *f;
	char *text;
	size_t len;
};

/* Readies o and gives it the run's summary values; the sink to emit to. */
static struct sink *table_open(struct table_run *o,
			       const struct result_summary *sum, int n)
{
	o->text = NULL;
	o->len = 0;
	o->f = open_memstream(&o->text, &o->len);
	assert_non_null(o->f);
	sink_table_init(&o->t, experiment_find("false_sharing"), o->f);
	o->t.progress = 0;
	for (int i = 0; i < n; i++)
		sink_summary(&o->t.sink, sum[i].key, sum[i].value, sum[i].unit);
	return &o->t.sink;
}

/* The table as printed (the caller frees it). */
static char *table_close(struct table_run *o)
{
	sink_table_report(&o->t);
	sink_table_release(&o->t);
	fclose(o->f);
	return o->text;
}

/* Every mark travels, through a record as a run does, before the headline. */
static void emitted_before_the_headline(void **state)
{
	json_t *events = json_array();
	struct sink_json js;
	struct record rec;
	struct verdict v;

	(void)state;
	two_marks(&v);
	sink_json_init(&js, keep_event, events);
	record_init(&rec, &js.sink);
	verdict_emit(&v, &rec.sink, NULL);
	record_free(&rec);
	assert_int_equal(json_array_size(events), 4);
	assert_string_equal(str(json_array_get(events, 0), "type"), "note");
	json_t *m = json_array_get(events, 1);
	assert_string_equal(str(m, "type"), "mark");
	assert_string_equal(str(m, "key"), "slowdown_2_threads*");
	assert_string_equal(str(m, "mark"), "disowned");
	assert_string_equal(str(m, "why"), WHY_APART);
	m = json_array_get(events, 2);
	assert_string_equal(str(m, "mark"), "at_least");
	assert_string_equal(str(m, "why"), "ran together 80% of the time");
	assert_string_equal(str(json_array_get(events, 3), "type"), "headline");
	json_decref(events);
}

/* Folded into the document's marks, and back to the same events. */
static void folded_and_rebuilt(void **state)
{
	json_t *doc = events_doc_new(), *out, *ev;
	json_t *mark = json_pack("{s:s, s:s, s:s, s:s}", "type", "mark", "key",
				 "slowdown_2_threads", "mark", "disowned",
				 "why", WHY_APART);

	(void)state;
	assert_int_equal(event_type_of("mark"), EV_MARK);
	assert_false(event_reserved("mark"));
	/* the outcome a runner keeps leaves marks out, as it does notes */
	assert_int_equal(events_fold(doc, mark, EVENTS_FOLD_OUTCOME), 0);
	assert_int_equal(json_array_size(json_object_get(doc, "marks")), 0);
	assert_int_equal(events_fold(doc, mark, 0), 0);
	assert_int_equal(json_array_size(json_object_get(doc, "marks")), 1);
	ev = json_array_get(json_object_get(doc, "marks"), 0);
	assert_null(json_object_get(ev, "type"));
	assert_string_equal(str(ev, "why"), WHY_APART);
	out = rebuilt(doc);
	assert_true(json_equal(only_of(out, EV_MARK), mark));
	json_decref(out);
	json_decref(mark);
	json_decref(doc);
}

/* Today's verdict as JSON names each mark; a verdict without any has []. */
static void verdict_json_carries_marks(void **state)
{
	struct verdict v;
	json_t *j, *marks;

	(void)state;
	two_marks(&v);
	j = describe_doc_verdict_json(&v);
	assert_non_null(j);
	marks = json_object_get(j, "marks");
	assert_int_equal(json_array_size(marks), 2);
	assert_string_equal(str(json_array_get(marks, 0), "key"),
			    "slowdown_2_threads*");
	assert_string_equal(str(json_array_get(marks, 0), "mark"), "disowned");
	assert_string_equal(str(json_array_get(marks, 1), "mark"), "at_least");
	json_decref(j);
	memset(&v, 0, sizeof(v));
	j = describe_doc_verdict_json(&v);
	assert_int_equal(json_array_size(json_object_get(j, "marks")), 0);
	json_decref(j);
}

/* The closing table says what the verdict said beside each value. */
static void table_says_it_beside_the_value(void **state)
{
	static const struct result_summary sum[] = {
		{"slowdown_1_threads", 1.8, "x"},
		{"slowdown_2_threads", 2.17, "x"},
		{"overlap_min", 10, "%"}};
	struct table_run o;
	struct verdict v;
	char *text;

	(void)state;
	two_marks(&v);
	verdict_emit(&v, table_open(&o, sum, 3), NULL);
	assert_non_null(
		sink_table_qualifier(&o.t, "slowdown_2_threads_stride_4"));
	assert_null(sink_table_qualifier(&o.t, "overlap_min"));
	text = table_close(&o);
	/* each key by its descriptor's words and unit, then the mark */
	assert_non_null(strstr(text, "slowdown with 2 threads"));
	assert_non_null(strstr(
		text, "2.17 ×  (not a valid measurement: " WHY_APART ")\n"));
	assert_non_null(strstr(
		text, "1.8 ×  (at least: ran together 80% of the time)"));
	assert_non_null(strstr(text, "least share of a round every thread"));
	assert_null(strstr(strstr(text, "least share of a round every thread"),
			   "(not a valid"));
	free(text);
}

/* A run whose verdict states slowdown_2_threads at 2.17× (2.0–2.4). */
static const struct result_summary ratio_summary[] = {
	{"slowdown_1_threads", 1.0, "x"}, {"slowdown_2_threads", 2.17, "x"}};
static const struct run_result ratio_run = {.summary = ratio_summary,
					    .nsummary = 2};

static void state_interval(struct verdict *v)
{
	struct comparison c = {.rel = CMP_MORE,
			       .ratio = 2.17,
			       .lo = 2.0,
			       .hi = 2.4,
			       .rounds = 6};

	memset(v, 0, sizeof(*v));
	verdict_headline(v, "2.2× (2.0–2.4) slower");
	compare_state_interval(v, "slowdown_2_threads", &c);
	/* too few rounds: no interval to state */
	c.rel = CMP_FEW;
	compare_state_interval(v, "slowdown_1_threads", &c);
	/* a key the run did not give is sent nowhere */
	verdict_interval(v, "slowdown_4_threads", 3, 4);
	/* nor an interval that is none */
	verdict_interval(v, "overlap_min", 5, 4);
}

/* The interval goes out as the value again with lo and hi, before the
 * headline; the document keeps it in the summary and gives it back. */
static void interval_in_the_json_summary(void **state)
{
	json_t *events = json_array(), *doc = events_doc_new(), *ev, *out, *e;
	struct sink_json js;
	struct verdict v;
	size_t i;

	(void)state;
	state_interval(&v);
	assert_int_equal(v.nintervals, 2);
	sink_json_init(&js, keep_event, events);
	sink_summary(&js.sink, "slowdown_2_threads", 2.17, "x");
	verdict_emit(&v, &js.sink, &ratio_run);
	assert_int_equal(json_array_size(events), 3);
	ev = json_array_get(events, 1);
	assert_string_equal(str(ev, "type"), "summary");
	assert_string_equal(str(ev, "key"), "slowdown_2_threads");
	assert_true(json_real_value(json_object_get(ev, "lo")) == 2.0);
	assert_true(json_real_value(json_object_get(ev, "hi")) == 2.4);
	json_array_foreach (events, i, ev)
		assert_int_equal(events_fold(doc, ev, 0), 0);
	e = json_object_get(json_object_get(doc, "summary"),
			    "slowdown_2_threads");
	assert_true(json_real_value(json_object_get(e, "value")) == 2.17);
	assert_true(json_real_value(json_object_get(e, "lo")) == 2.0);
	assert_true(json_real_value(json_object_get(e, "hi")) == 2.4);
	assert_string_equal(str(e, "unit"), "x");
	out = rebuilt(doc);
	assert_true(json_real_value(json_object_get(only_of(out, EV_SUMMARY),
						    "hi")) == 2.4);
	json_decref(out);
	json_decref(doc);
	json_decref(events);
}

/* The closing table gives the interval after the value's unit, once. */
static void interval_in_the_table(void **state)
{
	struct table_run o;
	struct verdict v;
	char *text;

	(void)state;
	state_interval(&v);
	verdict_emit(&v, table_open(&o, ratio_summary, 2), &ratio_run);
	assert_int_equal(o.t.nsummary, 2);
	text = table_close(&o);
	assert_non_null(strstr(text, "2.17 × (2–2.4)\n"));
	assert_non_null(strstr(text, "1 ×\n"));
	free(text);
}

/* A mark that covers no summary key the run declares is caught, as an
 * undeclared summary key is: it would disown nothing. */
static void mark_keys_are_declared(void **state)
{
	static const char *const good[] = {"slowdown_2_threads",
					   "slowdown_2_threads*", "slowdown_*",
					   "overlap_min", "*"};
	struct sink_json js;
	json_t *events = json_array();

	(void)state;
	sink_json_init(&js, keep_event, events);
	js.sink.declared = experiment_find("false_sharing");
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		sink_qualify(&js.sink, good[i], "disowned", "why");
		assert_string_equal(js.sink.undeclared, "");
	}
	sink_qualify(&js.sink, "slowdwn_2_threads", "disowned", "why");
	assert_string_equal(js.sink.undeclared, "mark key 'slowdwn_2_threads'");
	/* the event still goes out: the run fails, saying why, after it */
	assert_int_equal(json_array_size(events), 6);
	json_decref(events);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(emitted_before_the_headline),
		cmocka_unit_test(folded_and_rebuilt),
		cmocka_unit_test(verdict_json_carries_marks),
		cmocka_unit_test(table_says_it_beside_the_value),
		cmocka_unit_test(mark_keys_are_declared),
		cmocka_unit_test(interval_in_the_json_summary),
		cmocka_unit_test(interval_in_the_table),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
