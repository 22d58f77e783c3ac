/* test_stats.c - summary statistics against known data */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "stats.h"

static void test_odd(void **state)
{
	double v[] = {5, 1, 4, 2, 3};
	struct stats s;
	(void)state;
	stats_compute(v, 5, &s);
	assert_int_equal(s.n, 5);
	assert_float_equal(s.median, 3, 1e-12);
	assert_float_equal(s.min, 1, 1e-12);
	assert_float_equal(s.max, 5, 1e-12);
	assert_float_equal(s.mean, 3, 1e-12);
	assert_float_equal(s.stddev, 1.5811388300841898, 1e-12);
	/* under 6 samples the interval is the range */
	assert_float_equal(s.ci_lo, 1, 1e-12);
	assert_float_equal(s.ci_hi, 5, 1e-12);
	/* the input is not reordered */
	assert_float_equal(v[0], 5, 0);
}

static void test_even_and_ci(void **state)
{
	double v[100];
	struct stats s;
	(void)state;
	for (int i = 0; i < 100; i++)
		v[i] = 100 - i; /* 1..100 */
	stats_compute(v, 100, &s);
	assert_float_equal(s.median, 50.5, 1e-12);
	/* order statistics 50 -+ 9.8: ranks 40 and 60 (0-based) */
	assert_float_equal(s.ci_lo, 41, 1e-12);
	assert_float_equal(s.ci_hi, 61, 1e-12);
	assert_true(s.ci_lo <= s.median && s.median <= s.ci_hi);
}

static void test_empty_and_one(void **state)
{
	double v[] = {7};
	struct stats s;
	(void)state;
	stats_compute(v, 0, &s);
	assert_int_equal(s.n, 0);
	stats_compute(v, 1, &s);
	assert_float_equal(s.median, 7, 0);
	assert_float_equal(s.stddev, 0, 0);
}

static void test_clock(void **state)
{
	(void)state;
	double g = clock_granularity();
	assert_true(g > 0 && g < 1e-3);
	double a = clock_now(), b = clock_now();
	assert_true(b >= a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_odd),
		cmocka_unit_test(test_even_and_ci),
		cmocka_unit_test(test_empty_and_one),
		cmocka_unit_test(test_clock),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
