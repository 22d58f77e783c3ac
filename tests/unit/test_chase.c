/* test_chase.c - the pointer chase's permutation: one cycle through every node, no two neighbours in one line or page, and the walk that follows it */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "chase.h"

/* Every node once, and each node's successor (the last's is the first) on
 * another page and so on another line. */
static void check_order_in(size_t nnodes, size_t line, size_t block_pages,
			   uint64_t seed)
{
	uint32_t *order = malloc(nnodes * sizeof(*order));
	unsigned char *seen = calloc(nnodes, 1);
	size_t per_page = CHASE_PAGE / line;

	assert_non_null(order);
	assert_non_null(seen);
	assert_int_equal(chase_order(nnodes, line, block_pages, seed, order),
			 0);
	for (size_t k = 0; k < nnodes; k++) {
		uint32_t a = order[k], b = order[(k + 1) % nnodes];
		assert_true(a < nnodes);
		assert_false(seen[a]);
		seen[a] = 1;
		assert_int_not_equal(a, b);
		if (a / per_page == b / per_page)
			fail_msg(
				"nodes %u and %u follow each other in page %zu "
				"(%zu nodes, line %zu, seed %llu)",
				a, b, a / per_page, nnodes, line,
				(unsigned long long)seed);
	}
	free(order);
	free(seen);
}

static void check_order(size_t nnodes, size_t line, uint64_t seed)
{
	check_order_in(nnodes, line, CHASE_BLOCK_PAGES, seed);
}

static void order_one_cycle_no_shared_page(void **state)
{
	(void)state;
	/* two pages (the fewest), three, a few, many; 64- and 128-byte lines */
	for (uint64_t seed = 1; seed <= 20; seed++) {
		check_order(2 * 64, 64, seed);
		check_order(3 * 64, 64, seed);
		check_order(5 * 64, 64, seed);
		check_order(2 * 32, 128, seed);
		check_order(7 * 32, 128, seed);
	}
	check_order(4096 * 64, 64, 42);
	/* multichase's stride, and fully random (one block of all pages) */
	for (uint64_t seed = 1; seed <= 5; seed++) {
		check_order(2 * 16, CHASE_STRIDE, seed);
		check_order(300 * 16, CHASE_STRIDE, seed);
		check_order_in(2 * 16, CHASE_STRIDE, 0, seed);
		check_order_in(300 * 16, CHASE_STRIDE, 0, seed);
	}
}

/*
 * Locality 0 spreads neighbours over the whole buffer: most steps of a
 * chain over 512 pages go more than 64 pages away, where blocks of 64
 * pages keep all but the steps between blocks within one.
 */
static void order_fully_random(void **state)
{
	size_t per_page = CHASE_PAGE / CHASE_STRIDE, n = 512 * per_page;
	uint32_t *order = malloc(n * sizeof(*order));
	size_t far[2] = {0, 0};
	(void)state;
	assert_non_null(order);
	for (int k = 0; k < 2; k++) {
		assert_int_equal(chase_order(n, CHASE_STRIDE,
					     k ? 0 : CHASE_BLOCK_PAGES, 9,
					     order),
				 0);
		for (size_t i = 0; i + 1 < n; i++) {
			long a = (long)(order[i] / per_page),
			     b = (long)(order[i + 1] / per_page);
			far[k] += labs(a - b) >= 128;
		}
	}
	assert_true(far[0] < 8);     /* 7 steps between 8 blocks at most */
	assert_true(far[1] > n / 4); /* random: about 5 in 8 */
	free(order);
}

/* The block of page a, as chase_order cuts npages into nblocks. */
static size_t block_of(size_t a, size_t npages, size_t nblocks)
{
	size_t b = 0;

	while (b + 1 < nblocks && (b + 1) * npages / nblocks <= a)
		b++;
	return b;
}

/* The chain leaves a block of pages only once it has visited all of it:
 * as many crossings as blocks, for sizes that cut into blocks unevenly. */
static void order_keeps_to_blocks(void **state)
{
	size_t sizes[] = {CHASE_BLOCK_PAGES * 3 + 7, CHASE_BLOCK_PAGES * 2 - 1,
			  CHASE_BLOCK_PAGES * 5};
	size_t per_page = CHASE_PAGE / 64;

	(void)state;
	for (size_t z = 0; z < sizeof(sizes) / sizeof(sizes[0]); z++) {
		size_t npages = sizes[z], n = npages * per_page;
		size_t nblocks = npages / CHASE_BLOCK_PAGES, crossings = 0;
		uint32_t *order = malloc(n * sizeof(*order));

		assert_non_null(order);
		check_order(n, 64, 3);
		assert_int_equal(
			chase_order(n, 64, CHASE_BLOCK_PAGES, 3, order), 0);
		for (size_t k = 0; k < n; k++) {
			size_t a = order[k] / per_page,
			       b = order[(k + 1) % n] / per_page;
			size_t ba = block_of(a, npages, nblocks),
			       bb = block_of(b, npages, nblocks);
			crossings += ba != bb;
		}
		/* one block: the chain never leaves it */
		assert_int_equal(crossings, nblocks > 1 ? nblocks : 0);
		free(order);
	}
}

/*
 * Inside a block the order is random, as multichase's is, not laps that
 * visit every page once before any twice (laps measured about 7 % under
 * a random order from memory): some run of npages neighbours repeats a
 * page.
 */
static void order_is_random_in_a_block(void **state)
{
	size_t per_page = CHASE_PAGE / 64, npages = CHASE_BLOCK_PAGES,
	       n = npages * per_page;
	uint32_t *order = malloc(n * sizeof(*order));
	unsigned char *seen = malloc(npages);
	int repeats = 0;

	(void)state;
	assert_non_null(order);
	assert_non_null(seen);
	assert_int_equal(chase_order(n, 64, CHASE_BLOCK_PAGES, 5, order), 0);
	for (size_t at = 0; at + npages <= n && !repeats; at += npages) {
		memset(seen, 0, npages);
		for (size_t k = at; k < at + npages && !repeats; k++) {
			repeats = seen[order[k] / per_page];
			seen[order[k] / per_page] = 1;
		}
	}
	assert_true(repeats);
	free(order);
	free(seen);
}

/* The chain written into a buffer is the same cycle: a walk of every node
 * visits each once and comes back where it started. */
static void build_is_one_cycle(void **state)
{
	size_t len = 64 * CHASE_PAGE, line = 64, n = len / line;
	char *buf = aligned_alloc(CHASE_PAGE, len);
	unsigned char *seen = calloc(n, 1);
	void *p;

	(void)state;
	assert_non_null(buf);
	assert_non_null(seen);
	assert_int_equal(chase_build(buf, len, line, CHASE_BLOCK_PAGES, 7), 0);
	p = buf;
	for (size_t k = 0; k < n; k++) {
		size_t at = (size_t)((char *)p - buf);
		void *next = chase_walk(p, 1);
		size_t to = (size_t)((char *)next - buf);
		assert_int_equal(at % line, 0);
		assert_false(seen[at / line]);
		seen[at / line] = 1;
		assert_int_not_equal(at / CHASE_PAGE, to / CHASE_PAGE);
		p = next;
	}
	assert_ptr_equal(p, buf);
	/* a long walk is the same as many short ones */
	assert_ptr_equal(chase_walk(buf, 3 * n + 5), chase_walk(buf, 5));
	free(buf);
	free(seen);
}

/* What cannot be chained is refused, not rounded. */
static void refuses_what_it_cannot_chain(void **state)
{
	uint32_t order[256];
	char buf[2 * CHASE_PAGE];

	(void)state;
	assert_int_equal(chase_order(64, 64, CHASE_BLOCK_PAGES, 1, order),
			 -EINVAL); /* one page */
	assert_int_equal(chase_order(100, 64, CHASE_BLOCK_PAGES, 1, order),
			 -EINVAL);
	assert_int_equal(chase_order(128, 48, CHASE_BLOCK_PAGES, 1, order),
			 -EINVAL);
	assert_int_equal(chase_build(buf, CHASE_PAGE, 64, CHASE_BLOCK_PAGES, 1),
			 -EINVAL);
	assert_int_equal(
		chase_build(buf, CHASE_PAGE + 64, 64, CHASE_BLOCK_PAGES, 1),
		-EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(order_one_cycle_no_shared_page),
		cmocka_unit_test(order_fully_random),
		cmocka_unit_test(order_keeps_to_blocks),
		cmocka_unit_test(order_is_random_in_a_block),
		cmocka_unit_test(build_is_one_cycle),
		cmocka_unit_test(refuses_what_it_cannot_chain),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
