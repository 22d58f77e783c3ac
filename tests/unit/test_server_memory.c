/* test_server_memory.c - the document cache, and where the server's threads run */
#define _GNU_SOURCE
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <sched.h>

#include "doccache.h"
#include "harness_cpus.h"

static int kept(struct doccache *c, int64_t id)
{
	struct http_blob *b = doccache_get(c, id);

	http_blob_unref(b);
	return b != NULL;
}

/* Put, and the reference it gave back returned: 0 or -errno. */
static int put(struct doccache *c, int64_t id, char *json, size_t len)
{
	struct http_blob *b = doccache_put(c, id, json, len);

	http_blob_unref(b);
	return b ? 0 : -errno;
}

/* A document of n bytes, handed to the cache (it owns it from then on). */
static char *doc(size_t n)
{
	char *d = malloc(n);

	assert_non_null(d);
	memset(d, '{', n);
	return d;
}

static void test_doccache_keeps_and_evicts_oldest(void **state)
{
	struct doccache *c = doccache_new(100);

	(void)state;
	assert_non_null(c);
	assert_false(kept(c, 1));
	assert_int_equal(put(c, 1, doc(40), 40), 0);
	assert_int_equal(put(c, 2, doc(40), 40), 0);
	assert_true(kept(c, 1) && kept(c, 2));
	/* a third of 40 bytes needs room: the oldest goes */
	assert_int_equal(put(c, 3, doc(40), 40), 0);
	assert_false(kept(c, 1));
	assert_true(kept(c, 2) && kept(c, 3));
	/* the same run twice is kept once */
	assert_int_equal(put(c, 3, doc(40), 40), 0);
	assert_true(kept(c, 2));
	/* larger than the whole budget: refused, nothing dropped */
	assert_int_equal(put(c, 4, doc(101), 101), -E2BIG);
	assert_true(kept(c, 2) && kept(c, 3));
	doccache_free(c);
}

/* A blob outlives the cache that dropped it while a reader holds it. */
static void test_doccache_evicted_blob_stays_for_its_reader(void **state)
{
	struct doccache *c = doccache_new(100);
	struct http_blob *b, *again;

	(void)state;
	assert_int_equal(put(c, 1, doc(60), 60), 0);
	b = doccache_get(c, 1);
	assert_non_null(b);
	assert_int_equal(put(c, 2, doc(60), 60), 0);
	assert_false(kept(c, 1));
	assert_int_equal(http_blob_size(b), 60);
	assert_string_equal(http_blob_etag(b), http_blob_etag(b));
	assert_int_equal(strlen(http_blob_etag(b)), 18);
	/* the same bytes, the same tag; other bytes, another */
	again = http_blob_copy("{{{{", 4, "application/json");
	assert_non_null(again);
	assert_string_not_equal(http_blob_etag(again), http_blob_etag(b));
	http_blob_unref(again);
	http_blob_unref(b);
	doccache_free(c);
}

static void mask_of_this_thread(cpu_set_t *m)
{
	CPU_ZERO(m);
	assert_int_equal(sched_getaffinity(0, sizeof(*m), m), 0);
}

/* h's starting cpus into all; how many */
static int cpus_of(const struct harness_cpus *h, int32_t *all)
{
	int n = 0;

	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &h->all))
			all[n++] = c;
	return n;
}

static void test_harness_cpus_moves_and_returns(void **state)
{
	struct harness_cpus h;
	cpu_set_t m;
	int32_t first, all[CPU_SETSIZE];
	int n;

	(void)state;
	assert_int_equal(harness_cpus_init(&h), 0);
	n = cpus_of(&h, all);
	if (n < 2) {
		skip(); /* nowhere to move to */
		return;
	}
	first = all[0];
	assert_true(harness_cpus_avoid_list(&h, &first, 1) >= 1);
	mask_of_this_thread(&m);
	assert_false(CPU_ISSET(first, &m));
	assert_int_equal(CPU_COUNT(&m), n - 1);
	/* a point on every CPU: back everywhere */
	assert_int_equal(harness_cpus_avoid_list(&h, all, n), 0);
	mask_of_this_thread(&m);
	assert_true(CPU_EQUAL(&m, &h.all));
	/* the text form; nothing named, nothing moves */
	assert_int_equal(harness_cpus_avoid(&h, ""), 0);
	assert_int_equal(harness_cpus_avoid(&h, NULL), 0);
	assert_int_equal(harness_cpus_avoid(&h, "not a list"), 0);
	char text[16];
	snprintf(text, sizeof(text), "%d", first);
	assert_true(harness_cpus_avoid(&h, text) >= 1);
	mask_of_this_thread(&m);
	assert_false(CPU_ISSET(first, &m));
	harness_cpus_restore(&h);
	mask_of_this_thread(&m);
	assert_true(CPU_EQUAL(&m, &h.all));
}

/* A point on every CPU the server may use: nowhere to move, so the
 * threads yield (SCHED_BATCH), and a worker started meanwhile is told to
 * take the server's own policy back; all of it undone after. */
static void test_harness_cpus_yield_on_every_cpu(void **state)
{
	struct harness_cpus h;
	int32_t all[CPU_SETSIZE];
	int n;

	(void)state;
	if (sched_getscheduler(0) != SCHED_OTHER) {
		skip(); /* started under another policy: left as it is */
		return;
	}
	assert_int_equal(harness_cpus_init(&h), 0);
	assert_int_equal(harness_cpus_worker_policy(&h), -1);
	n = cpus_of(&h, all);
	assert_int_equal(harness_cpus_avoid_list(&h, all, n), 0);
	assert_int_equal(sched_getscheduler(0), SCHED_BATCH);
	assert_int_equal(harness_cpus_worker_policy(&h), SCHED_OTHER);
	/* the next point on every CPU again: still yielding */
	assert_int_equal(harness_cpus_avoid_list(&h, all, n), 0);
	assert_int_equal(sched_getscheduler(0), SCHED_BATCH);
	if (n >= 2) {
		/* a point that leaves a CPU free: moved there, not yielding */
		assert_true(harness_cpus_avoid_list(&h, all, 1) >= 1);
		assert_int_equal(sched_getscheduler(0), SCHED_OTHER);
		assert_int_equal(harness_cpus_worker_policy(&h), -1);
		assert_int_equal(harness_cpus_avoid_list(&h, all, n), 0);
		assert_int_equal(sched_getscheduler(0), SCHED_BATCH);
	}
	harness_cpus_restore(&h);
	assert_int_equal(sched_getscheduler(0), SCHED_OTHER);
	assert_int_equal(harness_cpus_worker_policy(&h), -1);
	cpu_set_t m;
	mask_of_this_thread(&m);
	assert_true(CPU_EQUAL(&m, &h.all));
}

/* A server started under SCHED_BATCH (chrt -b) is left as it was. */
static void test_harness_cpus_leaves_another_policy(void **state)
{
	struct harness_cpus h;
	int32_t all[CPU_SETSIZE];
	int n;

	(void)state;
	if (sched_getscheduler(0) != SCHED_OTHER) {
		skip();
		return;
	}
	assert_int_equal(
		sched_setscheduler(0, SCHED_BATCH, &(struct sched_param){0}),
		0);
	assert_int_equal(harness_cpus_init(&h), 0);
	n = cpus_of(&h, all);
	assert_int_equal(harness_cpus_avoid_list(&h, all, n), 0);
	harness_cpus_restore(&h);
	assert_int_equal(sched_getscheduler(0), SCHED_BATCH);
	assert_int_equal(harness_cpus_worker_policy(&h), -1);
	assert_int_equal(
		sched_setscheduler(0, SCHED_OTHER, &(struct sched_param){0}),
		0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_doccache_keeps_and_evicts_oldest),
		cmocka_unit_test(
			test_doccache_evicted_blob_stays_for_its_reader),
		cmocka_unit_test(test_harness_cpus_moves_and_returns),
		cmocka_unit_test(test_harness_cpus_yield_on_every_cpu),
		cmocka_unit_test(test_harness_cpus_leaves_another_policy),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
