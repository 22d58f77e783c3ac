/* test_numtext.c - a list of ints back to its shortest text: ranges joined,
 * the digits as printf's %d writes them, a buffer too short refused; a
 * param's list with its steps, read back the same; and a list's text read
 * with no overflow, whatever its numbers */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "numtext.h"

static void assert_formats(const int32_t *v, int n, const char *want)
{
	char buf[256];

	assert_int_equal(format_int_list(v, n, buf, sizeof(buf)), 0);
	assert_string_equal(buf, want);
}

static void test_ranges_and_singles(void **state)
{
	static const int32_t a[] = {0, 1, 2, 3, 8}, b[] = {4, 8, 12},
			     c[] = {-3, -2, 5, 6, 2147483647}, d[] = {7, 7, 8};

	(void)state;
	assert_formats(a, 5, "0-3,8");
	assert_formats(b, 3, "4,8,12");
	assert_formats(c, 5, "-3--2,5-6,2147483647");
	assert_formats(d, 3, "7,7-8");
	assert_formats(a, 0, "");
	assert_formats(a + 4, 1, "8");
}

/* every list of a sweep's size is what printf made of it */
static void test_as_printf_wrote_it(void **state)
{
	int32_t v[200];
	char want[2048] = "", got[2048];
	size_t at = 0;

	(void)state;
	for (int i = 0; i < 200; i++)
		v[i] = 4 * i - 100 + (i % 7 == 0);
	for (int i = 0; i < 200; i++) {
		int j = i;
		while (j + 1 < 200 && v[j + 1] == v[j] + 1)
			j++;
		at += (size_t)(j > i ? snprintf(want + at, sizeof(want) - at,
						"%s%d-%d", at ? "," : "", v[i],
						v[j])
				     : snprintf(want + at, sizeof(want) - at,
						"%s%d", at ? "," : "", v[i]));
		i = j;
	}
	assert_int_equal(format_int_list(v, 200, got, sizeof(got)), 0);
	assert_string_equal(got, want);
	/* one byte short of the text and its NUL */
	assert_int_equal(format_int_list(v, 200, got, strlen(want)), -ENOSPC);
}

static void assert_refused(const char *text, int64_t max, const char *want)
{
	int32_t v[64];
	struct errinfo err;

	assert_int_equal(parse_int_list(text, 1, max, v, 64, &err), -EINVAL);
	assert_string_equal(err.msg, want);
}

/* a step past what is left of the range ends it: v += step never wraps to
 * a negative element (1-2:INT64_MAX once planned threads -1 and 0) */
static void test_huge_steps_end_the_range(void **state)
{
	int32_t v[64];
	struct errinfo err;

	(void)state;
	assert_int_equal(
		parse_int_list("1-2:9223372036854775807", 1, 1024, v, 64, &err),
		1);
	assert_int_equal(v[0], 1);
	assert_int_equal(
		parse_int_list("1-9:9223372036854775806", 1, 1024, v, 64, &err),
		1);
	assert_int_equal(parse_int_list("3-1024:1020,5", 1, 1024, v, 64, &err),
			 3);
	assert_int_equal(v[0], 3);
	assert_int_equal(v[1], 5);
	assert_int_equal(v[2], 1023);
	/* the last element of a range on INT64_MAX itself */
	assert_int_equal(
		parse_int_list("9223372036854775806-9223372036854775807:"
			       "9223372036854775807",
			       0, INT64_MAX, v, 64, &err),
		1);
}

/* a number too long for int64_t is out of range, said with its digits and
 * what is allowed, never "not a list of integers" */
static void test_numbers_past_int64_out_of_range(void **state)
{
	(void)state;
	assert_refused("99999999999999999999", 1024,
		       "99999999999999999999 is out of range (allowed 1-1024)");
	assert_refused("2,1-99999999999999999999", 1024,
		       "99999999999999999999 is out of range (allowed 1-1024)");
	assert_refused("1-2:99999999999999999999", 1024,
		       "step 99999999999999999999 is out of range "
		       "(allowed 1-9223372036854775807)");
	assert_refused("9223372036854775807", 1024,
		       "9223372036854775807 is out of range (allowed 1-1024)");
	assert_refused("1-2:0", 1024, "bad step in '1-2:0'");
	assert_refused("x", 1024, "'x' is not a list of integers");
}

/* a cpu list keeps its order (thread i takes its i-th cpu), a sweep is
 * sorted, and neither takes a value twice */
static void test_a_cpu_list_keeps_its_order(void **state)
{
	int32_t v[16];
	struct errinfo err;
	char buf[64];

	(void)state;
	assert_int_equal(parse_int_list_ordered("3,1-2,0", 0, 63, v, 16, &err),
			 4);
	assert_int_equal(v[0], 3);
	assert_int_equal(v[1], 1);
	assert_int_equal(v[3], 0);
	assert_int_equal(format_int_list(v, 4, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "3,1-2,0");
	assert_int_equal(parse_int_list("3,1-2,0", 0, 63, v, 16, &err), 4);
	assert_int_equal(v[0], 0);
	assert_int_equal(v[3], 3);
	assert_int_equal(parse_int_list_ordered("2,0-3", 0, 63, v, 16, &err),
			 -EINVAL);
	assert_non_null(strstr(err.msg, "2 is listed twice"));
	assert_int_equal(parse_int_list_ordered("1,x", 0, 63, v, 16, &err),
			 -EINVAL);
}

static void assert_steps(const int32_t *v, int n, const char *want)
{
	char buf[256];

	assert_int_equal(format_int_list_steps(v, n, buf, sizeof(buf)), 0);
	assert_string_equal(buf, want);
}

/* a sweep with a step is recorded as written: 4 values one step apart or
 * more make a-b:step, fewer are written out (never longer than they are) */
static void test_steps_as_a_sweep_is_written(void **state)
{
	static const int32_t three[] = {4, 8, 12}, four[] = {4, 8, 12, 16},
			     mixed[] = {0, 1, 3, 5, 7, 9, 20},
			     given[] = {1, 2, 3, 8, 16, 18, 20},
			     ordered[] = {9, 5, 1, 2, 3, 4, 6, 8, 10, 12};
	int32_t all[1024];

	(void)state;
	assert_steps(three, 3, "4,8,12");
	assert_steps(four, 4, "4-16:4");
	assert_steps(mixed, 7, "0-1,3-9:2,20");
	assert_steps(given, 7, "1-3,8,16,18,20");
	/* a cpu list keeps its order: only rising runs are joined */
	assert_steps(ordered, 10, "9,5,1-4,6-12:2");
	for (int i = 0; i < 1024; i++)
		all[i] = 4 + 4 * i;
	assert_steps(all, 1024, "4-4096:4");
}

/* whatever the list, its text reads back as the same list, and is no
 * longer than the list written out value by value */
static void test_steps_read_back(void **state)
{
	static const int gaps[] = {1, 2, 2, 2, 2, 3, 1, 1, 5, 5, 5, 5, 5, 7};
	int32_t v[1024], back[1024];
	char text[8192], plain[8192];
	struct errinfo err;
	int n = 0;

	(void)state;
	for (int32_t x = 0; n < 1024; x += gaps[(n * 7 + n / 13) % 14])
		v[n++] = x;
	for (int k = 1; k <= 1024; k = k * 2 + 1) {
		assert_int_equal(
			format_int_list_steps(v, k, text, sizeof(text)), 0);
		assert_int_equal(
			parse_int_list(text, 0, INT32_MAX, back, 1024, &err),
			k);
		assert_memory_equal(back, v, (size_t)k * sizeof(v[0]));
		size_t at = 0;
		for (int i = 0; i < k; i++)
			at += (size_t)snprintf(plain + at, sizeof(plain) - at,
					       "%s%d", i ? "," : "", v[i]);
		assert_true(strlen(text) <= strlen(plain));
	}
}

/* a refusal quotes a long text's start, so it still has room for why */
static void test_a_long_text_is_quoted_short(void **state)
{
	char text[6000], buf[NUMTEXT_SHOWN_LEN];
	int32_t v[1024];
	struct errinfo err;

	(void)state;
	assert_string_equal(numtext_shown("1-4", buf), "1-4");
	memset(text, '1', sizeof(text) - 1);
	text[sizeof(text) - 1] = '\0';
	text[100] = ',';
	text[101] = 'x';
	assert_int_equal(parse_int_list(text, 1, 1024, v, 1024, &err), -EINVAL);
	assert_true(strlen(err.msg) < 100);
	assert_non_null(strstr(err.msg, "…"));
	assert_non_null(strstr(err.msg, "is out of range (allowed 1-1024)"));
	for (int i = 0, at = 0; i < 900; i++)
		at += snprintf(text + at, sizeof(text) - (size_t)at, "%d,",
			       i + 1);
	strcat(text, "x");
	assert_int_equal(parse_int_list(text, 1, 1024, v, 1024, &err), -EINVAL);
	assert_true(strlen(err.msg) < 100);
	assert_non_null(strstr(err.msg, "…' is not a list of integers"));
	assert_int_equal(parse_int_list("1-1025", 1, 2048, v, 1024, &err),
			 -EINVAL);
	assert_string_equal(err.msg, "too many values (at most 1024)");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ranges_and_singles),
		cmocka_unit_test(test_as_printf_wrote_it),
		cmocka_unit_test(test_huge_steps_end_the_range),
		cmocka_unit_test(test_numbers_past_int64_out_of_range),
		cmocka_unit_test(test_a_cpu_list_keeps_its_order),
		cmocka_unit_test(test_steps_as_a_sweep_is_written),
		cmocka_unit_test(test_steps_read_back),
		cmocka_unit_test(test_a_long_text_is_quoted_short),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
