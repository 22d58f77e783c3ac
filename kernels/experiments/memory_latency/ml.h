/* ml.h - what the parts of memory_latency share: its params, its names, the chased buffer, and its parts */
#ifndef NUMALAB_ML_H
#define NUMALAB_ML_H

#include <stddef.h>
#include <stdint.h>

#include "errinfo.h"
#include "experiment.h"
#include "numa_mem.h"

/* mode= picks the one part a run measures (struct part .name the same). */
enum ml_mode { ML_NODES, ML_SIZES, ML_LOADED };
enum ml_load { LOAD_READ, LOAD_WRITE };
enum ml_pages { PAGES_HUGE, PAGES_SMALL };

struct ml_params {
	int mode;
	int64_t size;
	struct int_list nodes;
	int cells;
	int64_t cpu_node, mem_node;
	int64_t loaders;
	int load;
	int64_t loads;
	int pages;
	int64_t stride, locality;
};

/* Distance ranks summarised: 0 local, 1 the nearest remote distance, ... */
#define ML_RANKS 8
/* Where a huge page starts: buffers are aligned to it so that every size
 * of the sweep can sit on one. */
#define ML_HUGE (2u << 20)
/* The most loaders the default asks for. */
#define ML_LOADERS_DEFAULT 4

/*
 * Names run() emits and describe() reads, defined once: charts, series
 * and summary keys.
 */
#define CH_LAT "latency"
#define CH_RATIO "ratio"
#define CH_DIST "distance"
#define CH_SIZES "sizes"
#define CH_LOADED "loaded"
#define SERIES_CHASE "chase"
#define KEY_LOCAL "local_ns"
#define KEY_REMOTE "remote_ns"
#define KEY_RATIO "remote_over_local"
#define KEY_RANK "rank_%d_ns"
#define KEY_RANK_DIST "rank_%d_distance"
#define KEY_OFF "pages_off_node%d"
#define KEY_ON "pages_on_node%d"
#define KEY_HUGE "huge_page_share"
#define KEY_SMALLEST "smallest_ns"
#define KEY_LARGEST "largest_ns"
#define KEY_STEP "largest_over_smallest"
#define KEY_IDLE "idle_ns"
#define KEY_LOADED "loaded_ns"
#define KEY_LOAD_RATIO "loaded_over_idle"
#define KEY_LOAD_GBPS "loaders_gbps"

/* A buffer bound to a node, its chain over the first len bytes. */
struct chase_buf {
	struct nmem_buf map; /* as mapped: ML_HUGE more than asked */
	struct nmem_buf use; /* the aligned part the chain lives in */
};

/* The chased buffer and the rounds of its chase (buffer.c). */
/* Maps len bytes bound to node, on huge pages when asked. Returns 0 or
 * -errno. */
int ml_buf_alloc(struct run_ctx *ctx, int node, size_t len,
		 struct chase_buf *cb);
/* The share of the chain's bytes on huge pages; -1 when unknown. */
double ml_huge_share(const struct chase_buf *cb, size_t len);
/* Says which page size the buffer got (share: ml_huge_share's). */
void ml_say_pages(struct run_ctx *ctx, double share);
/* Checks where the chain's pages are: summary keys per node, a warning
 * when some are elsewhere. */
void ml_verify_on(struct run_ctx *ctx, const struct nmem_buf *b, int node);
/*
 * Chases from pos on cpu for the run's rounds: ns per load of each kept
 * round into *ns (rounds of them, to free), their median returned
 * through *median. Returns 0 or -errno.
 */
int ml_chase_rounds(struct run_ctx *ctx, int cpu, void *pos, const char *label,
		    double **ns, int *rounds, double *median);
/* The first n cpus of node, by the plan every experiment uses. Returns 0
 * or -EINVAL with err set. */
int ml_cpu_of_node(const struct topo *t, int node, int n, int *cpus,
		   struct errinfo *err);
/*
 * cpus[1..most]: an allowed cpu each for the loaders of mode=loaded, other
 * than the chase's cpus[0]: the chasing node's first, then any other. The
 * check made sure there are enough.
 */
void ml_plan_loaders(const struct topo *t, int node, int most, int *cpus);
/* Seconds to build a chain over size bytes, nodes stride apart. */
double ml_build_s(const struct topo *t, double size, double stride);

/*
 * The plan of a run, for `numalab estimate` (plan.c): the cells of
 * mode=nodes, or the chase's cpu, the loaders' and the node of the memory
 * of mode=sizes and mode=loaded, placed as their runs place them.
 */
void ml_plan(const void *params, const struct common_params *common,
	     const struct topo *t, struct strbuf *out);

/*
 * What a part says, when mode= names it (headline.c): describe's
 * sentences about r, its headline into head when head is empty.
 */
typedef void ml_describe_fn(const struct run_result *r, struct strbuf *sb,
			    struct verdict *v);
void ml_say_part(const struct run_result *r, ml_describe_fn *describe,
		 struct verdict *v, char *head, size_t len);

/*
 * The parts, each in its file: run (struct part .run), what it showed
 * (.describe) and the estimate of a run of its mode (.estimate); mode=
 * selects one by its name (the descriptor's parts_param).
 */
PART_HOOKS(ml_nodes);
PART_HOOKS(ml_sizes);
PART_HOOKS(ml_loaded);

#endif
