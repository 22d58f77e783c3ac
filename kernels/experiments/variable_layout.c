/* variable_layout.c - per-thread and read-mostly variables laid out the ways §6.4.1 ends with, and what TLS costs */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <link.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compare.h"
#include "contend.h"
#include "experiment.h"
#include "rates.h"
#include "selfpath.h"
#include "stats.h"
#include "team.h"
#include "team_points.h"
#include "workcost.h"

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

enum vl_part { PART_LAYOUTS, PART_READERS, PART_TLS_ACCESS, PART_THREAD_START };

static const struct param_choice parts[] = {{"layouts", PART_LAYOUTS},
					    {"readers", PART_READERS},
					    {"tls_access", PART_TLS_ACCESS},
					    {"thread_start", PART_THREAD_START},
					    {0}};

struct vl_params {
	int64_t threads;
	int64_t ops;
	int64_t starts;
	unsigned parts; /* bit (1u << enum vl_part) */
};

#define PARAM_STRUCT struct vl_params
static const struct param params[] = {
	PARAM_INT(
		threads, "2", 1, VL_MAX_THREADS, "threads",
		"threads updating their variables (layouts), or one writer and the rest readers (readers)",
		.flags = PARAM_F_CPUS),
	PARAM_INT(
		ops, "10000000", 1, 10000000000LL, "per thread",
		"operations per thread and round: updates of a thread's two variables, reads of the read-mostly word, TLS accesses"),
	PARAM_INT(starts, "200", 1, 1000000, "threads",
		  "threads started and joined per round to time TLS set-up"),
	PARAM_SET(
		parts, "all", parts,
		"layouts: four layouts of per-thread variables; readers: a read-mostly word beside a written one or apart; tls_access: TLS in the program or in a dlopen'ed object; thread_start: starting threads with small and large TLS blocks"),
	{0}};

static const struct chart charts[] = {
	CHART(VL_LAYOUTS, CHART_BAR,
	      "Time per operation (two updates of a thread's own variables), by layout",
	      "layout", "ns per operation"),
	CHART(VL_FOOTPRINT, CHART_BAR,
	      "Memory each thread's two variables take, by layout", "layout",
	      "bytes per thread"),
	CHART(VL_READERS, CHART_BAR,
	      "Readers of a read-mostly word while another thread writes",
	      "where the read-mostly word is", "ns per read"),
	CHART(VL_TLS, CHART_BAR, "One access to a variable, by where it lives",
	      "variable", "ns per access (call included)"),
	CHART(VL_START, CHART_BAR,
	      "Starting and joining a thread that uses one thread-local variable",
	      "the thread uses", "µs per thread"),
	{0}};

static const char *const summary_keys[] = {"threads",
					   KEY_LAYOUT,
					   KEY_READER,
					   KEY_DSO_FOUND,
					   KEY_DSO_EXTRA,
					   KEY_BIG_START,
					   "exe_tls_block_bytes",
					   NULL};

enum vl_layout { LAY_GLOBAL, LAY_TLS, LAY_PADDED, LAY_GROUPED, LAY_N };

static const char *const layout_names[LAY_N] = {"global array", "__thread",
						"padded, one line each",
						"grouped in one padded line"};

enum vl_where { AT_SAME_LINE, AT_SECTION, AT_RODATA, AT_N };

static const char *const where_names[AT_N] = {
	"same line as the written word", "own section (numalab_read_mostly)",
	".rodata (const)"};

/* "layouts: global array", "readers: .rodata (const)" */
static void vl_label(char *buf, size_t len, const char *chart, const char *name)
{
	snprintf(buf, len, "%s: %s", chart, name);
}

enum vl_access { ACC_GLOBAL, ACC_TLS_EXE, ACC_TLS_DSO, ACC_N };

static const char *const access_names[ACC_N] = {
	"global variable", "__thread in the program",
	"__thread in a dlopen'ed object"};

enum vl_start { START_NONE, START_SMALL, START_BIG, START_N };

static const char *const start_names[START_N] = {
	"no thread-local variable", "TLS of a dlopen'ed object (8 B block)",
	"TLS of a dlopen'ed object (1 MiB block)"};

/* The shared objects the Makefile builds next to the binary. */
#define DSO_SMALL "libnumalab_tls.so"
#define DSO_BIG "libnumalab_tls_big.so"

/*
 * The variables themselves. Only one run happens in a process at a
 * time, so statics are safe; each run zeroes what it uses.
 */
static unsigned long vl_global_a[VL_MAX_THREADS]
	__attribute__((aligned(VL_APART)));
static unsigned long vl_global_b[VL_MAX_THREADS]
	__attribute__((aligned(VL_APART)));
static __thread unsigned long vl_tls_a, vl_tls_b;

/* A written word and a read-mostly one in the same line, as plain .data puts
 * them. */
static struct {
	volatile unsigned long hot;
	volatile unsigned long cold;
} vl_line __attribute__((aligned(VL_APART))) = {0, 42};

/*
 * The read-mostly word in a section of its own, aligned and padded to
 * VL_APART so nothing written shares its pair of lines. The section name
 * has no dot on purpose: the default linker script folds every .data.*
 * input section (.data.read_mostly included) into .data, where a written
 * word could follow; a name it does not know stays an output section of
 * its own (readelf -S shows numalab_read_mostly, 128 bytes).
 */
static struct {
	unsigned long v;
	char pad[VL_APART - sizeof(unsigned long)];
} vl_apart __attribute__((section("numalab_read_mostly"),
			  aligned(VL_APART))) = {.v = 42};

/* The same word as a constant: the tool chain puts it in .rodata. */
static const unsigned long vl_rodata[VL_APART / sizeof(unsigned long)]
	__attribute__((aligned(VL_APART))) = {42};

static unsigned long vl_plain;
static __thread unsigned long vl_tls_counter;

__attribute__((noinline)) static void bump_global(void)
{
	vl_plain++;
}

__attribute__((noinline)) static void bump_tls(void)
{
	vl_tls_counter++;
}

static long get_global(void)
{
	return (long)vl_plain;
}

static long get_tls(void)
{
	return (long)vl_tls_counter;
}

/* What one dlopen'ed object gives: its bump, its read-back, its TLS size. */
struct dso {
	void *handle;
	void (*bump)(void);
	long (*get)(void);
	size_t (*bytes)(void);
};

/*
 * Opens name from the folder of the running binary or the one or two
 * folders above it (build/, and build/tests/unit/ for the unit tests), or
 * from lib/numalab/ of its install prefix. Returns 0 or -ENOENT.
 */
static int dso_open(const char *name, struct dso *d)
{
	char rel[4][64], path[PATH_MAX + 64];
	const char *rels[] = {rel[0], rel[1], rel[2], rel[3], NULL};

	memset(d, 0, sizeof(*d));
	snprintf(rel[0], sizeof(rel[0]), "%s", name);
	snprintf(rel[1], sizeof(rel[1]), "../%s", name);
	snprintf(rel[2], sizeof(rel[2]), "../../%s", name);
	snprintf(rel[3], sizeof(rel[3]), "../lib/numalab/%s", name);
	if (selfpath_find(rels, path, sizeof(path)) == 0)
		d->handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!d->handle)
		return -ENOENT;
	*(void **)&d->bump = dlsym(d->handle, "tls_module_bump");
	*(void **)&d->get = dlsym(d->handle, "tls_module_get");
	*(void **)&d->bytes = dlsym(d->handle, "tls_module_bytes");
	if (!d->bump || !d->get || !d->bytes) {
		dlclose(d->handle);
		memset(d, 0, sizeof(*d));
		return -ENOENT;
	}
	return 0;
}

static void dso_close(struct dso *d)
{
	if (d->handle)
		dlclose(d->handle);
	memset(d, 0, sizeof(*d));
}

static int exe_tls_cb(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_TLS)
			*(size_t *)data = info->dlpi_phdr[i].p_memsz;
	return 1; /* the first object is the program itself */
}

/* Bytes of the program's own TLS block, which every thread gets at creation. */
static size_t exe_tls_bytes(void)
{
	size_t bytes = 0;

	dl_iterate_phdr(exe_tls_cb, &bytes);
	return bytes;
}

/* What a failed result check says after the run's label. */
#define VL_WRONG "the values read back are wrong: the kernel is broken"

/*
 * Emits one categorical point: the rounds' times scaled to a unit per
 * operation (scale: units per second divided by operations per round),
 * with the median share of a round its threads ran together ("overlap",
 * 1 for one thread) and extra_key's number when given. Returns the
 * median.
 */
static double emit_scaled(struct run_ctx *ctx, const char *chart,
			  const char *series, int x, const char *label,
			  const struct team_result *res, double scale,
			  const char *unit, const char *extra_key, double extra)
{
	const char *const keys[] = {"overlap", "corun", extra_key};
	const double vals[] = {team_overlap_median(res), team_corun_median(res),
			       extra};

	return team_points_time(ctx->sink,
				(struct point){.chart = chart,
					       .series = series,
					       .x = x,
					       .x_label = label,
					       .unit = unit,
					       .extra_keys = keys,
					       .extra_vals = vals,
					       .nextra = extra_key ? 3 : 2},
				res, scale);
}

/* --- layouts: each thread updates two variables of its own --- */

struct lay_job {
	enum vl_layout layout;
	char *heap; /* line aligned: padded and grouped layouts */
	size_t line;
	uint64_t ops;
	unsigned long (*got)[2];
	int nthreads;
};

static void locate(const struct lay_job *j, int tid, volatile unsigned long **a,
		   volatile unsigned long **b)
{
	switch (j->layout) {
	case LAY_GLOBAL:
		*a = &vl_global_a[tid];
		*b = &vl_global_b[tid];
		break;
	case LAY_TLS:
		*a = &vl_tls_a;
		*b = &vl_tls_b;
		break;
	case LAY_PADDED:
		*a = (volatile unsigned long *)(j->heap +
						2 * (size_t)tid * j->line);
		*b = (volatile unsigned long *)(j->heap + (2 * (size_t)tid +
							   1) * j->line);
		break;
	default:
		*a = (volatile unsigned long *)(j->heap +
						(size_t)tid * j->line);
		*b = *a + 1;
		break;
	}
}

/*
 * The threads mark their progress (team_mark) once every this many
 * operations: tens of microseconds, rare enough that the clock read does
 * not change how the lines travel. A round is then timed over the
 * stretches every thread was on a cpu.
 */
#define VL_MARK 65536

static void lay_body(void *arg, int tid, int round)
{
	struct lay_job *j = arg;
	volatile unsigned long *a, *b;

	(void)round;
	locate(j, tid, &a, &b);
	*a = 0;
	*b = 0;
	/*
	 * two volatile read-modify-writes: every operation writes the lines;
	 * the progress is marked every VL_MARK operations (the round's work
	 * is every thread's operations)
	 */
	for (uint64_t k = 0; k < j->ops; k += VL_MARK) {
		uint64_t end = j->ops - k < VL_MARK ? j->ops : k + VL_MARK;
		for (uint64_t i = k; i < end; i++) {
			*a = *a + 1;
			*b = *b + i;
		}
		team_mark((double)end);
	}
	j->got[tid][0] = *a;
	j->got[tid][1] = *b;
}

static int lay_check(void *arg)
{
	const struct lay_job *j = arg;
	unsigned long n = (unsigned long)j->ops;
	unsigned long sum = n % 2 ? (n - 1) / 2 * n : n / 2 * (n - 1);

	for (int t = 0; t < j->nthreads; t++)
		if (j->got[t][0] != n || j->got[t][1] != sum)
			return -EIO;
	return 0;
}

static size_t footprint(enum vl_layout l, size_t line)
{
	if (l == LAY_PADDED)
		return 2 * line;
	if (l == LAY_GROUPED)
		return line;
	return 2 * sizeof(unsigned long);
}

static int run_layouts(struct run_ctx *ctx, const int *cpus, int n)
{
	const struct vl_params *vp = ctx->params;
	size_t line =
		(size_t)(ctx->topo->line_size > 0 ? ctx->topo->line_size : 64);
	size_t bytes = ((2 * (size_t)n * line) + 4095) & ~(size_t)4095;
	struct lay_job j = {
		.line = line, .ops = (uint64_t)vp->ops, .nthreads = n};
	double t[LAY_N] = {0};
	int rc = 0;

	j.heap = aligned_alloc(4096, bytes);
	j.got = calloc((size_t)n, sizeof(*j.got));
	if (!j.heap || !j.got) {
		rc = -ENOMEM;
		goto out;
	}
	memset(j.heap, 0, bytes);
	for (int l = 0; l < LAY_N && !rc; l++) {
		struct team_job job = {.nthreads = n,
				       .cpus = cpus,
				       .arg = &j,
				       .body = lay_body,
				       .check = lay_check,
				       .spin = 1,
				       .work = (double)n * (double)vp->ops};
		struct team_result res;
		char label[64];

		j.layout = (enum vl_layout)l;
		vl_label(label, sizeof(label), VL_LAYOUTS, layout_names[l]);
		sink_progress(ctx->sink, l, 4 * LAY_N, label);
		rc = team_points_run(ctx, &job, &res, label, VL_WRONG);
		if (rc)
			break;
		t[l] = emit_scaled(ctx, VL_LAYOUTS, VL_LAYOUTS_SERIES, l,
				   layout_names[l], &res, 1e9 / (double)vp->ops,
				   "ns", NULL, 0);
		sink_point(ctx->sink,
			   &(struct point){.chart = VL_FOOTPRINT,
					   .series = VL_FOOTPRINT_SERIES,
					   .x = l,
					   .x_label = layout_names[l],
					   .y = (double)footprint(
						   (enum vl_layout)l, line),
					   .unit = "B"});
		team_result_free(&res);
	}
	if (!rc && t[LAY_GROUPED] > 0)
		sink_summary(ctx->sink, KEY_LAYOUT,
			     t[LAY_GLOBAL] / t[LAY_GROUPED], "x");
out:
	free(j.heap);
	free(j.got);
	return rc;
}

/* --- readers: one writer, the others read a read-mostly word --- */

struct rd_job {
	const volatile unsigned long *word;
	uint64_t reads;
	int nreaders;
	atomic_int done;
	atomic_int stop_round; /* the writer stops when it passes its round */
	atomic_int bad;
};

static void rd_body(void *arg, int tid, int round)
{
	struct rd_job *j = arg;

	/*
	 * The writer is the last thread: thread 0 starts the round's clock,
	 * and as a reader it cannot start it after the work it times.
	 */
	if (tid == j->nreaders) {
		/* the written word counts the writes: a mark every VL_MARK */
		while (atomic_load_explicit(&j->stop_round,
					    memory_order_acquire) <= round)
			if (!(++vl_line.hot % VL_MARK))
				team_mark(0); /* its writes are not the work */
		return;
	}
	unsigned long sum = 0;
	for (uint64_t k = 0; k < j->reads; k += VL_MARK) {
		uint64_t end = j->reads - k < VL_MARK ? j->reads : k + VL_MARK;
		for (uint64_t i = k; i < end; i++)
			sum += *j->word;
		team_mark((double)end);
	}
	if (sum != 42 * (unsigned long)j->reads)
		atomic_store(&j->bad, 1);
	if (atomic_fetch_add(&j->done, 1) + 1 == j->nreaders * (round + 1))
		atomic_store_explicit(&j->stop_round, round + 1,
				      memory_order_release);
}

static int rd_check(void *arg)
{
	struct rd_job *j = arg;

	return atomic_load(&j->bad) ? -EIO : 0;
}

static int run_readers(struct run_ctx *ctx, const int *cpus, int n)
{
	const struct vl_params *vp = ctx->params;
	const volatile unsigned long *words[AT_N] = {&vl_line.cold, &vl_apart.v,
						     &vl_rodata[0]};
	double t[AT_N] = {0};
	int rc = 0;

	for (int w = 0; w < AT_N && !rc; w++) {
		struct rd_job j = {.word = words[w],
				   .reads = (uint64_t)vp->ops,
				   .nreaders = n - 1};
		struct team_job job = {.nthreads = n,
				       .cpus = cpus,
				       .arg = &j,
				       .body = rd_body,
				       .check = rd_check,
				       .spin = 1,
				       .work = (double)(n - 1) *
					       (double)vp->ops};
		struct team_result res;
		char label[80];
		long dist = labs(
			(long)((uintptr_t)words[w] - (uintptr_t)&vl_line.hot));

		vl_label(label, sizeof(label), VL_READERS, where_names[w]);
		sink_progress(ctx->sink, LAY_N + w, 4 * LAY_N, label);
		rc = team_points_run(ctx, &job, &res, label, VL_WRONG);
		if (rc)
			break;
		t[w] = emit_scaled(ctx, VL_READERS, VL_READERS_SERIES, w,
				   where_names[w], &res, 1e9 / (double)vp->ops,
				   "ns", "bytes_from_written", (double)dist);
		team_result_free(&res);
	}
	if (!rc && t[AT_SECTION] > 0)
		sink_summary(ctx->sink, KEY_READER,
			     t[AT_SAME_LINE] / t[AT_SECTION], "x");
	return rc;
}

/* --- TLS access: one call, one increment, by where the variable lives --- */

#define VL_ACC_MARK 8192

struct acc_job {
	void (*volatile bump)(void);
	long (*get)(void);
	uint64_t ops;
	atomic_int bad;
};

static void acc_body(void *arg, int tid, int round)
{
	struct acc_job *j = arg;
	long before = j->get();

	(void)tid;
	(void)round;
	/* marked every VL_ACC_MARK calls (20-120 us): a round is timed over
	 * the stretches its thread was on its cpu */
	for (uint64_t k = 0; k < j->ops; k += VL_ACC_MARK) {
		uint64_t end =
			j->ops - k < VL_ACC_MARK ? j->ops : k + VL_ACC_MARK;
		for (uint64_t i = k; i < end; i++)
			j->bump();
		team_mark((double)end);
	}
	if (j->get() - before != (long)j->ops)
		atomic_store(&j->bad, 1);
}

static int acc_check(void *arg)
{
	struct acc_job *j = arg;

	return atomic_load(&j->bad) ? -EIO : 0;
}

static int run_tls_access(struct run_ctx *ctx, const int *cpus,
			  const struct dso *small)
{
	const struct vl_params *vp = ctx->params;
	double t[ACC_N] = {0};
	int rc = 0;

	for (int a = 0; a < ACC_N && !rc; a++) {
		struct acc_job j = {.ops = (uint64_t)vp->ops};
		struct team_job job = {.nthreads = 1,
				       .cpus = cpus,
				       .arg = &j,
				       .body = acc_body,
				       .check = acc_check,
				       .work = (double)vp->ops};
		struct team_result res;
		char label[80];

		if (a == ACC_GLOBAL) {
			j.bump = bump_global;
			j.get = get_global;
		} else if (a == ACC_TLS_EXE) {
			j.bump = bump_tls;
			j.get = get_tls;
		} else if (small->handle) {
			j.bump = small->bump;
			j.get = small->get;
		} else {
			continue;
		}
		snprintf(label, sizeof(label), "tls access: %s",
			 access_names[a]);
		sink_progress(ctx->sink, LAY_N + AT_N + a, 4 * LAY_N, label);
		rc = team_points_run(ctx, &job, &res, label, VL_WRONG);
		if (rc)
			break;
		t[a] = emit_scaled(ctx, VL_TLS, VL_TLS_SERIES, a,
				   access_names[a], &res, 1e9 / (double)vp->ops,
				   "ns", NULL, 0);
		team_result_free(&res);
	}
	if (!rc && small->handle)
		sink_summary(ctx->sink, KEY_DSO_EXTRA,
			     t[ACC_TLS_DSO] - t[ACC_TLS_EXE], "ns");
	return rc;
}

/* --- thread start: create and join threads that touch TLS of an object --- */

static void *start_plain(void *arg)
{
	return arg;
}

static void *start_touch(void *arg)
{
	const struct dso *d = arg;

	d->bump();
	return NULL;
}

struct start_job {
	const struct dso *d; /* NULL: the thread touches nothing */
	int starts;
	atomic_int failed;
};

static void start_body(void *arg, int tid, int round)
{
	struct start_job *j = arg;

	(void)tid;
	(void)round;
	for (int i = 0; i < j->starts; i++) {
		pthread_t th;
		int e = j->d ? pthread_create(&th, NULL, start_touch,
					      (void *)j->d)
			     : pthread_create(&th, NULL, start_plain, NULL);
		if (e) {
			atomic_store(&j->failed, e);
			return;
		}
		pthread_join(th, NULL);
		team_mark(i + 1); /* 20-100 us a start */
	}
}

static int start_check(void *arg)
{
	struct start_job *j = arg;

	return atomic_load(&j->failed) ? -EIO : 0;
}

static int run_thread_start(struct run_ctx *ctx, const int *cpus,
			    const struct dso *small, const struct dso *big)
{
	const struct vl_params *vp = ctx->params;
	const struct dso *which[START_N] = {NULL, small, big};
	double t[START_N] = {0};
	int rc = 0;

	for (int s = 0; s < START_N && !rc; s++) {
		struct start_job j = {.d = which[s], .starts = (int)vp->starts};
		/* the started threads run on the body's cpu: the process's
		 * cpu clock counts them, so the time it was all off the cpu
		 * is left out */
		struct team_job job = {.nthreads = 1,
				       .cpus = cpus,
				       .arg = &j,
				       .body = start_body,
				       .check = start_check,
				       .work = (double)vp->starts,
				       .process_clock = 1};
		struct team_result res;
		char label[80];

		if (s != START_NONE && !which[s]->handle)
			continue;
		snprintf(label, sizeof(label), "thread start: %s",
			 start_names[s]);
		sink_progress(ctx->sink, LAY_N + AT_N + ACC_N + s, 4 * LAY_N,
			      label);
		rc = team_points_run(ctx, &job, &res, label, VL_WRONG);
		if (rc)
			break;
		t[s] = emit_scaled(
			ctx, VL_START, VL_START_SERIES, s, start_names[s], &res,
			1e6 / (double)vp->starts, "µs", "tls_block_bytes",
			which[s] ? (double)which[s]->bytes() : 0);
		team_result_free(&res);
	}
	if (!rc && big->handle)
		sink_summary(ctx->sink, KEY_BIG_START,
			     t[START_BIG] - t[START_NONE], "µs");
	return rc;
}

static int vl_run(struct run_ctx *ctx)
{
	const struct vl_params *vp = ctx->params;
	int n = (int)vp->threads;
	int *cpus = calloc((size_t)n, sizeof(int));
	struct dso small = {0}, big = {0};
	struct errinfo perr;
	int rc;

	if (!cpus)
		return -ENOMEM;
	rc = experiment_plan(ctx, n, cpus, &perr);
	if (rc) {
		sink_note(ctx->sink, "warn", "%s", perr.msg);
		goto out;
	}
	sink_summary(ctx->sink, "threads", n, "threads");
	sink_summary(ctx->sink, "exe_tls_block_bytes", (double)exe_tls_bytes(),
		     "B");
	if (vp->parts & (1u << PART_LAYOUTS))
		rc = run_layouts(ctx, cpus, n);
	if (!rc && n >= 2 && (vp->parts & (1u << PART_READERS)))
		rc = run_readers(ctx, cpus, n);
	if (!rc && (vp->parts &
		    ((1u << PART_TLS_ACCESS) | (1u << PART_THREAD_START)))) {
		int found = dso_open(DSO_SMALL, &small) == 0 &&
			    dso_open(DSO_BIG, &big) == 0;
		if (!found) {
			dso_close(&small);
			dso_close(&big);
		}
		sink_summary(ctx->sink, KEY_DSO_FOUND, found, NULL);
		if (vp->parts & (1u << PART_TLS_ACCESS))
			rc = run_tls_access(ctx, cpus, &small);
		if (!rc && (vp->parts & (1u << PART_THREAD_START)))
			rc = run_thread_start(ctx, cpus, &small, &big);
	}
	if (!rc)
		sink_progress(ctx->sink, 1, 1, "done");
out:
	dso_close(&small);
	dso_close(&big);
	free(cpus);
	return rc;
}

/* --- what a run says --- */

static const struct rr_point *pt(const struct run_result *r, const char *chart,
				 const char *series, const char *label)
{
	return rr_point_find_label(r, chart, series, label);
}

/* Whether every thread of a placement ran on one core (SMT siblings or one
 * CPU). */
static int one_core(const struct rr_placement *p)
{
	for (int i = 1; p && i < p->n; i++)
		if (p->t[i].core != p->t[0].core)
			return 0;
	return 1;
}

/* What the describe hooks build: the headline, and why none could be said. */
struct vl_say {
	char head[VERDICT_TEXT_LEN];
	char fail[VERDICT_TEXT_LEN]; /* the first reason a comparison failed */
};

static void failed(struct vl_say *say, const char *why)
{
	if (!say->fail[0])
		snprintf(say->fail, sizeof(say->fail), "%s", why);
}

/*
 * Whether two threads of the team chart/name could race for a line:
 * distinct CPUs. Says why not into v, and marks key with it.
 */
static int can_race(const struct run_result *r, const char *chart,
		    const char *name, const char *what, const char *key,
		    struct verdict *v, struct vl_say *say)
{
	char label[96], why[VERDICT_TEXT_LEN];
	const struct rr_placement *p;

	vl_label(label, sizeof(label), chart, name);
	p = rr_placement_find(r, label);
	if (!p || p->n < 2)
		snprintf(
			why, sizeof(why),
			"%s needs two threads running at once; this run had %d",
			what, p ? p->n : 1);
	else if (rr_placement_distinct_cpus(p) < 2)
		snprintf(
			why, sizeof(why),
			"%s needs threads on distinct cpus, but its %d threads were all seen on one cpu",
			what, p->n);
	else {
		if (one_core(p))
			verdict_note(
				v, "warn",
				"%s: the threads ran on SMT siblings of one core, which share the L1, so a shared line hardly moves; placement=spread puts them on separate cores",
				what);
		return 1;
	}
	verdict_note(v, "cannot", "%s", why);
	verdict_mark(v, key, VERDICT_DISOWNED, "%s", why);
	failed(say, why);
	return 0;
}

/*
 * Compares shared (a word sharing its line with another thread's) with
 * apart for summary key, through compare.h: when the threads ran
 * together for less than the rulebook's floor of a round, nothing may be
 * stated; under full overlap a slowdown is a lower bound. why gets the
 * words of the key's mark ("" when the number stands as measured).
 * Returns how the threads overlapped.
 */
static enum contend_overlap
contended(const struct run_result *r, const struct rr_point *shared,
	  const struct rr_point *apart, const char *key, const char *what,
	  struct comparison *c, struct verdict *v, char *why, size_t len)
{
	enum contend_overlap o;

	compare_points(shared, apart, experiment_precision(r->exp), c);
	compare_state_interval(v, key, c);
	o = contend_overlap(c, contend_floor(r->exp));
	why[0] = '\0';
	if (o == CONTEND_TOO_LITTLE)
		snprintf(
			why, len,
			"the threads ran at the same time for only %.0f%% of a round, so they hardly contended: %s could not be measured (other processes held the cpus, or one thread finished before the other started)",
			100 * c->together, what);
	else if (c->rel == CMP_MORE && c->lower_bound)
		snprintf(
			why, len,
			"the threads ran together only %.0f%% of a round, so the full penalty may be larger",
			100 * c->together);
	else if (c->rel == CMP_LESS)
		snprintf(
			why, len,
			"sharing the line came out faster than keeping apart, which sharing cannot cause: the machine's load changed between the two");
	else if (c->rel == CMP_FEW || c->rel == CMP_UNSURE)
		snprintf(why, len, "%s", compare_why_not(c));
	if (why[0])
		verdict_mark(v, key,
			     c->rel == CMP_MORE && o != CONTEND_TOO_LITTLE
				     ? VERDICT_AT_LEAST
				     : VERDICT_DISOWNED,
			     "%s", why);
	return o;
}

static void say_layouts(const struct run_result *r, struct verdict *v,
			struct vl_say *say)
{
	double tol = experiment_precision(r->exp);
	const struct rr_point *g =
		pt(r, VL_LAYOUTS, VL_LAYOUTS_SERIES, layout_names[LAY_GLOBAL]);
	const struct rr_point *tl =
		pt(r, VL_LAYOUTS, VL_LAYOUTS_SERIES, layout_names[LAY_TLS]);
	const struct rr_point *pd =
		pt(r, VL_LAYOUTS, VL_LAYOUTS_SERIES, layout_names[LAY_PADDED]);
	const struct rr_point *gr =
		pt(r, VL_LAYOUTS, VL_LAYOUTS_SERIES, layout_names[LAY_GROUPED]);
	const struct rr_point *fp = pt(r, VL_FOOTPRINT, VL_FOOTPRINT_SERIES,
				       layout_names[LAY_PADDED]);
	const struct rr_point *fg = pt(r, VL_FOOTPRINT, VL_FOOTPRINT_SERIES,
				       layout_names[LAY_GROUPED]);
	struct comparison c, c2;
	char why[VERDICT_TEXT_LEN], rt[64];

	if (!g || !gr)
		return;
	if (!can_race(r, VL_LAYOUTS, layout_names[LAY_GLOBAL],
		      "false sharing in the global array", KEY_LAYOUT, v, say))
		return;
	if (contended(r, g, gr, KEY_LAYOUT, "false sharing in the global array",
		      &c, v, why, sizeof(why)) == CONTEND_TOO_LITTLE) {
		verdict_note(v, "cannot", "%s", why);
		failed(say, why);
		return;
	}
	compare_ratio_text(&c, rt, sizeof(rt));
	if (c.rel == CMP_MORE) {
		snprintf(
			say->head, sizeof(say->head),
			"a global array of counters made each update %s slower than a padded per-thread struct: neighbouring threads' counters shared a line%s%s",
			rt, why[0] ? "; " : "", why);
		verdict_note(
			v, "info",
			"global array %.1f ns, __thread %.1f ns, padded %.1f ns, grouped and padded %.1f ns per operation",
			g->y, tl ? tl->y : 0, pd ? pd->y : 0, gr->y);
	} else if (c.rel == CMP_SAME) {
		verdict_note(
			v, "warn",
			"the global array (%.1f ns) and the padded struct (%.1f ns) took the same time within %.0f%%: neighbouring counters in one line did not slow these threads",
			g->y, gr->y, 100 * tol);
	} else {
		verdict_note(
			v, "warn",
			"the global array (%.1f ns) and the padded struct (%.1f ns) could not be told apart: %s; ask for more ops or repeats",
			g->y, gr->y, why);
		failed(say, why);
	}
	if (tl) {
		compare_points(g, tl, tol, &c2);
		if (c2.rel == CMP_MORE)
			verdict_note(
				v, "info",
				"__thread variables avoided the false sharing too (%.1f ns against %.1f ns): each thread's copy lives in its own TLS block",
				tl->y, g->y);
	}
	if (pd && fp && fg) {
		compare_points(pd, gr, tol, &c2);
		verdict_note(
			v, "info",
			"grouping the two variables in one padded line took %.0f B per thread instead of %.0f B with each padded alone, and was %s",
			fg->y, fp->y,
			c2.rel == CMP_MORE   ? "faster"
			: c2.rel == CMP_LESS ? "slower"
			: c2.rel == CMP_SAME ? "as fast"
					     : "not told apart from it");
	}
}

static void say_readers(const struct run_result *r, struct verdict *v,
			struct vl_say *say)
{
	const struct vl_params *vp = r->params;
	const struct rr_point *same, *sec, *ro;
	struct comparison c;
	char why[VERDICT_TEXT_LEN], rt[64];

	/* with one thread the readers part does not run (vl_run) */
	if (vp->threads < 2) {
		verdict_note(
			v, "cannot",
			"readers of a read-mostly word need a writer and a reader at once: ask for threads=2 or more");
		return;
	}
	same = pt(r, VL_READERS, VL_READERS_SERIES, where_names[AT_SAME_LINE]);
	sec = pt(r, VL_READERS, VL_READERS_SERIES, where_names[AT_SECTION]);
	if (!sec) /* a run stored before the section was renamed */
		sec = pt(r, VL_READERS, VL_READERS_SERIES,
			 "own section (.data.read_mostly)");
	ro = pt(r, VL_READERS, VL_READERS_SERIES, where_names[AT_RODATA]);
	if (!same || !sec)
		return;
	if (!can_race(r, VL_READERS, where_names[AT_SAME_LINE],
		      "the read-mostly word", KEY_READER, v, say))
		return;
	if (contended(r, same, sec, KEY_READER,
		      "what a written neighbour costs the readers", &c, v, why,
		      sizeof(why)) == CONTEND_TOO_LITTLE) {
		verdict_note(v, "cannot", "%s", why);
		failed(say, why);
		return;
	}
	compare_ratio_text(&c, rt, sizeof(rt));
	if (c.rel == CMP_MORE) {
		verdict_note(
			v, "info",
			"a read-mostly word in the written word's line cost its readers %.1f ns per read, %.1f ns in a section of its own%s",
			same->y, sec->y, ro ? " (and as much in .rodata)" : "");
		if (!say->head[0])
			snprintf(
				say->head, sizeof(say->head),
				"readers paid %s per read when their read-mostly word shared a line with a written one%s%s",
				rt, why[0] ? "; " : "", why);
	} else {
		verdict_note(
			v, "warn",
			"the readers' cost beside the written word (%.1f ns) and apart (%.1f ns) could not be told apart%s%s",
			same->y, sec->y, why[0] ? ": " : "", why);
		if (why[0])
			failed(say, why);
	}
}

static void say_tls(const struct run_result *r, struct verdict *v,
		    struct vl_say *say)
{
	const struct vl_params *vp = r->params;
	double tol = experiment_precision(r->exp);
	int acc = vp->parts & (1u << PART_TLS_ACCESS);
	int start = vp->parts & (1u << PART_THREAD_START);
	const struct rr_point *exe = NULL, *dso = NULL, *none = NULL,
			      *big = NULL;
	struct comparison c;
	double found = 1;

	/* a TLS part (the caller checked one was asked for) emits dso_found */
	if (rr_summary_get(r, KEY_DSO_FOUND, &found) == 0 && !found) {
		verdict_note(
			v, "cannot",
			"TLS in a shared object was not measured: " DSO_SMALL
			" and " DSO_BIG
			" were found neither beside the binary nor in lib/numalab/ of its prefix (make builds them into the build folder, make install puts them there)");
		return;
	}
	if (acc) {
		exe = pt(r, VL_TLS, VL_TLS_SERIES, access_names[ACC_TLS_EXE]);
		dso = pt(r, VL_TLS, VL_TLS_SERIES, access_names[ACC_TLS_DSO]);
	}
	if (start) {
		none = pt(r, VL_START, VL_START_SERIES,
			  start_names[START_NONE]);
		big = pt(r, VL_START, VL_START_SERIES, start_names[START_BIG]);
	}
	if (exe && dso) {
		compare_points(dso, exe, tol, &c);
		if (c.rel == CMP_MORE)
			verdict_note(
				v, "info",
				"a __thread variable of a dlopen'ed object cost %.1f ns per access against %.1f ns in the program: its address comes from __tls_get_addr each time",
				dso->y, exe->y);
		else {
			verdict_note(
				v, "warn",
				"TLS in the dlopen'ed object (%.1f ns) was %s TLS in the program (%.1f ns) here",
				dso->y,
				c.rel == CMP_LESS   ? "cheaper than"
				: c.rel == CMP_SAME ? "as cheap as"
						    : "not told apart from",
				exe->y);
			if (c.rel != CMP_SAME)
				verdict_mark(
					v, KEY_DSO_EXTRA, VERDICT_DISOWNED,
					"%s",
					c.rel == CMP_LESS
						? "TLS in the dlopen'ed object came out cheaper than in the program, which its extra call cannot cause"
						: compare_why_not(&c));
		}
	}
	if (none && big) {
		compare_points(big, none, tol, &c);
		if (c.rel == CMP_MORE) {
			verdict_note(
				v, "info",
				"a thread that touched one variable of an object with a 1 MiB TLS block took %.0f µs to start and join, %.0f µs without: the whole block is allocated on that first touch",
				big->y, none->y);
			if (!say->head[0])
				snprintf(
					say->head, sizeof(say->head),
					"one touch of a 1 MiB TLS block made a thread cost %.0f µs instead of %.0f µs",
					big->y, none->y);
		} else if (c.rel == CMP_SAME) {
			verdict_note(
				v, "warn",
				"starting threads with and without a large TLS block took the same time within %.0f%% (%.0f and %.0f µs)",
				100 * tol, big->y, none->y);
		} else {
			verdict_note(
				v, "warn",
				"starting threads with and without a large TLS block could not be told apart (%.0f and %.0f µs)",
				big->y, none->y);
			verdict_mark(
				v, KEY_BIG_START, VERDICT_DISOWNED, "%s",
				c.rel == CMP_LESS
					? "threads with a large TLS block started faster than without, which its allocation cannot cause"
					: compare_why_not(&c));
		}
	}
}

static void vl_describe(const struct run_result *r, struct verdict *v)
{
	const struct vl_params *vp = r->params;
	struct vl_say say = {{0}, {0}};

	/* each part's points are looked up only when the part was asked for */
	if (vp->parts & (1u << PART_LAYOUTS))
		say_layouts(r, v, &say);
	if (vp->parts & (1u << PART_READERS))
		say_readers(r, v, &say);
	if (vp->parts & ((1u << PART_TLS_ACCESS) | (1u << PART_THREAD_START)))
		say_tls(r, v, &say);
	if (!r->complete)
		verdict_note(
			v, "warn",
			"the run did not finish: what it says rests on the parts measured");
	if (say.head[0])
		verdict_headline(v, "%s", say.head);
	else if (say.fail[0])
		verdict_headline(
			v, "this run could not tell its layouts apart: %s",
			say.fail);
	else if (r->npoints)
		verdict_headline(
			v,
			"this run could not tell its layouts apart: the rounds varied more than the layouts differed (see the notes)");
}

static void vl_precheck(const void *params, const struct common_params *common,
			const struct topo *t, struct verdict *v)
{
	const struct vl_params *vp = params;
	int racing = vp->parts & ((1u << PART_LAYOUTS) | (1u << PART_READERS));
	int plan[VL_MAX_THREADS];
	char msg[256];

	if (!racing)
		return;
	if (vp->threads < 2) {
		verdict_note(
			v, "cannot",
			"with one thread no line is shared: the layouts and the readers need threads=2 or more");
		return;
	}
	if (t->nallowed < 2) {
		verdict_note(
			v, "cannot",
			"this process may use one cpu: two threads never write at once, so no layout can show false sharing");
		return;
	}
	if (common->placement == PLACE_OS && !common->cpus.n) {
		verdict_note(
			v, "warn",
			"the threads are not pinned (placement=os): they may share a cpu for parts of a round");
		return;
	}
	if (topo_plan(t, (enum place_strategy)common->placement, common->cpus.v,
		      common->cpus.n, (int)vp->threads, plan, msg, sizeof(msg)))
		return;
	const struct topo_pu *first = topo_pu_by_os(t, plan[0]);
	int same = 1;
	for (int i = 1; i < vp->threads && first; i++) {
		const struct topo_pu *p = topo_pu_by_os(t, plan[i]);
		if (!p || p->core != first->core)
			same = 0;
	}
	if (same && first)
		verdict_note(
			v, "warn",
			"the %lld threads land on SMT siblings of one core, which share the L1: a shared line hardly moves there (placement=spread uses separate cores)",
			(long long)vp->threads);
}

static void vl_estimate(const void *params, const struct common_params *common,
			const struct topo *t, double *seconds, uint64_t *bytes)
{
	const struct vl_params *vp = params;
	const struct rates *r = rates_get();
	double rounds = (double)(common->repeat + common->warmup);
	double ops = (double)vp->ops;
	int n = (int)vp->threads;
	/*
	 * An operation updates two variables through the layout's address
	 * arithmetic: about eight plain increments' worth; one that shares
	 * its line with another writer waits for the line instead.
	 */
	double alone = 8 * r->inc_ns * 1e-9 * cost_crowd(t, n);
	double shared = (n > 1 ? r->bounce_ns * (n / 2.0) : 0) * 1e-9;
	double s = 0;

	if (shared < alone)
		shared = alone;
	/* layouts: one shares lines, the others do not; readers: one shares */
	if (vp->parts & (1u << PART_LAYOUTS))
		s += rounds * ops * (shared + (LAY_N - 1) * alone) +
		     cost_teams_s(LAY_N);
	if (vp->parts & (1u << PART_READERS))
		s += rounds * ops * (shared + (AT_N - 1) * alone) +
		     cost_teams_s(AT_N);
	/* a variable of a dlopen'ed object is found through a call: twice a
	 * plain access */
	if (vp->parts & (1u << PART_TLS_ACCESS))
		s += rounds * ops * ACC_N * 2 * alone + cost_teams_s(ACC_N);
	/* a thread created and joined; the big object zeroes 1 MiB of TLS in it
	 */
	if (vp->parts & (1u << PART_THREAD_START))
		s += rounds * (double)vp->starts *
			     (START_N * r->spawn_ns * 1e-9 +
			      cost_stream_s(t, COST_WRITE, 1 << 20, 1)) +
		     cost_teams_s(START_N);
	*seconds = s;
	*bytes = (uint64_t)vp->threads * 2 * VL_APART + (2u << 20);
}

/*
 * The classroom's questions, each on its own part: 30 million operations
 * make rounds of about 0.1 s on a 2-core VM, long enough that the two
 * threads overlap for most of one on a busy machine; 6 rounds are the
 * fewest whose median has a 95% interval of its own (stats.c).
 */
static const struct lesson lessons[] = {
	LESSON("global-array", "Counters in one global array",
	       "how many times slower are 2 threads updating counters of one global array than counters padded to a line each?",
	       "threads=2 parts=layouts ops=30000000 repeat=6 warmup=1", "x",
	       KEY_LAYOUT, VL_LAYOUTS),
	LESSON("read-mostly", "A read-mostly variable beside a written one",
	       "how many times longer does a read take when the variable shares its line with one another thread writes?",
	       "threads=2 parts=readers ops=30000000 repeat=6 warmup=1", "x",
	       KEY_READER, VL_READERS),
	{0}};

/* The rulebook (rules.h): what its comparisons need. */
static const struct rule rules[] = {RULE(RULE_TOGETHER, .param = "threads",
					 .floor = 0.25,
					 .what = "the slowdown of a layout"),
				    {RULE_END}};
static const char *const compared[] = {"layout_slowdown", "reader_slowdown",
				       NULL};

/* what a person reads for each summary key */
static const struct key_label summary_labels[] = {
	{"threads", "threads that read and write", "threads"},
	{KEY_LAYOUT, "slowdown of the packed layout", "×"},
	{KEY_READER, "slowdown of the reader beside writers", "×"},
	{KEY_DSO_FOUND, "TLS library found", "yes/no"},
	{KEY_DSO_EXTRA, "extra time of a library's TLS access", "ns"},
	{KEY_BIG_START, "extra thread start with a big TLS block", "µs"},
	{"exe_tls_block_bytes", "program's TLS block", "bytes"},
	{NULL, NULL, NULL}};

const struct experiment exp_variable_layout = {
	.name = "variable_layout",
	.smoke = "threads=2 ops=1000 starts=2 repeat=2 warmup=0",
	.summary_labels = summary_labels,
	.headline_key = KEY_LAYOUT,
	.headline_chart = VL_LAYOUTS,
	.title = "Variable layout and thread-local storage",
	.summary = "Per-thread variables in a global array, in TLS, padded or "
		   "grouped; a read-mostly word beside a written one or apart; "
		   "what TLS costs to reach and to set up",
	.section = "6.4.1",
	.explain =
		"False sharing is easy to cure by giving every variable a whole "
		"cache line, but that multiplies the memory a program touches. "
		"The end of the article's section on concurrency gives a "
		"cheaper recipe, and this experiment puts each step of it next "
		"to the layout it replaces.\n\n"
		"Layouts: each thread updates two variables of its own, over "
		"and over. In a global array the counters of neighbouring "
		"threads sit side by side, so every write takes the line away "
		"from the other cores. As __thread variables each thread gets "
		"its own copy in its own thread-local block, far from the "
		"others. Padded, each variable fills a line of its own; "
		"grouped, the two variables a thread uses together share one "
		"padded line, which keeps them apart from other threads at half "
		"the memory. The footprint chart shows what each layout costs "
		"in bytes per thread.\n\n"
		"Readers: a word that is only read can sit in every core's "
		"cache at once, unless a word in the same line is written: "
		"then each write throws it out of the readers' caches. One "
		"thread writes a counter while the others read a constant "
		"kept in the counter's line, in a section of its own (as the "
		"article suggests with section attributes), or in .rodata, "
		"where const puts it. The section is named numalab_read_mostly, "
		"without a dot: the default linker script folds every .data.* "
		"section into .data, beside written variables, while a name it "
		"does not know stays a section of its own (readelf -S shows "
		"it); the word is also aligned and padded to 128 B, two 64 B "
		"lines, because the adjacent-line prefetcher fetches lines in "
		"pairs (false_sharing and atomic_increment keep their words "
		"that far apart too).\n\n"
		"The cost of TLS: a __thread variable of the program is found "
		"at a fixed offset from the thread pointer, but one in a shared "
		"object loaded with dlopen needs a call to __tls_get_addr to "
		"find this thread's copy. And the first touch of any variable "
		"of such an object allocates and zeroes the object's whole TLS "
		"block for that thread: starting threads that touch one small "
		"variable beside a 1 MiB array shows the price. The two small "
		"shared objects are built by make next to the binary; without "
		"them those parts are skipped and the verdict says so.",
	EXPERIMENT_PARTS(vl),
	.uses_placement = 1,
	.rules = rules,
	.compared = compared,
	.precision = 0.05,
};
