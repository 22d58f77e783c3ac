/* test_csv.c - one CSV field: formula text neutralised, numbers kept, on the cases web/csv.js passes too */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "csv.h"
#include "export_csv.h"

#define CASES "tests/data/csv_cases.json"

static void test_the_shared_cases(void **state)
{
	json_error_t e;
	json_t *doc = json_load_file(CASES, 0, &e), *c;
	size_t i;
	(void)state;

	if (!doc)
		fail_msg("cannot read %s: %s", CASES, e.text);
	assert_true(json_array_size(json_object_get(doc, "cases")) > 20);
	json_array_foreach (json_object_get(doc, "cases"), i, c) {
		struct strbuf sb = STRBUF_INIT;
		const char *in = json_string_value(json_array_get(c, 0));
		const char *want = json_string_value(json_array_get(c, 1));
		csv_field(&sb, in);
		if (strcmp(strbuf_str(&sb), want))
			fail_msg("case %zu: '%s' gave '%s', not '%s'", i, in,
				 strbuf_str(&sb), want);
		strbuf_release(&sb);
	}
	json_decref(doc);
}

static void test_null_is_empty(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	(void)state;
	csv_field(&sb, NULL);
	assert_string_equal(strbuf_str(&sb), "");
	strbuf_release(&sb);
}

/* the run export goes through the same field: a series named as a formula */
static void test_export_uses_it(void **state)
{
	json_t *doc = json_pack("{s:[{s:s, s:s, s:f, s:[f]}]}", "samples",
				"chart", "=HYPERLINK(\"x\")", "series", "@evil",
				"x", -1.5, "samples", -2.0);
	size_t len;
	char *csv = export_csv(doc, 7, &len);
	(void)state;
	assert_non_null(csv);
	assert_non_null(
		strstr(csv, "\"'=HYPERLINK(\"\"x\"\")\",\"'@evil\",-1.5,"));
	/* series_label is the series (no experiment to name it in words),
	 * neutralised too; the value as shown follows, in the same unit */
	assert_non_null(strstr(csv, ",-2,\"'@evil\",,-2,,,\r\n"));
	free(csv);
	json_decref(doc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_the_shared_cases),
		cmocka_unit_test(test_null_is_empty),
		cmocka_unit_test(test_export_uses_it),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
