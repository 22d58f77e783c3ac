/* test_doctext.c - a run document serialised with its arrays' kept text
 * is, byte for byte, what jansson writes for it */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "doctext.h"
#include "events.h"
#include "http_response.h"
#include "rundoc.h"
#include "runlog.h"

/* Events a worker wrote: the test writes each as jansson does. */
static const char *const worker[] = {
	"{\"type\":\"start\",\"experiment\":\"x\",\"params\":{\"n\":1}}",
	"{\"type\":\"placement\",\"label\":\"a\",\"threads\":[{\"cpu\":0}]}",
	"{\"type\":\"sample\",\"chart\":\"t\",\"x\":1,\"y\":0.1,"
	"\"stats\":{\"median\":6.5999993239529431e-6,\"n\":3}}",
	"{\"type\":\"sample\",\"chart\":\"t\",\"x\":2,\"y\":1e300,"
	"\"s\":\"caf\\u00e9 \\\"q\\\"\"}",
	"{\"type\":\"cell\",\"row\":0,\"col\":1,\"value\":-0.0}",
	"{\"type\":\"note\",\"level\":\"info\",\"text\":\"k\\n\"}",
	"{\"type\":\"mark\",\"name\":\"m\",\"at\":12345678901234}",
	"{\"type\":\"summary\",\"key\":\"s\",\"value\":2.5,\"unit\":\"x\"}",
};

/* rundoc_dumps wrote what jansson writes; frees both. */
static void assert_as_jansson(json_t *doc, struct doctext *t)
{
	size_t na, nb;
	char *a = rundoc_dumps(doc, t, &na), *b = http_json_text(doc, &nb);

	assert_non_null(a);
	assert_non_null(b);
	assert_int_equal(na, nb);
	assert_memory_equal(a, b, na);
	free(a);
	free(b);
	doctext_unref(t);
	json_decref(doc);
}

/*
 * Folds the events (as their line was written: canonical, when
 * rewrite is 0; else each line is jansson's dump of the event with one
 * more space, as another worker might write it), then compares.
 */
static void fold_and_compare(int rewrite)
{
	json_t *doc = events_doc_new();
	struct runlog *log = runlog_new(7);
	struct doctext *t = doctext_new(log);

	for (size_t i = 0; i < sizeof(worker) / sizeof(worker[0]); i++) {
		json_t *ev =
			json_loads(worker[i], JSON_REJECT_DUPLICATES, NULL);
		char *line = json_dumps(ev, rewrite ? 0 : JSON_COMPACT);
		const struct runlog_event *e;

		assert_non_null(ev);
		/* logged as the runner logs it: the line, its seq first */
		e = runlog_append_held(log, ev, line, strlen(line));
		assert_non_null(e);
		assert_int_equal(events_fold(doc, ev, 0), 0);
		doctext_add(t, event_type_of_event(ev), e, !rewrite);
		free(line);
		json_decref(ev);
	}
	runlog_unref(log);
	json_object_set_new(doc, "id", json_integer(7));
	assert_as_jansson(doc, t);
}

/* A document's text of one sample, logged from its line. */
static struct doctext *one_sample(const char *line)
{
	struct runlog *log = runlog_new(7);
	struct doctext *t = doctext_new(log);
	json_t *ev = json_loads(line, 0, NULL);

	doctext_add(t, EV_SAMPLE,
		    runlog_append_held(log, ev, line, strlen(line)), 1);
	json_decref(ev);
	runlog_unref(log);
	return t;
}

static void test_canonical_lines_are_the_text(void **state)
{
	(void)state;
	fold_and_compare(0);
}

static void test_other_lines_are_serialised_again(void **state)
{
	(void)state;
	fold_and_compare(1);
}

/* An array that grew apart from the text is serialised by jansson. */
static void test_an_array_out_of_step(void **state)
{
	json_t *doc = events_doc_new();
	struct doctext *t = one_sample("{\"type\":\"sample\",\"x\":1}");

	(void)state;
	json_array_append_new(json_object_get(doc, "samples"),
			      json_pack("{s:i}", "x", 2));
	json_array_append_new(json_object_get(doc, "samples"),
			      json_pack("{s:i}", "x", 3));
	assert_as_jansson(doc, t);
}

/* The kept text is what goes out, not the items (which it mirrors). */
static void test_the_text_is_written(void **state)
{
	json_t *doc = events_doc_new();
	struct doctext *t = one_sample("{\"type\":\"sample\",\"x\":1}");
	size_t n;
	char *a;

	(void)state;
	json_array_append_new(json_object_get(doc, "samples"),
			      json_pack("{s:i}", "x", 2));
	a = rundoc_dumps(doc, t, &n);
	assert_non_null(strstr(a, "\"samples\":[{\"x\":1}]"));
	assert_int_equal(a[n - 1], '\n');
	free(a);
	doctext_unref(t);
	json_decref(doc);
}

/* A member kept with its dump is written as that dump; another object
 * that holds the same, or the member once replaced, is serialised. */
static void test_a_kept_member_is_written_as_kept(void **state)
{
	json_t *doc = events_doc_new();
	struct doctext *t = one_sample("{\"type\":\"sample\",\"x\":1}");
	json_t *m = json_pack("{s:s}", "hostname", "h");
	size_t n;
	char *a;

	(void)state;
	json_object_set(doc, "machine", m);
	/* a dump that differs from jansson's shows which went out */
	doctext_keep(t, m, "{\"hostname\":\"kept\"}", 20);
	a = rundoc_dumps(doc, t, &n);
	assert_non_null(strstr(a, "\"machine\":{\"hostname\":\"kept\"}"));
	free(a);
	json_object_set_new(doc, "machine",
			    json_pack("{s:s}", "hostname", "h"));
	json_decref(m);
	assert_as_jansson(doc, t);
}

/* More members than it keeps: the rest are serialised, as before. */
static void test_members_past_the_kept_ones(void **state)
{
	json_t *doc = json_object();
	struct doctext *t = doctext_new(NULL);

	(void)state;
	for (int i = 0; i < DOCTEXT_KEPT_MAX + 2; i++) {
		char key[8];
		json_t *v = json_pack("{s:i}", "i", i);
		char *text = json_dumps(v, JSON_COMPACT);

		snprintf(key, sizeof(key), "k%d", i);
		json_object_set_new(doc, key, v);
		doctext_keep(t, v, text, strlen(text));
		free(text);
	}
	assert_as_jansson(doc, t);
}

/*
 * Samples taken as text (placeholders in the document, as the runner
 * takes the worker's sample lines) serialise, and fill in, to the very
 * document folded from their values.
 */
static void test_placeholders_are_the_values(void **state)
{
	json_t *doc = events_doc_new(), *ref = events_doc_new(), *full;
	struct runlog *log = runlog_new(7);
	struct doctext *t = doctext_new(log);
	size_t na, nb;
	char *a, *b;

	(void)state;
	for (size_t i = 0; i < sizeof(worker) / sizeof(worker[0]); i++) {
		json_t *ev =
			json_loads(worker[i], JSON_REJECT_DUPLICATES, NULL);
		char *line = json_dumps(ev, JSON_COMPACT);
		enum event_type type = event_type_of_event(ev);
		const struct runlog_event *e;

		assert_int_equal(events_fold(ref, ev, 0), 0);
		if (type == EV_SAMPLE) {
			e = runlog_append_text_held(log, "sample", line,
						    strlen(line));
			assert_non_null(e);
			assert_int_equal(doctext_try_add(t, type, e, 1), 0);
			assert_int_equal(events_fold_unread(doc, type), 0);
		} else {
			e = runlog_append_held(log, ev, line, strlen(line));
			assert_non_null(e);
			assert_int_equal(events_fold(doc, ev, 0), 0);
			doctext_add(t, type, e, 1);
		}
		free(line);
		json_decref(ev);
	}
	runlog_unref(log);
	assert_true(doctext_has_unread(doc));
	assert_false(doctext_has_unread(ref));
	/* the text serialises the values */
	a = rundoc_dumps(doc, t, &na);
	b = http_json_text(ref, &nb);
	assert_int_equal(na, nb);
	assert_memory_equal(a, b, na);
	free(a);
	free(b);
	/* filled in, a copy: the document keeps its placeholders */
	full = doctext_values(t, doc);
	assert_true(json_equal(full, ref));
	assert_true(doctext_has_unread(doc));
	json_decref(full);
	/* and a document without any is itself */
	full = doctext_values(t, ref);
	assert_ptr_equal(full, ref);
	json_decref(full);
	/* a placeholder whose text is no longer kept is not made up */
	doctext_break(t, EV_SAMPLE);
	assert_null(doctext_values(t, doc));
	doctext_unref(t);
	json_decref(doc);
	json_decref(ref);
}

/* Summary events folded and kept as the runner does; 1 when their text
 * makes the summary, which is then jansson's dump of it byte for byte. */
static int summary_of(const char *const *lines, size_t n, int canonical)
{
	json_t *doc = events_doc_new();
	struct runlog *log = runlog_new(7);
	struct doctext *t = doctext_new(log);
	struct strbuf sb = STRBUF_INIT;
	int made;

	for (size_t i = 0; i < n; i++) {
		json_t *ev = json_loads(lines[i], 0, NULL);
		/* the line as the worker writes it: jansson's compact dump */
		char *line = json_dumps(ev, canonical ? JSON_COMPACT : 0);
		const struct runlog_event *e =
			runlog_append_held(log, ev, line, strlen(line));

		assert_non_null(e);
		assert_int_equal(events_fold(doc, ev, 0), 0);
		doctext_add(t, EV_SUMMARY, e, canonical);
		free(line);
		json_decref(ev);
	}
	strbuf_init(&sb);
	made = doctext_write_summary(t, json_object_get(doc, "summary"), &sb);
	if (made) {
		char *want = json_dumps(json_object_get(doc, "summary"),
					JSON_COMPACT);
		assert_string_equal(sb.buf, want);
		free(want);
	}
	strbuf_release(&sb);
	runlog_unref(log);
	doctext_unref(t);
	json_decref(doc);
	return made;
}

static void test_the_summary_from_its_events(void **state)
{
	static const char *const plain[] = {
		"{\"type\":\"summary\",\"key\":\"a\",\"value\":0."
		"90190111075416823,\"unit\":\"x\"}",
		"{\"type\":\"summary\",\"key\":\"caf\u00e9\",\"value\":100.0,"
		"\"unit\":null}",
		"{\"type\":\"summary\",\"key\":\"b\",\"value\":-2,\"unit\":"
		"\"%\",\"lo\":-2.5,\"hi\":1e-7}",
	};
	/* a key sent twice, lo without hi, no unit, another member, an
	 * escaped key: each left to jansson */
	static const char *const twice[] = {plain[0], plain[2], plain[0]};
	static const char *const lo_only[] = {
		"{\"type\":\"summary\",\"key\":\"a\",\"value\":1,\"unit\":"
		"\"x\",\"lo\":0.5}"};
	static const char *const no_unit[] = {
		"{\"type\":\"summary\",\"key\":\"a\",\"value\":1}"};
	static const char *const more[] = {
		"{\"type\":\"summary\",\"key\":\"a\",\"value\":1,\"unit\":"
		"\"x\",\"why\":\"y\"}"};
	static const char *const escaped[] = {
		"{\"type\":\"summary\",\"key\":\"a\\\"b\",\"value\":1,"
		"\"unit\":\"x\"}"};

	(void)state;
	assert_int_equal(summary_of(plain, 3, 1), 1);
	assert_int_equal(summary_of(plain, 3, 0), 0);
	assert_int_equal(summary_of(twice, 3, 1), 0);
	assert_int_equal(summary_of(lo_only, 1, 1), 0);
	assert_int_equal(summary_of(no_unit, 1, 1), 0);
	assert_int_equal(summary_of(more, 1, 1), 0);
	assert_int_equal(summary_of(escaped, 1, 1), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_canonical_lines_are_the_text),
		cmocka_unit_test(test_other_lines_are_serialised_again),
		cmocka_unit_test(test_an_array_out_of_step),
		cmocka_unit_test(test_the_text_is_written),
		cmocka_unit_test(test_a_kept_member_is_written_as_kept),
		cmocka_unit_test(test_members_past_the_kept_ones),
		cmocka_unit_test(test_placeholders_are_the_values),
		cmocka_unit_test(test_the_summary_from_its_events),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
