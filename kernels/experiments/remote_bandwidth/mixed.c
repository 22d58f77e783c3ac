/* mixed.c - remote_bandwidth's copy runs of 6.5.8: read local memory, write local or another node's */
#include <errno.h>
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
#include "strbuf.h"
#include "team_points.h"

#include "rb.h"

const struct mix_mode rb_mix_modes[NMIX] = {
	{MIX_ALL, CH_MIXED, "mixed", "all local", "read local, write remote",
	 "every node at once", 0},
	{MIX_IDLE, CH_IDLE, "idle", "one node, all local",
	 "read local, write to an idle node",
	 "one node alone, the node written to idle", 1},
};

/* "regular stores", "non-temporal stores (from cache)": a copy run's series.
 */
static void mix_series(int nontemporal, int from_cache, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s", nontemporal ? SERIES_NT : SERIES_REGULAR,
		 from_cache ? FROM_CACHE : "");
}

/* The node nearest to node (by distance) among the list, other than itself; -1
 * if none. */
static int nearest_other(const struct topo *t, const int32_t *nodes, int n,
			 int at)
{
	int a = topo_node_index(t, nodes[at]), best = -1, bestd = 0;

	for (int s = 1; s < n; s++) {
		/* ties go to the next one round the list, so each node is
		 * picked once */
		int j = (at + s) % n;
		int b = topo_node_index(t, nodes[j]);
		int d = a >= 0 && b >= 0 ? t->distance[a][b] : 0;
		if (!topo_node_has_memory(t, nodes[j]))
			continue;
		if (best < 0 || (d > 0 && d < bestd)) {
			best = nodes[j];
			bestd = d;
		}
	}
	return best;
}

/*
 * The buffers of one copy run: on each running node a source and a local
 * target, and a target on the node it writes to, each split among the
 * node's threads (s, dl, dr: total slices each).
 */
struct mix_bufs {
	struct nmem_buf src[TOPO_MAX_NODES], local[TOPO_MAX_NODES],
		remote[TOPO_MAX_NODES];
	int32_t use[TOPO_MAX_NODES];
	int target[TOPO_MAX_NODES], nuse, nrun, total;
	int *cpus;
	char **s, **dl, **dr;
	size_t bytes;
};

/* Which nodes copy, and where to. */
static void choose_nodes(const struct topo *t, const struct rb_state *st,
			 int threads, const struct mix_mode *mode,
			 struct mix_bufs *mb)
{
	for (int i = 0; i < st->n; i++)
		if (topo_node_has_memory(t, st->nodes[i]) &&
		    topo_node_ncpus(t, st->nodes[i]) >= threads)
			mb->use[mb->nuse++] = st->nodes[i];
	for (int k = 0; k < mb->nuse; k++)
		mb->target[k] = nearest_other(t, mb->use, mb->nuse, k);
	/* idle: only the first node's threads run; its target runs nothing */
	mb->nrun = mode->idle && mb->nuse > 1 ? 1 : mb->nuse;
	mb->total = mb->nrun * threads;
}

/* Running node k's buffers bound to their nodes, and its threads' cpus. */
static int alloc_node(struct run_ctx *ctx, struct mix_bufs *mb, int k,
		      int threads, size_t size)
{
	struct errinfo err;
	int rc, at = k * threads;

	rc = node_mem_alloc(ctx->sink, ctx->topo, mb->use[k], size, 0,
			    &mb->src[k]);
	if (!rc)
		rc = node_mem_alloc(ctx->sink, ctx->topo, mb->use[k], size, 0,
				    &mb->local[k]);
	if (!rc && mb->target[k] >= 0)
		rc = node_mem_alloc(ctx->sink, ctx->topo, mb->target[k], size,
				    0, &mb->remote[k]);
	if (!rc)
		rc = topo_plan_nodes(ctx->topo, PLACE_SPREAD, &mb->use[k], 1,
				     threads, mb->cpus + at, &err);
	if (rc)
		return rc;
	mb->bytes =
		bw_split(mb->src[k].base, mb->src[k].len, threads, mb->s + at);
	bw_split(mb->local[k].base, mb->local[k].len, threads, mb->dl + at);
	if (mb->target[k] >= 0)
		bw_split(mb->remote[k].base, mb->remote[k].len, threads,
			 mb->dr + at);
	return 0;
}

static int mix_alloc(struct run_ctx *ctx, struct mix_bufs *mb)
{
	const struct rb_params *rp = ctx->params;
	size_t n = (size_t)mb->total + 1;
	int rc = 0;

	mb->cpus = calloc(n, sizeof(int));
	mb->s = calloc(n, sizeof(char *));
	mb->dl = calloc(n, sizeof(char *));
	mb->dr = calloc(n, sizeof(char *));
	if (!mb->cpus || !mb->s || !mb->dl || !mb->dr)
		return -ENOMEM;
	for (int k = 0; k < mb->nrun && !rc; k++)
		rc = alloc_node(ctx, mb, k, (int)rp->threads, (size_t)rp->size);
	return rc;
}

static void mix_free(struct mix_bufs *mb)
{
	for (int k = 0; k < mb->nrun; k++) {
		nmem_free(&mb->src[k]);
		nmem_free(&mb->local[k]);
		nmem_free(&mb->remote[k]);
	}
	free(mb->cpus);
	free(mb->s);
	free(mb->dl);
	free(mb->dr);
}

/* One bar: every running thread copies its slice to the local target
 * (v 0) or the remote one (v 1) with store kind (0 regular, 1
 * non-temporal). */
static int copy_bar(struct run_ctx *ctx, const struct rb_state *st,
		    const struct mix_mode *mode, const struct mix_bufs *mb,
		    int kind, int v, const char *series, double *out)
{
	const char *label = v ? mode->remote : mode->local;
	struct bw_result res;
	char what[96];
	int rc;

	snprintf(what, sizeof(what), "%s, %s: %s", mode->chart, series, label);
	sink_progress(ctx->sink, st->tally->step++, st->steps, what);
	/* the first job touches the sources and the local targets, the
	 * remote ones on their first use */
	rc = rb_measure(ctx, kind ? BW_COPY_NT : BW_COPY, mb->cpus, mb->total,
			v ? mb->dr : mb->dl, mb->s, mb->bytes, kind == 0, &res);
	if (rc)
		return rc;
	if (kind == 0)
		sink_placement(ctx->sink, what, res.team.place,
			       res.team.nthreads);
	team_points_gbps(ctx->sink,
			 (struct point){.chart = mode->chart,
					.series = series,
					.x = v,
					.x_label = label},
			 &res);
	if (kind == 0)
		*out = res.median;
	bw_result_free(&res);
	return 0;
}

/* "every node at once: read on the own node, write to (node->node) 0->1,
 * 1->0" */
static void note_pairs(struct run_ctx *ctx, const struct mix_mode *mode,
		       const struct mix_bufs *mb)
{
	struct strbuf pairs = STRBUF_INIT;

	for (int k = 0; k < mb->nrun; k++)
		strbuf_addf(&pairs, "%s%d->%d", k ? ", " : "", mb->use[k],
			    mb->target[k]);
	sink_note(ctx->sink, "info",
		  "%s: read on the own node, write to (node->node) %s",
		  mode->what, strbuf_str(&pairs));
	strbuf_release(&pairs);
}

/*
 * The article's proposal (6.5.8): a node's threads read their own node's
 * memory and write the results elsewhere, so the writes travel the
 * interconnect to another node's memory controller instead of competing
 * with the reads for the local one. Against the same copies kept local:
 * every node at once (MIX_ALL), or the first node alone while the node it
 * writes to runs nothing (MIX_IDLE, the case the article has in mind).
 */
static int run_mixed(struct run_ctx *ctx, const struct rb_state *st, int k)
{
	const struct rb_params *rp = ctx->params;
	const struct mix_mode *mode = &rb_mix_modes[k];
	double *out[2] = {&st->tally->mix_local[k], &st->tally->mix_remote[k]};
	struct mix_bufs *mb = calloc(1, sizeof(*mb));
	struct machine_facts mf;
	int rc, from_cache;

	if (!mb)
		return -ENOMEM;
	machine_facts_from_topo(ctx->topo, &mf);
	from_cache = mem_from_cache(&mf, (uint64_t)rp->size);
	choose_nodes(ctx->topo, st, (int)rp->threads, mode, mb);
	rc = mix_alloc(ctx, mb);
	for (int kind = 0; kind < 2 && !rc && mb->total; kind++) {
		char series[48];

		mix_series(kind, from_cache, series, sizeof(series));
		rc = copy_bar(ctx, st, mode, mb, kind, 0, series, out[0]);
		if (!rc && mb->nuse >= 2)
			rc = copy_bar(ctx, st, mode, mb, kind, 1, series,
				      out[1]);
		else if (!rc && kind == 0)
			/* said once, not once per store kind */
			sink_note(ctx->sink, "info", "%s: %s %d", mode->remote,
				  RB_NEEDS_TWO, ctx->topo->nnodes);
	}
	if (!rc && mb->total && mb->nuse >= 2)
		note_pairs(ctx, mode, mb);
	mix_free(mb);
	free(mb);
	return rc;
}

int rb_mixed_run(struct run_ctx *ctx, const void *state)
{
	const struct rb_params *rp = ctx->params;
	int rc = 0;

	for (int k = 0; k < NMIX && !rc; k++)
		if (rp->mixed & rb_mix_modes[k].bit)
			rc = run_mixed(ctx, state, k);
	return rc;
}

void rb_mixed_summary(struct run_ctx *ctx, const struct rb_tally *tally)
{
	for (int k = 0; k < NMIX; k++) {
		double local = tally->mix_local[k],
		       remote = tally->mix_remote[k];
		char key[64];
		if (local <= 0)
			continue;
		snprintf(key, sizeof(key), KEY_LOCAL, rb_mix_modes[k].prefix);
		sink_summary(ctx->sink, key, local, "GB/s");
		if (remote <= 0)
			continue;
		snprintf(key, sizeof(key), KEY_REMOTE, rb_mix_modes[k].prefix);
		sink_summary(ctx->sink, key, remote, "GB/s");
		snprintf(key, sizeof(key), KEY_GAIN, rb_mix_modes[k].prefix);
		sink_summary(ctx->sink, key, remote / local, "x");
	}
}

/* "; every node at once, writing to another node made the copies 1.2× as
 * fast as keeping them local" */
static void say_mix(const struct run_result *r, const struct mix_mode *mode,
		    int from_cache, struct strbuf *sb, struct verdict *v)
{
	char series[48], key[64], ratio[96], why[VERDICT_TEXT_LEN];
	const struct result_point *local, *remote;
	struct comparison c;

	mix_series(0, from_cache, series, sizeof(series));
	local = result_point_find_label_opt(r, mode->chart, series,
					    mode->local);
	remote = result_point_find_label_opt(r, mode->chart, series,
					     mode->remote);
	if (!local || !remote)
		return;
	compare_points(remote, local, experiment_precision(r->exp), &c);
	compare_ratio_text(&c, ratio, sizeof(ratio));
	snprintf(key, sizeof(key), KEY_GAIN, mode->prefix);
	compare_state_interval(v, key, &c);
	if (c.rel == CMP_MORE || c.rel == CMP_LESS) {
		strbuf_addf(
			sb,
			"; %s, writing to another node made the copies %s as fast as keeping them local",
			mode->what, ratio);
	} else if (c.rel == CMP_SAME) {
		strbuf_addf(
			sb,
			"; %s, writing to another node or keeping the copies local made no difference (%s, within %.0f%%)",
			mode->what, ratio, 100 * experiment_precision(r->exp));
	} else {
		snprintf(
			why, sizeof(why),
			"%s, writing to another node was not told from keeping the copies local: %s",
			mode->what, compare_why_not(&c));
		strbuf_addf(sb, "; %s", why);
		verdict_qualify(v, key, VERDICT_DISOWNED, "%s", why);
	}
}

/* The copy runs' sentences of the headline, after the matrices'. */
void rb_mixed_say(const struct run_result *r, struct verdict *v, char *head,
		  size_t len)
{
	const struct rb_params *rp = r->params;
	int from_cache = rb_from_cache(r, (uint64_t)rp->size);
	struct strbuf sb = STRBUF_INIT;

	for (int k = 0; k < NMIX; k++)
		say_mix(r, &rb_mix_modes[k], from_cache, &sb, v);
	rb_head_add(head, len, strbuf_str(&sb));
	strbuf_release(&sb);
}

/* Whether mixed= asks for a copy run (yes, idle or both). */
int rb_mixed_wanted(const void *params)
{
	return ((const struct rb_params *)params)->mixed != 0;
}
