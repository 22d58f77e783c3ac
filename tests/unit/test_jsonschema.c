/* test_jsonschema.c - the API document's schemas as the server enforces them: each keyword, the paths errors name, and describe_doc on integers past an int */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "describe_doc.h"
#include "jsonschema.h"
#include "params.h"
#include "verdict.h"

static json_t *parse(const char *text)
{
	json_error_t e;
	json_t *v = json_loads(text, 0, &e);

	if (!v)
		fail_msg("bad test JSON: %s", e.text);
	return v;
}

/* Checks text against schema; returns the rc, the field and message in err. */
static int check(const char *schema, const char *text, struct errinfo *err)
{
	json_t *v = parse(text);
	int rc = jsonschema_check(schema, v, err);

	json_decref(v);
	return rc;
}

static void refused(const char *schema, const char *text, const char *field,
		    const char *words)
{
	struct errinfo err;

	assert_int_equal(check(schema, text, &err), -EINVAL);
	assert_string_equal(err.field, field);
	if (!strstr(err.msg, words))
		fail_msg("'%s' does not say '%s'", err.msg, words);
}

static void accepted(const char *schema, const char *text)
{
	struct errinfo err;

	if (check(schema, text, &err))
		fail_msg("refused: %s (field '%s')", err.msg, err.field);
}

/* Every keyword the document uses is one the validator knows. */
static void document_uses_known_keywords(void **state)
{
	struct errinfo err;

	(void)state;
	if (jsonschema_selfcheck(&err))
		fail_msg("%s: %s", err.field, err.msg);
}

static void unknown_schema(void **state)
{
	struct errinfo err;

	(void)state;
	assert_int_equal(check("NoSuchSchema", "{}", &err), -ENOENT);
}

#define CAMPAIGN_HEAD                                                          \
	"{\"id\": \"c1\", \"engine\": \"clush\", \"experiment\": "             \
	"\"false_sharing\", \"params\": {}, \"created_at\": "                  \
	"\"2026-12-03T12:00:00Z\", "

static void campaigns(void **state)
{
	(void)state;
	accepted("Campaign", CAMPAIGN_HEAD
		 "\"nodes\": [{\"node\": \"n1\", \"state\": \"done\","
		 " \"run_id\": 3, \"reason\": null}]}");
	/* type, enum, pattern, required, additionalProperties, format */
	refused("Campaign", "[]", "", "the document must be an object");
	refused("Campaign", CAMPAIGN_HEAD "\"nodes\": [{\"node\": \"n1\"}]}",
		"nodes[0].state", "missing field 'nodes[0].state'");
	refused("Campaign",
		CAMPAIGN_HEAD
		"\"nodes\": [{\"node\": 1, \"state\": \"done\"}]}",
		"nodes[0].node", "'nodes[0].node' must be text");
	refused("Campaign",
		CAMPAIGN_HEAD
		"\"nodes\": [{\"node\": \"n\", \"state\": \"asleep\"}]}",
		"nodes[0].state", "is 'asleep' (allowed: done, failed");
	refused("Campaign", CAMPAIGN_HEAD "\"nodes\": [], \"bogus\": 1}",
		"bogus", "unknown field 'bogus'");
	refused("Campaign",
		"{\"id\": \"a b\", \"engine\": \"clush\", \"experiment\": \"x\","
		" \"params\": {}, \"created_at\": \"2026-12-03T12:00:00Z\","
		" \"nodes\": []}",
		"id", "must match");
	refused("Campaign",
		"{\"id\": \"c\", \"engine\": \"clush\", \"experiment\": \"x\","
		" \"params\": {}, \"created_at\": \"yesterday\", \"nodes\": []}",
		"created_at", "is not a date-time");
	refused("Campaign",
		CAMPAIGN_HEAD "\"nodes\": [{\"node\": \"n\", \"state\": "
			      "\"done\", \"run_id\": 0}]}",
		"nodes[0].run_id", "is 0 (allowed: 1 or more)");
	/* nullable: finished_at may be null, created_at may not */
	accepted("Campaign",
		 CAMPAIGN_HEAD "\"finished_at\": null, \"nodes\": []}");
}

static void date_times(void **state)
{
	static const char *const good[] = {
		"2026-12-03T12:00:00Z", "2026-12-03T12:00:00.123Z",
		"2024-02-29T23:59:60+01:00", "2026-12-03t12:00:00z", NULL};
	static const char *const bad[] = {"x",
					  "2026-12-03",
					  "2026-13-03T12:00:00Z",
					  "2025-02-29T12:00:00Z",
					  "2026-12-03T12:00:00",
					  "2026-12-03T24:00:00Z",
					  "2026-12-03T12:00:00.Z",
					  "2026-12-03T12:00:00+1:00",
					  NULL};
	char text[256];

	(void)state;
	for (int i = 0; good[i]; i++) {
		snprintf(text, sizeof(text),
			 CAMPAIGN_HEAD
			 "\"finished_at\": \"%s\", \"nodes\": []}",
			 good[i]);
		accepted("Campaign", text);
	}
	for (int i = 0; bad[i]; i++) {
		snprintf(text, sizeof(text),
			 CAMPAIGN_HEAD
			 "\"finished_at\": \"%s\", \"nodes\": []}",
			 bad[i]);
		refused("Campaign", text, "finished_at", "is not a date-time");
	}
}

static void bounds(void **state)
{
	json_t *c = parse(CAMPAIGN_HEAD "\"nodes\": []}");
	json_t *nodes = json_object_get(c, "nodes");
	struct errinfo err;

	(void)state;
	for (int i = 0; i < 4096; i++)
		json_array_append_new(nodes, json_pack("{s:s, s:s}", "node",
						       "n", "state", "done"));
	assert_int_equal(jsonschema_check("Campaign", c, &err), 0);
	json_array_append_new(
		nodes, json_pack("{s:s, s:s}", "node", "n", "state", "done"));
	assert_int_equal(jsonschema_check("Campaign", c, &err), -EINVAL);
	assert_string_equal(err.field, "nodes");
	assert_non_null(strstr(err.msg, "4097 items (allowed: at most 4096)"));
	json_decref(c);
	/* maxLength counts characters, not bytes: 255 two-byte ones fit */
	char text[1200] = CAMPAIGN_HEAD "\"nodes\": [{\"state\": \"done\", "
					"\"node\": \"";
	for (int i = 0; i < 255; i++)
		strcat(text, "\xc3\xa9");
	strcat(text, "\"}]}");
	accepted("Campaign", text);
	text[strlen(text) - 4] = '\0';
	strcat(text, "x\"}]}");
	refused("Campaign", text, "nodes[0].node", "longer than 255");
	/* a guess is above 0 and below 1e9, as the server takes them: the
	 * bounds themselves are out (OpenAPI 3.0's exclusive booleans) */
#define CLASS_HEAD                                                             \
	"{\"lesson\": \"l\", \"question\": \"q\", \"unit\": \"x\", "           \
	"\"revealed\": true, \"guesses\": [], \"teacher_guess\": "
	accepted("ClassBlock", CLASS_HEAD "0.5}");
	accepted("ClassBlock", CLASS_HEAD "999999999}");
	refused("ClassBlock", CLASS_HEAD "0}", "teacher_guess",
		"is 0 (allowed: above 0)");
	refused("ClassBlock", CLASS_HEAD "1000000000}", "teacher_guess",
		"(allowed: below 1000000000)");
}

/* oneOf and anyOf: exactly one, at least one of the forms */
static void one_of(void **state)
{
	(void)state;
	accepted("RunRequest", "{\"experiment\": \"x\", \"params\": {\"a\": 1,"
			       " \"b\": \"t\", \"c\": [1, \"2\"]}}");
	refused("RunRequest",
		"{\"experiment\": \"x\", \"params\": {\"a\": 1.5}}", "params.a",
		"none of the forms");
	refused("RunRequest",
		"{\"experiment\": \"x\", \"params\": {\"a\": {}}}", "params.a",
		"none of the forms");
}

/* A run document and the paths into it */
#define RUN_HEAD                                                               \
	"{\"experiment\": \"false_sharing\", \"status\": \"done\", "           \
	"\"params\": {}, \"placement\": [], \"notes\": [], \"cells\": [], "

static void run_documents(void **state)
{
	(void)state;
	accepted("RunDocument",
		 RUN_HEAD "\"machine\": null, \"samples\": [], \"summary\": {},"
			  " \"request\": null, \"progress\": null}");
	refused("RunDocument",
		RUN_HEAD "\"machine\": {}, \"samples\": [{\"chart\": \"c\","
			 " \"series\": \"s\", \"x\": 1, \"y\": 2, \"samples\": "
			 "[1], \"stats\": {\"median\": 1, \"min\": 1, \"max\": "
			 "1, \"mean\": 1, \"stddev\": 0, \"ci_lo\": 1, "
			 "\"ci_hi\": 1, \"n\": 1.5}}]}",
		"samples[0].stats.n", "must be a whole number");
	refused("RunDocument",
		RUN_HEAD "\"machine\": {}, \"samples\": [], \"summary\": null}",
		"summary", "'summary' must be an object");
	refused("RunDocument",
		RUN_HEAD "\"machine\": {}, \"samples\": [], \"progress\": {}}",
		"progress.done", "missing field");
	refused("RunDocument",
		RUN_HEAD "\"machine\": {}, \"samples\": [], \"request\": true}",
		"request", "must be an object or null");
	refused("RunDocument",
		RUN_HEAD "\"machine\": {\"caches\": [{\"level\": 1, \"size\": "
			 "1, \"instances_of_npus\": -2147483649}]}, "
			 "\"samples\": []}",
		"machine.caches[0].instances_of_npus",
		"is -2147483649 (allowed: 1 or more)");
	refused("RunDocument",
		RUN_HEAD "\"machine\": {\"caches\": [{\"level\": 1, \"size\": "
			 "1, \"instances_of_npus\": 2147483648}]}, "
			 "\"samples\": []}",
		"machine.caches[0].instances_of_npus",
		"(allowed: 2147483647 or less)");
	refused("RunDocument", RUN_HEAD "\"samples\": []}", "machine",
		"missing field 'machine'");
}

/*
 * A recorded param's text is as long as any the parser takes (params.h's
 * PARAM_VALUE_LEN, its NUL aside), in a run document and in a campaign:
 * what is recorded can be imported again.
 */
static void params_hold_the_longest_value(void **state)
{
	static const char *const heads[] = {
		RUN_HEAD "\"machine\": null, \"samples\": []}",
		CAMPAIGN_HEAD "\"nodes\": []}"};
	static const char *const schemas[] = {"RunDocument", "Campaign"};
	char value[PARAM_VALUE_LEN + 1];
	struct errinfo err;

	(void)state;
	memset(value, '7', sizeof(value) - 1);
	value[sizeof(value) - 1] = '\0';
	for (int i = 0; i < 2; i++) {
		json_t *doc = parse(heads[i]);
		json_t *params = json_object_get(doc, "params");
		json_object_set_new(params, "stride",
				    json_stringn(value, PARAM_VALUE_LEN - 1));
		if (jsonschema_check(schemas[i], doc, &err))
			fail_msg("%s: %s", schemas[i], err.msg);
		json_object_set_new(params, "stride", json_string(value));
		assert_int_equal(jsonschema_check(schemas[i], doc, &err),
				 -EINVAL);
		assert_string_equal(err.field, "params.stride");
		/* a run's value is a text or a number: the text form's
		 * refusal, which names the limit */
		assert_non_null(strstr(err.msg, "longer than 6143"));
		json_decref(doc);
	}
}

/*
 * The walk follows the schema, not the value: a value nested deeper than
 * its schema is refused where the schema ends, without descending.
 */
static void deep_value_refused_where_schema_ends(void **state)
{
	char text[2 * JSONSCHEMA_MAX_DEPTH + 64] = "";
	struct errinfo err;

	(void)state;
	strcat(text, "{\"experiment\": \"x\", \"params\": {\"a\": ");
	for (int i = 0; i < JSONSCHEMA_MAX_DEPTH; i++)
		strcat(text, "[");
	for (int i = 0; i < JSONSCHEMA_MAX_DEPTH; i++)
		strcat(text, "]");
	strcat(text, "}}");
	assert_int_equal(check("RunRequest", text, &err), -EINVAL);
	assert_string_equal(err.field, "params.a");
}

/* A cache record whose instances_of_npus is past an int reads as unknown. */
static void describe_machine_past_int(void **state)
{
	static const char *const records[] = {
		"{\"pus\": 2147483647, \"caches\": [{\"level\": 3, \"size\": 1,"
		" \"instances_of_npus\": 2147483647}]}",
		"{\"pus\": 4, \"caches\": [{\"level\": 3, \"size\": 1,"
		" \"instances_of_npus\": -2147483649}]}",
		"{\"pus\": 9223372036854775807, \"caches\": [{\"level\": 3,"
		" \"size\": 1, \"instances_of_npus\": 9223372036854775807}]}",
		NULL};
	struct machine_facts m;

	(void)state;
	for (int i = 0; records[i]; i++) {
		json_t *r = parse(records[i]);
		describe_doc_machine(r, &m);
		assert_true(m.llc_instances >= 1);
		assert_int_equal(m.llc_level, 3);
		json_decref(r);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(document_uses_known_keywords),
		cmocka_unit_test(unknown_schema),
		cmocka_unit_test(campaigns),
		cmocka_unit_test(date_times),
		cmocka_unit_test(bounds),
		cmocka_unit_test(one_of),
		cmocka_unit_test(run_documents),
		cmocka_unit_test(params_hold_the_longest_value),
		cmocka_unit_test(deep_value_refused_where_schema_ends),
		cmocka_unit_test(describe_machine_past_int),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
