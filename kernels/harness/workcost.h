/* workcost.h - what a piece of work costs here, from the measured rates: the parts every estimate is built of */
#ifndef NUMALAB_WORKCOST_H
#define NUMALAB_WORKCOST_H

#include "bw.h"
#include "topo.h"

struct common_params;

/* The rounds each point of a run takes at the least: repeat plus warmup. */
double cost_rounds(const struct common_params *common);

/* The NUMA nodes of t, at least 1 (t may be NULL: none known). */
int cost_nodes(const struct topo *t);

/* The kinds of stream the memory experiments run. */
enum cost_stream { COST_READ, COST_WRITE, COST_COPY };

/*
 * How many threads take turns on the busiest cpu: n over the cpus this
 * process may use, rounded up. Work that n threads do side by side takes this
 * many times as long as one thread's share.
 */
double cost_crowd(const struct topo *t, int nthreads);

/*
 * Seconds for nthreads threads to stream bytes in all past the caches.
 * One thread's rate is measured; threads add bandwidth up to
 * COST_STREAMS_PER_NODE streams on each node (where one memory controller
 * is usually saturated), then share it.
 */
#define COST_STREAMS_PER_NODE 4
double cost_stream_s(const struct topo *t, enum cost_stream kind, double bytes,
		     int nthreads);

/*
 * cost_stream_s of the stream bw_measure's op is over bytes in all: a read
 * (read), a copy (copy, copy_nt) or a write (the stores of every kind).
 */
double cost_bw_s(const struct topo *t, enum bw_op op, double bytes,
		 int nthreads);

/*
 * cost_stream_s of passes that stream bytes in all over a working set of
 * ws bytes: one the last-level cache holds streams COST_CACHE_GAIN times as
 * fast (the lab VM's bandwidth rows: 170 GB/s a thread from L2, 41 from
 * memory; affinity's passes over 8 MiB made its estimate 2.0-2.2x the run
 * counted at memory's rate).
 */
#define COST_CACHE_GAIN 3
double cost_pass_s(const struct topo *t, enum cost_stream kind, double bytes,
		   double ws, int nthreads);

/* Seconds for nthreads threads to first-touch bytes of fresh memory in all,
 * each its own part. */
double cost_touch_s(const struct topo *t, double bytes, int nthreads);

/*
 * Seconds to free bytes of touched memory (munmap, or the exit of the
 * process that touched them), and to ask where bytes of pages are
 * (move_pages without targets: a census), each a share of a page's first
 * touch: the lab VM freed a page in 0.20-0.25 us and counted one in
 * 0.15-0.21 us where its first touch took 1.5-1.9 us.
 */
#define COST_FREE_SHARE 0.13
#define COST_CENSUS_SHARE 0.1
double cost_free_s(double bytes);
double cost_census_s(double bytes);

/*
 * Seconds for loads dependent loads (a pointer chase) over a working set
 * of bytes. One thread's read stream keeps about COST_LINES_IN_FLIGHT line
 * fills going at once (its miss buffers), so by Little's law a single miss
 * to memory takes that many times one line's share of the measured read
 * rate, and a chase over memory misses the TLB too: a page walk about as
 * long again (COST_WALK; the lab VM's chase from 128 MiB took 145 ns a
 * load at 3.2 ns a line's share, where 16 lines' share made
 * memory_latency's estimates 0.46-0.94x the run); a working set the
 * caches hold (mem_size.h) costs COST_LINES_FROM_CACHE lines' share a load.
 */
#define COST_LINES_IN_FLIGHT 16
#define COST_WALK 2
#define COST_LINES_FROM_CACHE 2
double cost_chase_s(const struct topo *t, double bytes, double loads);

/* Seconds to start and join n pinned teams. */
double cost_teams_s(double n);

#endif
