/* loop_ab.c - numalab's bandwidth loops against likwid-bench's, in one process, alternating pass by pass */
/*
 * usage: loop_ab read|nt_fence avx2|avx512f BYTES [pairs]
 *
 * Two processes run minutes apart on a shared machine differ by more than
 * the loops do, so this puts both sides in one process, pinned to the
 * CPU it was started on, and alternates them (A B A B ...) `pairs` times
 * over one buffer. Each side of a pair sweeps it for about 2 ms.
 *
 *  read:     A = numalab's read kernel (bw_kernel_isa: 8 vectors a turn,
 *            added into 4 accumulators), B = likwid-bench's load_avx /
 *            load_avx512 loop as its .ptt files write it (4 aligned loads
 *            a turn into 4 registers, nothing done with them, the loop
 *            aligned to 64 bytes).
 *  nt_fence: A = numalab's non-temporal store kernel with an sfence after
 *            every pass (as before), B = the same kernel with one sfence
 *            after all the passes of the side (as bw_body does now).
 *
 * Prints one JSON object: each side's median and best GB/s, and the
 * median, 10th and 90th percentile of the per-pair ratio B / A.
 */
#include <immintrin.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bw.h"

static double clock_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* likwid-bench's load_avx512.ptt, as objdump shows it in Debian's binary */
static void likwid_load_avx512(const char *p, size_t len)
{
	const char *end = p + len;

	__asm__ volatile(".p2align 6\n"
			 "1:\n\t"
			 "vmovapd (%0), %%zmm1\n\t"
			 "vmovapd 64(%0), %%zmm2\n\t"
			 "vmovapd 128(%0), %%zmm3\n\t"
			 "vmovapd 192(%0), %%zmm4\n\t"
			 "add $256, %0\n\t"
			 "cmp %1, %0\n\t"
			 "jb 1b\n\t"
			 "vzeroupper"
			 : "+r"(p)
			 : "r"(end)
			 : "xmm1", "xmm2", "xmm3", "xmm4", "memory", "cc");
}

/* likwid-bench's load_avx.ptt */
static void likwid_load_avx(const char *p, size_t len)
{
	const char *end = p + len;

	__asm__ volatile(".p2align 6\n"
			 "1:\n\t"
			 "vmovapd (%0), %%ymm1\n\t"
			 "vmovapd 32(%0), %%ymm2\n\t"
			 "vmovapd 64(%0), %%ymm3\n\t"
			 "vmovapd 96(%0), %%ymm4\n\t"
			 "add $128, %0\n\t"
			 "cmp %1, %0\n\t"
			 "jb 1b\n\t"
			 "vzeroupper"
			 : "+r"(p)
			 : "r"(end)
			 : "xmm1", "xmm2", "xmm3", "xmm4", "memory", "cc");
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* One side: passes sweeps of buf; returns GB/s. */
static double side(int mode, int which, enum bw_isa isa, char *buf, size_t len,
		   int passes)
{
	double t0 = clock_s();

	for (int k = 0; k < passes; k++) {
		if (mode == 0 && which == 0)
			bw_kernel_isa(isa, BW_READ, NULL, buf, len, 0);
		else if (mode == 0)
			(isa == BW_AVX512 ? likwid_load_avx512
					  : likwid_load_avx)(buf, len);
		else if (which == 0)
			/* bw_kernel_isa fences each call: a fence per pass */
			bw_kernel_isa(isa, BW_WRITE_NT, buf, NULL, len, 7);
		else
			/* the same loop, fenced once after the passes */
			bw_kernel_unfenced(isa, BW_WRITE_NT, buf, NULL, len, 7);
	}
	_mm_sfence();
	return (double)len * passes / (clock_s() - t0) / 1e9;
}

int main(int argc, char **argv)
{
	int mode, pairs = argc > 4 ? atoi(argv[4]) : 200, passes;
	enum bw_isa isa;
	size_t len;
	char *buf;
	double *a, *b, *r;

	if (argc < 4 ||
	    (strcmp(argv[1], "read") && strcmp(argv[1], "nt_fence")) ||
	    (strcmp(argv[2], "avx2") && strcmp(argv[2], "avx512f")) ||
	    pairs < 1 || pairs > 100000) {
		fprintf(stderr,
			"usage: loop_ab read|nt_fence avx2|avx512f BYTES "
			"[pairs (1-100000)]\n");
		return 2;
	}
	mode = !strcmp(argv[1], "nt_fence");
	isa = !strcmp(argv[2], "avx2") ? BW_AVX2 : BW_AVX512;
	len = strtoull(argv[3], NULL, 0) / BW_CHUNK * BW_CHUNK;
	if (!bw_isa_supported(isa) || len == 0) {
		fprintf(stderr,
			"loop_ab: this CPU has no %s, or BYTES is under %d\n",
			argv[2], BW_CHUNK);
		return 2;
	}
	/* about 2 ms a side at ~40 GB/s */
	passes = (int)(80e6 / (double)len);
	if (passes < 1)
		passes = 1;
	buf = aligned_alloc(4096, len);
	a = calloc((size_t)pairs, sizeof(double));
	b = calloc((size_t)pairs, sizeof(double));
	r = calloc((size_t)pairs, sizeof(double));
	if (!buf || !a || !b || !r) {
		fprintf(stderr, "loop_ab: out of memory\n");
		return 1;
	}
	bw_fill(buf, len, 1);
	side(mode, 0, isa, buf, len, passes); /* warm-up, both sides */
	side(mode, 1, isa, buf, len, passes);
	for (int i = 0; i < pairs; i++) {
		a[i] = side(mode, 0, isa, buf, len, passes);
		b[i] = side(mode, 1, isa, buf, len, passes);
		r[i] = b[i] / a[i];
	}
	qsort(a, (size_t)pairs, sizeof(double), cmp_double);
	qsort(b, (size_t)pairs, sizeof(double), cmp_double);
	qsort(r, (size_t)pairs, sizeof(double), cmp_double);
	printf("{\"mode\": \"%s\", \"isa\": \"%s\", \"bytes\": %zu, \"passes\": %d, "
	       "\"pairs\": %d, \"a\": \"%s\", \"b\": \"%s\", "
	       "\"a_median_gbps\": %.2f, \"a_best_gbps\": %.2f, "
	       "\"b_median_gbps\": %.2f, \"b_best_gbps\": %.2f, "
	       "\"b_over_a\": {\"median\": %.3f, \"p10\": %.3f, \"p90\": %.3f}}\n",
	       argv[1], argv[2], len, passes, pairs,
	       mode ? "fence per pass" : "numalab read",
	       mode ? "fence per side" : "likwid load", a[pairs / 2],
	       a[pairs - 1], b[pairs / 2], b[pairs - 1], r[pairs / 2],
	       r[pairs / 10], r[pairs * 9 / 10]);
	free(buf);
	free(a);
	free(b);
	free(r);
	return 0;
}
