/* test_suggest.c - the distance between names and the guess on a typo */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "suggest.h"

static void test_distance(void **state)
{
	(void)state;
	assert_int_equal(suggest_distance("threads", "threads"), 0);
	assert_int_equal(suggest_distance("thread", "threads"), 1);
	/* a swap of neighbours is one edit */
	assert_int_equal(suggest_distance("thraeds", "threads"), 1);
	assert_int_equal(suggest_distance("false_shring", "false_sharing"), 1);
	assert_int_equal(suggest_distance("", "abc"), 3);
	assert_int_equal(suggest_distance("Repeat", "repeat"), 0);
	assert_int_equal(suggest_distance("kitten", "sitting"), 3);
}

static const char *best_of(const char *word, const char *const *names)
{
	struct suggest s;

	suggest_init(&s, word);
	for (; *names; names++)
		suggest_consider(&s, *names);
	return suggest_best(&s);
}

static void test_best(void **state)
{
	static const char *const names[] = {"threads", "increments", "stride",
					    "repeat",  "warmup",     NULL};
	(void)state;
	assert_string_equal(best_of("thread", names), "threads");
	assert_string_equal(best_of("incremnts", names), "increments");
	assert_string_equal(best_of("repet", names), "repeat");
	/* nothing near: no guess */
	assert_null(best_of("colour", names));
	assert_null(best_of("zz", names));
	/* a word far longer than any name is no typo of one */
	char long_word[200];
	memset(long_word, 'a', sizeof(long_word) - 1);
	long_word[sizeof(long_word) - 1] = '\0';
	assert_null(best_of(long_word, names));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_distance),
		cmocka_unit_test(test_best),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
