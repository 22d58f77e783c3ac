/* test_edge_limits.c - JSON parsed within bounds, UTF-8 checks and the key a client is counted under */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <cmocka.h>

#include "jsonfast.h"
#include "jsonlimit.h"
#include "trust.h"
#include "utf8.h"

/* depth arrays nested, optionally inside {"key": ...} */
static char *nested(unsigned int depth, const char *key)
{
	size_t n = 2 * depth + (key ? strlen(key) + 8 : 0) + 1;
	char *s = malloc(n), *p = s;

	assert_non_null(s);
	if (key)
		p += sprintf(p, "{\"%s\":", key);
	memset(p, '[', depth);
	memset(p + depth, ']', depth);
	p += 2 * depth;
	if (key)
		*p++ = '}';
	*p = '\0';
	return s;
}

static void test_depth(void **state)
{
	json_error_t err;
	char field[64];
	char *ok = nested(32, NULL), *deep = nested(33, NULL);
	char *keyed = nested(1700, "request");
	json_t *doc;

	(void)state;
	doc = jsonlimit_load(ok, strlen(ok), 0, NULL, &err, field, 64);
	assert_non_null(doc);
	json_decref(doc);
	assert_null(jsonlimit_load(deep, strlen(deep), 0, NULL, &err, field,
				   sizeof(field)));
	assert_true(jsonlimit_passed(&err));
	assert_string_equal(
		err.text,
		"JSON nested deeper than 32 levels (allowed: at most 32)");
	assert_string_equal(field, "");
	assert_null(jsonlimit_load(keyed, strlen(keyed), 0, NULL, &err, field,
				   sizeof(field)));
	assert_string_equal(field, "request");
	/* the server's own records may nest deeper */
	{
		struct jsonlimit stored = {.depth = JSONLIMIT_DEPTH_STORED};
		doc = jsonlimit_load(deep, strlen(deep), 0, &stored, &err, NULL,
				     0);
		assert_non_null(doc);
		json_decref(doc);
	}
	free(ok);
	free(deep);
	free(keyed);
}

static void test_strings_are_not_structure(void **state)
{
	/* brackets, quotes and backslashes inside strings count for nothing */
	static const char text[] =
		"{\"a\\\"[[[\": \"[[[[{{{{\\\\\", \"b\": [\"]]]]\", {\"c\": 1}]}";
	struct jsonlimit lim = {.depth = 3};
	json_error_t err;
	json_t *doc;

	(void)state;
	doc = jsonlimit_load(text, strlen(text), 0, &lim, &err, NULL, 0);
	assert_non_null(doc);
	json_decref(doc);
	lim.depth = 2;
	assert_null(jsonlimit_load(text, strlen(text), 0, &lim, &err, NULL, 0));
	assert_true(jsonlimit_passed(&err));
}

static void test_values(void **state)
{
	static const char text[] = "{\"a\": [1, 2, {\"b\": \"x\"}], \"c\": []}";
	/* the object, a, 1, 2, the inner object, b, c: 7 */
	struct jsonlimit lim = {.values = 7};
	json_error_t err;
	char field[64];
	json_t *doc;

	(void)state;
	doc = jsonlimit_load(text, strlen(text), 0, &lim, &err, NULL, 0);
	assert_non_null(doc);
	json_decref(doc);
	lim.values = 6;
	assert_null(jsonlimit_load(text, strlen(text), 0, &lim, &err, field,
				   sizeof(field)));
	assert_string_equal(
		err.text, "JSON holds more than 6 values (allowed: at most 6)");
	assert_string_equal(field, "c");
}

static void test_jansson_still_judges(void **state)
{
	static const char dup[] = "{\"a\": 1, \"a\": 2}";
	static const char bad[] = "{\"a\": [1, 2}";
	json_error_t err;

	(void)state;
	assert_null(jsonlimit_load(dup, strlen(dup), 0, NULL, &err, NULL, 0));
	assert_false(jsonlimit_passed(&err));
	assert_null(jsonlimit_load(bad, strlen(bad), 0, NULL, &err, NULL, 0));
	assert_false(jsonlimit_passed(&err));
	assert_null(jsonlimit_load(NULL, 0, 0, NULL, &err, NULL, 0));
	assert_null(jsonlimit_loads(NULL, 0, NULL, &err));
}

static void test_utf8(void **state)
{
	char *e;

	(void)state;
	assert_int_equal(utf8_valid_len("abc", 3), 3);
	assert_int_equal(utf8_valid_len("h\xc3\xa9", 3), 3);
	assert_int_equal(utf8_valid_len("\xf0\x9f\x98\x80", 4), 4);
	assert_int_equal(utf8_valid_len("a\xff", 2), 1);
	assert_int_equal(utf8_valid_len("\xc0\xaf", 2), 0);	/* overlong */
	assert_int_equal(utf8_valid_len("\xed\xa0\x80", 3), 0); /* surrogate */
	assert_int_equal(utf8_valid_len("\xf4\x90\x80\x80", 4),
			 0);				/* too high */
	assert_int_equal(utf8_valid_len("\xc3", 1), 0); /* cut short */
	e = utf8_escape("a\xffh\xc3\xa9\xc3");
	assert_string_equal(e, "a\\xffh\xc3\xa9\\xc3");
	free(e);
}

static void key_of(const char *addr, unsigned char key[16])
{
	struct sockaddr_in in4 = {.sin_family = AF_INET};
	struct sockaddr_in6 in6 = {.sin6_family = AF_INET6};

	if (inet_pton(AF_INET, addr, &in4.sin_addr) == 1) {
		trust_client_key((const struct sockaddr *)&in4, key);
		return;
	}
	assert_int_equal(inet_pton(AF_INET6, addr, &in6.sin6_addr), 1);
	trust_client_key((const struct sockaddr *)&in6, key);
}

static void test_client_key(void **state)
{
	unsigned char a[16], b[16];

	(void)state;
	/* IPv6: one /64 is one client */
	key_of("2001:db8:1:2::1", a);
	key_of("2001:db8:1:2:ffff:1234:5678:9abc", b);
	assert_memory_equal(a, b, 16);
	key_of("2001:db8:1:3::1", b);
	assert_memory_not_equal(a, b, 16);
	/* IPv4: each address is one, whether it comes as IPv4 or mapped */
	key_of("192.0.2.1", a);
	key_of("::ffff:192.0.2.1", b);
	assert_memory_equal(a, b, 16);
	key_of("192.0.2.2", b);
	assert_memory_not_equal(a, b, 16);
	trust_client_key(NULL, a);
	memset(b, 0, 16);
	assert_memory_equal(a, b, 16);
}

/* The fast path builds what jansson builds (same values, same member
 * order), and leaves to jansson everything it does not take. */
static void test_fast_path_matches_jansson(void **state)
{
	static const char *const same[] = {
		"{\"type\":\"sample\",\"chart\":\"time\",\"x\":1.0,\"y\":2.5139997887890786e-6,"
		"\"samples\":[2.5e-6,3E+2,-0.5],\"stats\":{\"n\":1,\"stddev\":0.0},"
		"\"extra\":{\"ok\":true,\"no\":false,\"none\":null,\"big\":9223372036854775807}}",
		" [ 1 , -2 , {\"a\" : [ ] } , { } , \"\" ] \r\n",
		"{\"z\":1,\"a\":2,\"m\":{\"b\":[0,-0,1e-300]}}",
		/* a real repeated (one value, held twice) */
		"{\"y\":9.7439988167025149e-6,\"s\":[9.7439988167025149e-6,1.0],"
		"\"m\":{\"a\":9.7439988167025149e-6,\"b\":1.0,\"c\":-0.0,\"d\":-0.0}}",
	};
	static const char *const refused[] = {
		"{\"a\":\"caf\xc3\xa9\"}",
		"{\"a\":\"x\\ny\"}",
		"{\"a\":1,\"a\":2}",
		"{\"a\":01}",
		"{\"a\":1.}",
		"{\"a\":.5}",
		"{\"a\":1e}",
		"{\"a\":99999999999999999999}",
		"{\"a\":1e999}",
		"{\"a\":tru}",
		"{\"a\":1,}",
		"[1,]",
		"{\"a\":1} x",
		"\"top\"",
		"",
		"{\"a\":1",
	};
	int seq;

	(void)state;
	for (size_t i = 0; i < sizeof(same) / sizeof(same[0]); i++) {
		json_error_t err;
		json_t *fast =
			jsonfast_load_within(same[i], strlen(same[i]),
					     JSONLIMIT_DEPTH, JSONLIMIT_VALUES);
		json_t *ref = json_loadb(same[i], strlen(same[i]),
					 JSON_REJECT_DUPLICATES, &err);
		char *a, *b;

		assert_non_null(fast);
		assert_non_null(ref);
		/* a check passes what it parses into an object */
		assert_int_equal(jsonfast_check_within(same[i], strlen(same[i]),
						       JSONLIMIT_DEPTH,
						       JSONLIMIT_VALUES, &seq),
				 json_is_object(fast));
		assert_false(seq);
		a = json_dumps(fast, JSON_COMPACT | JSON_ENCODE_ANY);
		b = json_dumps(ref, JSON_COMPACT | JSON_ENCODE_ANY);
		assert_string_equal(a, b);
		assert_true(json_equal(fast, ref));
		free(a);
		free(b);
		json_decref(fast);
		json_decref(ref);
	}
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		json_error_t e1, e2;
		size_t n = strlen(refused[i]);
		json_t *via =
			jsonlimit_load(refused[i], n, 0, NULL, &e1, NULL, 0);
		json_t *ref =
			json_loadb(refused[i], n, JSON_REJECT_DUPLICATES, &e2);

		assert_null(jsonfast_load_within(refused[i], n, JSONLIMIT_DEPTH,
						 JSONLIMIT_VALUES));
		/* nor does a check pass it */
		assert_int_equal(jsonfast_check_within(refused[i], n,
						       JSONLIMIT_DEPTH,
						       JSONLIMIT_VALUES, &seq),
				 0);
		/* jansson judges it, as before */
		assert_int_equal(via != NULL, ref != NULL);
		if (!ref)
			assert_string_equal(e1.text, e2.text);
		else
			assert_true(json_equal(via, ref));
		json_decref(via);
		json_decref(ref);
	}
}

/* A check walks without making anything: it says whether the top object
 * names "seq", keeps to its bounds, and leaves a wide object to a parse. */
static void test_check_without_values(void **state)
{
	static const char seq_top[] = "{\"type\":\"sample\",\"seq\":4}";
	static const char seq_inner[] =
		"{\"type\":\"sample\",\"m\":{\"seq\":4}}";
	char wide[33 * 12 + 8], *p = wide;
	int seq;

	(void)state;
	assert_int_equal(
		jsonfast_check_within(seq_top, strlen(seq_top), 32, 1000, &seq),
		1);
	assert_true(seq);
	assert_int_equal(jsonfast_check_within(seq_inner, strlen(seq_inner), 32,
					       1000, &seq),
			 1);
	assert_false(seq);
	/* past the depth or the values the caller allows: refused */
	assert_int_equal(jsonfast_check_within(seq_inner, strlen(seq_inner), 1,
					       1000, &seq),
			 0);
	assert_int_equal(jsonfast_check_within(seq_inner, strlen(seq_inner), 32,
					       3, &seq),
			 0);
	/* 33 members: parsed, not checked */
	*p++ = '{';
	for (int i = 0; i < 33; i++)
		p += sprintf(p, "%s\"k%02d\":%d", i ? "," : "", i, i);
	*p++ = '}';
	*p = '\0';
	assert_int_equal(
		jsonfast_check_within(wide, strlen(wide), 32, 1000, &seq), 0);
	json_t *v = jsonfast_load_within(wide, strlen(wide), 32, 1000);
	assert_int_equal(json_object_size(v), 33);
	json_decref(v);
}

/* Numbers read without strtod (exact ones, and a real met before in the
 * same text) are the doubles and integers jansson reads. */
static void test_fast_numbers_match_jansson(void **state)
{
	static const char *const nums[] = {
		"0",
		"-0",
		"0.0",
		"-0.0",
		"0e5",
		"1",
		"-7",
		"42.5",
		"1.50",
		"100.0",
		"0.000123",
		"1e22",
		"1e23",
		"-1e-22",
		"1e-23",
		"9007199254740992.0",
		"9007199254740993.0",
		"0.1",
		"0.3",
		"123456789012345678",
		"-123456789012345678",
		"1234567890123456789",
		"-9223372036854775808",
		"9.7439988167025149e-6",
		"9.7439988167025149e-6",
		"100.51314025858625",
		"2.2250738585072011e-308",
		"4.9e-324",
		"1.7976931348623157e308",
		"1E+2",
		"5e-0001",
		"1e00001",
		"3e0000000000000000001",
		"0.1e-22",
		"0.000000000000000000000000123",
		"100000000000000000000000e-10",
		"12345678901234567890123",
		"1.0000000000000000000001",
		"1e999",
		"-1e309",
		"1e-400",
		"123e306",
	};
	int taken = 0, seq;

	(void)state;
	for (size_t i = 0; i < sizeof(nums) / sizeof(nums[0]); i++) {
		char text[64];
		int n = snprintf(text, sizeof(text), "[%s]", nums[i]);
		json_error_t err;
		json_t *fast = jsonfast_load_within(
			text, (size_t)n, JSONLIMIT_DEPTH, JSONLIMIT_VALUES);
		json_t *ref = json_loadb(text, (size_t)n,
					 JSON_REJECT_DUPLICATES, &err);
		json_t *a = json_array_get(fast, 0),
		       *b = json_array_get(ref, 0);
		double x = json_number_value(a), y = json_number_value(b);

		/* what it leaves (out of range, subnormal) jansson judges */
		if (fast) {
			taken++;
			assert_non_null(ref);
			assert_int_equal(json_typeof(a), json_typeof(b));
			assert_int_equal(json_integer_value(a),
					 json_integer_value(b));
			/* bit for bit: -0.0 is not 0.0 */
			assert_memory_equal(&x, &y, sizeof(x));
		}
		/* a check passes a number in a double's range whatever its
		 * digits, and no number jansson refuses */
		n = snprintf(text, sizeof(text), "{\"a\":%s}", nums[i]);
		int checked =
			jsonfast_check_within(text, (size_t)n, JSONLIMIT_DEPTH,
					      JSONLIMIT_VALUES, &seq);
		if (fast)
			assert_true(checked);
		if (!ref)
			assert_false(checked);
		/* a number read alone rounds as jansson rounds it */
		double alone;
		if (!json_is_real(b))
			; /* an integer's text, or one jansson refuses */
		else if (!jsonfast_real(nums[i], strlen(nums[i]), &alone))
			assert_memory_equal(&alone, &y, sizeof(alone));
		else /* left alone: only where strtod says out of range */
			assert_true(y == 0 || fabs(y) < 2.3e-308);
		json_decref(fast);
		json_decref(ref);
	}
	assert_true(taken >= 30);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_depth),
		cmocka_unit_test(test_fast_path_matches_jansson),
		cmocka_unit_test(test_fast_numbers_match_jansson),
		cmocka_unit_test(test_check_without_values),
		cmocka_unit_test(test_strings_are_not_structure),
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_jansson_still_judges),
		cmocka_unit_test(test_utf8),
		cmocka_unit_test(test_client_key),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
