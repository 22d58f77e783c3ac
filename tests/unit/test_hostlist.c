/* test_hostlist.c - Slurm host lists expanded to names, and the errors for bad ones */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "hostlist.h"

/* The names of text joined with spaces, or "error: <msg>". */
static const char *expand_text(const char *text)
{
	static char buf[4096];
	struct strvec sv = STRVEC_INIT;
	struct errinfo err;

	buf[0] = '\0';
	if (hostlist_expand(text, &sv, &err)) {
		assert_string_equal(err.field, "nodes");
		snprintf(buf, sizeof(buf), "error: %s", err.msg);
	} else {
		for (size_t i = 0; i < sv.n; i++) {
			if (i)
				strcat(buf, " ");
			strcat(buf, sv.v[i]);
		}
		assert_null(sv.v[sv.n]);
	}
	strvec_clear(&sv);
	return buf;
}

static void test_plain_names(void **state)
{
	(void)state;
	assert_string_equal(expand_text("n1"), "n1");
	assert_string_equal(expand_text("a,b,c"), "a b c");
	assert_string_equal(expand_text("lab-pc.example.org"),
			    "lab-pc.example.org");
}

static void test_ranges(void **state)
{
	(void)state;
	assert_string_equal(expand_text("n[1-3]"), "n1 n2 n3");
	assert_string_equal(expand_text("n[1,3,5-6]"), "n1 n3 n5 n6");
	assert_string_equal(expand_text("n[8-10]"), "n8 n9 n10");
	assert_string_equal(expand_text("n[7]"), "n7");
	assert_string_equal(expand_text("x[1-2],y"), "x1 x2 y");
}

static void test_padding(void **state)
{
	(void)state;
	assert_string_equal(expand_text("lab[01-03]"), "lab01 lab02 lab03");
	assert_string_equal(expand_text("lab[098-101]"),
			    "lab098 lab099 lab100 lab101");
	assert_string_equal(expand_text("n[0-2]"), "n0 n1 n2");
}

static void test_several_brackets(void **state)
{
	(void)state;
	assert_string_equal(expand_text("r[1-2]n[1-2]"), "r1n1 r1n2 r2n1 r2n2");
	assert_string_equal(expand_text("r[1-2]-a"), "r1-a r2-a");
}

static void test_duplicates_dropped(void **state)
{
	(void)state;
	assert_string_equal(expand_text("n[1-3],n2,n[3-4]"), "n1 n2 n3 n4");
}

static void test_count(void **state)
{
	struct strvec sv = STRVEC_INIT;
	struct errinfo err;
	(void)state;
	assert_int_equal(hostlist_expand("lab[01-30]", &sv, &err), 0);
	assert_int_equal(sv.n, 30);
	assert_string_equal(sv.v[29], "lab30");
	strvec_clear(&sv);
	assert_int_equal(hostlist_expand("n[1-1024]", &sv, &err), 0);
	assert_int_equal(sv.n, 1024);
	strvec_clear(&sv);
}

/*
 * The bound: 65536 names in one list, repeats counted, so the work is
 * bounded too; at the bound a list expands in linear time (seconds when
 * every name was compared with every other).
 */
static void test_bound(void **state)
{
	struct strvec sv = STRVEC_INIT;
	struct errinfo err;
	struct timespec t0, t1;
	(void)state;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	assert_int_equal(hostlist_expand("n[1-65536]", &sv, &err), 0);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	assert_int_equal(sv.n, 65536);
	assert_string_equal(sv.v[65535], "n65536");
	/* a generous ceiling: the quadratic scan took 15 s */
	assert_true(t1.tv_sec - t0.tv_sec < 5);
	strvec_clear(&sv);
	assert_string_equal(expand_text("n[1-65537]"),
			    "error: 'n[1-65537]' names more than 65536 hosts");
	assert_string_equal(expand_text("n[1-40000],m[1-40000]"),
			    "error: 'm[1-40000]' names more than 65536 hosts");
	/* repeats are work too */
	assert_string_equal(
		expand_text("n[1-40000,1-40000]"),
		"error: 'n[1-40000,1-40000]' names more than 65536 hosts");
	assert_string_equal(expand_text("n[1-3,1-3],n[2-4]"), "n1 n2 n3 n4");
}

static void test_errors(void **state)
{
	(void)state;
	assert_string_equal(
		expand_text(""),
		"error: empty host list (give names such as 'n[1-8]' or 'lab01,lab02')");
	assert_string_equal(expand_text("n[1-8"),
			    "error: unbalanced '[' in 'n[1-8'");
	assert_string_equal(expand_text("n1-8]"),
			    "error: unbalanced ']' in 'n1-8]'");
	assert_string_equal(expand_text("n[8-1]"),
			    "error: range '8-1' in 'n[8-1]' goes backwards");
	assert_string_equal(
		expand_text("n[a-b]"),
		"error: 'n[a-b]' has a range that is not numbers (allowed: [1-8], [01-30], [1,3,5-7])");
	assert_string_equal(
		expand_text("n[1-]"),
		"error: 'n[1-]' has a range that is not numbers (allowed: [1-8], [01-30], [1,3,5-7])");
	assert_string_equal(
		expand_text("n[]"),
		"error: 'n[]' has a range that is not numbers (allowed: [1-8], [01-30], [1,3,5-7])");
	assert_string_equal(expand_text("a,,b"),
			    "error: empty name in host list 'a,,b'");
	assert_string_equal(
		expand_text("a b"),
		"error: 'a b' is not a host name (no spaces or '/')");
	assert_string_equal(expand_text("n[1-100000]"),
			    "error: 'n[1-100000]' names more than 65536 hosts");
	assert_string_equal(expand_text("n[1-[2]]"),
			    "error: unbalanced '[' in 'n[1-[2]]'");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain_names),
		cmocka_unit_test(test_ranges),
		cmocka_unit_test(test_padding),
		cmocka_unit_test(test_several_brackets),
		cmocka_unit_test(test_duplicates_dropped),
		cmocka_unit_test(test_count),
		cmocka_unit_test(test_bound),
		cmocka_unit_test(test_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
