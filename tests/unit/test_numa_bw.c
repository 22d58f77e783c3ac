/* test_numa_bw.c - every bandwidth loop, in every instruction set this CPU has, does what it says */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "bw.h"

#define LEN (64 * 1024 + 3 * BW_CHUNK) /* whole chunks, not whole pages */

static uint64_t scalar_sum(const uint64_t *w, size_t words)
{
	uint64_t s = 0;
	for (size_t i = 0; i < words; i++)
		s += w[i];
	return s;
}

static void test_loops_every_isa(void **state)
{
	uint64_t *src = aligned_alloc(4096, (LEN + 8191) / 4096 * 4096);
	uint64_t *dst = aligned_alloc(4096, (LEN + 8191) / 4096 * 4096);
	size_t words = LEN / 8;
	int tried = 0;
	(void)state;
	assert_non_null(src);
	assert_non_null(dst);
	for (int isa = 0; isa < BW_NISA; isa++) {
		if (!bw_isa_supported((enum bw_isa)isa)) {
			print_message("skip %s: this CPU lacks it\n",
				      bw_isa_names[isa]);
			continue;
		}
		tried++;
		bw_fill(src, LEN, 1000 + (uint64_t)isa);
		assert_int_equal(src[7], 1007 + (uint64_t)isa);
		/* a guard word past the end shows a loop that runs over */
		src[words] = dst[words] = 0xdeadbeef;
		assert_true(bw_kernel_isa(isa, BW_READ, NULL, src, LEN, 0) ==
			    scalar_sum(src, words));
		for (int op = BW_WRITE; op <= BW_WRITE_PFW; op++) {
			if (!bw_op_supported((enum bw_op)op))
				continue;
			memset(dst, 0, LEN);
			uint64_t pat = 0x1234567800000000ull + (uint64_t)op;
			assert_true(bw_kernel_isa(isa, op, dst, NULL, LEN,
						  pat) == 0);
			for (size_t i = 0; i < words; i++)
				if (dst[i] != pat)
					fail_msg("%s %s: word %zu is %llx",
						 bw_isa_names[isa],
						 bw_op_names[op], i,
						 (unsigned long long)dst[i]);
			assert_true(dst[words] == 0xdeadbeef);
		}
		for (int op = BW_COPY; op <= BW_COPY_NT; op++) {
			memset(dst, 0, LEN);
			bw_kernel_isa(isa, op, dst, src, LEN, 0);
			assert_memory_equal(dst, src, LEN);
			assert_true(dst[words] == 0xdeadbeef);
		}
	}
	assert_true(tried >= 1); /* SSE2 at least: every x86-64 has it */
	free(src);
	free(dst);
}

static void test_declared_bytes(void **state)
{
	(void)state;
	assert_int_equal(bw_op_factor(BW_READ), 1);
	assert_int_equal(bw_op_factor(BW_WRITE), 1);
	assert_int_equal(bw_op_factor(BW_WRITE_NT), 1);
	assert_int_equal(bw_op_factor(BW_WRITE_PFW), 1);
	assert_int_equal(bw_op_factor(BW_COPY), 2);
	assert_int_equal(bw_op_factor(BW_COPY_NT), 2);
	assert_string_equal(bw_op_names[BW_WRITE_PFW], "write_prefetchw");
	assert_null(bw_op_names[BW_NOPS]);
}

static void test_split(void **state)
{
	char *base = (char *)0x100000;
	char *out[3];
	(void)state;
	/* 3 slices of 10 pages + 100 bytes: each starts on a page, 3 pages each
	 */
	assert_int_equal(bw_split(base, 10 * 4096 + 100, 3, out), 3 * 4096);
	assert_ptr_equal(out[0], base);
	assert_ptr_equal(out[2], base + 6 * 4096);
	assert_int_equal(bw_split(base, 4096, 2, out), 0);
}

static void test_measure(void **state)
{
	struct topo *t = topo_load();
	size_t bytes = 1 << 20;
	char *buf = aligned_alloc(4096, 2 * bytes);
	char *src[1] = {buf}, *dst[1] = {buf + bytes};
	int cpu = -1;
	(void)state;
	assert_non_null(t);
	assert_non_null(buf);
	for (int op = 0; op < BW_NOPS; op++) {
		struct bw_result r;
		struct bw_job j = {.op = op,
				   .nthreads = 1,
				   .cpus = &cpu,
				   .dst = dst,
				   .src = src,
				   .bytes = bytes,
				   .passes = 2,
				   .touch = 1,
				   .warmup = 1,
				   .repeat = 3};
		if (!bw_op_supported((enum bw_op)op)) {
			assert_int_equal(bw_measure(&j, t, &r), -ENOTSUP);
			continue;
		}
		assert_int_equal(bw_measure(&j, t, &r), 0);
		assert_int_equal(r.check_rc, 0);
		assert_int_equal(r.n, 3);
		assert_true(r.median > 0);
		assert_true(r.bytes_per_round ==
			    (double)bw_op_factor(op) * bytes * 2);
		bw_result_free(&r);
	}
	/* sizes the loops cannot do are refused, not run */
	struct bw_result r;
	struct bw_job bad = {.op = BW_READ,
			     .nthreads = 1,
			     .cpus = &cpu,
			     .src = src,
			     .bytes = 1000,
			     .passes = 1,
			     .repeat = 1};
	assert_int_equal(bw_measure(&bad, t, &r), -EINVAL);
	free(buf);
	topo_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_loops_every_isa),
		cmocka_unit_test(test_declared_bytes),
		cmocka_unit_test(test_split),
		cmocka_unit_test(test_measure),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
