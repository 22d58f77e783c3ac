/* loops.c - atomic_increment's variants: one loop each, kept out of line, and the chunk of a round that runs one */
#include <stdatomic.h>
#include <stdint.h>

#include "ai.h"

/*
 * The loops, one per variant, kept out of line so `objdump -d` shows each
 * on its own. What gcc 12 -O2 makes of the loop body on x86-64 is noted
 * above each; the loop counter is in a register throughout.
 */

/*
 * The two __sync forms' loop, its result used: summed, to check
 * afterwards that every value came back once, and compared with the
 * previous one to count runs (stretches of increments this thread made
 * back to back, the line staying in its cache). With the result unused
 * gcc makes both __sync forms `lock addq`, and the article's two
 * variants would be one instruction. Inlined into each with old fixed,
 * so each loop is one increment and register arithmetic.
 */
static inline __attribute__((always_inline)) void
loop_returning(uint64_t *c, uint64_t n, struct returned *r, int old)
{
	uint64_t sum = r->sum, runs = r->runs, prev = r->prev;

	for (uint64_t i = 0; i < n; i++) {
		uint64_t v = old ? __sync_fetch_and_add(c, 1)
				 : __sync_add_and_fetch(c, 1);
		sum += v;
		runs += v != prev + 1;
		prev = v;
	}
	*r = (struct returned){sum, runs, prev};
}

/*
 * mov $1,%eax; lock xadd %rax,(%rdi), then register arithmetic on the
 * new value (the returned old one plus 1)
 */
static __attribute__((noinline)) void loop_add_fetch(uint64_t *c, uint64_t n,
						     struct returned *r)
{
	loop_returning(c, n, r, 0);
}

/* mov $1,%eax; lock xadd %rax,(%rdi): the old value, used as above */
static __attribute__((noinline)) void loop_fetch_add(uint64_t *c, uint64_t n,
						     struct returned *r)
{
	loop_returning(c, n, r, 1);
}

/*
 * Figure 6.12's third form: mov (%rdi),%rax; lea 1(%rax),%rdx;
 * lock cmpxchg %rdx,(%rdi); jne back to the load. Two memory operations
 * per try, and a retry whenever another core wrote in between.
 */
static __attribute__((noinline)) uint64_t loop_cas(uint64_t *c, uint64_t n)
{
	uint64_t retries = 0;

	for (uint64_t i = 0; i < n; i++)
		for (;;) {
			uint64_t v = __atomic_load_n(c, __ATOMIC_RELAXED);
			if (__sync_bool_compare_and_swap(c, v, v + 1))
				break;
			retries++;
		}
	return retries;
}

/*
 * lock addq $1,(%rdi) for both orders: on x86 every locked instruction is
 * a full barrier already. (On arm64 relaxed is ldadd, seq_cst ldaddal.)
 */
static __attribute__((noinline)) void loop_c11_relaxed(_Atomic uint64_t *c,
						       uint64_t n)
{
	for (uint64_t i = 0; i < n; i++)
		atomic_fetch_add_explicit(c, 1, memory_order_relaxed);
}

static __attribute__((noinline)) void loop_c11_seq_cst(_Atomic uint64_t *c,
						       uint64_t n)
{
	for (uint64_t i = 0; i < n; i++)
		atomic_fetch_add_explicit(c, 1, memory_order_seq_cst);
}

#if HAVE_LOCK_SKIP
/*
 * The article's trick, as written: cmpl $0,(%rsi); je 1f; lock; 1: addq
 * $1,(%rdi). objdump shows `lock addq $0x1,(%rdi)` with the je landing
 * one byte into it, past the 0xf0 prefix: one thread adds without the
 * lock, several add with it.
 */
static __attribute__((noinline)) void
loop_lock_skip(uint64_t *c, const int *multi, uint64_t n)
{
	for (uint64_t i = 0; i < n; i++)
		__asm__ volatile("cmpl $0, %1\n\t"
				 "je 1f\n\t"
				 "lock\n"
				 "1:\taddq $1, %0"
				 : "+m"(*c)
				 : "m"(*multi)
				 : "cc");
}
#endif

/*
 * Not atomic: mov (%rdi),%rax; add $1,%rax; mov %rax,(%rdi). Relaxed
 * atomic loads and stores are plain movs, but unlike a volatile they are
 * not a data race in C, so the lost updates are the hardware's doing,
 * not undefined behaviour. per_thread runs the same loop on its own slot.
 */
static __attribute__((noinline)) void loop_plain(uint64_t *c, uint64_t n)
{
	for (uint64_t i = 0; i < n; i++)
		__atomic_store_n(c, __atomic_load_n(c, __ATOMIC_RELAXED) + 1,
				 __ATOMIC_RELAXED);
}

/* Runs variant v for n increments: one chunk of a thread's round. */
void ai_chunk(struct ai_job *j, enum variant v, struct slot *s, uint64_t *c,
	      uint64_t n, struct returned *ret)
{
	switch (v) {
	case V_ADD_FETCH:
		loop_add_fetch(c, n, ret);
		break;
	case V_FETCH_ADD:
		loop_fetch_add(c, n, ret);
		break;
	case V_CAS:
		s->retries += loop_cas(c, n);
		break;
	case V_C11_RELAXED:
		loop_c11_relaxed((_Atomic uint64_t *)c, n);
		break;
	case V_C11_SEQ_CST:
		loop_c11_seq_cst((_Atomic uint64_t *)c, n);
		break;
	case V_LOCK_SKIP:
#if HAVE_LOCK_SKIP
		loop_lock_skip(c, &j->multi, n);
#endif
		break;
	case V_PLAIN:
		loop_plain(c, n);
		break;
	case V_PER_THREAD:
		loop_plain(&s->count, n);
		break;
	case NVARIANTS:
		break;
	}
	(void)j;
}
