/* test_display_name.c - what a name shown to a class may hold, and what each refusal says */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "display_name.h"

/* name is refused, err naming field "name" and holding said */
static void refused(const char *name, const char *said)
{
	struct errinfo err = {{0}, {0}};

	if (display_name_check(name, "name", "name", &err) == 0)
		fail_msg("'%s' was taken", name);
	assert_string_equal(err.field, "name");
	if (!strstr(err.msg, said))
		fail_msg("'%s': '%s' does not say '%s'", name, err.msg, said);
}

static void taken(const char *name)
{
	struct errinfo err = {{0}, {0}};

	if (display_name_check(name, "name", "name", &err))
		fail_msg("'%s' was refused: %s", name, err.msg);
}

static void test_names_taken(void **state)
{
	(void)state;
	taken(""); /* no name */
	taken("Ada");
	taken("Ada Lovelace");
	taken("Zo\xc3\xab <b>&amp;</b>");
	taken("a  b");				   /* spaces between words */
	taken("\xd7\xa9\xd7\x9c\xd7\x95\xd7\x9d"); /* Hebrew, right to left */
	taken("\xe2\x9d\xa4\xef\xb8\x8f");	   /* a heart and its VS16 */
	taken("\xe5\xb1\xb1\xe7\x94\xb0");	   /* CJK */
	/* 48 bytes: 24 two-byte letters */
	taken("\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
	      "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
	      "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9");
}

static void test_blank_and_edges(void **state)
{
	(void)state;
	refused(" ", "name is only spaces (give at least one letter");
	refused("   ", "only spaces");
	refused("\xc2\xa0\xe3\x80\x80", "only spaces"); /* NBSP, ideographic */
	refused(" Ada", "name starts with a space (U+0020): spaces are "
			"allowed between words, not at either end");
	refused("Ada ", "name ends with a space (U+0020)");
	refused("Ada\xc2\xa0", "name ends with a space (U+00A0)");
	refused("\xe2\x80\x83"
		"Ada",
		"starts with a space (U+2003)");
}

static void test_controls_and_hidden(void **state)
{
	(void)state;
	refused("a\nb", "name has a control character at byte 1 (letters, "
			"digits, spaces and punctuation are allowed)");
	refused("a\x7f", "control character at byte 1");
	refused("a\xc2\x85", "control character at byte 1"); /* C1 NEL */
	refused("ab\xe2\x80\xae"
		"cd",
		"name has a text-direction control (U+202E) at byte 2 "
		"(letters, digits, spaces and punctuation are allowed)");
	refused("\xe2\x80\x8e"
		"a",
		"text-direction control (U+200E) at byte 0");
	refused("a\xe2\x80\x8f", "text-direction control (U+200F)");
	refused("a\xe2\x80\xaa", "text-direction control (U+202A)");
	refused("a\xe2\x81\xa6", "text-direction control (U+2066)");
	refused("a\xe2\x81\xa9", "text-direction control (U+2069)");
	refused("a\xd8\x9c", "text-direction control (U+061C)");
	refused("a\xe2\x80\x8b", "an invisible character (U+200B) at byte 1");
	refused("a\xe2\x80\x8d", "invisible character (U+200D)");
	refused("\xef\xbb\xbf"
		"a",
		"invisible character (U+FEFF) at byte 0");
	refused("a\xc2\xad", "invisible character (U+00AD)");
	refused("\xe3\x85\xa4", "invisible character (U+3164)");
	refused("a\xf3\xa0\x80\x81", "invisible character (U+E0001)");
	refused("a\xe2\x80\xa8", "a line or paragraph separator (U+2028)");
	/* a space at an end is said after what is hidden in the middle */
	refused(" a\xe2\x80\xae", "U+202E");
}

static void test_length_and_utf8(void **state)
{
	(void)state;
	refused("\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3"
		"\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
		"\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3"
		"\xa9\xc3\xa9x",
		"name is 49 bytes long (at most 48 bytes of UTF-8)");
	refused("a\xff", "name is not UTF-8");
}

static void test_subject_and_field(void **state)
{
	struct errinfo err = {{0}, {0}};

	(void)state;
	assert_int_not_equal(display_name_check("x\xe2\x80\xae",
						"'class.guesses[2].name'",
						"class.guesses[2].name", &err),
			     0);
	assert_string_equal(err.field, "class.guesses[2].name");
	assert_non_null(strstr(err.msg, "'class.guesses[2].name' has a "
					"text-direction control (U+202E)"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names_taken),
		cmocka_unit_test(test_blank_and_edges),
		cmocka_unit_test(test_controls_and_hidden),
		cmocka_unit_test(test_length_and_utf8),
		cmocka_unit_test(test_subject_and_field),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
