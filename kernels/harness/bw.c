/* bw.c - streaming loops that reach what the memory gives, and how their bandwidth is measured */
#include "bw.h"

#include <cpuid.h>
#include <errno.h>
#include <immintrin.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"

const char *const bw_op_names[] = {
	"read", "write",   "write_nt", "write_prefetchw",
	"copy", "copy_nt", NULL};
const char *const bw_isa_names[] = {"sse2", "avx2", "avx512f", NULL};

int bw_op_factor(enum bw_op op)
{
	return op == BW_COPY || op == BW_COPY_NT ? 2 : 1;
}

static int has_prefetchw(void)
{
	unsigned a, b, c, d;

	/* CPUID 0x80000001 ECX bit 8: PREFETCHW (AMD's 3DNowPrefetch, Intel
	 * since Broadwell) */
	if (!__get_cpuid(0x80000001, &a, &b, &c, &d))
		return 0;
	return (c >> 8) & 1;
}

int bw_op_supported(enum bw_op op)
{
	if (op == BW_WRITE_PFW)
		return has_prefetchw();
	return op >= 0 && op < BW_NOPS;
}

int bw_isa_supported(enum bw_isa isa)
{
	__builtin_cpu_init();
	switch (isa) {
	case BW_SSE2:
		return 1; /* every x86-64 has it */
	case BW_AVX2:
		return __builtin_cpu_supports("avx2");
	case BW_AVX512:
		return __builtin_cpu_supports("avx512f");
	case BW_NISA:
		break;
	}
	return 0;
}

enum bw_isa bw_isa_best(void)
{
	static int best = -1;

	if (best >= 0)
		return (enum bw_isa)best;
	const char *want = getenv("NUMALAB_BW_ISA");
	int b = BW_SSE2;
	for (int i = BW_NISA - 1; i > BW_SSE2; i--)
		if (bw_isa_supported((enum bw_isa)i)) {
			b = i;
			break;
		}
	for (int i = 0; want && i < BW_NISA; i++)
		if (!strcmp(want, bw_isa_names[i]) && i <= b)
			b = i;
	best = b;
	return (enum bw_isa)b;
}

/*
 * The loops. Reads and copies move BW_CHUNK bytes a turn: 32 SSE, 16
 * AVX2 or 8 AVX-512 vectors, fully unrolled; writes WTURN vectors a
 * turn from four registers (FOUR_REGS below). Reads feed four
 * accumulators so the adds never wait on each other; the sum of the words is
 * returned so the loads cannot be dropped. LAUNDER hides the pointer's
 * progression from the compiler, which would otherwise turn a store or copy
 * loop into a call to memset or memcpy (loop distribution, on at -O2), and
 * those switch to streaming stores on their own above a size.
 */
#define LAUNDER(p) __asm__("" : "+r"(p))
/*
 * The loads of a read in address order. Left alone, GCC issues the
 * independent loads of one unrolled chunk in a shuffled order (and
 * reassociates the adds), which hides the stream from the L1 prefetcher:
 * about 5% of a core's memory read bandwidth on Zen 4. An empty asm that
 * reads and writes every accumulator after each add pins the order.
 */
#define IN_ORDER(a, b, c, d) __asm__("" : "+v"(a), "+v"(b), "+v"(c), "+v"(d))
#define PFW_DIST 1024 /* bytes ahead of the store that prefetchw asks for */
/*
 * The write loops store from four registers, as likwid-bench's
 * store_avx.ptt and store_avx512.ptt do, WTURN vectors a turn: 4 SSE or
 * AVX2 (likwid's 128 bytes), 8 AVX-512. One register stored sixteen
 * times a turn, this file's earlier AVX2 loop, now and then fell from
 * ~228 to ~175 GB/s in L2 for a whole process on this Zen 5 guest (best
 * of 30 sweeps; 1 process in 9); four registers did not in 9 of 9.
 * AVX-512 keeps 8 a turn: likwid's 4 a turn gave ~2 % less here. The
 * empty asm makes the four copies of the pattern four registers.
 */
#define FOUR_REGS(b, c, d) __asm__("" : "+v"(b), "+v"(c), "+v"(d))
/*
 * The AVX2 write loops start with every vector register zeroed
 * (vzeroall). On this Zen 5 guest the same AVX2 store loop ran at ~230
 * or ~180 GB/s in L2, and it fell to ~180 after AVX-512 code had run in
 * 4 of 6 processes (glibc's string functions use zmm registers too);
 * with a vzeroall before it, in none of 6. likwid-bench's store_avx
 * always ran at the fast speed.
 */
#define NO_CLEAN() ((void)0)

/*
 * A write loop, its stores ST: STORE, or STREAM for the non-temporal one,
 * which has no sfence here: one per round (bw_body), as likwid's
 * store_mem has none in its loop.
 */
#define BW_WRITE(NAME, TGT, VT, WTURN, CLEAN, ST, SET1)                        \
	TGT static uint64_t NAME(void *dst, const void *src, size_t len,       \
				 uint64_t pat)                                 \
	{                                                                      \
		char *p = dst, *end = p + len;                                 \
		CLEAN();                                                       \
		VT v0 = SET1((long long)pat), v1 = v0, v2 = v0, v3 = v0;       \
		(void)src;                                                     \
		FOUR_REGS(v1, v2, v3);                                         \
		for (; p < end; p += WTURN * sizeof(VT)) {                     \
			_Pragma("GCC unroll 8") for (int k = 0; k < WTURN;     \
						     k += 4)                   \
			{                                                      \
				ST(p + k * sizeof(VT), v0);                    \
				ST(p + (k + 1) * sizeof(VT), v1);              \
				ST(p + (k + 2) * sizeof(VT), v2);              \
				ST(p + (k + 3) * sizeof(VT), v3);              \
			}                                                      \
			LAUNDER(p);                                            \
		}                                                              \
		return 0;                                                      \
	}

/* A copy loop, its stores ST (a non-temporal one is fenced by the caller,
 * as a write's). */
#define BW_COPY(NAME, TGT, VT, LOAD, ST)                                       \
	TGT static uint64_t NAME(void *dst, const void *src, size_t len,       \
				 uint64_t pat)                                 \
	{                                                                      \
		enum { NV = BW_CHUNK / sizeof(VT) };                           \
		char *d = dst;                                                 \
		const char *s = src, *end = s + len;                           \
		(void)pat;                                                     \
		for (; s < end; s += BW_CHUNK, d += BW_CHUNK) {                \
			_Pragma("GCC unroll 32") for (int k = 0; k < NV; k++)  \
				ST(d + k * sizeof(VT),                         \
				   LOAD(s + k * sizeof(VT)));                  \
			LAUNDER(s);                                            \
			LAUNDER(d);                                            \
		}                                                              \
		return 0;                                                      \
	}

#define BW_DEFINE(SFX, TGT, TGT_PFW, VT, WTURN, CLEAN, LOAD, STORE, STREAM,    \
		  ADD, SET1, ZERO)                                             \
	TGT static uint64_t read_##SFX(void *dst, const void *src, size_t len, \
				       uint64_t pat)                           \
	{                                                                      \
		enum { NV = BW_CHUNK / sizeof(VT) };                           \
		const char *p = src, *end = p + len;                           \
		VT a0 = ZERO(), a1 = ZERO(), a2 = ZERO(), a3 = ZERO();         \
		uint64_t w[4 * sizeof(VT) / 8], sum = 0;                       \
		(void)dst;                                                     \
		(void)pat;                                                     \
		for (; p < end; p += BW_CHUNK) {                               \
			_Pragma("GCC unroll 32") for (int k = 0; k < NV;       \
						      k += 4)                  \
			{                                                      \
				a0 = ADD(a0, LOAD(p + (k + 0) * sizeof(VT)));  \
				IN_ORDER(a0, a1, a2, a3);                      \
				a1 = ADD(a1, LOAD(p + (k + 1) * sizeof(VT)));  \
				IN_ORDER(a0, a1, a2, a3);                      \
				a2 = ADD(a2, LOAD(p + (k + 2) * sizeof(VT)));  \
				IN_ORDER(a0, a1, a2, a3);                      \
				a3 = ADD(a3, LOAD(p + (k + 3) * sizeof(VT)));  \
				IN_ORDER(a0, a1, a2, a3);                      \
			}                                                      \
		}                                                              \
		memcpy(w, &a0, sizeof(VT));                                    \
		memcpy((char *)w + sizeof(VT), &a1, sizeof(VT));               \
		memcpy((char *)w + 2 * sizeof(VT), &a2, sizeof(VT));           \
		memcpy((char *)w + 3 * sizeof(VT), &a3, sizeof(VT));           \
		for (size_t i = 0; i < sizeof(w) / 8; i++)                     \
			sum += w[i];                                           \
		return sum;                                                    \
	}                                                                      \
	BW_WRITE(write_##SFX, TGT, VT, WTURN, CLEAN, STORE, SET1)              \
	BW_WRITE(write_nt_##SFX, TGT, VT, WTURN, CLEAN, STREAM, SET1)          \
	TGT_PFW static uint64_t write_pfw_##SFX(void *dst, const void *src,    \
						size_t len, uint64_t pat)      \
	{                                                                      \
		enum {                                                         \
			NV = BW_CHUNK / sizeof(VT),                            \
			PER_LINE = 64 / sizeof(VT)                             \
		};                                                             \
		char *p = dst, *end = p + len;                                 \
		VT v = SET1((long long)pat);                                   \
		(void)src;                                                     \
		for (; p < end; p += BW_CHUNK) {                               \
			_Pragma("GCC unroll 32") for (int k = 0; k < NV; k++)  \
			{                                                      \
				if (k % PER_LINE == 0)                         \
					__builtin_prefetch(                    \
						p + PFW_DIST + k * sizeof(VT), \
						1, 3);                         \
				STORE(p + k * sizeof(VT), v);                  \
			}                                                      \
			LAUNDER(p);                                            \
		}                                                              \
		return 0;                                                      \
	}                                                                      \
	BW_COPY(copy_##SFX, TGT, VT, LOAD, STORE)                              \
	BW_COPY(copy_nt_##SFX, TGT, VT, LOAD, STREAM)

#define SSE_LOAD(p) _mm_load_si128((const __m128i *)(const void *)(p))
#define SSE_STORE(p, v) _mm_store_si128((__m128i *)(void *)(p), v)
#define SSE_STREAM(p, v) _mm_stream_si128((__m128i *)(void *)(p), v)
BW_DEFINE(sse2, , __attribute__((target("prfchw"))), __m128i, 4, NO_CLEAN,
	  SSE_LOAD, SSE_STORE, SSE_STREAM, _mm_add_epi64, _mm_set1_epi64x,
	  _mm_setzero_si128)

#define AVX2_LOAD(p) _mm256_load_si256((const __m256i *)(const void *)(p))
#define AVX2_STORE(p, v) _mm256_store_si256((__m256i *)(void *)(p), v)
#define AVX2_STREAM(p, v) _mm256_stream_si256((__m256i *)(void *)(p), v)
BW_DEFINE(avx2, __attribute__((target("avx2"))),
	  __attribute__((target("avx2,prfchw"))), __m256i, 4, _mm256_zeroall,
	  AVX2_LOAD, AVX2_STORE, AVX2_STREAM, _mm256_add_epi64,
	  _mm256_set1_epi64x, _mm256_setzero_si256)

#define AVX512_LOAD(p) _mm512_load_si512((const void *)(p))
#define AVX512_STORE(p, v) _mm512_store_si512((void *)(p), v)
#define AVX512_STREAM(p, v) _mm512_stream_si512((__m512i *)(void *)(p), v)
BW_DEFINE(avx512, __attribute__((target("avx512f"))),
	  __attribute__((target("avx512f,prfchw"))), __m512i, 8, NO_CLEAN,
	  AVX512_LOAD, AVX512_STORE, AVX512_STREAM, _mm512_add_epi64,
	  _mm512_set1_epi64, _mm512_setzero_si512)

typedef uint64_t (*bw_fn)(void *dst, const void *src, size_t len, uint64_t pat);

#define BW_ROW(SFX)                                                            \
	{                                                                      \
		read_##SFX, write_##SFX, write_nt_##SFX, write_pfw_##SFX,      \
			copy_##SFX, copy_nt_##SFX                              \
	}
static const bw_fn kernels[BW_NISA][BW_NOPS] = {BW_ROW(sse2), BW_ROW(avx2),
						BW_ROW(avx512)};

/* Streaming stores are weakly ordered: they must drain (sfence) before a
 * clock is read or another thread reads the data. */
static int is_nt(enum bw_op op)
{
	return op == BW_WRITE_NT || op == BW_COPY_NT;
}

uint64_t bw_kernel_unfenced(enum bw_isa isa, enum bw_op op, void *dst,
			    const void *src, size_t len, uint64_t pattern)
{
	return kernels[isa][op](dst, src, len, pattern);
}

uint64_t bw_kernel_isa(enum bw_isa isa, enum bw_op op, void *dst,
		       const void *src, size_t len, uint64_t pattern)
{
	uint64_t v = kernels[isa][op](dst, src, len, pattern);

	if (is_nt(op))
		_mm_sfence();
	return v;
}

void bw_fill(void *p, size_t len, uint64_t seed)
{
	uint64_t *w = p;

	for (size_t i = 0; i < len / 8; i++)
		w[i] = seed + i;
}

size_t bw_split(char *base, size_t len, int n, char **out)
{
	size_t stride;

	if (n < 1)
		return 0;
	stride = len / (size_t)n / BW_ALIGN * BW_ALIGN;
	for (int i = 0; i < n; i++)
		out[i] = stride ? base + (size_t)i * stride : NULL;
	return stride;
}

/* One 64-byte line per thread for what it returns: no false sharing. */
struct bw_slot {
	uint64_t sum;
	int rc;
	char pad[64 - sizeof(uint64_t) - sizeof(int)];
};

struct bw_run {
	const struct bw_job *job;
	bw_fn fn;
	uint64_t pattern;
	struct bw_slot *slot;
};

static int is_write(enum bw_op op)
{
	return op == BW_WRITE || op == BW_WRITE_NT || op == BW_WRITE_PFW;
}

static int uses_src(enum bw_op op)
{
	return op == BW_READ || op == BW_COPY || op == BW_COPY_NT;
}

static int uses_dst(enum bw_op op)
{
	return op != BW_READ;
}

static void bw_setup(void *arg, int tid)
{
	struct bw_run *r = arg;
	const struct bw_job *j = r->job;

	if (j->before_touch)
		r->slot[tid].rc = j->before_touch(j->arg, tid);
	if (!j->touch)
		return;
	/* the owning thread writes its pages first, so they land by its policy
	 */
	if (uses_src(j->op))
		bw_fill(j->src[tid], j->bytes, (uint64_t)tid << 40);
	if (uses_dst(j->op))
		bw_fill(j->dst[tid], j->bytes, (uint64_t)(tid + 1) << 48);
}

/*
 * A thread marks its progress (team_mark) once every this many bytes of
 * its buffer, 50-200 microseconds at cache and memory speed: a pass
 * longer than that runs in pieces of it, shorter passes mark when their
 * bytes add up to it. A round is then timed over the stretches every
 * thread was on a cpu, so a busy machine's preemptions are left out of
 * the bandwidth. Marks cost more than their clock read: one every MiB
 * (every 6 us of an L2-sized write loop) made that loop 18% slower.
 */
#define BW_MARK (8u << 20)

static void bw_body(void *arg, int tid, int round)
{
	struct bw_run *r = arg;
	const struct bw_job *j = r->job;
	char *dst = j->dst ? j->dst[tid] : NULL;
	const char *src = j->src ? j->src[tid] : NULL;
	double factor = bw_op_factor(j->op);
	size_t done = 0, next = BW_MARK;

	(void)round;
	for (int p = 0; p < j->passes; p++) {
		uint64_t sum = 0;
		for (size_t off = 0; off < j->bytes; off += BW_MARK) {
			size_t len = j->bytes - off < BW_MARK ? j->bytes - off
							      : BW_MARK;
			/* a read's sum wraps: the pieces' sums add up to it */
			sum += r->fn(dst ? dst + off : NULL,
				     src ? src + off : NULL, len, r->pattern);
			done += len;
			if (done >= next) {
				team_mark(factor * (double)done);
				next = done + BW_MARK;
			}
		}
		r->slot[tid].sum = sum;
	}
	team_mark(factor * (double)done);
	/*
	 * One sfence a round, after every pass: a fence per pass drained the
	 * write-combining buffers each time an L2-sized pass ended (a pass of
	 * 128 KiB lasts ~5 us), ~5% of an L2 round
	 * (docs/notes/bench-bandwidth-loops.md)
	 */
	if (is_nt(j->op))
		_mm_sfence();
}

/* Reads, words and copies are checked once, after timing. */
static int bw_check(void *arg)
{
	struct bw_run *r = arg;
	const struct bw_job *j = r->job;

	for (int t = 0; t < j->nthreads; t++) {
		const uint64_t *d = j->dst ? (const uint64_t *)j->dst[t] : NULL;
		const uint64_t *s = j->src ? (const uint64_t *)j->src[t] : NULL;
		size_t words = j->bytes / 8;

		if (j->op == BW_READ) {
			uint64_t sum = 0;
			for (size_t i = 0; i < words; i++)
				sum += s[i];
			if (sum != r->slot[t].sum)
				return -EIO;
		} else if (is_write(j->op)) {
			for (size_t i = 0; i < words; i++)
				if (d[i] != r->pattern)
					return -EIO;
		} else if (memcmp(d, s, j->bytes)) {
			return -EIO;
		}
	}
	return 0;
}

int bw_measure(const struct bw_job *job, const struct topo *t,
	       struct bw_result *res)
{
	static uint64_t jobs;
	struct bw_run r = {.job = job};
	struct team_job tj = {
		.nthreads = job->nthreads,
		.cpus = job->cpus,
		.arg = &r,
		.setup = bw_setup,
		.body = bw_body,
		.check = bw_check,
		.warmup = job->warmup,
		.repeat = job->repeat,
		.cancel = job->cancel,
		.adapt = job->adapt,
		/* the bytes the loops declare, as they mark them */
		.work = (double)bw_op_factor(job->op) * (double)job->bytes *
			job->nthreads * job->passes};
	int rc;

	memset(res, 0, sizeof(*res));
	if (job->op < 0 || job->op >= BW_NOPS || job->passes < 1 ||
	    job->bytes == 0 || job->bytes % BW_CHUNK ||
	    (uses_src(job->op) && !job->src) ||
	    (uses_dst(job->op) && !job->dst))
		return -EINVAL;
	if (!bw_op_supported(job->op))
		return -ENOTSUP;
	r.fn = kernels[bw_isa_best()][job->op];
	/* a pattern of this job alone: a check cannot pass on a stale buffer */
	r.pattern = 0x6e756d616c616200ull +
		    __atomic_add_fetch(&jobs, 1, __ATOMIC_RELAXED);
	r.slot = aligned_alloc(64, sizeof(*r.slot) * (size_t)job->nthreads);
	if (!r.slot)
		return -ENOMEM;
	memset(r.slot, 0, sizeof(*r.slot) * (size_t)job->nthreads);
	rc = team_run(&tj, t, &res->team);
	if (rc && rc != -ECANCELED)
		goto out;
	for (int i = 0; i < job->nthreads; i++)
		if (r.slot[i].rc && !res->setup_rc)
			res->setup_rc = r.slot[i].rc;
	res->check_rc = res->team.check_rc;
	res->bytes_per_round = (double)bw_op_factor(job->op) *
			       (double)job->bytes * job->nthreads * job->passes;
	res->gbps = calloc((size_t)(res->team.rounds + 1), sizeof(double));
	if (!res->gbps) {
		team_result_free(&res->team);
		rc = -ENOMEM;
		goto out;
	}
	for (int i = 0; i < res->team.rounds; i++)
		if (res->team.seconds[i] > 0)
			res->gbps[res->n++] = res->bytes_per_round /
					      res->team.seconds[i] / 1e9;
	res->median = stats_median(res->gbps, res->n);
	if (rc)
		bw_result_free(
			res); /* cancelled: nothing for the caller to free */
out:
	free(r.slot);
	return rc;
}

void bw_result_free(struct bw_result *res)
{
	team_result_free(&res->team);
	free(res->gbps);
	res->gbps = NULL;
}
