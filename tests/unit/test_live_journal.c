/* test_live_journal.c - a live run's events in the journal: read back whole, folded in at the end or at the next start, another's file left alone */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "live_journal.h"
#include "store.h"

/* The last section is read; a half line, a seq that does not rise and
 * what follows are dropped; a section marked kept holds nothing. */
static void test_parse_the_last_section(void **state)
{
	static const char two[] = "numalab live events 1 run 3\n"
				  "1 {\"a\":1}\n"
				  "numalab live events kept\n"
				  "numalab live events 1 run 4\n"
				  "1 {\"b\":1}\n"
				  "2 {\"b\":2}\n"
				  "3 {\"b\":3";
	static const char kept[] = "numalab live events 1 run 4\n"
				   "1 {\"b\":1}\n"
				   "numalab live events kept\n";
	static const char back[] = "numalab live events 1 run 5\n"
				   "7 {\"c\":7}\n"
				   "7 {\"c\":8}\n"
				   "9 {\"c\":9}\n";
	struct live_event *ev;
	int64_t id;
	int n;

	(void)state;
	assert_int_equal(live_journal_parse(two, strlen(two), &id, &ev, &n), 0);
	assert_int_equal(id, 4);
	assert_int_equal(n, 2);
	assert_int_equal(ev[1].seq, 2);
	assert_int_equal(ev[1].len, strlen("{\"b\":2}"));
	assert_memory_equal(ev[1].text, "{\"b\":2}", ev[1].len);
	free(ev);
	assert_int_equal(live_journal_parse(kept, strlen(kept), &id, &ev, &n),
			 0);
	assert_int_equal(id, 4);
	assert_int_equal(n, 0);
	assert_null(ev);
	assert_int_equal(live_journal_parse(back, strlen(back), &id, &ev, &n),
			 0);
	assert_int_equal(n, 1);
	free(ev);
	assert_int_equal(live_journal_parse("numalab live", 12, &id, &ev, &n),
			 -EINVAL);
	assert_int_equal(live_journal_parse("1 {}\n", 5, &id, &ev, &n),
			 -EINVAL);
}

static struct runlog_event ev(int64_t seq, const char *json)
{
	struct runlog_event e = {.seq = seq, .json = (char *)json};

	snprintf(e.type, sizeof(e.type), "note");
	e.len = strlen(json);
	return e;
}

struct files {
	char db[64], live[80], wal[80], shm[80];
};

static void files_init(struct files *f)
{
	int fd;

	snprintf(f->db, sizeof(f->db), "/tmp/numalab-live-XXXXXX");
	fd = mkstemp(f->db);
	assert_true(fd >= 0);
	close(fd);
	unlink(f->db);
	snprintf(f->live, sizeof(f->live), "%s-live", f->db);
	snprintf(f->wal, sizeof(f->wal), "%s-wal", f->db);
	snprintf(f->shm, sizeof(f->shm), "%s-shm", f->db);
}

static void files_remove(const struct files *f)
{
	unlink(f->db);
	unlink(f->live);
	unlink(f->wal);
	unlink(f->shm);
}

/* The events of run id the store holds (a log of them read back). */
static int64_t stored(struct store *st, int64_t id)
{
	struct runlog *log = runlog_new(id);
	int64_t last;

	assert_int_equal(store_load_events(st, id, 0, log), 0);
	last = runlog_last_seq(log);
	runlog_unref(log);
	return last;
}

static off_t size_of(const char *path)
{
	struct stat sb;

	return stat(path, &sb) ? -1 : sb.st_size;
}

/* The store at db, its journal attached as numalab serve attaches it. */
static struct store *open_attached(const char *db)
{
	struct errinfo err;
	struct store *st = store_open(db, &err);

	assert_non_null(st);
	assert_int_equal(store_live_attach(st, &err), 0);
	return st;
}

/* A new run's id in st (at the given second of the test's day). */
static int64_t new_run(struct store *st, int second)
{
	char at[32];
	struct errinfo err;
	int64_t id;

	snprintf(at, sizeof(at), "2026-12-06T00:00:%02d.000Z", second);
	assert_int_equal(store_create_run(st, "false_sharing", "{}", "{}", at,
					  &id, &err),
			 0);
	return id;
}

/* The store at f's files, attached, with a new run live in its journal:
 * the run's id. */
static int64_t live_run(struct files *f, struct store **st)
{
	int64_t id;

	files_init(f);
	*st = open_attached(f->db);
	id = new_run(*st, 0);
	assert_int_equal(store_live_begin(*st, id), 0);
	return id;
}

/* A live run's batches reach the journal, not the store; a store that
 * closes with them unkept (a server that died) keeps the file, and the
 * next open folds them in; the end of a run folds them in inside its
 * transaction, and a rolled back one leaves them for the next try. */
static void test_journal_to_store(void **state)
{
	struct runlog_event a = ev(1, "{\"seq\":1,\"type\":\"note\"}"),
			    b = ev(2, "{\"seq\":2,\"type\":\"note\"}"),
			    c = ev(3, "{\"seq\":3,\"type\":\"note\"}");
	const struct runlog_event *ab[] = {&a, &b}, *cc[] = {&c};
	struct errinfo err;
	struct files f;
	struct store *st;
	int64_t id, id2;

	(void)state;
	id = live_run(&f, &st);
	assert_int_equal(store_append_events(st, id, ab, 2, &err), 0);
	assert_int_equal(stored(st, id), 0);
	assert_true(size_of(f.live) > 0);
	store_close(st); /* as a server that died: the journal stays */
	assert_true(size_of(f.live) > 0);

	st = open_attached(f.db);
	assert_int_equal(stored(st, id), 2);
	assert_int_equal(size_of(f.live), 0);

	/* a run's end, rolled back: the journal keeps its events */
	id2 = new_run(st, 1);
	assert_int_equal(store_live_begin(st, id2), 0);
	assert_int_equal(store_append_events(st, id2, ab, 2, &err), 0);
	assert_int_equal(store_atomic_begin(st, &err), 0);
	assert_int_equal(store_live_end(st, id2, &err), 0);
	/* inside the end's step, what follows goes to the store */
	assert_int_equal(store_append_events(st, id2, cc, 1, &err), 0);
	assert_int_equal(store_atomic_end(st, 0, &err), 0);
	assert_int_equal(stored(st, id2), 0);
	/* alone, then: kept, and the journal says so */
	assert_int_equal(store_live_end(st, id2, &err), 0);
	assert_int_equal(store_append_events(st, id2, cc, 1, &err), 0);
	assert_int_equal(stored(st, id2), 3);
	/* a second end finds nothing more to fold */
	assert_int_equal(store_live_end(st, id2, &err), 0);
	assert_int_equal(stored(st, id2), 3);
	store_close(st); /* all kept: the journal goes */
	assert_int_equal(size_of(f.live), -1);
	files_remove(&f);
}

/* A long run's journal goes into the store as it goes (past 4 MiB), and
 * its end then puts in the rest: every event once, in order. */
static void test_a_long_run_folds_as_it_goes(void **state)
{
	enum { N = 6000, LEN = 1000 };
	static char text[N][LEN + 40];
	static struct runlog_event e[N];
	struct errinfo err;
	struct files f;
	struct store *st;
	int64_t id;

	(void)state;
	id = live_run(&f, &st);
	for (int i = 0; i < N; i++) {
		const struct runlog_event *one[1] = {&e[i]};

		snprintf(text[i], sizeof(text[i]),
			 "{\"seq\":%d,\"type\":\"note\",\"text\":\"%0*d\"}",
			 i + 1, LEN, i);
		e[i] = ev(i + 1, text[i]);
		assert_int_equal(store_append_events(st, id, one, 1, &err), 0);
	}
	/* folded as it went: the store holds most of it already */
	assert_true(stored(st, id) > N / 2);
	assert_true(stored(st, id) < N);
	assert_true(size_of(f.live) < (off_t)(16 << 20));
	assert_int_equal(store_live_end(st, id, &err), 0);
	assert_int_equal(stored(st, id), N);
	store_close(st);
	st = open_attached(f.db);
	assert_int_equal(stored(st, id), N);
	store_close(st);
	files_remove(&f);
}

static int delete_runs(struct sqlite3 *db, void *arg)
{
	(void)arg;
	return sqlite3_exec(db, "DELETE FROM runs", NULL, NULL, NULL);
}

/* A journal of a run whose row went (deleted by hand) is dropped at the
 * next start, said, and the store opens as usual. */
static void test_a_journal_of_a_deleted_run(void **state)
{
	struct runlog_event a = ev(1, "{\"seq\":1,\"type\":\"note\"}");
	const struct runlog_event *one[] = {&a};
	struct errinfo err;
	struct files f;
	struct store *st;
	int64_t id;

	(void)state;
	id = live_run(&f, &st);
	assert_int_equal(store_append_events(st, id, one, 1, &err), 0);
	assert_int_equal(store_with_db(st, delete_runs, NULL), SQLITE_OK);
	store_close(st);
	assert_true(size_of(f.live) > 0);
	st = open_attached(f.db);
	assert_int_equal(size_of(f.live), 0);
	store_close(st);
	assert_int_equal(size_of(f.live), -1);
	files_remove(&f);
}

/* A file of that name that is not a journal is left byte for byte, and a
 * journal another process holds is not touched: runs store their batches
 * themselves. */
static void test_another_file_left_alone(void **state)
{
	static const char theirs[] = "not ours\n";
	struct runlog_event a = ev(1, "{\"seq\":1,\"type\":\"note\"}");
	const struct runlog_event *one[] = {&a};
	char buf[64];
	struct errinfo err;
	struct files f;
	struct store *st;
	int64_t id;
	int fd;

	(void)state;
	files_init(&f);
	fd = open(f.live, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, theirs, strlen(theirs)),
			 (ssize_t)strlen(theirs));
	close(fd);
	st = open_attached(f.db);
	id = new_run(st, 0);
	assert_int_not_equal(store_live_begin(st, id), 0);
	assert_int_equal(store_append_events(st, id, one, 1, &err), 0);
	assert_int_equal(stored(st, id), 1);
	store_close(st);
	fd = open(f.live, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(read(fd, buf, sizeof(buf)), (ssize_t)strlen(theirs));
	assert_memory_equal(buf, theirs, strlen(theirs));
	close(fd);
	unlink(f.live);

	/* the start of a head alone, or another user's journal: not ours */
	fd = open(f.live, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "numalab", 7), 7);
	close(fd);
	st = open_attached(f.db);
	assert_int_not_equal(store_live_begin(st, id), 0);
	store_close(st);
	assert_int_equal(size_of(f.live), 7);
	unlink(f.live);
	if (geteuid() == 0) {
		fd = open(f.live, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		assert_true(fd >= 0);
		assert_int_equal(fchown(fd, 65534, 65534), 0);
		close(fd);
		st = open_attached(f.db);
		assert_int_not_equal(store_live_begin(st, id), 0);
		store_close(st);
		assert_int_equal(size_of(f.live), 0);
		unlink(f.live);
	}

	/* held by another (a server serving this store): refused, said, the
	 * file untouched; a store not attached leaves the journal alone */
	fd = open(f.live, O_RDWR | O_CREAT, 0600);
	assert_true(fd >= 0);
	assert_int_equal(flock(fd, LOCK_EX), 0);
	st = store_open(f.db, &err);
	assert_non_null(st);
	assert_int_equal(store_live_attach(st, &err), -EBUSY);
	assert_non_null(strstr(err.msg, "another numalab server"));
	assert_int_not_equal(store_live_begin(st, id), 0);
	store_close(st);
	assert_int_equal(size_of(f.live), 0);
	close(fd);
	files_remove(&f);
}

/* After a write found the disk full: the WAL checkpointed, the next
 * writes begin it again in the room it holds rather than growing it;
 * not inside an atomic step, whose writes are not committed yet. */
static void test_room_made_in_the_wal(void **state)
{
	struct errinfo err;
	struct files f;
	struct store *st;
	off_t wal;

	(void)state;
	files_init(&f);
	st = open_attached(f.db);
	for (int i = 0; i < 20; i++)
		new_run(st, i);
	wal = size_of(f.wal);
	assert_true(wal > 0);
	assert_int_equal(store_make_room(st), 0);
	for (int i = 20; i < 25; i++)
		new_run(st, i);
	assert_int_equal(size_of(f.wal), wal);
	assert_int_equal(store_atomic_begin(st, &err), 0);
	assert_int_equal(store_make_room(st), -ENOSPC);
	assert_int_equal(store_atomic_end(st, 1, &err), 0);
	store_close(st);
	files_remove(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_the_last_section),
		cmocka_unit_test(test_journal_to_store),
		cmocka_unit_test(test_a_long_run_folds_as_it_goes),
		cmocka_unit_test(test_a_journal_of_a_deleted_run),
		cmocka_unit_test(test_another_file_left_alone),
		cmocka_unit_test(test_room_made_in_the_wal),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
