/* bw_alone.c - numalab's bandwidth kernels through its harness (bw_measure), sized like a likwid-bench run */
/*
 * usage: bw_alone OP THREADS WORKING_SET_BYTES [repeat [warmup [round_ms]]]
 * OP is one of bw_op_names (read, write, write_nt, copy, ...). The working
 * set counts every array of every thread, as likwid-bench's -w size does:
 * a copy's source and destination each get half of it. Threads run on
 * the first THREADS allowed CPUs in OS order (likwid-bench's S0:size:N
 * takes the first N hardware threads of the socket the same way), each
 * touches its own slice first. A round sweeps the slice `passes` times,
 * passes chosen so a round lasts about round_ms (default 50) at a rough
 * guess of the speed, so an L2-sized set is not timed in microseconds.
 * NUMALAB_BW_ISA=avx2|avx512f picks the instructions, as everywhere.
 * Prints one JSON object: op, isa, threads, cpus, working_set,
 * bytes_per_thread, passes, bytes_per_round, gbps (every round, timed
 * over the stretches all threads ran), median, wall_gbps (every round
 * over its wall time) and wall_best (the best of those).
 * Bytes are counted as likwid-bench counts them: loads plus stores, no
 * write-allocate traffic (bw_op_factor).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bw.h"
#include "topo.h"

int main(int argc, char **argv)
{
	static volatile sig_atomic_t never;
	int op = -1, nthreads, repeat = 5, warmup = 1, round_ms = 50, rc;
	long long ws;
	struct topo *t;
	struct bw_result res;
	int cpus[1024];
	char *src[1024], *dst[1024];
	char *a = NULL, *b = NULL;
	size_t per, arrays;
	double guess;

	if (argc < 4) {
		fprintf(stderr,
			"usage: bw_alone OP THREADS WORKING_SET_BYTES [repeat [warmup [round_ms]]]\n");
		return 2;
	}
	for (int i = 0; bw_op_names[i]; i++)
		if (!strcmp(argv[1], bw_op_names[i]))
			op = i;
	nthreads = atoi(argv[2]);
	ws = atoll(argv[3]);
	if (argc > 4)
		repeat = atoi(argv[4]);
	if (argc > 5)
		warmup = atoi(argv[5]);
	if (argc > 6)
		round_ms = atoi(argv[6]);
	if (op < 0 || nthreads < 1 || nthreads > 1024 || ws <= 0 ||
	    repeat < 1 || warmup < 0 || round_ms < 1) {
		fprintf(stderr, "bw_alone: bad arguments (op '%s')\n", argv[1]);
		return 2;
	}
	t = topo_load();
	if (!t) {
		fprintf(stderr, "bw_alone: cannot read the topology: %s\n",
			strerror(errno));
		return 1;
	}
	for (int i = 0, os = 0; i < nthreads; os++) {
		const struct topo_pu *p = topo_pu_by_os(t, os);
		if (os > 65535) {
			fprintf(stderr,
				"bw_alone: only %d cpus allowed, %d threads asked\n",
				i, nthreads);
			return 2;
		}
		if (p && p->allowed)
			cpus[i++] = os;
	}
	arrays = bw_op_factor((enum bw_op)op) == 2 ? 2 : 1;
	/* each array's slices start on a page, every slice a multiple of
	 * BW_CHUNK */
	per = (size_t)ws / arrays / (size_t)nthreads / BW_CHUNK * BW_CHUNK;
	if (per == 0) {
		fprintf(stderr, "bw_alone: working set too small\n");
		return 2;
	}
	size_t stride = (per + BW_ALIGN - 1) / BW_ALIGN * BW_ALIGN;
	a = aligned_alloc(BW_ALIGN, stride * (size_t)nthreads);
	if (arrays == 2)
		b = aligned_alloc(BW_ALIGN, stride * (size_t)nthreads);
	if (!a || (arrays == 2 && !b)) {
		fprintf(stderr, "bw_alone: cannot allocate %lld bytes\n", ws);
		return 1;
	}
	for (int i = 0; i < nthreads; i++) {
		/* read: src only; writes: dst only; copies: src from b, dst in
		 * a */
		dst[i] = a + (size_t)i * stride;
		src[i] = arrays == 2 ? b + (size_t)i * stride
				     : a + (size_t)i * stride;
	}
	/* a rough speed (GB/s per thread) to size a round: in L2 or beyond */
	uint64_t l2 = 512 * 1024;
	for (int i = 0; i < t->ncaches; i++)
		if (t->cache[i].level == 2 && t->cache[i].size)
			l2 = t->cache[i].size;
	guess = (double)ws / nthreads <= (double)l2 ? 60.0 : 15.0;
	double bytes_per_pass = (double)per * arrays * nthreads;
	int passes =
		(int)(guess * 1e9 * nthreads * round_ms / 1e3 / bytes_per_pass);
	if (passes < 1)
		passes = 1;
	struct bw_job job = {.op = (enum bw_op)op,
			     .nthreads = nthreads,
			     .cpus = cpus,
			     .dst = dst,
			     .src = src,
			     .bytes = per,
			     .passes = passes,
			     .touch = 1,
			     .warmup = warmup,
			     .repeat = repeat,
			     .cancel = &never};
	rc = bw_measure(&job, t, &res);
	if (rc) {
		fprintf(stderr, "bw_alone: %s\n", strerror(-rc));
		return 1;
	}
	if (res.check_rc) {
		fprintf(stderr, "bw_alone: the %s kernel's result is wrong\n",
			argv[1]);
		return 1;
	}
	printf("{\"op\":\"%s\",\"isa\":\"%s\",\"threads\":%d,\"cpus\":[",
	       argv[1], bw_isa_names[bw_isa_best()], nthreads);
	for (int i = 0; i < nthreads; i++)
		printf("%s%d", i ? "," : "", res.team.place[i].cpu_observed);
	printf("],\"working_set\":%zu,\"bytes_per_thread\":%zu,\"passes\":%d,"
	       "\"bytes_per_round\":%.0f,\"gbps\":[",
	       per * arrays * (size_t)nthreads, per, passes,
	       res.bytes_per_round);
	for (int i = 0; i < res.n; i++)
		printf("%s%.4f", i ? "," : "", res.gbps[i]);
	/* the same rounds over their wall time, as a program that times
	 * its loop with the clock alone sees them */
	double wall_best = 0;
	printf("],\"median\":%.4f,\"wall_gbps\":[", res.median);
	for (int i = 0; i < res.team.rounds; i++) {
		double g = res.team.wall[i] > 0 ? res.bytes_per_round /
							  res.team.wall[i] / 1e9
						: 0;
		printf("%s%.4f", i ? "," : "", g);
		wall_best = g > wall_best ? g : wall_best;
	}
	printf("],\"wall_best\":%.4f}\n", wall_best);
	bw_result_free(&res);
	free(a);
	free(b);
	topo_free(t);
	return 0;
}
