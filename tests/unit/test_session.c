/* test_session.c - the signed-in browsers' table: lookups with the page's key, expiry, sign-out, the bound per client, and who is dropped when it is full */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "session.h"

/* One sign-in as a test holds it: its cookie's id and its page's key. */
struct signed_in {
	char id[HTTP_SESSION_LEN], key[HTTP_SESSION_LEN];
};

/* A client key: address n. */
static const unsigned char *client(int n)
{
	static unsigned char k[64][16];

	memset(k[n % 64], 0, 16);
	k[n % 64][15] = (unsigned char)n;
	k[n % 64][14] = (unsigned char)(n >> 8);
	return k[n % 64];
}

static int create(struct sessions *s, int role, const char *name, int from,
		  struct signed_in *out)
{
	return sessions_create(s, role, name, client(from), out->id, out->key);
}

static int lookup(struct sessions *s, const struct signed_in *in)
{
	char name[HTTP_NAME_LEN];

	return sessions_lookup(s, in->id, in->key, name);
}

static void test_lookup_needs_the_key(void **state)
{
	struct sessions *s = sessions_new(3600, 0);
	struct signed_in a, t;
	char name[HTTP_NAME_LEN];

	(void)state;
	assert_non_null(s);
	assert_int_equal(create(s, HTTP_ROLE_CLASS, "Ana", 1, &a), 0);
	assert_int_equal(strlen(a.id), HTTP_SESSION_LEN - 1);
	assert_int_equal(strlen(a.key), HTTP_SESSION_LEN - 1);
	assert_string_not_equal(a.id, a.key);
	assert_int_equal(create(s, HTTP_ROLE_TEACHER, "", 1, &t), 0);
	assert_int_equal(sessions_lookup(s, a.id, a.key, name),
			 HTTP_ROLE_CLASS);
	assert_string_equal(name, "Ana");
	assert_int_equal(lookup(s, &t), HTTP_ROLE_TEACHER);
	/* the cookie alone, or with another's key, signs nothing in */
	assert_int_equal(sessions_lookup(s, t.id, NULL, name), HTTP_ROLE_NONE);
	assert_int_equal(sessions_lookup(s, t.id, a.key, name), HTTP_ROLE_NONE);
	assert_int_equal(sessions_lookup(s, t.id, "", name), HTTP_ROLE_NONE);
	assert_int_equal(sessions_lookup(s, "", t.key, name), HTTP_ROLE_NONE);
	assert_int_equal(sessions_lookup(s, "zz", t.key, name), HTTP_ROLE_NONE);
	char longer[HTTP_SESSION_LEN + 1];
	snprintf(longer, sizeof(longer), "%s0", a.id);
	assert_int_equal(sessions_lookup(s, longer, a.key, name),
			 HTTP_ROLE_NONE);
	/* a name step, with the key only */
	assert_int_equal(sessions_rename(s, a.id, t.key, "Eve"), -ENOENT);
	assert_int_equal(sessions_rename(s, a.id, a.key, "Grace"), 0);
	assert_int_equal(sessions_lookup(s, a.id, a.key, name),
			 HTTP_ROLE_CLASS);
	assert_string_equal(name, "Grace");
	sessions_delete(s, a.id);
	assert_int_equal(lookup(s, &a), HTTP_ROLE_NONE);
	assert_int_equal(lookup(s, &t), HTTP_ROLE_TEACHER);
	sessions_free(s);
}

static void test_expiry(void **state)
{
	/* a lifetime of 0 s: expired on the first look */
	struct sessions *s = sessions_new(0, 0);
	struct signed_in t;
	char name[HTTP_NAME_LEN];

	(void)state;
	assert_int_equal(create(s, HTTP_ROLE_TEACHER, "T", 1, &t), 0);
	assert_int_equal(sessions_lookup(s, t.id, t.key, name), HTTP_ROLE_NONE);
	assert_string_equal(name, "");
	sessions_free(s);
}

static void test_bound_per_client(void **state)
{
	struct sessions *s = sessions_new(3600, 4);
	struct signed_in t, own[5], other;

	(void)state;
	assert_int_equal(create(s, HTTP_ROLE_TEACHER, "", 7, &t), 0);
	assert_int_equal(create(s, HTTP_ROLE_CLASS, "", 8, &other), 0);
	for (int i = 0; i < 5; i++)
		assert_int_equal(create(s, HTTP_ROLE_CLASS, "", 7, &own[i]), 0);
	/* the fifth from address 7 ended its own first, nobody else's */
	assert_int_equal(lookup(s, &own[0]), HTTP_ROLE_NONE);
	for (int i = 1; i < 5; i++)
		assert_int_equal(lookup(s, &own[i]), HTTP_ROLE_CLASS);
	assert_int_equal(lookup(s, &other), HTTP_ROLE_CLASS);
	assert_int_equal(lookup(s, &t), HTTP_ROLE_TEACHER);
	sessions_free(s);
}

static void test_full_table(void **state)
{
	struct sessions *s = sessions_new(3600, 0);
	struct signed_in teacher, first, second, x;
	int teachers = 1;

	(void)state;
	assert_int_equal(create(s, HTTP_ROLE_TEACHER, "", 0, &teacher), 0);
	assert_int_equal(create(s, HTTP_ROLE_CLASS, "1", 1, &first), 0);
	assert_int_equal(create(s, HTTP_ROLE_CLASS, "2", 2, &second), 0);
	for (int i = 3; i < SESSION_MAX; i++)
		assert_int_equal(
			create(s, HTTP_ROLE_CLASS, "", 100 + i / 8, &x), 0);
	/* full: the oldest student goes, the teacher stays */
	assert_int_equal(create(s, HTTP_ROLE_CLASS, "new", 3, &x), 0);
	assert_int_equal(lookup(s, &first), HTTP_ROLE_NONE);
	assert_int_equal(lookup(s, &second), HTTP_ROLE_CLASS);
	assert_int_equal(lookup(s, &teacher), HTTP_ROLE_TEACHER);
	/* teachers take every student's place, and then there is none */
	while (create(s, HTTP_ROLE_TEACHER, "", 0, &x) == 0)
		teachers++;
	assert_int_equal(teachers, SESSION_MAX);
	assert_int_equal(create(s, HTTP_ROLE_CLASS, "", 4, &x), -ENOSPC);
	assert_int_equal(lookup(s, &teacher), HTTP_ROLE_TEACHER);
	assert_int_equal(lookup(s, &x), HTTP_ROLE_NONE);
	/* one signs out: room again */
	sessions_delete(s, teacher.id);
	assert_int_equal(create(s, HTTP_ROLE_CLASS, "", 4, &x), 0);
	sessions_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lookup_needs_the_key),
		cmocka_unit_test(test_expiry),
		cmocka_unit_test(test_bound_per_client),
		cmocka_unit_test(test_full_table),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
