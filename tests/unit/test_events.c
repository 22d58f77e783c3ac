/* test_events.c - the one table of event types, its constructors, and the
 * two other places that name the types: the page's EVENT_TYPES and
 * docs/events.md */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "events.h"

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long n;

	if (!f)
		fail_msg(
			"cannot read %s (the unit tests run from the top of the tree)",
			path);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = calloc(1, (size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	return buf;
}

/* The line of text that starts with head, up to its end (a new string). */
static char *line_of(const char *text, const char *head)
{
	const char *s = strstr(text, head), *e;

	if (!s)
		return NULL;
	e = strchr(s, '\n');
	return strndup(s, e ? (size_t)(e - s) : strlen(s));
}

/* Whether 'name' stands quoted in line. */
static int quoted_in(const char *line, const char *name)
{
	char q[64];

	snprintf(q, sizeof(q), "'%s'", name);
	return strstr(line, q) != NULL;
}

/* The stream's types: the worker's and the server's (an import's event is
 * read from the run document, not the stream). */
static int streamed(enum event_type t)
{
	return event_kinds[t].origin == EVO_WORKER ||
	       event_kinds[t].origin == EVO_SERVER;
}

static void test_page_listens_to_every_streamed_type(void **state)
{
	char *js = slurp("web/run-view.js");
	char *types = line_of(js, "export const EVENT_TYPES = [");
	char *final = line_of(js, "export const FINAL = [");
	const char *p;

	(void)state;
	assert_non_null(types);
	assert_non_null(final);
	for (int t = EV_UNKNOWN + 1; t < EV_NTYPES; t++) {
		const char *n = event_kinds[t].name;
		int in = quoted_in(event_kinds[t].final ? final : types, n);

		if (streamed((enum event_type)t) && !in)
			fail_msg(
				"event type '%s' (server/rundoc/events.c) is not in web/run-view.js's %s",
				n,
				event_kinds[t].final ? "FINAL" : "EVENT_TYPES");
		if (!streamed((enum event_type)t) &&
		    (quoted_in(types, n) || quoted_in(final, n)))
			fail_msg(
				"web/run-view.js listens for '%s', which no stream sends",
				n);
	}
	/* and the page names no type the table does not know */
	for (p = strchr(types, '['); p && (p = strchr(p, '\'')); p++) {
		const char *e = strchr(p + 1, '\'');
		char *n = strndup(p + 1, (size_t)(e - p - 1));

		if (event_type_of(n) == EV_UNKNOWN)
			fail_msg(
				"web/run-view.js's EVENT_TYPES names '%s', which server/rundoc/events.c does not know",
				n);
		free(n);
		p = (char *)e;
	}
	free(types);
	free(final);
	free(js);
}

static void test_document_names_every_type(void **state)
{
	char *md = slurp("docs/events.md");
	char q[64];

	(void)state;
	for (int t = EV_UNKNOWN + 1; t < EV_NTYPES; t++) {
		snprintf(q, sizeof(q), "`%s`", event_kinds[t].name);
		if (!strstr(md, q))
			fail_msg(
				"docs/events.md does not name event type '%s' (server/rundoc/events.c)",
				event_kinds[t].name);
	}
	free(md);
}

/* Each constructor's event has its type first and folds into a document. */
static void test_constructors_build_each_type(void **state)
{
	static const double v[] = {1.0, 2.0, 3.0};
	const struct point pt = {.chart = "c",
				 .series = "s",
				 .x = 1,
				 .y = 2,
				 .unit = "ns",
				 .samples = v,
				 .nsamples = 3};
	const struct cell cl = {.chart = "h", .row = 0, .col = 1, .value = 2};
	const struct thread_place tp = {.thread = 0, .cpu_requested = 1};
	struct {
		enum event_type t;
		json_t *ev;
	} made[] = {
		{EV_START, event_start("false_sharing", json_object(),
				       json_object(), "0")},
		{EV_PLACEMENT, event_placement("threads=1", &tp, 1)},
		{EV_SAMPLE, event_sample(&pt)},
		{EV_CELL, event_cell(&cl)},
		{EV_PROGRESS, event_progress(1, 2, "x", NULL)},
		{EV_NOTE, event_note("warn", "t")},
		{EV_SUMMARY, event_summary("k", 1.5, "x")},
		{EV_HEADLINE, event_headline("h")},
		{EV_MARK, event_mark("k", "disowned", "why")},
		{EV_END, event_end("failed", "bad", "field")},
		{EV_STATUS, event_status("running")},
	};
	int covered[EV_NTYPES] = {0};
	json_t *doc = events_doc_new();

	(void)state;
	for (size_t i = 0; i < sizeof(made) / sizeof(made[0]); i++) {
		void *it = json_object_iter(made[i].ev);

		assert_non_null(made[i].ev);
		assert_string_equal(json_object_iter_key(it), "type");
		assert_int_equal(event_type_of_event(made[i].ev), made[i].t);
		assert_int_equal(events_fold(doc, made[i].ev, 0), 0);
		covered[made[i].t] = 1;
		json_decref(made[i].ev);
	}
	/* every type a worker or the runner writes, but the final ones
	 * (events_final) and an import's, has its constructor here */
	for (int t = EV_UNKNOWN + 1; t < EV_NTYPES; t++)
		if (streamed((enum event_type)t) && !event_kinds[t].final &&
		    !covered[t])
			fail_msg(
				"event type '%s' has no constructor in events.h",
				event_kinds[t].name);
	assert_int_equal(json_array_size(json_object_get(doc, "samples")), 1);
	json_decref(doc);
}

/* Whether at is inside parentheses of the text from s. */
static int in_parens(const char *s, const char *at)
{
	int depth = 0;

	for (; s < at; s++)
		depth += (*s == '(') - (*s == ')');
	return depth > 0;
}

/*
 * A side stream's one type (the classroom's `class`, a campaign's
 * `campaign`): docs/events.md's row for it names each of the event's
 * fields, and no other, and the run's table does not know the type.
 * Takes ev.
 */
static void feed_documented(const char *type, json_t *ev, int fields)
{
	char *md = slurp("docs/events.md");
	char row_start[64], q[64];
	char *row;
	const char *key;
	json_t *val;
	int named = 0;

	snprintf(row_start, sizeof(row_start), "| `%s` |", type);
	row = line_of(md, row_start);
	if (!row)
		fail_msg("docs/events.md has no row for the `%s` event", type);
	assert_non_null(ev);
	assert_string_equal(json_object_iter_key(json_object_iter(ev)), "type");
	assert_string_equal(json_string_value(json_object_get(ev, "type")),
			    type);
	json_object_foreach (ev, key, val) {
		if (!strcmp(key, "type"))
			continue;
		snprintf(q, sizeof(q), "`%s`", key);
		if (!strstr(row, q))
			fail_msg(
				"docs/events.md's `%s` row does not name its field '%s'",
				type, key);
		named++;
	}
	/* every `name` in the row's fields column is a field the event has
	 * (or, for a campaign, a value or a node's field, in parentheses) */
	for (const char *p = strchr(row + 2, '|'); p && (p = strchr(p, '`'));
	     p++) {
		const char *e = strchr(p + 1, '`');
		char *n = strndup(p + 1, (size_t)(e - p - 1));

		if (!in_parens(row, p) && !json_object_get(ev, n))
			fail_msg(
				"docs/events.md's `%s` row names '%s', which its constructor does not write",
				type, n);
		free(n);
		p = e;
	}
	assert_int_equal(named, fields);
	assert_int_equal(event_type_of(type), EV_UNKNOWN);
	json_decref(ev);
	free(row);
	free(md);
}

static void test_class_feed_documented(void **state)
{
	(void)state;
	json_t *ev = event_class(3, 2, 1, 0);

	assert_true(json_is_null(json_object_get(ev, "run")));
	feed_documented("class", ev, 4);
}

static void test_campaign_feed_documented(void **state)
{
	json_t *summary = json_pack("{s:s, s:s, s:i, s:{s:i}, s:b}", "id", "c1",
				    "state", "running", "total", 2, "counts",
				    "done", 1, "cancel_requested", 0);
	json_t *node = json_pack("{s:s, s:s}", "node", "n1", "state", "done");
	json_t *ev = event_campaign(summary, node);

	(void)state;
	assert_true(json_is_null(json_object_get(ev, "error")));
	assert_true(json_equal(json_object_get(ev, "node"), node));
	json_decref(summary);
	json_decref(node);
	feed_documented("campaign", ev, 8);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_page_listens_to_every_streamed_type),
		cmocka_unit_test(test_document_names_every_type),
		cmocka_unit_test(test_constructors_build_each_type),
		cmocka_unit_test(test_class_feed_documented),
		cmocka_unit_test(test_campaign_feed_documented),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
