/* readonly.c - numa_replication's read-only part: one copy of the data against a copy per node */
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

#include "nr.h"

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
		int rc = node_mem_alloc(NULL, r->topo, r->topo->node[i].os,
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

int nr_readonly_run(struct run_ctx *ctx, const void *state)
{
	const struct nr_plan *pl = state;
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
	rc = node_mem_alloc(ctx->sink, t, pl->home, (size_t)p->size, -1,
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
	if (!rc && !node_mem_count(&master, pl->home, &on, &off)) {
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
			if (node_mem_count(&rep->copy[i], t->node[i].os, &on,
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

void nr_readonly_say(const struct run_result *r, struct verdict *v, char *head,
		     size_t len)
{
	double home = 0, copies = 0, bytes = 0, single = 0;
	double tol = experiment_precision(r->exp);
	int nnodes, better = 0, told = 0, misplaced = 0, worse = 0;

	result_summary_get(r, "home_node", &home);
	if (result_summary_get(r, "replicas", &copies) == 0 &&
	    result_summary_get(r, "replica_bytes", &bytes) == 0 &&
	    result_summary_get(r, "single_bytes", &single) == 0) {
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
	if (!nr_nodes_seen(r, SERIES_LOCAL, &nnodes))
		return;
	if (nnodes < 2) {
		verdict_note(
			v, "cannot",
			"one copy against a copy per node needs readers on two nodes; this run's readers were all on one node, so every read was local either way");
		return;
	}
	if (nr_read_from_cache(r)) {
		verdict_note(v, "cannot", "%s", READ_FROM_CACHE);
		return;
	}
	for (int i = 0; i < r->npoints; i++) {
		const struct result_point *loc = &r->points[i], *one;
		struct comparison c;
		char key[64], ratio[96];
		double off;
		if (strcmp(loc->chart, CH_READ) ||
		    strcmp(loc->series, SERIES_LOCAL) || loc->x == home)
			continue;
		snprintf(key, sizeof(key), "replica_node%.0f_pages_elsewhere",
			 loc->x);
		if (result_summary_get(r, key, &off) != 0 || off > 0) {
			misplaced++;
			continue;
		}
		one = result_point_find(r, CH_READ, SERIES_SINGLE, loc->x);
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
