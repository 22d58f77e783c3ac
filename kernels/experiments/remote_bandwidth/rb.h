/* rb.h - what the parts of remote_bandwidth share: its params, its names, its tables, and its parts */
#ifndef NUMALAB_RB_H
#define NUMALAB_RB_H

#include <stddef.h>
#include <stdint.h>

#include "bw.h"
#include "experiment.h"

enum rb_op { RB_WRITE, RB_READ };
/* which copy runs of 6.5.8: every node at once, one node with the others
 * idle */
enum rb_mix { MIX_ALL = 1, MIX_IDLE = 2 };

struct rb_params {
	int64_t size;
	int64_t threads;
	struct int_list nodes;
	unsigned ops;	/* 1u << enum rb_op */
	unsigned kinds; /* 1u << the write matrix's index */
	int mixed;	/* enum rb_mix bits */
	int cells;	/* enum cells_mode */
};

/*
 * Distance ranks summarised: 0 local, 1 the nearest remote distance of
 * the node table (SLIT), 2 the next, ... A rank orders distances; it is
 * not a count of links crossed.
 */
#define RB_RANKS 8

/* the charts of the copy runs, named by the table below and by charts[] */
#define CH_MIXED "mixed"
#define CH_IDLE "idle_remote"

/*
 * Names run() emits and describe() reads, defined once: summary keys are
 * formats of the matrix's chart (or of a copy run's prefix).
 */
#define KEY_LOCAL "%s_local_gbps"
#define KEY_REMOTE "%s_remote_gbps"
#define KEY_RATIO "%s_remote_over_local"
#define KEY_RANK "%s_rank_%d_gbps"
/* the key runs recorded before ranks were named as such: read back only */
#define KEY_RANK_OLD "%s_hops_%d_gbps"
#define KEY_GAIN "%s_gain"
#define SERIES_REGULAR "regular stores"
#define SERIES_NT "non-temporal stores"
#define FROM_CACHE " (from cache)"
#define RB_NEEDS_TWO "needs 2 nodes, this machine has"

/* One matrix: a chart, the loop it times (matrix.c). A kind's value is
 * the index of its write matrix. */
struct matrix {
	const char *chart;
	enum bw_op op;
	const char *what;
};
#define NMATRICES 4
extern const struct matrix rb_matrices[NMATRICES];
/* Whether the params ask for matrix m. */
int rb_wanted(const struct rb_params *rp, int m);

/* A copy run of 6.5.8: its chart, summary prefix and the labels of its
 * bars (mixed.c). */
struct mix_mode {
	int bit; /* enum rb_mix */
	const char *chart, *prefix, *local, *remote, *what;
	int idle; /* only the first node runs; the node it writes to is idle */
};
#define NMIX 2
extern const struct mix_mode rb_mix_modes[NMIX];

/* The mean of one matrix's cells: local, remote, and by distance rank
 * (0 local, 1 the nearest remote distance, ...). */
struct means {
	double local, remote;
	int nlocal, nremote;
	double rank[RB_RANKS];
	int nrank[RB_RANKS];
};

/* What the parts measured, summarised by run() once both ran. */
struct rb_tally {
	int step; /* the progress step reached */
	struct means mean[NMATRICES];
	double mix_local[NMIX], mix_remote[NMIX];
};

/*
 * What run() prepares for the parts: the matrix's nodes (n of them, and
 * one phantom node on a machine of one, whose cells only say why they
 * are empty), which cells of the dim x dim matrix to visit and each
 * planned cell's distance rank, the progress steps, and the tally the
 * parts fill.
 */
struct rb_state {
	int32_t nodes[TOPO_MAX_NODES];
	int n, phantom, dim;
	unsigned char *want;
	signed char *rank;
	int steps;
	struct rb_tally *tally;
};

/* One timed stream of threads over dst/src (bw_job), its rounds kept as
 * points by team_points_bw. */
int rb_measure(struct run_ctx *ctx, enum bw_op op, const int *cpus, int threads,
	       char **dst, char **src, size_t bytes, int touch,
	       struct bw_result *res);

/* Whether the size read from cache: the rulebook's finding when it ran,
 * the machine's own cache otherwise. */
int rb_from_cache(const struct run_result *r, uint64_t size);
/* Adds s to the headline in head (len bytes), after what the parts
 * before wrote. */
void rb_head_add(char *head, size_t len, const char *s);

/* The parts, each in its file: run (struct part .run, with struct
 * rb_state as its state), its summary keys once every part ran, and what
 * it showed (struct part .describe: adds its sentence to head); mixed
 * only when mixed= asks for a copy run (.wanted). */
PART_HOOKS(rb_matrix);
PART_HOOKS(rb_mixed);
void rb_matrix_summary(struct run_ctx *ctx, const struct rb_tally *tally);
void rb_mixed_summary(struct run_ctx *ctx, const struct rb_tally *tally);

#endif
