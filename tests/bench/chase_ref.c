/* chase_ref.c - the reference pointer chase of the bench: multichase's published design, timed on the thread's cpu clock and the wall clock */
/*
 * Built to google/multichase's published defaults, written anew from
 * their description (none of its code): the buffer is cut into elements
 * of `stride` bytes (default 256) and into blocks of `tlb` bytes (its TLB
 * locality, default 64 pages; 0: one block of the whole buffer, fully
 * random); the blocks are visited in a random order and the elements of
 * each block in a random order of their own, every element once, the
 * last leading back to the first. The buffer is 2 MiB aligned and, with
 * "huge", advised to transparent huge pages (madvise), as numalab asks
 * for them. Each sample times `loads` dependent loads with the thread's
 * cpu clock (CLOCK_THREAD_CPUTIME_ID: a neighbour's time on the cpu is
 * not counted, as numalab leaves it out) and CLOCK_MONOTONIC; no timer
 * read inside the loop.
 *
 * usage: chase_ref CPU SIZE [stride [loads [samples [huge|small [tlb]]]]]
 * prints one JSON object: {"cpu","size","stride","tlb","loads","samples",
 * "huge_bytes","median_ns","min_ns","max_ns","wall_median_ns"} (ns per
 * load; median, min and max on the cpu clock).
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#define HUGE_ALIGN (2ul << 20)

static double now_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void shuffle(size_t *v, size_t n)
{
	for (size_t i = n - 1; i > 0; i--) {
		size_t j = (size_t)(((uint64_t)lrand48() << 31 ^ lrand48()) %
				    (i + 1));
		size_t x = v[i];
		v[i] = v[j];
		v[j] = x;
	}
}

/* AnonHugePages of the mappings over [p, p+len), from /proc/self/smaps. */
static long long huge_bytes(const void *p, size_t len)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	unsigned long lo = (unsigned long)p, hi = lo + len, a, b;
	long long kb, sum = 0;
	int in = 0;
	char ln[512];

	if (!f)
		return -1;
	while (fgets(ln, sizeof(ln), f)) {
		if (strchr(ln, '-') && strchr(ln, '-') < strchr(ln, ' ') &&
		    sscanf(ln, "%lx-%lx", &a, &b) == 2)
			in = a < hi && b > lo;
		else if (in && sscanf(ln, "AnonHugePages: %lld", &kb) == 1)
			sum += kb << 10;
	}
	fclose(f);
	return sum;
}

int main(int argc, char **argv)
{
	int cpu = argc > 1 ? atoi(argv[1]) : 0;
	size_t size = argc > 2 ? strtoull(argv[2], NULL, 0) : 256ul << 20;
	size_t stride = argc > 3 ? strtoull(argv[3], NULL, 0) : 256;
	uint64_t loads = argc > 4 ? strtoull(argv[4], NULL, 0) : 1u << 20;
	int samples = argc > 5 ? atoi(argv[5]) : 9;
	int huge = !(argc > 6 && !strcmp(argv[6], "small"));
	size_t tlb = argc > 7 ? strtoull(argv[7], NULL, 0) : 64 * 4096;
	double *wall;
	size_t nel, per_block, nblocks, *blocks, *inner, first = 0, prev = 0;
	double *ns;
	char *mem;
	cpu_set_t set;

	if (tlb == 0)
		tlb = size; /* fully random */
	if (stride < sizeof(void *) || size < 2 * stride || tlb < stride ||
	    tlb % stride || size % tlb || samples < 1 || !loads) {
		fprintf(stderr,
			"usage: chase_ref CPU SIZE [stride [loads [samples [huge|small [tlb]]]]]: SIZE a multiple of tlb, tlb of stride\n");
		return 2;
	}
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		perror("sched_setaffinity");
		return 1;
	}
	/* whole 2 MiB pages from an aligned start, the advice over all of them
	 */
	size_t whole = (size + HUGE_ALIGN - 1) / HUGE_ALIGN * HUGE_ALIGN;
	char *map = mmap(NULL, whole + HUGE_ALIGN, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (map == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	mem = (char *)(((uintptr_t)map + HUGE_ALIGN - 1) & ~(HUGE_ALIGN - 1));
	madvise(mem, whole, huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
	nel = size / stride;
	per_block = tlb / stride;
	nblocks = size / tlb;
	blocks = malloc(nblocks * sizeof(*blocks));
	inner = malloc(per_block * sizeof(*inner));
	ns = malloc((size_t)samples * sizeof(*ns));
	wall = malloc((size_t)samples * sizeof(*wall));
	if (!blocks || !inner || !ns || !wall)
		return 1;
	srand48(1);
	for (size_t i = 0; i < nblocks; i++)
		blocks[i] = i;
	shuffle(blocks, nblocks);
	for (size_t b = 0; b < nblocks; b++) {
		for (size_t i = 0; i < per_block; i++)
			inner[i] = i;
		shuffle(inner, per_block);
		for (size_t i = 0; i < per_block; i++) {
			size_t e = blocks[b] * per_block + inner[i];
			if (b == 0 && i == 0)
				first = e;
			else
				*(char **)(mem + prev * stride) =
					mem + e * stride;
			prev = e;
		}
	}
	*(char **)(mem + prev * stride) = mem + first * stride;

	char **p = (char **)(mem + first * stride);
	/* one pass first: the chain is in place and the TLB warm */
	for (size_t i = 0; i < nel; i++)
		p = (char **)*p;
	for (int s = 0; s < samples; s++) {
		double t0 = now_ns(CLOCK_THREAD_CPUTIME_ID),
		       w0 = now_ns(CLOCK_MONOTONIC);
		for (uint64_t i = 0; i < loads; i += 8) {
			p = (char **)*p;
			p = (char **)*p;
			p = (char **)*p;
			p = (char **)*p;
			p = (char **)*p;
			p = (char **)*p;
			p = (char **)*p;
			p = (char **)*p;
		}
		ns[s] = (now_ns(CLOCK_THREAD_CPUTIME_ID) - t0) /
			(double)((loads + 7) / 8 * 8);
		wall[s] = (now_ns(CLOCK_MONOTONIC) - w0) /
			  (double)((loads + 7) / 8 * 8);
	}
	qsort(ns, (size_t)samples, sizeof(*ns), cmp_double);
	qsort(wall, (size_t)samples, sizeof(*wall), cmp_double);
	printf("{\"cpu\": %d, \"size\": %zu, \"stride\": %zu, \"tlb\": %zu, "
	       "\"loads\": %llu, \"samples\": %d, \"huge_bytes\": %lld, "
	       "\"median_ns\": %.3f, \"min_ns\": %.3f, \"max_ns\": %.3f, "
	       "\"wall_median_ns\": %.3f, \"end\": %d}\n",
	       cpu, size, stride, tlb, (unsigned long long)loads, samples,
	       huge_bytes(mem, size), ns[samples / 2], ns[0], ns[samples - 1],
	       wall[samples / 2], p == NULL);
	free(blocks);
	free(inner);
	free(ns);
	free(wall);
	munmap(map, whole + HUGE_ALIGN);
	return 0;
}
