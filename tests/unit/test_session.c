/* test_session.c - the signed-in browsers' table: lookups, expiry, sign-out, and who is dropped when it is full */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "session.h"

static void test_lookup_and_sign_out(void **state)
{
	struct sessions *s = sessions_new(3600);
	char id[HTTP_SESSION_LEN], name[HTTP_NAME_LEN], other[HTTP_SESSION_LEN];

	(void)state;
	assert_non_null(s);
	assert_int_equal(sessions_create(s, HTTP_ROLE_CLASS, "Ana", id), 0);
	assert_int_equal(strlen(id), HTTP_SESSION_LEN - 1);
	assert_int_equal(strspn(id, "0123456789abcdef"), HTTP_SESSION_LEN - 1);
	assert_int_equal(sessions_create(s, HTTP_ROLE_TEACHER, "", other), 0);
	assert_string_not_equal(id, other);
	assert_int_equal(sessions_lookup(s, id, name), HTTP_ROLE_CLASS);
	assert_string_equal(name, "Ana");
	assert_int_equal(sessions_lookup(s, other, name), HTTP_ROLE_TEACHER);
	assert_string_equal(name, "");
	/* not an id: too short, too long, not hex, a prefix of one */
	assert_int_equal(sessions_lookup(s, "", name), HTTP_ROLE_NONE);
	assert_int_equal(sessions_lookup(s, "zz", name), HTTP_ROLE_NONE);
	char longer[HTTP_SESSION_LEN + 1];
	snprintf(longer, sizeof(longer), "%s0", id);
	assert_int_equal(sessions_lookup(s, longer, name), HTTP_ROLE_NONE);
	char upper[HTTP_SESSION_LEN];
	memcpy(upper, id, sizeof(upper));
	upper[0] = upper[0] == 'a' ? 'b' : 'a';
	assert_int_equal(sessions_lookup(s, upper, name), HTTP_ROLE_NONE);
	sessions_delete(s, id);
	assert_int_equal(sessions_lookup(s, id, name), HTTP_ROLE_NONE);
	assert_int_equal(sessions_lookup(s, other, name), HTTP_ROLE_TEACHER);
	sessions_free(s);
}

static void test_expiry(void **state)
{
	/* a lifetime of 0 s: expired on the first look */
	struct sessions *s = sessions_new(0);
	char id[HTTP_SESSION_LEN], name[HTTP_NAME_LEN];

	(void)state;
	assert_int_equal(sessions_create(s, HTTP_ROLE_TEACHER, "T", id), 0);
	assert_int_equal(sessions_lookup(s, id, name), HTTP_ROLE_NONE);
	assert_string_equal(name, "");
	sessions_free(s);
}

static void test_full_table(void **state)
{
	struct sessions *s = sessions_new(3600);
	char teacher[HTTP_SESSION_LEN], first[HTTP_SESSION_LEN];
	char second[HTTP_SESSION_LEN], id[HTTP_SESSION_LEN];
	char name[HTTP_NAME_LEN];
	int teachers = 1;

	(void)state;
	assert_int_equal(sessions_create(s, HTTP_ROLE_TEACHER, "", teacher), 0);
	assert_int_equal(sessions_create(s, HTTP_ROLE_CLASS, "1", first), 0);
	assert_int_equal(sessions_create(s, HTTP_ROLE_CLASS, "2", second), 0);
	for (int i = 3; i < SESSION_MAX; i++)
		assert_int_equal(sessions_create(s, HTTP_ROLE_CLASS, "", id),
				 0);
	/* full: the oldest student goes, the teacher stays */
	assert_int_equal(sessions_create(s, HTTP_ROLE_CLASS, "new", id), 0);
	assert_int_equal(sessions_lookup(s, first, name), HTTP_ROLE_NONE);
	assert_int_equal(sessions_lookup(s, second, name), HTTP_ROLE_CLASS);
	assert_int_equal(sessions_lookup(s, teacher, name), HTTP_ROLE_TEACHER);
	/* teachers take every student's place, and then there is none */
	while (sessions_create(s, HTTP_ROLE_TEACHER, "", id) == 0)
		teachers++;
	assert_int_equal(teachers, SESSION_MAX);
	assert_int_equal(sessions_create(s, HTTP_ROLE_CLASS, "", id), -ENOSPC);
	assert_int_equal(sessions_lookup(s, teacher, name), HTTP_ROLE_TEACHER);
	assert_int_equal(sessions_lookup(s, id, name), HTTP_ROLE_NONE);
	/* one signs out: room again */
	sessions_delete(s, teacher);
	assert_int_equal(sessions_create(s, HTTP_ROLE_CLASS, "", id), 0);
	sessions_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lookup_and_sign_out),
		cmocka_unit_test(test_expiry),
		cmocka_unit_test(test_full_table),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
