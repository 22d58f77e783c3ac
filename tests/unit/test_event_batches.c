/* test_event_batches.c - a run's events a row a batch: split where seqs jump, read back from any seq, whole or not at all */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "event_batches.h"
#include "store.h"

struct seen {
	int64_t seq[16];
	char text[16][64];
	int n;
};

static int collect(void *arg, int64_t seq, const char *text, size_t len)
{
	struct seen *s = arg;

	assert_true(s->n < 16 && len < 64);
	s->seq[s->n] = seq;
	memcpy(s->text[s->n], text, len);
	s->text[s->n++][len] = '\0';
	return 0;
}

/* A row's lines from any seq; a row that holds more or fewer lines than
 * it says, or one numbered to the end of int64, refused. */
static void test_each_reads_a_row(void **state)
{
	static const char row[] = "{\"seq\":4}\n{\"seq\":5}\n{\"seq\":6}";
	struct seen s = {0};

	(void)state;
	assert_int_equal(
		event_batches_each(row, strlen(row), 4, 6, 4, collect, &s), 0);
	assert_int_equal(s.n, 2);
	assert_int_equal(s.seq[0], 5);
	assert_string_equal(s.text[1], "{\"seq\":6}");
	s.n = 0;
	assert_int_equal(
		event_batches_each(row, strlen(row), 4, 7, 0, collect, &s),
		-EIO);
	s.n = 0;
	assert_int_equal(
		event_batches_each(row, strlen(row), 4, 5, 0, collect, &s),
		-EIO);
	s.n = 0;
	assert_int_equal(event_batches_each(row, strlen(row), INT64_MAX,
					    INT64_MAX, 0, collect, &s),
			 -EIO);
}

static int autocommit(struct sqlite3 *db, void *arg)
{
	(void)arg;
	return sqlite3_get_autocommit(db);
}

static struct runlog_event ev(int64_t seq, const char *json)
{
	struct runlog_event e = {.seq = seq, .json = (char *)json};

	snprintf(e.type, sizeof(e.type), "note");
	e.len = strlen(json);
	return e;
}

/* Events whose seqs jump are two rows, read back in order; a batch that
 * cannot be stored (a text with a line break) leaves nothing of it and
 * no transaction open, and what is stored after it is kept. */
static void test_batches_whole_or_not_at_all(void **state)
{
	char path[64] = "/tmp/numalab-batches-XXXXXX", other[80];
	int fd = mkstemp(path);
	struct errinfo err;
	struct store *st;
	struct runlog *log;
	int64_t id;
	struct runlog_event a = ev(1, "{\"seq\":1,\"type\":\"note\"}"),
			    b = ev(2, "{\"seq\":2,\"type\":\"note\"}"),
			    c = ev(9, "{\"seq\":9,\"type\":\"mark\"}"),
			    d = ev(10, "{\"seq\":10,\"type\":\"note\"}"),
			    bad = ev(20, "{\"seq\":20,\n\"type\":\"note\"}"),
			    e = ev(11, "{\"type\":\"end\",\"seq\":11}");
	const struct runlog_event *good[] = {&a, &b, &c}, *mixed[] = {&d, &bad},
				  *after[] = {&e};

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	unlink(path);
	st = store_open(path, &err);
	assert_non_null(st);
	assert_int_equal(store_create_run(st, "false_sharing", "{}", "{}",
					  "2026-12-06T00:00:00.000Z", &id,
					  &err),
			 0);
	assert_int_equal(event_batches_rows(good, 3), 2);
	assert_int_equal(store_append_events(st, id, good, 3, &err), 0);
	/* two rows (a savepoint), the second refused: neither kept */
	assert_int_equal(event_batches_rows(mixed, 2), 2);
	assert_int_not_equal(store_append_events(st, id, mixed, 2, &err), 0);
	assert_non_null(strstr(err.msg, "line break"));
	assert_true(store_with_db(st, autocommit, NULL));
	assert_int_equal(store_append_events(st, id, after, 1, &err), 0);
	store_close(st);
	/* read back after a reopen: each event, its type from its text (the
	 * run log's form, and another) */
	st = store_open(path, &err);
	assert_non_null(st);
	log = runlog_new(id);
	assert_int_equal(store_load_events(st, id, 0, log), 0);
	assert_int_equal(runlog_last_seq(log), 11);
	assert_string_equal(runlog_next(log, 2)->type, "mark");
	assert_int_equal(runlog_next(log, 9)->seq, 11);
	assert_string_equal(runlog_next(log, 9)->type, "end");
	runlog_unref(log);
	store_close(st);
	unlink(path);
	snprintf(other, sizeof(other), "%s-wal", path);
	unlink(other);
	snprintf(other, sizeof(other), "%s-shm", path);
	unlink(other);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_each_reads_a_row),
		cmocka_unit_test(test_batches_whole_or_not_at_all),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
