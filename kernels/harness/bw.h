/* bw.h - streaming loops that reach what the memory gives, and how their bandwidth is measured */
#ifndef NUMALAB_BW_H
#define NUMALAB_BW_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "team.h"
#include "topo.h"

enum bw_op {
	BW_READ,      /* load every byte */
	BW_WRITE,     /* store every byte (the cache fetches each line first) */
	BW_WRITE_NT,  /* non-temporal (streaming) stores: no fetch, no cache */
	BW_WRITE_PFW, /* prefetchw a few lines ahead, then store */
	BW_COPY,      /* load from src, store to dst */
	BW_COPY_NT,   /* load from src, streaming stores to dst */
	BW_NOPS
};
/* "read", "write", "write_nt", "write_prefetchw", "copy", "copy_nt", NULL */
extern const char *const bw_op_names[];

/*
 * Bytes counted per byte of buffer, as likwid-bench declares them: the
 * bytes the loop loads plus the bytes it stores, nothing for the line
 * fetch a regular store causes. read and write 1, copy 2.
 */
int bw_op_factor(enum bw_op op);
/* Whether this CPU has what op needs (prefetchw needs PREFETCHW). */
int bw_op_supported(enum bw_op op);

enum bw_isa { BW_SSE2, BW_AVX2, BW_AVX512, BW_NISA };
extern const char *const bw_isa_names[]; /* "sse2", "avx2", "avx512f" */
int bw_isa_supported(enum bw_isa isa);
/*
 * The widest the CPU has, unless NUMALAB_BW_ISA names a narrower one
 * (to compare them, or to run where the widest misbehaves).
 */
enum bw_isa bw_isa_best(void);

/* Every kernel moves whole multiples of this many bytes. */
#define BW_CHUNK 512
/* Buffers and per-thread slices start on a page. */
#define BW_ALIGN 4096

/*
 * One pass of op over len bytes (a multiple of BW_CHUNK; dst and src
 * 64-byte aligned), with the instructions of isa (which must be
 * supported). read returns the wrapping sum of the 64-bit words, the
 * others 0. Writes store pattern in every word.
 */
uint64_t bw_kernel_isa(enum bw_isa isa, enum bw_op op, void *dst,
		       const void *src, size_t len, uint64_t pattern);
/*
 * The same loop without the sfence bw_kernel_isa puts after a
 * non-temporal op: the caller fences once after many passes (bw_measure
 * does, once a round).
 */
uint64_t bw_kernel_unfenced(enum bw_isa isa, enum bw_op op, void *dst,
			    const void *src, size_t len, uint64_t pattern);

/* Word i of p becomes seed + i: data a read can be checked against. */
void bw_fill(void *p, size_t len, uint64_t seed);

/* One measurement: nthreads pinned threads each run op over their own bytes. */
struct bw_job {
	enum bw_op op;
	int nthreads;
	const int *cpus;  /* one per thread, -1: not pinned */
	char *const *dst; /* per thread: where it stores (write, copy) */
	char *const *src; /* per thread: what it loads (read, copy) */
	size_t bytes;	  /* per thread and buffer, a multiple of BW_CHUNK */
	int passes;	  /* sweeps over the bytes per round, >= 1 */
	int touch; /* each thread fills its own src and dst first: first touch
		    */
	/*
	 * Runs before the touch in each thread, e.g. to set a task memory
	 * policy (returns 0 or -errno). May be NULL.
	 */
	int (*before_touch)(void *arg, int tid);
	void *arg;
	int warmup, repeat;
	volatile sig_atomic_t *cancel;
	const struct adapt_point *adapt; /* as team_job's; NULL: exactly repeat
					  */
};

struct bw_result {
	struct team_result team;
	double *gbps; /* per timed round: declared bytes / seconds / 1e9 */
	int n;
	double median;		/* GB/s */
	double bytes_per_round; /* declared */
	int check_rc; /* 0, or -EIO when the data after timing is wrong */
	int setup_rc; /* 0, or the first error of before_touch */
};

/*
 * Runs the job through the team harness (pinned threads, first touch,
 * barrier, clock, loop, barrier, clock), then checks what the loops did:
 * reads summed what the buffer holds, writes stored their pattern,
 * copies copied. Returns 0, -ECANCELED, or -errno from team_run; a
 * failed check is res->check_rc. After 0, res must be freed with
 * bw_result_free; after an error there is nothing to free.
 */
int bw_measure(const struct bw_job *job, const struct topo *t,
	       struct bw_result *res);
void bw_result_free(struct bw_result *res);

/*
 * Per-thread pointers into one buffer: slice i starts at base + i *
 * stride, where stride is len / n rounded down to BW_ALIGN. Returns the
 * bytes each slice may use (a multiple of BW_CHUNK), 0 if len is too
 * small for n slices.
 */
size_t bw_split(char *base, size_t len, int n, char **out);

#endif
