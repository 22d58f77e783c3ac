/* numa_replication.c - §6.5.7's explicit NUMA optimisations: a copy per node, a region per node combined, migrating before use */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bw.h"
#include "compare.h"
#include "experiment.h"
#include "mem_size.h"
#include "node_mem.h"
#include "numa_mem.h"
#include "page_census.h"
#include "rates.h"
#include "stats.h"
#include "team.h"
#include "team_points.h"
#include "workcost.h"

#define NR_MAX_THREADS 1024

struct nr_params {
	int64_t size;
	int64_t passes;
	int64_t updates;
	int64_t buckets;
	int64_t threads; /* per node */
	struct int_list nodes, home;
};

/*
 * Names run() emits and describe() reads, defined once: charts, series,
 * labels and summary keys.
 */
#define CH_READ "read"
#define CH_MEMORY "memory"
#define CH_ACC "accumulate"
#define CH_PASS "pass_time"
#define CH_MIGRATION "migration"
#define SERIES_UPDATES "updates"
#define SERIES_COMBINE "combine"
#define SERIES_PASS "pass"
#define SERIES_BREAK_EVEN "break-even"
#define KEY_COMBINE "combine_ms"
#define KEY_EQUAL "accumulate_equal"
#define KEY_MIG_POSSIBLE "migration_possible"
#define KEY_MIG_FAILED "migration_failed"
#define KEY_MIG_MS "migration_ms"
#define KEY_BREAK_EVEN "break_even_passes"
#define READ_FROM_CACHE                                                        \
	"the data fits in this machine's cache (a size under 4 times the last-level cache), so one copy against a copy per node was compared from cache, not memory: the comparison is not stated"
#define NO_BREAK_EVEN                                                          \
	"a pass over the region on the remote node was not told slower than on the local node, so no break-even can be claimed for the migration"

#define PARAM_STRUCT struct nr_params
static const struct param params[] = {
	PARAM_SIZE(
		size, "64M", 64 << 10, 1LL << 36, "bytes",
		"the read-only data (one copy) and the writable region that may be migrated; default: 4 times the machine's last-level cache (at least 64M), so that the copies are read from memory; a smaller one is labelled from cache",
		.flags = PARAM_F_MEMORY),
	PARAM_INT(passes, "4", 1, 10000, "sweeps",
		  "sweeps over the data per thread and round"),
	PARAM_INT(updates, "2000000", 1, 10000000000LL, "per thread",
		  "additions into the accumulator per thread and round"),
	PARAM_INT(buckets, "65536", 1, 1 << 26, "slots",
		  "8-byte slots of the accumulator region"),
	PARAM_INT(threads, "1", 1, NR_MAX_THREADS, "per node",
		  "threads on each node"),
	PARAM_NODELIST(
		nodes, "", 0, NMEM_MAX_NODE - 1,
		"nodes whose threads take part; empty: every node with cpus and memory"),
	PARAM_NODELIST(
		home, "", 0, NMEM_MAX_NODE - 1,
		"the node holding the single copy and the shared accumulator; empty: the first of 'nodes'"),
	{0}};

static const struct chart charts[] = {
	CHART(CH_READ, CHART_BAR,
	      "Reading the read-only data: one copy, or the copy of the reader's node",
	      "node of the reading thread", "GB/s per thread"),
	CHART(CH_MEMORY, CHART_BAR, "What replication costs in memory",
	      "layout", "MiB"),
	CHART(CH_ACC, CHART_BAR,
	      "Accumulating: one shared region, or a region per node combined at the end",
	      "layout", "ms per round"),
	CHART(CH_PASS, CHART_BAR,
	      "One pass over the writable region, from the local node",
	      "where the region is", "ms per pass"),
	CHART(CH_MIGRATION, CHART_LINE,
	      "Total time over many passes: stay remote, or migrate first (they cross at the break-even)",
	      "passes", "ms"),
	{0}};

static const char *const summary_keys[] = {"nodes_used",
					   "home_node",
					   "replicas",
					   "replica_bytes",
					   "single_bytes",
					   "replica_setup_ms",
					   "single_pages_home",
					   "single_pages_elsewhere",
					   "replica_node*_pages_local",
					   "replica_node*_pages_elsewhere",
					   KEY_EQUAL,
					   KEY_COMBINE,
					   "shared_region_pages_home",
					   "region_node*_pages_local",
					   "region_node*_pages_elsewhere",
					   KEY_MIG_POSSIBLE,
					   "local_node",
					   "remote_node",
					   "migration_pages_before_remote",
					   "migration_pages_after_local",
					   "migration_moved",
					   KEY_MIG_FAILED,
					   KEY_MIG_MS,
					   KEY_BREAK_EVEN,
					   NULL};

#define SERIES_SINGLE "one copy"
#define SERIES_LOCAL "a copy per node"
#define ACC_SHARED "one shared region"
#define ACC_PER_NODE "a region per node"
#define PASS_REMOTE "remote node (before)"
#define PASS_LOCAL "local node (after migrating)"

/* The nodes taking part, the home node, and each thread's CPU. */
struct nr_plan {
	int nodes[TOPO_MAX_NODES];
	int nnodes;
	int home;
	int nthreads;
	int cpus[NR_MAX_THREADS];
	int node_of[NR_MAX_THREADS];
};

static int usable_node(const struct topo *t, int i, int threads)
{
	return t->node[i].mem_total > 0 &&
	       topo_node_ncpus(t, t->node[i].os) >= threads;
}

/* The nodes the params name, or every usable one; home defaults to the first.
 * Pure. */
static void plan_nodes(const struct nr_params *p, const struct topo *t,
		       struct nr_plan *pl)
{
	memset(pl, 0, sizeof(*pl));
	for (int i = 0; i < p->nodes.n && pl->nnodes < TOPO_MAX_NODES; i++)
		pl->nodes[pl->nnodes++] = p->nodes.v[i];
	for (int i = 0; !p->nodes.n && i < t->nnodes; i++)
		if (usable_node(t, i, (int)p->threads))
			pl->nodes[pl->nnodes++] = t->node[i].os;
	if (p->home.n)
		pl->home = p->home.v[0];
	else
		pl->home = pl->nnodes ? pl->nodes[0] : 0;
}

static int plan_cpus(const struct nr_params *p, const struct topo *t,
		     struct nr_plan *pl, struct errinfo *err)
{
	int per = (int)p->threads;

	pl->nthreads = 0;
	for (int i = 0; i < pl->nnodes; i++) {
		int32_t node = pl->nodes[i];
		if (pl->nthreads + per > NR_MAX_THREADS)
			return errinfo_set(err, "threads",
					   "more than %d threads in all",
					   NR_MAX_THREADS);
		if (topo_plan_nodes(t, PLACE_COMPACT, &node, 1, per,
				    pl->cpus + pl->nthreads, err->msg,
				    sizeof(err->msg))) {
			snprintf(err->field, sizeof(err->field), "threads");
			return -EINVAL;
		}
		for (int k = 0; k < per; k++)
			pl->node_of[pl->nthreads++] = node;
	}
	return 0;
}

/* The node of the plan farthest from local (by the distance table), -1 if none
 * other. */
static int farthest(const struct topo *t, const struct nr_plan *pl, int local)
{
	int best = -1, bestd = -1, li = topo_node_index(t, local);

	for (int i = 0; i < pl->nnodes; i++) {
		int ni = topo_node_index(t, pl->nodes[i]);
		int d = li >= 0 && ni >= 0 ? t->distance[li][ni] : 0;
		if (pl->nodes[i] == local)
			continue;
		if (d >= bestd) {
			bestd = d;
			best = pl->nodes[i];
		}
	}
	return best;
}

/* --- read-only data: one copy, or local_data() --- */

struct replicas {
	pthread_mutex_t lock;
	const struct topo *topo;
	const struct nmem_buf *master;
	struct nmem_buf copy[TOPO_MAX_NODES]; /* by index in topo->node */
	int have[TOPO_MAX_NODES];
	double setup_s[TOPO_MAX_NODES];
	int failed; /* -errno of the first allocation that failed */
};

/*
 * The article's local_data(): the copy of the node the calling thread
 * runs on, made on first use by the first thread of that node. A node
 * that cannot be told falls back to the first one, as the article does.
 */
static const char *local_data(struct replicas *r)
{
	int node = topo_cpu_node(r->topo, sched_getcpu());
	int i = topo_node_index(r->topo, node);
	const char *p = NULL;

	if (i < 0)
		i = 0;
	pthread_mutex_lock(&r->lock);
	if (!r->have[i] && !r->failed) {
		double t0 = clock_now();
		int rc = nmem_alloc_on(NULL, r->topo, r->topo->node[i].os,
				       r->master->len, -1, &r->copy[i]);
		if (rc) {
			r->failed = rc;
		} else {
			memcpy(r->copy[i].base, r->master->base,
			       r->master->len);
			r->have[i] = 1;
			r->setup_s[i] = clock_now() - t0;
		}
	}
	if (r->have[i])
		p = r->copy[i].base;
	pthread_mutex_unlock(&r->lock);
	return p;
}

struct read_job {
	struct replicas *rep;
	const char *single; /* NULL: each thread reads its local_data() */
	const char *src[NR_MAX_THREADS];
	size_t len;
	int passes;
	uint64_t expect;
	double *sec; /* [round * nthreads + tid] */
	int nthreads;
	atomic_int bad;
};

static void read_setup(void *arg, int tid)
{
	struct read_job *j = arg;

	j->src[tid] = j->single ? j->single : local_data(j->rep);
}

static void read_body(void *arg, int tid, int round)
{
	struct read_job *j = arg;
	enum bw_isa isa = bw_isa_best();
	double t0 = clock_now();

	if (!j->src[tid]) {
		atomic_store(&j->bad, 1);
		return;
	}
	for (int p = 0; p < j->passes; p++)
		if (bw_kernel_isa(isa, BW_READ, NULL, j->src[tid], j->len, 0) !=
		    j->expect)
			atomic_store(&j->bad, 1);
	j->sec[round * j->nthreads + tid] = clock_now() - t0;
}

static int read_check(void *arg)
{
	struct read_job *j = arg;

	return atomic_load(&j->bad) ? -EIO : 0;
}

/* Emits one point per node: the median over rounds of its threads' GB/s. */
static void emit_reads(struct run_ctx *ctx, const struct nr_plan *pl,
		       const struct read_job *j, const struct team_result *res,
		       const char *series)
{
	double bytes = (double)j->len * j->passes;
	int rounds = res->rounds;

	for (int n = 0; n < pl->nnodes; n++) {
		double v[rounds > 0 ? rounds : 1];
		struct stats s;
		int k = 0;
		for (int r = 0; r < rounds; r++) {
			double sum = 0;
			int cnt = 0;
			for (int t = 0; t < pl->nthreads; t++)
				if (pl->node_of[t] == pl->nodes[n] &&
				    j->sec[res->round[r] * pl->nthreads + t] >
					    0) {
					sum += bytes /
					       j->sec[res->round[r] *
							      pl->nthreads +
						      t] /
					       1e9;
					cnt++;
				}
			if (cnt)
				v[k++] = sum / cnt;
		}
		stats_compute(v, k, &s);
		sink_point(ctx->sink, &(struct point){.chart = CH_READ,
						      .series = series,
						      .x = pl->nodes[n],
						      .y = s.median,
						      .unit = "GB/s",
						      .samples = v,
						      .nsamples = k});
	}
}

static int run_read(struct run_ctx *ctx, const struct nr_plan *pl,
		    const struct nmem_buf *master, struct replicas *rep,
		    uint64_t expect, const char *series, const char *label)
{
	const struct nr_params *p = ctx->params;
	int rounds = team_points_rounds_most(ctx);
	struct read_job *j = calloc(1, sizeof(*j));
	struct team_result res;
	int rc;

	if (!j)
		return -ENOMEM;
	j->rep = rep;
	j->single = rep ? NULL : master->base;
	j->len = master->len / BW_CHUNK * BW_CHUNK;
	j->passes = (int)p->passes;
	j->expect = expect;
	j->nthreads = pl->nthreads;
	j->sec = calloc((size_t)rounds * pl->nthreads, sizeof(double));
	if (!j->sec) {
		free(j);
		return -ENOMEM;
	}
	struct team_job job = {.nthreads = pl->nthreads,
			       .cpus = pl->cpus,
			       .arg = j,
			       .setup = read_setup,
			       .body = read_body,
			       .check = read_check,
			       .rounds_most = rounds};
	rc = team_points_run(
		ctx, &job, &res, label,
		"a thread read a wrong sum or had no copy: the kernel is wrong");
	if (rc == 0) {
		emit_reads(ctx, pl, j, &res, series);
		team_result_free(&res);
	}
	free(j->sec);
	free(j);
	return rc;
}

static int part_readonly(struct run_ctx *ctx, const struct nr_plan *pl)
{
	const struct nr_params *p = ctx->params;
	const struct topo *t = ctx->topo;
	struct nmem_buf master;
	struct replicas *rep = calloc(1, sizeof(*rep));
	size_t on, off;
	uint64_t expect;
	int rc, ncopies = 0;
	double setup = 0;

	if (!rep)
		return -ENOMEM;
	rc = nmem_alloc_on(ctx->sink, t, pl->home, (size_t)p->size, -1,
			   &master);
	if (rc) {
		free(rep);
		return rc;
	}
	bw_fill(master.base, master.len, 7);
	expect = bw_kernel_isa(bw_isa_best(), BW_READ, NULL, master.base,
			       master.len / BW_CHUNK * BW_CHUNK, 0);
	sink_progress(ctx->sink, 0, 4, "read-only data: one copy");
	/* the placement's label is the series: describe finds it by that */
	rc = run_read(ctx, pl, &master, NULL, expect, SERIES_SINGLE,
		      SERIES_SINGLE);
	if (!rc && !nmem_count_on(&master, pl->home, &on, &off)) {
		sink_summary(ctx->sink, "single_pages_home", (double)on,
			     "pages");
		sink_summary(ctx->sink, "single_pages_elsewhere", (double)off,
			     "pages");
	}
	if (!rc) {
		pthread_mutex_init(&rep->lock, NULL);
		rep->topo = t;
		rep->master = &master;
		sink_progress(ctx->sink, 1, 4,
			      "read-only data: a copy per node");
		rc = run_read(ctx, pl, &master, rep, expect, SERIES_LOCAL,
			      SERIES_LOCAL);
		if (rep->failed)
			rc = rep->failed;
		for (int i = 0; !rc && i < t->nnodes; i++) {
			char key[64];
			if (!rep->have[i])
				continue;
			ncopies++;
			setup += rep->setup_s[i];
			if (nmem_count_on(&rep->copy[i], t->node[i].os, &on,
					  &off))
				continue;
			snprintf(key, sizeof(key), "replica_node%d_pages_local",
				 t->node[i].os);
			sink_summary(ctx->sink, key, (double)on, "pages");
			snprintf(key, sizeof(key),
				 "replica_node%d_pages_elsewhere",
				 t->node[i].os);
			sink_summary(ctx->sink, key, (double)off, "pages");
		}
		for (int i = 0; i < t->nnodes; i++)
			if (rep->have[i])
				nmem_free(&rep->copy[i]);
		pthread_mutex_destroy(&rep->lock);
	}
	if (!rc) {
		double mib = (double)master.len / (1 << 20);
		sink_summary(ctx->sink, "replicas", ncopies, "copies");
		sink_summary(ctx->sink, "single_bytes", (double)master.len,
			     "B");
		sink_summary(ctx->sink, "replica_bytes",
			     (double)master.len * ncopies, "B");
		sink_summary(ctx->sink, "replica_setup_ms", setup * 1e3, "ms");
		sink_point(ctx->sink, &(struct point){.chart = CH_MEMORY,
						      .series = "MiB",
						      .x = 0,
						      .x_label = SERIES_SINGLE,
						      .y = mib,
						      .unit = "MiB"});
		sink_point(ctx->sink, &(struct point){.chart = CH_MEMORY,
						      .series = "MiB",
						      .x = 1,
						      .x_label = SERIES_LOCAL,
						      .y = mib * ncopies,
						      .unit = "MiB"});
	}
	nmem_free(&master);
	free(rep);
	return rc;
}

/* --- accumulating: one shared region, or one per node --- */

struct acc_job {
	uint64_t *region[NR_MAX_THREADS]; /* per thread: where it adds */
	uint64_t updates;
	uint64_t buckets;
};

static void acc_body(void *arg, int tid, int round)
{
	struct acc_job *j = arg;
	uint64_t *acc = j->region[tid];
	uint64_t x =
		0x9e3779b97f4a7c15ull * (uint64_t)(tid + 1) + (uint64_t)round;

	/* the same stream of additions per thread and round in both layouts */
	for (uint64_t u = 0; u < j->updates; u++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		__atomic_fetch_add(&acc[x % j->buckets], x & 0xff,
				   __ATOMIC_RELAXED);
	}
}

/* The template of a point of the accumulate chart's updates. */
static struct point updates_point(int x, const char *label)
{
	return (struct point){.chart = CH_ACC,
			      .series = SERIES_UPDATES,
			      .x = x,
			      .x_label = label,
			      .unit = "ms"};
}

static int part_accumulate(struct run_ctx *ctx, const struct nr_plan *pl)
{
	const struct nr_params *p = ctx->params;
	const struct topo *t = ctx->topo;
	size_t len = (size_t)p->buckets * sizeof(uint64_t);
	struct nmem_buf shared, per[TOPO_MAX_NODES];
	struct acc_job *j = calloc(1, sizeof(*j));
	uint64_t *sum = calloc((size_t)p->buckets, sizeof(uint64_t));
	int nper = 0, rc;
	size_t on, off;

	memset(per, 0, sizeof(per));
	if (!j || !sum) {
		free(j);
		free(sum);
		return -ENOMEM;
	}
	j->updates = (uint64_t)p->updates;
	j->buckets = (uint64_t)p->buckets;
	rc = nmem_alloc_on(ctx->sink, t, pl->home, len, -1, &shared);
	if (rc)
		goto out_free;
	memset(shared.base, 0, shared.len);
	for (nper = 0; nper < pl->nnodes && !rc; nper++) {
		rc = nmem_alloc_on(ctx->sink, t, pl->nodes[nper], len, -1,
				   &per[nper]);
		if (!rc)
			memset(per[nper].base, 0, per[nper].len);
	}
	if (rc) {
		nper--;
		goto out;
	}

	/* both layouts make the same additions: the same rounds, no more */
	struct team_job job = {
		.nthreads = pl->nthreads,
		.cpus = pl->cpus,
		.arg = j,
		.body = acc_body,
		.rounds_most = (int)(ctx->common.warmup + ctx->common.repeat)};
	struct team_result res;
	double combine_ms;

	for (int i = 0; i < pl->nthreads; i++)
		j->region[i] = (uint64_t *)shared.base;
	sink_progress(ctx->sink, 2, 4, "accumulate: one shared region");
	rc = team_points_run(ctx, &job, &res, ACC_SHARED, NULL);
	if (rc)
		goto out;
	team_points_time(ctx->sink, updates_point(0, ACC_SHARED), &res, 1e3);
	team_result_free(&res);

	for (int i = 0; i < pl->nthreads; i++)
		for (int n = 0; n < pl->nnodes; n++)
			if (pl->nodes[n] == pl->node_of[i])
				j->region[i] = (uint64_t *)per[n].base;
	sink_progress(ctx->sink, 2.5, 4, "accumulate: a region per node");
	rc = team_points_run(ctx, &job, &res, ACC_PER_NODE, NULL);
	if (rc)
		goto out;
	team_points_time(ctx->sink, updates_point(1, ACC_PER_NODE), &res, 1e3);
	team_result_free(&res);

	/*
	 * the combine, as the thread that wants the total would do it; its
	 * target's pages are touched first, so the clock times the additions,
	 * not first-touch page faults
	 */
	for (size_t b = 0; b < len; b += 4096)
		((volatile char *)sum)[b] = 0;
	double t0 = clock_now();
	for (int n = 0; n < pl->nnodes; n++) {
		const uint64_t *r = (const uint64_t *)per[n].base;
		for (int64_t b = 0; b < p->buckets; b++)
			sum[b] += r[b];
	}
	combine_ms = (clock_now() - t0) * 1e3;
	sink_point(ctx->sink, &(struct point){.chart = CH_ACC,
					      .series = SERIES_COMBINE,
					      .x = 1,
					      .x_label = ACC_PER_NODE,
					      .y = combine_ms,
					      .unit = "ms"});
	sink_summary(ctx->sink, KEY_COMBINE, combine_ms, "ms");
	sink_summary(ctx->sink, KEY_EQUAL, memcmp(sum, shared.base, len) == 0,
		     NULL);
	if (!nmem_count_on(&shared, pl->home, &on, &off))
		sink_summary(ctx->sink, "shared_region_pages_home", (double)on,
			     "pages");
	for (int n = 0; n < pl->nnodes; n++) {
		char key[64];
		if (nmem_count_on(&per[n], pl->nodes[n], &on, &off))
			continue;
		snprintf(key, sizeof(key), "region_node%d_pages_local",
			 pl->nodes[n]);
		sink_summary(ctx->sink, key, (double)on, "pages");
		snprintf(key, sizeof(key), "region_node%d_pages_elsewhere",
			 pl->nodes[n]);
		sink_summary(ctx->sink, key, (double)off, "pages");
	}
out:
	for (int n = 0; n < nper; n++)
		nmem_free(&per[n]);
	nmem_free(&shared);
out_free:
	free(j);
	free(sum);
	return rc;
}

/* --- a writable region: stay remote, or migrate it first --- */

struct pass_job {
	char *base;
	size_t len;
	int passes;
};

static void pass_body(void *arg, int tid, int round)
{
	struct pass_job *j = arg;
	enum bw_isa isa = bw_isa_best();

	(void)tid;
	for (int p = 0; p < j->passes; p++)
		bw_kernel_isa(isa, BW_WRITE, j->base, NULL, j->len,
			      (uint64_t)(round * 1000 + p));
}

/* Times passes over pj's region; *st gets the ms per pass of each round. */
static int time_passes(struct run_ctx *ctx, struct pass_job *pj, int cpu,
		       const char *label, struct stats *st)
{
	struct team_job job = {
		.nthreads = 1, .cpus = &cpu, .arg = pj, .body = pass_body};
	struct team_result res;
	int rc = team_points_run(ctx, &job, &res, label, NULL);
	double scale = 1e3 / pj->passes;
	double *ms;

	if (rc)
		return rc;
	team_points_time(ctx->sink,
			 (struct point){.chart = CH_PASS,
					.series = SERIES_PASS,
					.x = strcmp(label, PASS_REMOTE) ? 1 : 0,
					.x_label = label,
					.unit = "ms"},
			 &res, scale);
	ms = calloc((size_t)res.rounds + 1, sizeof(double));
	if (!ms) {
		team_result_free(&res);
		return -ENOMEM;
	}
	for (int i = 0; i < res.rounds; i++)
		ms[i] = res.seconds[i] * scale;
	stats_compute(ms, res.rounds, st);
	free(ms);
	team_result_free(&res);
	return 0;
}

/*
 * The break-even of migrating: stated, and drawn, only when a pass on
 * the remote node was told slower than on the local one (their rounds'
 * intervals apart); otherwise the two lines are drawn without a crossing.
 */
static void emit_break_even(struct run_ctx *ctx, const struct nr_params *p,
			    const struct stats *remote,
			    const struct stats *local, double mig_ms)
{
	struct comparison c;
	double be, xmax;

	compare_values(remote->median, remote->ci_lo, remote->ci_hi, remote->n,
		       local->median, local->ci_lo, local->ci_hi, local->n,
		       experiment_precision(ctx->exp), &c);
	be = c.rel == CMP_MORE ? mig_ms / (remote->median - local->median) : -1;
	xmax = be > 0 ? 2 * be : 10.0 * (double)p->passes;
	if (xmax < 4)
		xmax = 4;
	/* without one, the verdict says why (say_migration) */
	if (be > 0)
		sink_summary(ctx->sink, KEY_BREAK_EVEN, be, "passes");
	for (int k = 0; k <= 10; k++) {
		double x = xmax * k / 10;
		sink_xy(ctx->sink, CH_MIGRATION, "stay remote", x,
			x * remote->median, "ms");
		sink_xy(ctx->sink, CH_MIGRATION, "migrate first", x,
			mig_ms + x * local->median, "ms");
	}
	if (be > 0)
		sink_xy(ctx->sink, CH_MIGRATION, SERIES_BREAK_EVEN, be,
			be * remote->median, "ms");
}

static int part_migrate(struct run_ctx *ctx, const struct nr_plan *pl)
{
	const struct nr_params *p = ctx->params;
	const struct topo *t = ctx->topo;
	int local = pl->nnodes ? pl->nodes[0] : -1;
	int remote = local >= 0 ? farthest(t, pl, local) : -1;
	struct nmem_buf b;
	struct pass_job pj;
	struct nmem_migration m;
	struct stats remote_ms, local_ms;
	size_t on, off;
	char msg[200];
	int rc, cpu = pl->cpus[0];

	sink_summary(ctx->sink, KEY_MIG_POSSIBLE, remote >= 0, NULL);
	if (remote < 0)
		return 0;
	sink_summary(ctx->sink, "local_node", local, NULL);
	sink_summary(ctx->sink, "remote_node", remote, NULL);
	rc = nmem_alloc_on(ctx->sink, t, remote, (size_t)p->size, -1, &b);
	if (rc)
		return rc;
	memset(b.base, 1, b.len);
	pj = (struct pass_job){.base = b.base,
			       .len = b.len / BW_CHUNK * BW_CHUNK,
			       .passes = (int)p->passes};
	if (!nmem_count_on(&b, remote, &on, &off))
		sink_summary(ctx->sink, "migration_pages_before_remote",
			     (double)on, "pages");
	sink_progress(ctx->sink, 3, 4,
		      "writable region: remote, then migrated");
	rc = time_passes(ctx, &pj, cpu, PASS_REMOTE, &remote_ms);
	if (rc)
		goto out;
	int *dest = malloc(sizeof(int) * b.npages);
	if (!dest) {
		rc = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < b.npages; i++)
		dest[i] = local;
	rc = nmem_migrate_pages(&b, dest, &m, msg, sizeof(msg));
	free(dest);
	if (rc) {
		sink_note(ctx->sink, "warn", "%s", msg);
		goto out;
	}
	sink_summary(ctx->sink, "migration_moved", (double)m.moved, "pages");
	sink_summary(ctx->sink, KEY_MIG_FAILED, (double)m.failed, "pages");
	sink_summary(ctx->sink, KEY_MIG_MS, m.seconds * 1e3, "ms");
	if (!nmem_count_on(&b, local, &on, &off))
		sink_summary(ctx->sink, "migration_pages_after_local",
			     (double)on, "pages");
	rc = time_passes(ctx, &pj, cpu, PASS_LOCAL, &local_ms);
	if (!rc)
		emit_break_even(ctx, p, &remote_ms, &local_ms, m.seconds * 1e3);
out:
	nmem_free(&b);
	return rc;
}

static int nr_run(struct run_ctx *ctx)
{
	const struct nr_params *p = ctx->params;
	struct nr_plan *pl = calloc(1, sizeof(*pl));
	struct errinfo err;
	int rc;

	if (!pl)
		return -ENOMEM;
	plan_nodes(p, ctx->topo, pl);
	rc = plan_cpus(p, ctx->topo, pl, &err);
	if (rc) {
		sink_note(ctx->sink, "warn", "%s", err.msg);
		goto out;
	}
	sink_summary(ctx->sink, "nodes_used", pl->nnodes, "nodes");
	sink_summary(ctx->sink, "home_node", pl->home, NULL);
	rc = part_readonly(ctx, pl);
	if (!rc)
		rc = part_accumulate(ctx, pl);
	if (!rc)
		rc = part_migrate(ctx, pl);
	if (!rc)
		sink_progress(ctx->sink, 4, 4, "done");
out:
	free(pl);
	return rc;
}

static int nr_check(const void *params, const struct common_params *common,
		    const struct topo *t, struct errinfo *err)
{
	const struct nr_params *p = params;
	const struct nmem_caps *caps = nmem_caps();
	struct nr_plan *pl;
	int rc;

	(void)common;
	if (!caps->policy)
		return errinfo_set(
			err, "nodes",
			"this kernel or container does not allow NUMA memory policies (%s)",
			caps->why);
	if (!caps->move_pages)
		return errinfo_set(
			err, "nodes",
			"move_pages is not allowed here, so where each copy is cannot be checked (%s)",
			caps->why);
	if (p->home.n > 1)
		return errinfo_set(err, "home", "'home' names one node");
	if (!t)
		return 0;
	if ((rc = topo_check_nodes(t, p->nodes.v, p->nodes.n, "nodes", 1, 1,
				   err)) ||
	    (rc = topo_check_nodes(t, p->home.v, p->home.n, "home", 1, 0, err)))
		return rc;
	pl = calloc(1, sizeof(*pl));
	if (!pl)
		return -ENOMEM;
	plan_nodes(p, t, pl);
	if (!pl->nnodes)
		rc = errinfo_set(
			err, "threads",
			"no node has memory and %lld cpus this process may use",
			(long long)p->threads);
	else
		rc = plan_cpus(p, t, pl, err);
	/* the single copy and the shared region on home, a copy and a region on
	 * each node */
	if (!rc)
		rc = topo_check_free(t, &pl->home, 1,
				     2 * (uint64_t)p->size +
					     (uint64_t)p->buckets * 8,
				     "size", err);
	for (int i = 0; !rc && i < pl->nnodes; i++)
		rc = topo_check_free(t, &pl->nodes[i], 1,
				     (uint64_t)p->size +
					     (uint64_t)p->buckets * 8,
				     "size", err);
	free(pl);
	return rc;
}

/* --- what a run says --- */

static int summary_is(const struct run_result *r, const char *key, double want)
{
	double v;

	return rr_summary_get(r, key, &v) == 0 && v == want;
}

/* The placements' threads all on the nodes they were meant for; 0 and a note if
 * not. */
static int nodes_seen(const struct run_result *r, const char *label,
		      int *nnodes)
{
	const struct rr_placement *p = rr_placement_find(r, label);
	int seen[TOPO_MAX_NODES], n = 0;

	*nnodes = 0;
	if (!p)
		return 0;
	for (int i = 0; i < p->n; i++) {
		int node = p->t[i].node, k;
		for (k = 0; k < n && seen[k] != node; k++)
			;
		if (k == n && n < TOPO_MAX_NODES)
			seen[n++] = node;
	}
	*nnodes = n;
	return 1;
}

/*
 * Whether the data was read from cache: the rulebook's finding when it ran
 * (judged against a plausible cache where the machine misreports its
 * own), the machine's reported cache otherwise.
 */
static int read_from_cache(const struct run_result *r)
{
	const struct nr_params *p = r->params;

	if (r->rules && r->rules->checked)
		return r->rules->from_cache > 0;
	return mem_from_cache(r->machine, (uint64_t)p->size);
}

static void say_readonly(const struct run_result *r, struct verdict *v,
			 char *head, size_t len)
{
	double home = 0, copies = 0, bytes = 0, single = 0;
	double tol = experiment_precision(r->exp);
	int nnodes, better = 0, told = 0, misplaced = 0, worse = 0;

	rr_summary_get(r, "home_node", &home);
	if (rr_summary_get(r, "replicas", &copies) == 0 &&
	    rr_summary_get(r, "replica_bytes", &bytes) == 0 &&
	    rr_summary_get(r, "single_bytes", &single) == 0) {
		if (copies < 2)
			verdict_note(
				v, "info",
				"one copy of %.1f MiB: with one node a replica is the original, so replication cost no memory",
				single / (1 << 20));
		else
			verdict_note(
				v, "info",
				"replication cost %.0f copies of %.1f MiB: %.1f MiB instead of %.1f MiB",
				copies, single / (1 << 20), bytes / (1 << 20),
				single / (1 << 20));
	}
	if (!nodes_seen(r, SERIES_LOCAL, &nnodes))
		return;
	if (nnodes < 2) {
		verdict_note(
			v, "cannot",
			"one copy against a copy per node needs readers on two nodes; this run's readers were all on one node, so every read was local either way");
		return;
	}
	if (read_from_cache(r)) {
		verdict_note(v, "cannot", "%s", READ_FROM_CACHE);
		return;
	}
	for (int i = 0; i < r->npoints; i++) {
		const struct rr_point *loc = &r->points[i], *one;
		struct comparison c;
		char key[64], ratio[96];
		double off;
		if (strcmp(loc->chart, CH_READ) ||
		    strcmp(loc->series, SERIES_LOCAL) || loc->x == home)
			continue;
		snprintf(key, sizeof(key), "replica_node%.0f_pages_elsewhere",
			 loc->x);
		if (rr_summary_get(r, key, &off) != 0 || off > 0) {
			misplaced++;
			continue;
		}
		one = rr_point_find(r, CH_READ, SERIES_SINGLE, loc->x);
		compare_points(loc, one, tol, &c);
		if (c.rel == CMP_FEW || c.rel == CMP_UNSURE)
			continue;
		told++;
		better += c.rel == CMP_MORE;
		worse += c.rel == CMP_LESS;
		if (c.rel == CMP_MORE && !head[0])
			snprintf(
				head, len,
				"threads on node %.0f read their own copy at %.1f GB/s against %.1f GB/s from node %.0f's single copy: %s",
				loc->x, loc->y, one->y, home,
				compare_ratio_text(&c, ratio, sizeof(ratio)));
	}
	if (misplaced)
		verdict_note(
			v, "cannot",
			"%d node copies had pages off their node (or could not be checked): their reads were not compared",
			misplaced);
	if (told == 0 && !misplaced)
		verdict_note(
			v, "warn",
			"the remote nodes' reads of one copy and of their own copy could not be told apart: their rounds' intervals overlap");
	else if (told && better < told)
		verdict_note(
			v, "warn",
			"on %d of %d remote nodes the local copy was not the faster one (%d slower, %d the same within %.0f%%)",
			told - better, told, worse, told - better - worse,
			100 * tol);
}

static void say_accumulate(const struct run_result *r, struct verdict *v,
			   char *head, size_t len)
{
	const struct rr_point *sh =
		rr_point_find_label(r, CH_ACC, SERIES_UPDATES, ACC_SHARED);
	const struct rr_point *pn =
		rr_point_find_label(r, CH_ACC, SERIES_UPDATES, ACC_PER_NODE);
	double combine = 0;
	struct comparison c, total;
	int nnodes;

	if (!sh || !pn)
		return;
	if (!summary_is(r, KEY_EQUAL, 1)) {
		verdict_note(
			v, "warn",
			"the shared region and the combined per-node regions hold different totals: the kernel is wrong");
		return;
	}
	rr_summary_get(r, KEY_COMBINE, &combine);
	nodes_seen(r, ACC_PER_NODE, &nnodes);
	if (nnodes < 2) {
		verdict_note(
			v, "cannot",
			"with threads on one node, one shared region and a region per node are the same region: the totals agree, but nothing is compared");
		return;
	}
	compare_points(sh, pn, experiment_precision(r->exp), &c);
	/* the per-node layout's whole cost: its rounds plus the combine */
	compare_values(sh->y, sh->ci_lo, sh->ci_hi, sh->n, pn->y + combine,
		       pn->ci_lo + combine, pn->ci_hi + combine, pn->n,
		       experiment_precision(r->exp), &total);
	if (c.rel == CMP_MORE) {
		verdict_note(
			v, "info",
			"a region per node took %.2f ms a round plus %.3f ms to combine, one shared region %.2f ms; the totals were equal",
			pn->y, combine, sh->y);
		if (!head[0] && total.rel == CMP_MORE)
			snprintf(
				head, len,
				"accumulating into a region per node and combining took %.2f ms against %.2f ms in one shared region",
				pn->y + combine, sh->y);
	} else {
		verdict_note(
			v, "warn",
			"one shared region (%.2f ms) was %s a region per node (%.2f ms, combine %.3f ms)",
			sh->y,
			c.rel == CMP_LESS   ? "faster than"
			: c.rel == CMP_SAME ? "as fast as"
					    : "not told apart from",
			pn->y, combine);
	}
}

static void say_migration(const struct run_result *r, struct verdict *v,
			  char *head, size_t len)
{
	const struct rr_point *rem =
		rr_point_find_label_opt(r, CH_PASS, SERIES_PASS, PASS_REMOTE);
	const struct rr_point *loc =
		rr_point_find_label_opt(r, CH_PASS, SERIES_PASS, PASS_LOCAL);
	double be = -1, mig = 0, failed = 0, remote = 0, local = 0;
	struct comparison c;

	if (summary_is(r, KEY_MIG_POSSIBLE, 0)) {
		verdict_note(
			v, "cannot",
			"migrating a writable region to the local node needs a second node with memory; this run had one");
		return;
	}
	if (!rem || !loc)
		return;
	rr_summary_get(r, KEY_BREAK_EVEN, &be);
	rr_summary_get(r, KEY_MIG_MS, &mig);
	rr_summary_get(r, KEY_MIG_FAILED, &failed);
	rr_summary_get(r, "remote_node", &remote);
	rr_summary_get(r, "local_node", &local);
	if (failed > 0) {
		verdict_note(
			v, "cannot",
			"%.0f pages stayed on node %.0f after the migration: the passes after it were not all local",
			failed, remote);
		verdict_mark(
			v, KEY_BREAK_EVEN, VERDICT_DISOWNED,
			"%.0f pages stayed on node %.0f after the migration: the passes after it were not all local",
			failed, remote);
		return;
	}
	compare_points(rem, loc, experiment_precision(r->exp), &c);
	if (c.rel == CMP_MORE && be > 0) {
		verdict_note(
			v, "info",
			"moving the region from node %.0f to node %.0f took %.2f ms; each pass then took %.3f ms instead of %.3f ms, so it paid for itself after %.1f passes",
			remote, local, mig, loc->y, rem->y, be);
		if (!head[0])
			snprintf(
				head, len,
				"migrating the writable region took %.2f ms and paid for itself after %.1f passes",
				mig, be);
	} else {
		verdict_note(
			v, "warn",
			"%s (%.2f ms): a pass on node %.0f took %.3f ms, on the local node %.3f ms%s%s",
			NO_BREAK_EVEN, mig, remote, rem->y, loc->y,
			c.rel == CMP_FEW || c.rel == CMP_UNSURE ? "; " : "",
			compare_why_not(&c));
		verdict_mark(v, KEY_BREAK_EVEN, VERDICT_DISOWNED, "%s",
			     NO_BREAK_EVEN);
	}
}

static void nr_describe(const struct run_result *r, struct verdict *v)
{
	char head[VERDICT_TEXT_LEN] = "";
	double nodes = 0;

	say_readonly(r, v, head, sizeof(head));
	say_accumulate(r, v, head, sizeof(head));
	say_migration(r, v, head, sizeof(head));
	if (!r->complete)
		verdict_note(
			v, "warn",
			"the run did not finish: what it says rests on the parts measured");
	rr_summary_get(r, "nodes_used", &nodes);
	if (head[0])
		verdict_headline(v, "%s", head);
	else if (nodes < 2 && r->machine && r->machine->nnodes > 1)
		/* a memory-only node, or one without memory, is no place for
		 * a copy its own threads read */
		verdict_headline(
			v,
			"only one of this machine's %d nodes has both cpus and memory, so there is nothing to replicate or migrate: this run measured only what the techniques cost",
			r->machine->nnodes);
	else if (nodes < 2)
		verdict_headline(
			v,
			"with one node there is nothing to replicate or migrate: this run measured only what the techniques cost");
	else if (read_from_cache(r))
		verdict_headline(
			v,
			"one copy against a copy per node was read from cache, not memory, so this run does not compare them: see the notes");
	else if (r->npoints)
		verdict_headline(
			v,
			"this run could not tell the techniques from the plain layouts: see the notes");
}

static void nr_precheck(const void *params, const struct common_params *common,
			const struct topo *t, struct verdict *v)
{
	const struct nr_params *p = params;
	struct nr_plan pl;

	/* a machine without NUMA system calls is refused by the check hook */
	(void)common;
	plan_nodes(p, t, &pl);
	if (pl.nnodes >= 2)
		return;
	verdict_note(
		v, "cannot",
		"a copy per node reads the same as one copy when every reader is on one node; this run uses %d",
		pl.nnodes);
	verdict_note(
		v, "cannot",
		"a region per node is the shared region when there is one node: the accumulators can only be checked for equal totals");
	verdict_note(
		v, "cannot",
		"migrating a region to the local node needs a second node to start from");
}

static void nr_estimate(const void *params, const struct common_params *common,
			const struct topo *t, double *seconds, uint64_t *bytes)
{
	const struct nr_params *p = params;
	const struct rates *r = rates_get();
	double rounds = (double)(common->repeat + common->warmup);
	int nodes = t && t->nnodes > 0 ? t->nnodes : 1;
	int threads = (int)p->threads * nodes;
	double size = (double)p->size, s;

	/* the copies (one, then one a node) and the region: touched and filled
	 */
	s = (nodes + 2) *
	    (cost_touch_s(t, size, 1) + cost_stream_s(t, COST_WRITE, size, 1));
	/* replicas: every thread reads the data passes times, from one copy and
	 * from its own */
	s += 2 * rounds *
	     cost_stream_s(t, COST_READ, size * p->passes * threads, threads);
	/* accumulators: locked adds into one shared region, then into one a
	 * node */
	s += 2 * rounds * (double)p->updates * cost_crowd(t, threads) *
	     (threads > 1 ? r->atomic_shared_ns : r->atomic_ns) * 1e-9;
	/* the region: passes before and after a move, and the move, a copy of
	 * every page */
	s += rounds * 2 * cost_stream_s(t, COST_COPY, size * p->passes, 1) +
	     cost_touch_s(t, size, 1) + cost_stream_s(t, COST_COPY, size, 1);
	*seconds = s + cost_teams_s(6);
	*bytes = (uint64_t)p->size * (uint64_t)(nodes + 2) +
		 (uint64_t)p->buckets * 8 * (uint64_t)(nodes + 2);
}

static const struct lesson lessons[] = {
	LESSON("copy-cost", "What a copy per node costs",
	       "how many milliseconds does making one copy of the data per node take here?",
	       "size=256M repeat=3 warmup=1", "ms", "replica_setup_ms",
	       CH_MEMORY),
	{0}};

/* The rulebook (rules.h): what its comparisons need. */
static const struct rule rules[] = {
	RULE(RULE_MEMORY, .param = "size",
	     .what = "one copy against a copy per node"),
	RULE(RULE_NODES, .floor = 2,
	     .what = "one copy against a copy per node"),
	{RULE_END}};
static const char *const compared[] = {"break_even_passes", NULL};

/* what a person reads for each summary key */
static const struct key_label summary_labels[] = {
	{"nodes_used", "nodes used", "nodes"},
	{"home_node", "home node", "node"},
	{"replicas", "copies of the data", "copies"},
	{"replica_bytes", "memory of the replicas", "bytes"},
	{"single_bytes", "memory of one copy", "bytes"},
	{"replica_setup_ms", "time to make the replicas", "ms"},
	{"single_pages_home", "one copy: pages on its home node", "pages"},
	{"single_pages_elsewhere", "one copy: pages elsewhere", "pages"},
	{"replica_node*_pages_local", "replica of node %s: pages local",
	 "pages"},
	{"replica_node*_pages_elsewhere", "replica of node %s: pages elsewhere",
	 "pages"},
	{KEY_EQUAL, "per-node sums equal the shared one", "yes/no"},
	{KEY_COMBINE, "time to combine the per-node sums", "ms"},
	{"shared_region_pages_home", "shared region: pages on its home node",
	 "pages"},
	{"region_node*_pages_local", "region of node %s: pages local", "pages"},
	{"region_node*_pages_elsewhere", "region of node %s: pages elsewhere",
	 "pages"},
	{KEY_MIG_POSSIBLE, "migration possible here", "yes/no"},
	{"local_node", "local node", "node"},
	{"remote_node", "remote node", "node"},
	{"migration_pages_before_remote", "pages remote before migrating",
	 "pages"},
	{"migration_pages_after_local", "pages local after migrating", "pages"},
	{"migration_moved", "pages migrated", "pages"},
	{KEY_MIG_FAILED, "pages that failed to migrate", "pages"},
	{KEY_MIG_MS, "time to migrate", "ms"},
	{KEY_BREAK_EVEN, "passes to repay the migration", "passes"},
	{NULL, NULL, NULL}};

const struct experiment exp_numa_replication = {
	.name = "numa_replication",
	.smoke = "size=64K passes=1 updates=1000 buckets=64 repeat=2 warmup=0",
	.summary_labels = summary_labels,
	.headline_key = KEY_BREAK_EVEN,
	.headline_chart = CH_READ,
	.title =
		"Replicas per node, per-node accumulators, migrating before use",
	.summary =
		"Read-only data in one copy or one per node; one shared "
		"accumulator or one per node combined; a writable region used "
		"remotely or migrated first, and when that pays",
	.section = "6.5.7",
	.explain =
		"When threads on every node need the same memory, placing "
		"threads well is not enough: whichever node holds the data, "
		"the others reach it across the interconnect. The article "
		"names three ways out, and this experiment measures each.\n\n"
		"Read-only data can simply be copied. Each thread asks for the "
		"copy of the node it runs on (the article's local_data()); the "
		"first thread of a node to ask makes that node's copy. The "
		"price is memory, one copy per node, and the time to make "
		"them. The threads read the data once from the single copy on "
		"the home node and once from their own; the chart shows each "
		"node's reading speed both ways. A thread that is moved to "
		"another node later only reads remotely, it does not break.\n\n"
		"A region that collects results cannot be copied, but when "
		"adding up does not depend on what was added before, each node "
		"can add into a region of its own and the regions are summed "
		"at the end. The experiment does the same additions both ways, "
		"checks the totals are equal, and counts the combine in the "
		"per-node time.\n\n"
		"A writable region that one node uses a lot can be moved to "
		"that node (here with move_pages). Moving is copying, so it "
		"costs time up front; the experiment times passes over the "
		"region before and after the move and works out after how many "
		"passes the move has paid for itself.\n\n"
		"Every copy and region is placed with a bind policy and its "
		"pages are checked with move_pages. On a machine with one node "
		"all of this is local either way: the run still measures the "
		"costs, and says what it cannot show.",
	EXPERIMENT_PARTS(nr),
	.min_nodes = 2,
	.check = nr_check,
	.rules = rules,
	.compared = compared,
	.precision = 0.05,
};
