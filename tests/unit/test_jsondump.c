/* test_jsondump.c - jsondump writes, byte for byte, what jansson's compact
 * dump writes: for hand-picked values and for many random trees */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "jsondump.h"

#define FLAGS (JSON_COMPACT | JSON_ENCODE_ANY)

/* jsondump and jsondump_text wrote what json_dumps writes; takes v. */
static void assert_as_jansson(json_t *v)
{
	char *want = json_dumps(v, FLAGS), *got;
	struct strbuf sb = STRBUF_INIT;
	size_t n = 0;

	assert_non_null(want);
	strbuf_init(&sb);
	assert_int_equal(jsondump(v, &sb), 0);
	if (strcmp(sb.buf, want))
		fail_msg("jsondump wrote %s\njansson writes %s", sb.buf, want);
	got = jsondump_text(v, &n);
	assert_non_null(got);
	assert_int_equal(n, strlen(want));
	assert_string_equal(got, want);
	free(got);
	free(want);
	strbuf_release(&sb);
	json_decref(v);
}

static void test_numbers(void **state)
{
	static const double reals[] = {0.0,
				       -0.0,
				       1.0,
				       -1.0,
				       100.0,
				       0.1,
				       1e300,
				       -1e300,
				       1e-300,
				       5e-324,
				       1.7976931348623157e308,
				       1e21,
				       1e22,
				       123456789012345678.0,
				       1e-7,
				       6.5999993239529431e-6,
				       2.5,
				       0.90190111075416823,
				       1e17,
				       1e16,
				       3.0e-5,
				       12345.678};
	static const long long ints[] = {
		0, 1, -1, 9, 10, -10, INT64_MAX, INT64_MIN, 1234567890123};

	(void)state;
	for (size_t i = 0; i < sizeof(reals) / sizeof(reals[0]); i++)
		assert_as_jansson(json_real(reals[i]));
	for (size_t i = 0; i < sizeof(ints) / sizeof(ints[0]); i++)
		assert_as_jansson(json_integer(ints[i]));
	assert_as_jansson(json_true());
	assert_as_jansson(json_false());
	assert_as_jansson(json_null());
}

static void test_strings(void **state)
{
	static const char *const texts[] = {
		"",
		"plain",
		"q\"uote\\back/slash",
		"\b\f\n\r\t",
		"\x01\x1f\x7f",
		"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80",
		"\xef\xbf\xbf\xf4\x8f\xbf\xbf",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++)
		assert_as_jansson(json_string(texts[i]));
	/* a NUL inside, and in a key */
	assert_as_jansson(json_stringn("a\0b", 3));
	json_t *o = json_object();
	json_object_setn_new(o, "k\0y", 3, json_integer(1));
	json_object_set_new(o, "\n", json_string("\x02"));
	assert_as_jansson(o);
}

/* A string jansson's dump refuses (not UTF-8): refused too. */
static void test_not_utf8(void **state)
{
	static const char *const bad[] = {"\xc0\x80", "\xed\xa0\x80",
					  "\xf5",     "\xe2\x82",
					  "\x80",     "\xf4\x90\x80\x80"};
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	strbuf_init(&sb);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		json_t *s = json_string_nocheck(bad[i]);
		json_t *a = json_pack("[o]", json_incref(s));
		char *j = json_dumps(a, FLAGS);

		assert_null(j);
		assert_int_equal(jsondump(a, &sb), -1);
		assert_null(jsondump_text(a, NULL));
		json_decref(a);
		json_decref(s);
		strbuf_reset(&sb);
	}
	strbuf_release(&sb);
}

static void test_containers(void **state)
{
	(void)state;
	assert_as_jansson(json_object());
	assert_as_jansson(json_array());
	assert_as_jansson(
		json_pack("{s:[], s:{}, s:[{}, [], n]}", "a", "b", "c"));
	assert_as_jansson(json_loads(
		"{\"z\":1,\"a\":[1,2.5,\"x\",{\"n\":null,\"t\":true}],"
		"\"m\":{\"b\":false,\"a\":-0.0}}",
		0, NULL));
}

/* A tree deeper than jsondump goes: written by jansson, as it is. */
static void test_deep(void **state)
{
	json_t *v = json_integer(1);

	(void)state;
	for (int i = 0; i < JSONDUMP_MAX_DEPTH + 10; i++)
		v = json_pack("[o]", v);
	char *want = json_dumps(v, FLAGS), *got = jsondump_text(v, NULL);
	assert_non_null(got);
	assert_string_equal(got, want);
	free(got);
	free(want);
	json_decref(v);
}

static uint64_t rng = 88172645463325252ull;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* A random string of ASCII, controls and a few UTF-8 sequences. */
static json_t *random_string(void)
{
	static const char *const parts[] = {"a",
					    "Z",
					    " ",
					    "\"",
					    "\\",
					    "/",
					    "\n",
					    "\t",
					    "\x01",
					    "\x1b",
					    "\x7f",
					    "\xc3\xa9",
					    "\xe2\x82\xac",
					    "\xf0\x9f\x98\x80",
					    "0"};
	char buf[128] = "";
	int n = (int)(next() % 12);

	for (int i = 0; i < n; i++)
		strcat(buf, parts[next() % (sizeof(parts) / sizeof(parts[0]))]);
	return json_string(buf);
}

static json_t *random_real(void)
{
	double d;
	uint64_t bits;

	switch (next() % 4) {
	case 0: /* any finite bit pattern */
		do {
			bits = next();
			memcpy(&d, &bits, sizeof(d));
		} while (d != d || d - d != 0);
		return json_real(d);
	case 1:
		return json_real((double)(int64_t)(next() % 2000000) / 8.0 -
				 1000.0);
	case 2:
		return json_real((double)next() / 1e9);
	default:
		return json_real(1.0 / (double)(next() % 1000 + 1));
	}
}

static json_t *random_tree(int depth)
{
	json_t *v;
	int n;

	switch (next() % (depth < 5 ? 8 : 6)) {
	case 0:
		return json_integer((json_int_t)next());
	case 1:
		return random_real();
	case 2:
		return random_string();
	case 3:
		return next() % 2 ? json_true() : json_null();
	case 4:
		return json_integer((json_int_t)(next() % 1000) - 500);
	case 5:
		return json_false();
	case 6:
		v = json_array();
		n = (int)(next() % 5);
		for (int i = 0; i < n; i++)
			json_array_append_new(v, random_tree(depth + 1));
		return v;
	default:
		v = json_object();
		n = (int)(next() % 5);
		for (int i = 0; i < n; i++) {
			json_t *k = random_string();
			json_object_set_new(v, json_string_value(k),
					    random_tree(depth + 1));
			json_decref(k);
		}
		return v;
	}
}

static void test_random_trees(void **state)
{
	(void)state;
	for (int i = 0; i < 20000; i++)
		assert_as_jansson(random_tree(0));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_numbers),
		cmocka_unit_test(test_strings),
		cmocka_unit_test(test_not_utf8),
		cmocka_unit_test(test_containers),
		cmocka_unit_test(test_deep),
		cmocka_unit_test(test_random_trees),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
