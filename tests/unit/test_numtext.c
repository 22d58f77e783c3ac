/* test_numtext.c - a list of ints back to its shortest text: ranges joined,
 * the digits as printf's %d writes them, a buffer too short refused */
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ranges_and_singles),
		cmocka_unit_test(test_as_printf_wrote_it),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
