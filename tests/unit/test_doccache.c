/* test_doccache.c - ended runs' documents kept by id: found among many, the oldest dropped past the budget */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "doccache.h"
#include "http_blob.h"

/* A document of len bytes naming id, malloc'd as doccache_put takes it. */
static char *doc(int64_t id, size_t len)
{
	char *s = malloc(len + 1);

	assert_non_null(s);
	memset(s, ' ', len);
	snprintf(s, len, "{\"id\":%lld}", (long long)id);
	return s;
}

static void assert_kept(struct doccache *c, int64_t id, size_t len)
{
	struct http_blob *b = doccache_get(c, id);

	assert_non_null(b);
	assert_int_equal(http_blob_size(b), len);
	http_blob_unref(b);
}

/* Thousands of runs (the index grows many times over): each found by its
 * id, none confused with another. */
static void test_many_runs_each_found(void **state)
{
	struct doccache *c = doccache_new(1u << 20);
	const int64_t n = 5000;

	(void)state;
	assert_non_null(c);
	for (int64_t id = 1; id <= n; id++) {
		struct http_blob *b =
			doccache_put(c, id * 7, doc(id, 100), 100);
		assert_non_null(b);
		http_blob_unref(b);
	}
	for (int64_t id = 1; id <= n; id++)
		assert_kept(c, id * 7, 100);
	assert_null(doccache_get(c, 8));
	assert_null(doccache_get(c, -7));
	doccache_free(c);
}

/* Past the budget the oldest go first, and are found no more; a run kept
 * twice keeps its first document. */
static void test_oldest_go_past_the_budget(void **state)
{
	struct doccache *c = doccache_new(1000);
	struct http_blob *b, *again;

	(void)state;
	for (int64_t id = 1; id <= 30; id++) {
		b = doccache_put(c, id, doc(id, 100), 100);
		assert_non_null(b);
		http_blob_unref(b);
	}
	for (int64_t id = 1; id <= 20; id++)
		assert_null(doccache_get(c, id));
	for (int64_t id = 21; id <= 30; id++)
		assert_kept(c, id, 100);
	b = doccache_get(c, 30);
	again = doccache_put(c, 30, doc(30, 50), 50);
	assert_ptr_equal(again, b);
	http_blob_unref(again);
	http_blob_unref(b);
	assert_kept(c, 30, 100);
	/* larger than the whole budget: refused, the others kept */
	assert_null(doccache_put(c, 99, doc(99, 2000), 2000));
	assert_kept(c, 21, 100);
	doccache_free(c);
}

/* The ETag: the same bytes the same tag; a byte changed anywhere, or one
 * more, another (lengths around the digest's 32- and 8-byte steps). */
static void test_etag_follows_every_byte(void **state)
{
	static const size_t lens[] = {0,  1,  7,  8,  9,  31,
				      32, 33, 63, 64, 65, 1000};

	(void)state;
	for (size_t k = 0; k < sizeof(lens) / sizeof(lens[0]); k++) {
		size_t n = lens[k];
		char *a = malloc(n + 2), *b = malloc(n + 2);
		struct http_blob *ba, *bb;

		assert_non_null(a);
		assert_non_null(b);
		for (size_t i = 0; i < n + 1; i++)
			a[i] = b[i] = (char)('a' + i % 26);
		ba = http_blob_new(a, n, "text/plain");
		bb = http_blob_new(b, n, "text/plain");
		assert_string_equal(http_blob_etag(ba), http_blob_etag(bb));
		for (size_t i = 0; i < n; i++) {
			char *c = malloc(n + 1);
			struct http_blob *bc;

			memcpy(c, a, n);
			c[i] ^= 1;
			bc = http_blob_new(c, n, "text/plain");
			assert_string_not_equal(http_blob_etag(ba),
						http_blob_etag(bc));
			http_blob_unref(bc);
		}
		char *longer = malloc(n + 1);
		memcpy(longer, a, n + 1);
		struct http_blob *bl =
			http_blob_new(longer, n + 1, "text/plain");
		assert_string_not_equal(http_blob_etag(ba), http_blob_etag(bl));
		http_blob_unref(bl);
		http_blob_unref(ba);
		http_blob_unref(bb);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_many_runs_each_found),
		cmocka_unit_test(test_oldest_go_past_the_budget),
		cmocka_unit_test(test_etag_follows_every_byte),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
