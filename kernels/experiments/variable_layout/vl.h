/* vl.h - what the parts of variable_layout share: its params, its names, what run() prepares, and its parts */
#ifndef NUMALAB_VL_H
#define NUMALAB_VL_H

#include <stddef.h>
#include <stdint.h>

#include "compare.h"
#include "contend.h"
#include "experiment.h"

struct team_result;

#define VL_MAX_THREADS 1024
/*
 * Distance that keeps two words out of each other's way: the pair of
 * 64-byte lines that x86's adjacent-line prefetcher fetches together
 * (contend.h: false_sharing and atomic_increment use the same).
 */
#define VL_APART CONTEND_APART

/*
 * The names run and describe share, defined once: each chart with its
 * series, the summary keys and (vl_label) the placement labels.
 */
#define VL_LAYOUTS "layouts"
#define VL_LAYOUTS_SERIES "time"
#define VL_FOOTPRINT "footprint"
#define VL_FOOTPRINT_SERIES "bytes per thread"
#define VL_READERS "readers"
#define VL_READERS_SERIES "read"
#define VL_TLS "tls_access"
#define VL_TLS_SERIES "access"
#define VL_START "thread_start"
#define VL_START_SERIES "start"
#define KEY_LAYOUT "layout_slowdown"
#define KEY_READER "reader_slowdown"
#define KEY_DSO_FOUND "dso_found"
#define KEY_DSO_EXTRA "dso_tls_extra_ns"
#define KEY_BIG_START "big_tls_start_extra_us"

/* The parts a run may ask for (the parts param), in the order they run. */
enum vl_part { PART_LAYOUTS, PART_READERS, PART_TLS_ACCESS, PART_THREAD_START };

struct vl_params {
	int64_t threads;
	int64_t ops;
	int64_t starts;
	unsigned parts; /* bit (1u << enum vl_part) */
};

/* Whether the run's params ask for part. */
int vl_asked(const struct vl_params *vp, enum vl_part part);

/*
 * What each part compares, counted for the estimate and the progress
 * (a part's steps follow those of the parts before it).
 */
enum vl_layout { LAY_GLOBAL, LAY_TLS, LAY_PADDED, LAY_GROUPED, LAY_N };
enum vl_where { AT_SAME_LINE, AT_SECTION, AT_RODATA, AT_N };
enum vl_access { ACC_GLOBAL, ACC_TLS_EXE, ACC_TLS_DSO, ACC_N };
enum vl_start { START_NONE, START_SMALL, START_BIG, START_N };
#define VL_STEPS (4 * LAY_N)

/* The shared objects the Makefile builds next to the binary. */
#define DSO_SMALL "libnumalab_tls.so"
#define DSO_BIG "libnumalab_tls_big.so"

/* What one dlopen'ed object gives: its bump, its read-back, its TLS size. */
struct dso {
	void *handle;
	void (*bump)(void);
	long (*get)(void);
	size_t (*bytes)(void);
};

/* What run() prepares for the parts: the threads' cpus and the objects. */
struct vl_state {
	int n;		 /* threads */
	const int *cpus; /* n of them */
	int found;	 /* both shared objects were opened */
	struct dso small, big;
};

/* What a failed result check says after the run's label. */
#define VL_WRONG "the values read back are wrong: the kernel is broken"

/*
 * The threads mark their progress (team_mark) once every this many
 * operations: tens of microseconds, rare enough that the clock read does
 * not change how the lines travel. A round is then timed over the
 * stretches every thread was on a cpu.
 */
#define VL_MARK 65536

/* "layouts: global array", "readers: .rodata (const)" */
void vl_label(char *buf, size_t len, const char *chart, const char *name);

/*
 * Emits one categorical point: the rounds' times scaled to a unit per
 * operation (scale: units per second divided by operations per round),
 * with the median share of a round its threads ran together ("overlap",
 * 1 for one thread) and extra_key's number when given. Returns the
 * median.
 */
double vl_emit(struct run_ctx *ctx, const char *chart, const char *series,
	       int x, const char *label, const struct team_result *res,
	       double scale, const char *unit, const char *extra_key,
	       double extra);

/* What the parts share for their sentences (vl.c). */
const struct result_point *vl_point(const struct run_result *r,
				    const char *chart, const char *series,
				    const char *label);
/*
 * Whether two threads of the team chart/name could race for a line:
 * distinct CPUs. Says why not into v, and qualifies key with it.
 */
int vl_can_race(const struct run_result *r, const char *chart, const char *name,
		const char *what, const char *key, struct verdict *v);
/*
 * Compares shared (a word sharing its line with another thread's) with
 * apart for summary key, through compare.h: when the threads ran
 * together for less than the rulebook's floor of a round, nothing may be
 * stated, and a note of level "cannot" says why; under full overlap a
 * slowdown is a lower bound. why gets the words of the key's qualifier (""
 * when the number stands as measured). Returns how the threads
 * overlapped.
 */
enum contend_overlap vl_contended(const struct run_result *r,
				  const struct result_point *shared,
				  const struct result_point *apart,
				  const char *key, const char *what,
				  struct comparison *c, struct verdict *v,
				  char *why, size_t len);
/*
 * Whether the TLS parts had no shared objects to measure: says so once,
 * in the first TLS part the run asked for (say: this part is it).
 */
int vl_dso_missing(const struct run_result *r, struct verdict *v, int say);

/*
 * What a part's estimate starts from: the rounds, the operations a
 * thread makes in one, and the seconds of one operation alone and on a
 * line another writer shares (at least alone).
 */
struct vl_cost {
	double rounds, ops, alone, shared;
	double read, read_shared; /* a load apart, and beside the writer */
};
void vl_cost(const struct vl_params *vp, const struct common_params *common,
	     const struct topo *t, struct vl_cost *c);

/*
 * The parts, each in its file: run (struct part .run, with a struct
 * vl_state as its state), what it showed (.describe) and its time
 * (.estimate); parts= selects them by name (the descriptor's
 * parts_param).
 */
PART_HOOKS(vl_layouts);
PART_HOOKS(vl_readers);
PART_HOOKS(vl_tls_access);
PART_HOOKS(vl_thread_start);

#endif
