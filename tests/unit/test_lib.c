/* test_lib.c - lib/: the string buffer, the argv vector, the error struct */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "errinfo.h"
#include "strbuf.h"
#include "strvec.h"
#include "token_file.h"
#include "units.h"
#include "utf8.h"

/* An integer's text is printf's. */
static void test_strbuf_int_text(void **state)
{
	static const long long v[] = {
		0,   7,		-1,	   10,	      -10,
		317, 123456789, LLONG_MAX, LLONG_MIN, -LLONG_MAX};
	char a[STRBUF_INT_MAX], b[32];

	(void)state;
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		size_t n = strbuf_int_text(a, v[i]);
		snprintf(b, sizeof(b), "%lld", v[i]);
		assert_string_equal(a, b);
		assert_int_equal(n, strlen(b));
	}
}

static void test_strbuf_empty(void **state)
{
	struct strbuf never = STRBUF_INIT, sb;
	char *s;
	(void)state;

	/* usable before any text, whether zeroed or initialised */
	assert_string_equal(strbuf_str(&never), "");
	strbuf_release(&never);
	strbuf_init(&sb);
	assert_string_equal(strbuf_str(&sb), "");
	assert_int_equal(sb.len, 0);
	assert_non_null(sb.buf);
	/* an empty buffer still detaches a string the caller may free */
	s = strbuf_detach(&sb);
	assert_non_null(s);
	assert_string_equal(s, "");
	free(s);
	strbuf_release(&sb);
}

static void test_strbuf_growth(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	size_t n = 10000;
	(void)state;

	for (size_t i = 0; i < n; i++) {
		strbuf_addch(&sb, (char)('a' + i % 26));
		/* always terminated, always room for the NUL */
		assert_int_equal(sb.len, i + 1);
		assert_true(sb.cap >= sb.len + 1);
		assert_int_equal(sb.buf[sb.len], '\0');
	}
	assert_int_equal(strlen(strbuf_str(&sb)), n);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(sb.buf[i], 'a' + i % 26);
	assert_false(sb.oom);

	/* add copies exactly n bytes, even from a longer string */
	strbuf_reset(&sb);
	strbuf_add(&sb, "abcdef", 3);
	strbuf_addstr(&sb, "XYZ");
	assert_string_equal(strbuf_str(&sb), "abcXYZ");
	assert_int_equal(sb.len, 6);
	strbuf_release(&sb);
	assert_int_equal(sb.len, 0);
	assert_string_equal(strbuf_str(&sb), "");
}

static void test_strbuf_addf_long(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	char *big = malloc(5001), *want;
	(void)state;

	assert_non_null(big);
	memset(big, 'x', 5000);
	big[5000] = '\0';
	/* longer than anything the buffer held: it grows to fit in one go */
	strbuf_addf(&sb, "<%s|%d>", big, 42);
	assert_int_equal(sb.len, 5000 + 5);
	assert_int_equal(sb.buf[0], '<');
	assert_memory_equal(sb.buf + 1, big, 5000);
	assert_string_equal(sb.buf + 5001, "|42>");

	/* appends after what is there, across a growth */
	strbuf_reset(&sb);
	for (int i = 0; i < 63; i++)
		strbuf_addch(&sb, '.');
	strbuf_addf(&sb, "%d-%s", 12345, "end");
	want = malloc(63 + 10);
	assert_non_null(want);
	memset(want, '.', 63);
	strcpy(want + 63, "12345-end");
	assert_string_equal(strbuf_str(&sb), want);
	assert_int_equal(sb.len, 63 + 9);

	/* an empty format adds nothing and keeps the text terminated */
	strbuf_addf(&sb, "%s", "");
	assert_int_equal(sb.len, 63 + 9);
	assert_string_equal(strbuf_str(&sb), want);
	free(want);
	free(big);
	strbuf_release(&sb);
}

static void test_strbuf_detach(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	char *s;
	(void)state;

	strbuf_addf(&sb, "run %d of %s", 7, "false_sharing");
	s = strbuf_detach(&sb);
	assert_string_equal(s, "run 7 of false_sharing");
	/* the buffer is empty again and does not share the text */
	assert_int_equal(sb.len, 0);
	assert_string_equal(strbuf_str(&sb), "");
	strbuf_addstr(&sb, "again");
	assert_string_equal(strbuf_str(&sb), "again");
	assert_string_equal(s, "run 7 of false_sharing");
	free(s);
	strbuf_release(&sb);
}

static void test_strbuf_reset(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	char *mem;
	size_t cap;
	(void)state;

	strbuf_addstr(&sb, "some text that is kept in memory");
	mem = sb.buf;
	cap = sb.cap;
	strbuf_reset(&sb);
	assert_int_equal(sb.len, 0);
	assert_string_equal(strbuf_str(&sb), "");
	/* the memory stays for the next text */
	assert_ptr_equal(sb.buf, mem);
	assert_int_equal(sb.cap, cap);
	strbuf_addstr(&sb, "next");
	assert_string_equal(strbuf_str(&sb), "next");
	strbuf_release(&sb);
}

static void test_strbuf_trim(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	(void)state;

	/* trimming a buffer that never held text is harmless */
	strbuf_trim_end(&sb, 3);
	assert_string_equal(strbuf_str(&sb), "");
	/* the usual use: drop the separator after the last item */
	strbuf_addstr(&sb, "a, b, c, ");
	strbuf_trim_end(&sb, 2);
	assert_string_equal(strbuf_str(&sb), "a, b, c");
	assert_int_equal(sb.len, 7);
	strbuf_trim_end(&sb, 0);
	assert_string_equal(strbuf_str(&sb), "a, b, c");
	/* more than there is empties it */
	strbuf_trim_end(&sb, 100);
	assert_int_equal(sb.len, 0);
	assert_string_equal(strbuf_str(&sb), "");
	strbuf_addstr(&sb, "z");
	assert_string_equal(strbuf_str(&sb), "z");
	strbuf_release(&sb);
}

static void test_strbuf_too_big(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	(void)state;

	/* a size that cannot be held: oom is set, the text so far is kept */
	strbuf_addstr(&sb, "kept");
	strbuf_add(&sb, "", SIZE_MAX);
	assert_true(sb.oom);
	assert_string_equal(strbuf_str(&sb), "kept");
	/* later additions are dropped, so a builder checks once at the end */
	strbuf_addstr(&sb, " and more");
	strbuf_addf(&sb, "%d", 1);
	assert_string_equal(strbuf_str(&sb), "kept");
	/* detach says it failed, and leaves an empty, usable buffer */
	assert_null(strbuf_detach(&sb));
	assert_false(sb.oom);
	assert_string_equal(strbuf_str(&sb), "");
	strbuf_addstr(&sb, "fresh");
	assert_string_equal(strbuf_str(&sb), "fresh");
	/* reset forgets a failure too */
	strbuf_add(&sb, "", SIZE_MAX);
	assert_true(sb.oom);
	strbuf_reset(&sb);
	assert_false(sb.oom);
	strbuf_addstr(&sb, "ok");
	assert_string_equal(strbuf_str(&sb), "ok");
	strbuf_release(&sb);
}

static void test_strvec_null_terminated(void **state)
{
	struct strvec sv = STRVEC_INIT;
	char arg[16];
	(void)state;

	assert_int_equal(sv.n, 0);
	strvec_push(&sv, "numalab");
	assert_int_equal(sv.n, 1);
	assert_string_equal(sv.v[0], "numalab");
	assert_null(sv.v[1]);
	/* past the first growth, v[n] is NULL after every push */
	for (int i = 0; i < 100; i++) {
		strvec_pushf(&sv, "arg=%d", i);
		assert_int_equal(sv.n, (size_t)i + 2);
		assert_null(sv.v[sv.n]);
		assert_true(sv.cap > sv.n);
	}
	for (int i = 0; i < 100; i++) {
		snprintf(arg, sizeof(arg), "arg=%d", i);
		assert_string_equal(sv.v[i + 1], arg);
	}
	assert_false(sv.oom);
	strvec_clear(&sv);
	assert_int_equal(sv.n, 0);
	assert_null(sv.v);
}

static void test_strvec_owns_copies(void **state)
{
	struct strvec sv;
	char arg[] = "--threads=1-2";
	(void)state;

	strvec_init(&sv);
	strvec_push(&sv, arg);
	strvec_push(&sv, "");
	/* the caller's string may change or go: the vector holds a copy */
	arg[2] = 'X';
	assert_string_equal(sv.v[0], "--threads=1-2");
	assert_ptr_not_equal(sv.v[0], arg);
	assert_string_equal(sv.v[1], "");
	assert_null(sv.v[2]);
	/* cleared, it is ready for another argv */
	strvec_clear(&sv);
	strvec_push(&sv, "run");
	assert_int_equal(sv.n, 1);
	assert_string_equal(sv.v[0], "run");
	assert_null(sv.v[1]);
	strvec_clear(&sv);
}

static void test_errinfo_set(void **state)
{
	struct errinfo e;
	int rc;
	(void)state;

	memset(&e, 'q', sizeof(e));
	/* returns -EINVAL, so a check can `return errinfo_set(...)` */
	rc = errinfo_set(&e, "size", "size '%s' is not a size", "12Q");
	assert_int_equal(rc, -EINVAL);
	assert_string_equal(e.field, "size");
	assert_string_equal(e.msg, "size '12Q' is not a size");
	/* no field: an empty one, not the previous one */
	assert_int_equal(errinfo_set(&e, NULL, "queue is full"), -EINVAL);
	assert_string_equal(e.field, "");
	assert_string_equal(e.msg, "queue is full");
	/* nowhere to write: still the same answer */
	assert_int_equal(errinfo_set(NULL, "x", "y"), -EINVAL);
	errinfo_clear(&e);
	assert_string_equal(e.field, "");
	assert_string_equal(e.msg, "");
}

static void test_errinfo_truncation(void **state)
{
	struct errinfo e;
	char field[200], text[2000];
	(void)state;

	memset(field, 'f', sizeof(field) - 1);
	field[sizeof(field) - 1] = '\0';
	memset(text, 'm', sizeof(text) - 1);
	text[sizeof(text) - 1] = '\0';
	assert_int_equal(errinfo_set(&e, field, "%s: %s", "long", text),
			 -EINVAL);
	/* both parts are cut to their arrays, and stay terminated */
	assert_int_equal(strlen(e.field), ERRINFO_FIELD_LEN - 1);
	assert_memory_equal(e.field, field, ERRINFO_FIELD_LEN - 1);
	assert_int_equal(strlen(e.msg), ERRINFO_MSG_LEN - 1);
	assert_memory_equal(e.msg, "long: mmm", 9);
	assert_int_equal(e.msg[ERRINFO_MSG_LEN - 2], 'm');
}

static char *write_temp(const char *text)
{
	char *path = strdup("/tmp/numalab-token-XXXXXX");
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	return path;
}

/* serve --token-file and fleet run --token-file read the same file alike:
 * one written on Windows ("\r\n") gives the token, not the token and a
 * carriage return. */
static void test_token_file(void **state)
{
	static const char *const files[] = {"s3cret\r\n", "s3cret\n", "s3cret",
					    "s3cret \t\r\n\r\n",
					    "s3cret\nsecond line\n"};
	struct errinfo err;
	char *token, *path;
	(void)state;

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		path = write_temp(files[i]);
		assert_int_equal(token_file_read(path, &token, &err), 0);
		assert_string_equal(token, "s3cret");
		free(token);
		unlink(path);
		free(path);
	}
	path = write_temp(" \r\n");
	assert_int_equal(token_file_read(path, &token, &err), -EINVAL);
	assert_null(token);
	assert_non_null(strstr(err.msg, path));
	assert_non_null(strstr(err.msg, "is empty"));
	unlink(path);
	assert_int_equal(token_file_read(path, &token, &err), -ENOENT);
	assert_non_null(strstr(err.msg, path));
	assert_non_null(strstr(err.msg, "cannot read token file"));
	free(path);
	/* a folder opens, and its read says what it is */
	assert_int_equal(token_file_read("/", &token, &err), -EISDIR);
	assert_null(token);
	assert_non_null(strstr(err.msg, "Is a directory"));
}

/* A column's cut never ends inside a character: "×" is 0xC3 0x97. */
/* a count's words, singular for exactly one */
static void test_units_plural(void **state)
{
	(void)state;
	assert_string_equal(units_plural(1, "run was", "runs were"), "run was");
	assert_string_equal(units_plural(0, "run", "runs"), "runs");
	assert_string_equal(units_plural(2, "run", "runs"), "runs");
	assert_string_equal(units_plural(-1, "run", "runs"), "runs");
}

static void test_utf8_prefix_len(void **state)
{
	(void)state;
	assert_int_equal(utf8_prefix_len("ab", 5), 2);
	assert_int_equal(utf8_prefix_len("abc", 3), 3);
	assert_int_equal(utf8_prefix_len("a\xc3\x97"
					 "b",
					 2),
			 1);
	assert_int_equal(utf8_prefix_len("a\xc3\x97"
					 "b",
					 3),
			 3);
	assert_int_equal(utf8_prefix_len("\xe2\x80\x93x", 2), 0);
	assert_int_equal(utf8_prefix_len("", 4), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_token_file),
		cmocka_unit_test(test_strbuf_empty),
		cmocka_unit_test(test_strbuf_int_text),
		cmocka_unit_test(test_strbuf_growth),
		cmocka_unit_test(test_strbuf_addf_long),
		cmocka_unit_test(test_strbuf_detach),
		cmocka_unit_test(test_strbuf_reset),
		cmocka_unit_test(test_strbuf_trim),
		cmocka_unit_test(test_strbuf_too_big),
		cmocka_unit_test(test_strvec_null_terminated),
		cmocka_unit_test(test_strvec_owns_copies),
		cmocka_unit_test(test_errinfo_set),
		cmocka_unit_test(test_errinfo_truncation),
		cmocka_unit_test(test_units_plural),
		cmocka_unit_test(test_utf8_prefix_len),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
