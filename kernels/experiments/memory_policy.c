/* memory_policy.c - a buffer under a NUMA policy: where its pages land, what reaching them costs, moving them */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bw.h"
#include "experiment.h"
#include "mem_size.h"
#include "node_mem.h"
#include "numa_mem.h"
#include "page_census.h"
#include "plan_view.h"
#include "stats.h"
#include "strbuf.h"
#include "team_points.h"
#include "units.h"
#include "workcost.h"

enum {
	MIG_BOTH,
	MIG_MBIND,
	MIG_MBIND_STRICT,
	MIG_MOVE_PAGES,
	MIG_MOVE_ALL,
	MIG_NONE
};

static const struct param_choice policies[] = {
	{"default", NMEM_DEFAULT},
	{"bind", NMEM_BIND},
	{"preferred", NMEM_PREFERRED},
	{"interleave", NMEM_INTERLEAVE},
	{"local", NMEM_LOCAL},
	{"preferred_many", NMEM_PREFERRED_MANY},
	{0}};
static const struct param_choice scopes[] = {
	{"vma", NMEM_VMA}, {"task", NMEM_TASK}, {0}};
/* the value is struct nmem_spec's thp */
static const struct param_choice thp_modes[] = {
	{"off", -1}, {"system", 0}, {"on", 1}, {0}};
static const struct param_choice migrations[] = {
	{"both", MIG_BOTH},
	{"mbind", MIG_MBIND},
	{"mbind_strict", MIG_MBIND_STRICT},
	{"move_pages", MIG_MOVE_PAGES},
	{"move_all", MIG_MOVE_ALL},
	{"none", MIG_NONE},
	{0}};

struct mp_params {
	int64_t size;
	int policy; /* enum nmem_policy */
	int scope;  /* enum nmem_scope */
	struct int_list nodes, toucher, from_nodes;
	int64_t threads;
	int thp;
	struct int_list migrate_to;
	int migrate_with; /* MIG_* */
};

#define PARAM_STRUCT struct mp_params
static const struct param params[] = {
	PARAM_SIZE(size, "64M", 1 << 20, 1LL << 40, "bytes",
		   "the buffer placed under the policy; " MEM_DEFAULT_HELP,
		   .flags = PARAM_F_MEMORY),
	PARAM_ENUM(
		policy, "interleave", policies,
		"default: the first toucher's node; bind: only 'nodes'; preferred: the lowest node of 'nodes' first (MPOL_PREFERRED, the article's rule); interleave: page by page over 'nodes'; local: the toucher's node, said explicitly; preferred_many: any of 'nodes' before the rest (MPOL_PREFERRED_MANY, Linux 5.15)"),
	PARAM_ENUM(
		scope, "vma", scopes,
		"vma: mbind on the address range before the first touch; task: set_mempolicy in the thread that touches"),
	PARAM_NODELIST(
		nodes, "", 0, NMEM_MAX_NODE - 1,
		"the policy's nodes (e.g. 0,2-3); empty: every node. default and local take none"),
	PARAM_NODELIST(
		toucher, "", 0, NMEM_MAX_NODE - 1,
		"the node whose CPU touches every page first; empty: the node of the first CPU this process may use"),
	PARAM_NODELIST(
		from_nodes, "", 0, NMEM_MAX_NODE - 1,
		"read and write the buffer from threads on each of these nodes; empty: every node with CPUs"),
	PARAM_INT(threads, "1", 1, 1024, "per node",
		  "threads reading or writing the buffer from each node"),
	PARAM_ENUM(
		thp, "off", thp_modes,
		"transparent huge pages for the buffer: off places it page by page (4 KiB); on asks for 2 MiB pages, which a policy places whole; system: whatever the machine does"),
	PARAM_NODELIST(
		migrate_to, "", 0, NMEM_MAX_NODE - 1,
		"migrate_with other than none: move the pages to this node afterwards; empty: the last node (nothing to move on a machine with one node)",
		.only = "migrate_with=both,mbind,mbind_strict,move_pages,move_all"),
	PARAM_ENUM(
		migrate_with, "both", migrations,
		"mbind: mbind(MPOL_MF_MOVE); mbind_strict: with MPOL_MF_STRICT; move_pages: move_pages; both: mbind+strict there, then move_pages back to where each page was; move_all: MPOL_MF_MOVE_ALL (needs CAP_SYS_NICE); none"),
	{0}};

/* Chart ids and series run() emits and describe() reads, named once. */
#define CH_PAGES "pages"
#define CH_BW "bandwidth"
#define SERIES_FIRST_TOUCH "after first touch"
#define FROM_CACHE " (from cache)"

static const struct chart charts[] = {
	CHART(CH_PAGES, CHART_BAR, "Where the pages are (move_pages)", "node",
	      "pages"),
	CHART(CH_BW, CHART_BAR,
	      "Bandwidth on the buffer from threads on each node",
	      "threads on node", "GB/s"),
	CHART("migration", CHART_BAR, "Page migration rate", "how", "GB/s"),
	{0}};

/* Summary keys run() emits and describe() reads, named once. */
/* emit_migration writes these from their prefix, mbind or move_pages */
#define KEY_MBIND_MOVED "mbind_moved"
#define KEY_MBIND_FAILED "mbind_failed"
#define KEY_MBIND_GBPS "mbind_gbps"
#define KEY_MOVE_MOVED "move_pages_moved"
#define KEY_MOVE_FAILED "move_pages_failed"
#define KEY_INTERLEAVED "interleaved"
#define KEY_RUN_PAGES "interleave_run_pages"
#define KEY_MIGRATE_TO "migrate_to"
/* the census after first touch: its keys are "touch_pages_..." */
#define CENSUS_TOUCH "touch"
#define SUFFIX_ABSENT "_pages_absent"
#define SUFFIX_OUTSIDE "_pages_outside"

static const char *const summary_keys[] = {
	"*_pages_node*",       "*_pages_outside",
	"*_pages_absent",      KEY_MBIND_MOVED,
	KEY_MBIND_FAILED,      KEY_MBIND_GBPS,
	KEY_MOVE_MOVED,	       KEY_MOVE_FAILED,
	"move_pages_gbps",     "first_touch_gbps",
	"get_mempolicy_agree", "get_mempolicy_checked",
	KEY_INTERLEAVED,       KEY_RUN_PAGES,
	KEY_MIGRATE_TO,	       NULL};

/* What the run resolved from the params and the machine. */
struct mp_plan {
	enum nmem_policy policy;
	enum nmem_scope scope;
	int toucher; /* node */
	int toucher_cpu;
	int32_t from[TOPO_MAX_NODES];
	int nfrom;
	int threads;
	int migrate_to; /* node, -1: none */
	int migrate_with;
	int from_cache; /* the buffer fits in the last-level caches */
};

static int first_allowed_node(const struct topo *t)
{
	/* a cpu in no node (its node offline) cannot stand for one */
	for (int i = 0; i < t->npus; i++)
		if (t->pu[i].allowed && t->pu[i].node >= 0)
			return t->pu[i].node;
	return t->nnodes ? t->node[0].os : 0;
}

static int last_node_with_memory(const struct topo *t)
{
	for (int i = t->nnodes - 1; i >= 0; i--)
		if (t->node[i].mem_total > 0)
			return t->node[i].os;
	return t->nnodes ? t->node[t->nnodes - 1].os : 0;
}

static void resolve(const struct mp_params *mp, const struct topo *t,
		    struct mp_plan *p)
{
	const struct int_list *tv = &mp->toucher;
	const struct int_list *fv = &mp->from_nodes;
	const struct int_list *mv = &mp->migrate_to;

	memset(p, 0, sizeof(*p));
	p->policy = (enum nmem_policy)mp->policy;
	p->scope = (enum nmem_scope)mp->scope;
	p->toucher = tv->n ? tv->v[0] : first_allowed_node(t);
	p->threads = (int)mp->threads;
	for (int i = 0; i < fv->n && i < TOPO_MAX_NODES; i++)
		p->from[p->nfrom++] = fv->v[i];
	for (int i = 0; !fv->n && i < t->nnodes; i++)
		if (topo_node_ncpus(t, t->node[i].os) >= p->threads)
			p->from[p->nfrom++] = t->node[i].os;
	p->migrate_with = mp->migrate_with;
	p->migrate_to = mv->n ? mv->v[0] : last_node_with_memory(t);
	if (p->migrate_with == MIG_NONE)
		p->migrate_to = -1;
}

static int mp_check(const void *params, const struct common_params *common,
		    const struct topo *t, struct errinfo *err)
{
	const struct mp_params *mp = params;
	const struct int_list *nodes = &mp->nodes;
	const struct int_list *tv = &mp->toucher;
	const struct int_list *fv = &mp->from_nodes;
	const struct int_list *mv = &mp->migrate_to;
	const struct mem_caps *caps = mem_caps();
	uint64_t size = (uint64_t)mp->size;
	struct mp_plan p;
	int rc;

	(void)common;
	if ((rc = node_mem_census_check(err, "policy", "the pages are")))
		return rc;
	if ((rc = topo_check_nodes(t, nodes->v, nodes->n, "nodes", 1, 0,
				   err)) ||
	    (rc = topo_check_nodes(t, tv->v, tv->n, "toucher", 0, 1, err)) ||
	    (rc = topo_check_nodes(t, fv->v, fv->n, "from_nodes", 0, 1, err)) ||
	    (rc = topo_check_nodes(t, mv->v, mv->n, "migrate_to", 1, 0, err)))
		return rc;
	if (tv->n > 1)
		return errinfo_set(err, "toucher", "'toucher' names one node");
	if (mv->n > 1)
		return errinfo_set(err, "migrate_to",
				   "'migrate_to' names one node");
	int policy = mp->policy;
	if ((policy == NMEM_DEFAULT || policy == NMEM_LOCAL) && nodes->n)
		return errinfo_set(
			err, "nodes",
			"policy %s takes no nodes (the toucher's node decides): leave 'nodes' empty or set 'toucher'",
			nmem_policy_names[policy]);
	if (mp->policy == NMEM_PREFERRED_MANY && !caps->preferred_many)
		return errinfo_set(
			err, "policy",
			"policy 'preferred_many' needs MPOL_PREFERRED_MANY (Linux 5.15 or later), which this kernel refuses: use policy=preferred, which prefers the lowest node of 'nodes'");
	if (mp->migrate_with == MIG_MOVE_ALL && !caps->sys_nice)
		return errinfo_set(
			err, "migrate_with",
			"migrate_with=move_all needs CAP_SYS_NICE, which this process lacks (run it as root, or grant cap_sys_nice)");
	if (!t)
		return 0;
	resolve(mp, t, &p);
	for (int i = 0; i < p.nfrom; i++)
		if (topo_node_ncpus(t, p.from[i]) < p.threads)
			return errinfo_set(
				err, "threads",
				"%d threads per node, but node %d has only %d %s this process may use",
				p.threads, p.from[i],
				topo_node_ncpus(t, p.from[i]),
				units_plural(topo_node_ncpus(t, p.from[i]),
					     "cpu", "cpus"));
	if (p.nfrom == 0)
		return errinfo_set(err, "threads",
				   "no node has %d cpus this process may use",
				   p.threads);
	if (policy == NMEM_DEFAULT || policy == NMEM_LOCAL)
		rc = topo_check_free(t, &p.toucher, 1, size, "size", err);
	else
		rc = topo_check_free(t, nodes->v, nodes->n, size, "size", err);
	if (!rc && p.migrate_to >= 0)
		rc = topo_check_free(t, &p.migrate_to, 1, size, "size", err);
	return rc;
}

/* For scope=task: the toucher sets its own task policy before the first touch.
 */
static int apply_task_policy(void *arg, int tid)
{
	(void)tid;
	return nmem_task_apply(arg);
}

/* One pass of op by the toucher: the first touch of every page. */
static int first_touch(struct run_ctx *ctx, struct nmem_buf *b,
		       const struct mp_plan *p, double *gbps)
{
	char *dst = b->base;
	struct bw_job job = {.op = BW_WRITE,
			     .nthreads = 1,
			     .cpus = &p->toucher_cpu,
			     .dst = &dst,
			     .bytes = b->len / BW_CHUNK * BW_CHUNK,
			     .passes = 1,
			     .before_touch = b->scope == NMEM_TASK
						     ? apply_task_policy
						     : NULL,
			     .arg = b,
			     .warmup = 0,
			     .repeat = 1,
			     .cancel = ctx->cancel};
	struct bw_result res;
	int rc = bw_measure(&job, ctx->topo, &res);

	if (rc)
		return rc;
	sink_placement(ctx->sink, "first touch", res.team.place,
		       res.team.nthreads);
	*gbps = res.median;
	if (res.setup_rc) {
		sink_note(ctx->sink, "warn",
			  "set_mempolicy in the toucher failed: %s",
			  strerror(-res.setup_rc));
		rc = res.setup_rc;
	} else if (res.check_rc) {
		sink_note(
			ctx->sink, "warn",
			"the first touch did not write every word: the kernel is wrong");
		rc = -EIO;
	}
	bw_result_free(&res);
	return rc;
}

/* The policy's node set as the census judges it, and what to call pages
 * outside. */
static int allowed_set(const struct nmem_buf *b, const struct mp_plan *p,
		       int *set, const char **outside)
{
	if (b->policy == NMEM_DEFAULT || b->policy == NMEM_LOCAL) {
		set[0] = p->toucher;
		*outside = "pages off the toucher's node";
		return 1;
	}
	if (b->policy == NMEM_PREFERRED) {
		/* MPOL_PREFERRED takes the lowest node of its mask */
		set[0] = b->nodes[0];
		*outside =
			"pages off the preferred node (the lowest of 'nodes')";
		return 1;
	}
	memcpy(set, b->nodes, sizeof(int) * (size_t)b->nnodes);
	*outside = b->policy == NMEM_BIND ? "pages on nodes the policy forbids"
					  : "pages off the policy's nodes";
	return b->nnodes;
}

/* Counts where the pages are, emits the histogram; status is kept for later. */
/* Which nodes a census expects the pages on, and what to call the others. */
struct judge {
	int set[TOPO_MAX_NODES];
	int n;
	const char *outside;
};

static int census(struct run_ctx *ctx, const struct nmem_buf *b,
		  const struct judge *j, const char *series, const char *key,
		  int *status, struct page_census *c)
{
	const int *set = j->set;
	const char *outside = j->outside;
	int nset = j->n;
	int rc = nmem_where(b, status);
	char k[96];

	if (rc) {
		sink_note(ctx->sink, "warn",
			  "move_pages could not say where the pages are: %s",
			  strerror(-rc));
		return rc;
	}
	page_census_of(status, b->npages, set, nset, c);
	for (int i = 0; i < ctx->topo->nnodes; i++) {
		int node = ctx->topo->node[i].os;
		char label[32];
		double y = node < TOPO_MAX_NODES ? (double)c->on_node[node] : 0;
		struct point pt = {.chart = CH_PAGES,
				   .series = series,
				   .x = node,
				   .x_label = label,
				   .y = y,
				   .unit = "pages",
				   .samples = &y,
				   .nsamples = 1};
		snprintf(label, sizeof(label), "node %d", node);
		sink_point(ctx->sink, &pt);
		snprintf(k, sizeof(k), "%s_pages_node%d", key, node);
		sink_summary(ctx->sink, k, y, "pages");
	}
	snprintf(k, sizeof(k), "%s" SUFFIX_OUTSIDE, key);
	sink_summary(ctx->sink, k, (double)c->forbidden, "pages");
	snprintf(k, sizeof(k), "%s" SUFFIX_ABSENT, key);
	sink_summary(ctx->sink, k, (double)c->absent, "pages");
	if (c->forbidden)
		sink_note(ctx->sink, "warn",
			  "%s: %zu %s (the first, page %zu, is on node %d)",
			  series, c->forbidden, outside,
			  c->first_forbidden_page, c->first_forbidden_node);
	if (c->absent || c->failed)
		sink_note(ctx->sink, "warn",
			  "%s: %zu pages not allocated, %zu not readable",
			  series, c->absent, c->failed);
	return 0;
}

static int measure_from(struct run_ctx *ctx, struct nmem_buf *b,
			const struct mp_plan *p, int node, enum bw_op op,
			struct bw_result *res)
{
	int cpus[PARAM_MAX_LIST];
	char *slices[PARAM_MAX_LIST];
	char msg[PARAM_ERR_LEN];
	struct errinfo err;
	size_t bytes;
	int rc = topo_plan_nodes(ctx->topo, PLACE_SPREAD, &node, 1, p->threads,
				 cpus, &err);

	if (rc) {
		sink_note(ctx->sink, "warn", "%s", err.msg);
		return rc;
	}
	bytes = bw_split(b->base, b->len, p->threads, slices);
	if (bytes < BW_CHUNK) {
		sink_note(ctx->sink, "warn",
			  "the buffer is too small for %d threads", p->threads);
		return -EINVAL;
	}
	struct bw_job job = {.op = op,
			     .nthreads = p->threads,
			     .cpus = cpus,
			     .dst = slices,
			     .src = slices,
			     .bytes = bytes,
			     .passes = 1};

	snprintf(
		msg, sizeof(msg),
		"the %s loop from node %d gave wrong data: the kernel is wrong",
		bw_op_names[op], node);
	return team_points_bw(ctx, &job, res, msg);
}

/* Read and write from each from-node; returns the reads' medians in gbps[]. */
static int bandwidth_from_nodes(struct run_ctx *ctx, struct nmem_buf *b,
				const struct mp_plan *p, const char *suffix,
				int with_write, double *gbps, int *step,
				int steps)
{
	for (int i = 0; i < p->nfrom; i++) {
		for (int w = 0; w <= with_write; w++) {
			enum bw_op op = w ? BW_WRITE : BW_READ;
			struct bw_result res;
			char series[64], label[32], what[96];
			int rc;

			snprintf(label, sizeof(label), "node %d", p->from[i]);
			snprintf(series, sizeof(series), "%s%s%s",
				 bw_op_names[op],
				 p->from_cache ? FROM_CACHE : "", suffix);
			snprintf(what, sizeof(what), "%s from node %d", series,
				 p->from[i]);
			sink_progress(ctx->sink, (*step)++, steps, what);
			rc = measure_from(ctx, b, p, p->from[i], op, &res);
			if (rc)
				return rc;
			sink_placement(ctx->sink, what, res.team.place,
				       res.team.nthreads);
			team_points_gbps(ctx->sink,
					 (struct point){.chart = CH_BW,
							.series = series,
							.x = p->from[i],
							.x_label = label},
					 &res);
			if (!w)
				gbps[i] = res.median;
			bw_result_free(&res);
		}
	}
	return 0;
}

/* One migration: its point, and its summary keys <prefix>_moved, _failed
 * and _gbps. */
static void emit_migration(struct run_ctx *ctx, const char *label,
			   const char *prefix, const struct nmem_migration *m)
{
	char key[48];

	static const char *const keys[] = {"moved", "stayed", "failed",
					   "seconds"};
	double vals[] = {(double)m->moved, (double)m->stayed, (double)m->failed,
			 m->seconds};
	struct point pt = {.chart = "migration",
			   .series = "migration",
			   .x = 0,
			   .x_label = label,
			   .y = m->gbps,
			   .unit = "GB/s",
			   .samples = &m->gbps,
			   .nsamples = 1,
			   .extra_keys = keys,
			   .extra_vals = vals,
			   .nextra = 4};
	sink_point(ctx->sink, &pt);
	snprintf(key, sizeof(key), "%s_moved", prefix);
	sink_summary(ctx->sink, key, (double)m->moved, "pages");
	snprintf(key, sizeof(key), "%s_failed", prefix);
	sink_summary(ctx->sink, key, (double)m->failed, "pages");
	snprintf(key, sizeof(key), "%s_gbps", prefix);
	sink_summary(ctx->sink, key, m->gbps, "GB/s");
}

/* Does the migrations asked for. orig: each page's node before them. */
static int migrate(struct run_ctx *ctx, struct nmem_buf *b,
		   const struct mp_plan *p, const struct judge *first,
		   const int *orig, int *status, int *step, int steps)
{
	struct nmem_migration m;
	struct page_census c;
	char series[64];
	struct errinfo err;
	int target = p->migrate_to, rc = 0;
	int how = p->migrate_with;

	if (how == MIG_BOTH || how == MIG_MBIND || how == MIG_MBIND_STRICT ||
	    how == MIG_MOVE_ALL) {
		enum nmem_move mv = how == MIG_MBIND ? NMEM_MOVE_MBIND
				    : how == MIG_MOVE_ALL
					    ? NMEM_MOVE_ALL
					    : NMEM_MOVE_MBIND_STRICT;
		const char *label = mv == NMEM_MOVE_MBIND ? "mbind MPOL_MF_MOVE"
				    : mv == NMEM_MOVE_ALL
					    ? "mbind MPOL_MF_MOVE_ALL"
					    : "mbind MPOL_MF_MOVE|STRICT";
		sink_progress(ctx->sink, (*step)++, steps, label);
		rc = nmem_migrate_mbind(b, mv, &target, 1, &m, &err);
		if (rc)
			sink_note(ctx->sink, "warn", "%s", err.msg);
		if (rc && m.moved + m.stayed + m.failed == 0)
			return rc;
		emit_migration(ctx, label, "mbind", &m);
		snprintf(series, sizeof(series), "after mbind to node %d",
			 target);
		struct judge on_target = {.set = {target},
					  .n = 1,
					  .outside =
						  "pages off the target node"};
		int crc =
			census(ctx, b, &on_target, series, "mbind", status, &c);
		if (rc || crc)
			return rc ? rc : crc;
	}
	if (how == MIG_BOTH || how == MIG_MOVE_PAGES) {
		int *dest = malloc(sizeof(int) * b->npages);
		const char *label =
			how == MIG_BOTH ? "move_pages back" : "move_pages";
		if (!dest)
			return -ENOMEM;
		for (size_t i = 0; i < b->npages; i++)
			dest[i] = how == MIG_BOTH && orig[i] >= 0 ? orig[i]
								  : target;
		sink_progress(ctx->sink, (*step)++, steps, label);
		rc = nmem_migrate_pages(b, dest, &m, &err);
		free(dest);
		if (rc) {
			sink_note(ctx->sink, "warn", "%s", err.msg);
			return rc;
		}
		emit_migration(ctx, label, "move_pages", &m);
		if (m.failed)
			sink_note(
				ctx->sink, "warn",
				"move_pages left %zu pages where they were (mostly: %s)",
				m.failed,
				m.first_errno ? strerror(m.first_errno)
					      : "unknown");
		if (how == MIG_BOTH)
			snprintf(series, sizeof(series),
				 "after move_pages back");
		else
			snprintf(series, sizeof(series),
				 "after move_pages to node %d", target);
		struct judge j = {.set = {target},
				  .n = 1,
				  .outside = "pages off the target node"};
		if (how == MIG_BOTH)
			j = *first;
		rc = census(ctx, b, &j, series, "move_pages", status, &c);
	}
	return rc;
}

/* Whether get_mempolicy says of a sample of pages what move_pages said. */
static void say_agreement(struct run_ctx *ctx, const struct nmem_buf *b,
			  const int *status)
{
	int checked = 0;
	int agree = nmem_sample_check(b, status, 64, &checked);

	if (agree < 0) {
		sink_note(ctx->sink, "warn",
			  "get_mempolicy(MPOL_F_NODE|MPOL_F_ADDR) failed: %s",
			  strerror(-agree));
		return;
	}
	sink_summary(ctx->sink, "get_mempolicy_agree", agree, "pages");
	sink_summary(ctx->sink, "get_mempolicy_checked", checked, "pages");
	if (agree != checked)
		sink_note(
			ctx->sink, "warn",
			"get_mempolicy and move_pages disagree on %d of %d pages",
			checked - agree, checked);
}

/* The round robin interleave laid the pages in, or how it was not one. */
static void say_interleave(struct run_ctx *ctx, const struct page_census *c,
			   const int *status, size_t npages)
{
	struct strbuf pattern = STRBUF_INIT;

	page_census_pattern(c, status, npages, &pattern);
	sink_summary(ctx->sink, KEY_INTERLEAVED, c->interleaved, "");
	sink_summary(ctx->sink, KEY_RUN_PAGES, (double)c->run_len, "pages");
	sink_note(ctx->sink, "info", "interleave pattern: %s%s",
		  strbuf_str(&pattern),
		  c->interleaved ? "" : " (not a clean round robin)");
	strbuf_release(&pattern);
}

/* Moves the pages to migrate_to, then reads them again from each node. */
static int migrate_and_read(struct run_ctx *ctx, struct nmem_buf *b,
			    const struct mp_plan *p, const struct judge *first,
			    const int *orig, int *status, int *step, int steps)
{
	double after[TOPO_MAX_NODES];
	char suffix[48];
	int rc;

	sink_summary(ctx->sink, KEY_MIGRATE_TO, p->migrate_to, "node");
	rc = migrate(ctx, b, p, first, orig, status, step, steps);
	/* after "both" the pages are back: reading again shows nothing new */
	if (rc || p->migrate_with == MIG_BOTH)
		return rc;
	snprintf(suffix, sizeof(suffix), " after migrating to node %d",
		 p->migrate_to);
	return bandwidth_from_nodes(ctx, b, p, suffix, 0, after, step, steps);
}

static int mp_run(struct run_ctx *ctx)
{
	const struct topo *t = ctx->topo;
	const struct mp_params *mp = ctx->params;
	const struct mem_caps *caps = mem_caps();
	struct mp_plan p;
	struct nmem_buf b;
	struct page_census c;
	struct machine_facts m;
	struct errinfo err;
	int *status = NULL, *orig = NULL;
	double first_gbps = 0, before[TOPO_MAX_NODES];
	int step = 0, steps, rc;

	resolve(mp, t, &p);
	machine_facts_from_topo(t, &m);
	p.from_cache = mem_from_cache(&m, (uint64_t)mp->size);
	rc = topo_plan_nodes(t, PLACE_COMPACT, &p.toucher, 1, 1, &p.toucher_cpu,
			     &err);
	if (rc) {
		sink_note(ctx->sink, "warn", "toucher: %s", err.msg);
		return rc;
	}
	struct nmem_spec spec = {.len = (size_t)mp->size,
				 .policy = p.policy,
				 .scope = p.scope,
				 .nodes = mp->nodes.v,
				 .nnodes = mp->nodes.n,
				 .thp = mp->thp};
	steps = 2 + p.nfrom * 2 + (p.migrate_to >= 0 ? 2 + p.nfrom : 0);
	sink_progress(ctx->sink, step++, steps, "allocate and touch");
	rc = nmem_alloc(&spec, t, &b, &err);
	if (rc) {
		sink_note(ctx->sink, "warn", "%s", err.msg);
		return rc;
	}
	if (caps->balancing == 1 &&
	    (p.policy == NMEM_DEFAULT || p.policy == NMEM_LOCAL))
		sink_note(
			ctx->sink, "info",
			"automatic NUMA balancing is on: the kernel may later move these pages toward the threads that use them");
	status = malloc(sizeof(int) * b.npages);
	orig = malloc(sizeof(int) * b.npages);
	if (!status || !orig) {
		rc = -ENOMEM;
		goto out;
	}
	rc = first_touch(ctx, &b, &p, &first_gbps);
	if (rc)
		goto out;
	sink_summary(ctx->sink, "first_touch_gbps", first_gbps, "GB/s");
	struct judge first;
	first.n = allowed_set(&b, &p, first.set, &first.outside);
	rc = census(ctx, &b, &first, SERIES_FIRST_TOUCH, CENSUS_TOUCH, orig,
		    &c);
	if (rc)
		goto out;
	memcpy(status, orig, sizeof(int) * b.npages);

	say_agreement(ctx, &b, orig);
	if (p.policy == NMEM_INTERLEAVE)
		say_interleave(ctx, &c, orig, b.npages);

	rc = bandwidth_from_nodes(ctx, &b, &p, "", 1, before, &step, steps);
	if (rc)
		goto out;

	if (p.migrate_to >= 0) {
		rc = migrate_and_read(ctx, &b, &p, &first, orig, status, &step,
				      steps);
		if (rc)
			goto out;
	}
	sink_progress(ctx->sink, steps, steps, "done");
out:
	free(status);
	free(orig);
	nmem_free(&b);
	return rc;
}

/* The nodes and page counts a census series shows, in node order. */
static void add_placement(const struct run_result *r, const char *series,
			  struct strbuf *sb)
{
	int shown = 0;

	for (int i = 0; i < r->npoints; i++) {
		const struct result_point *q = &r->points[i];
		if (strcmp(q->chart, CH_PAGES) || !q->series ||
		    strcmp(q->series, series) || q->y <= 0)
			continue;
		strbuf_addf(sb, "%s%.0f on node %.0f", shown++ ? ", " : "",
			    q->y, q->x);
	}
	if (!shown)
		strbuf_addstr(sb, "none found");
}

/* "; read 12.3 GB/s from node 0, 11.9 GB/s from node 1" from one series. */
static void add_bandwidth(const struct run_result *r, const char *series,
			  const char *said, struct strbuf *sb)
{
	int shown = 0;

	for (int i = 0; i < r->npoints; i++) {
		const struct result_point *q = &r->points[i];
		if (strcmp(q->chart, CH_BW) || !q->series ||
		    strcmp(q->series, series))
			continue;
		strbuf_addf(sb, "%s%.1f GB/s from node %.0f",
			    shown++ ? ", " : said, q->y, q->x);
	}
}

static void mp_describe(const struct run_result *r, struct verdict *v)
{
	const struct mp_params *mp = r->params;
	const struct machine_facts *m = r->machine;
	struct strbuf sb = STRBUF_INIT;
	int from_cache = mem_from_cache(m, (uint64_t)mp->size);
	char read[48];
	double pages = 0, x, moved, failed, target = -1;
	char key[48];

	/* the read series as run() names it */
	snprintf(read, sizeof(read), "%s%s", bw_op_names[BW_READ],
		 from_cache ? FROM_CACHE : "");

	if (m->nnodes < 2)
		verdict_note(
			v, "cannot",
			"this machine has one node: every page lands on node 0 whatever the policy, so where a policy puts pages, what a remote page costs and moving pages cannot be shown here");
	mem_cache_note(m, (uint64_t)mp->size, "the read and write figures", v);
	if (mp->policy == NMEM_PREFERRED && mp->nodes.n > 1)
		verdict_note(
			v, "info",
			"preferred uses MPOL_PREFERRED, which prefers only the lowest node of 'nodes' (%d), the rule the article gives; preferred_many (MPOL_PREFERRED_MANY) prefers all of them",
			mp->nodes.v[0]);
	for (int i = 0; i < r->npoints; i++)
		if (!strcmp(r->points[i].chart, CH_PAGES) &&
		    r->points[i].series &&
		    !strcmp(r->points[i].series, SERIES_FIRST_TOUCH))
			pages += r->points[i].y;
	if (!result_summary_get(r, CENSUS_TOUCH SUFFIX_ABSENT, &x))
		pages += x;
	if (pages <= 0) {
		verdict_headline(v, "%s (%s): nothing was measured",
				 nmem_policy_names[mp->policy],
				 nmem_scope_names[mp->scope]);
		return;
	}
	strbuf_addf(&sb,
		    "%s (%s) over %.0f pages: ", nmem_policy_names[mp->policy],
		    nmem_scope_names[mp->scope], pages);
	add_placement(r, SERIES_FIRST_TOUCH, &sb);
	if (mp->policy == NMEM_BIND &&
	    !result_summary_get(r, CENSUS_TOUCH SUFFIX_OUTSIDE, &x))
		strbuf_addf(&sb,
			    x > 0 ? ", %.0f on forbidden nodes"
				  : ", none on a forbidden node",
			    x);
	if (mp->policy == NMEM_INTERLEAVE &&
	    !result_summary_get(r, KEY_INTERLEAVED, &x)) {
		double run = 1;
		result_summary_get(r, KEY_RUN_PAGES, &run);
		if (m->nnodes < 2)
			strbuf_addstr(&sb, " (one node: nothing to alternate)");
		else if (x > 0 && run <= 1)
			strbuf_addstr(&sb, ", alternating page by page");
		else if (x > 0)
			strbuf_addf(&sb, ", alternating every %.0f pages", run);
		else
			strbuf_addstr(&sb, ", not alternating cleanly");
	}
	add_bandwidth(r, read, from_cache ? "; read from cache " : "; read ",
		      &sb);
	result_summary_get(r, KEY_MIGRATE_TO, &target);
	if (!result_summary_get(r, KEY_MBIND_MOVED, &moved)) {
		strbuf_addf(&sb, "; mbind moved %.0f pages to node %.0f%s",
			    moved, target,
			    moved > 0 ? "" : " (they were there already)");
		if (moved > 0 && !result_summary_get(r, KEY_MBIND_GBPS, &x) &&
		    x > 0)
			strbuf_addf(&sb, " at %.2f GB/s", x);
		if (!result_summary_get(r, KEY_MBIND_FAILED, &failed) &&
		    failed > 0)
			strbuf_addf(&sb, ", %.0f could not be moved", failed);
	}
	if (!result_summary_get(r, KEY_MOVE_MOVED, &moved)) {
		snprintf(key, sizeof(key), "%s",
			 mp->migrate_with == MIG_BOTH ? "back"
						      : "to the target");
		strbuf_addf(&sb, "; move_pages moved %.0f %s", moved, key);
		if (!result_summary_get(r, KEY_MOVE_FAILED, &failed) &&
		    failed > 0)
			strbuf_addstr(&sb, " (some failed)");
	}
	verdict_headline(v, "%s", strbuf_str(&sb));
	strbuf_release(&sb);
}

/* Before the run: what this machine and this buffer can show. */
static void mp_precheck(const void *params, const struct common_params *common,
			const struct topo *t, struct verdict *v)
{
	const struct mp_params *mp = params;
	struct machine_facts m;

	(void)common;
	precheck_needs_nodes(
		t, &m,
		"one node: every page lands on node 0 whatever the policy; where pages go, remote cost and migration cannot be shown",
		v);
	mem_cache_note(&m, (uint64_t)mp->size, "the read and write figures", v);
	if (mp->policy == NMEM_PREFERRED_MANY && t && t->mem_caps &&
	    !t->mem_caps->preferred_many)
		verdict_note(
			v, "cannot",
			"this kernel lacks MPOL_PREFERRED_MANY (Linux 5.15): only preferred, the lowest node of 'nodes', can run");
}

static void mp_estimate(const void *params, const struct common_params *common,
			const struct topo *t, double *seconds, uint64_t *bytes)
{
	const struct mp_params *mp = params;
	double size = (double)mp->size;
	double rounds = cost_rounds(common);
	int nodes = cost_nodes(t);
	int from = mp->from_nodes.n ? mp->from_nodes.n : nodes;
	int threads = (int)mp->threads;
	double s;

	/* the first touch, then a read and a write pass per round from each
	 * node */
	s = cost_teams_s(1) + cost_touch_s(t, size, 1);
	s += from * (cost_teams_s(2) +
		     rounds * (cost_stream_s(t, COST_READ, size, threads) +
			       cost_stream_s(t, COST_WRITE, size, threads)));
	/*
	 * Two migrations (mbind, move_pages) where a second node gives the
	 * pages somewhere to go: each page copied about as fast as it was
	 * touched, and read again from each node after.
	 */
	if (nodes > 1)
		s += 2 * (cost_touch_s(t, size, 1) +
			  cost_stream_s(t, COST_COPY, size, 1)) +
		     from * rounds * cost_stream_s(t, COST_READ, size, threads);
	*seconds = s;
	*bytes = (uint64_t)size + (uint64_t)(size / 4096) * 2 * sizeof(int);
}

/* The classroom's question; the run takes a few seconds on 2 cores. */
static const struct lesson lessons[] = {
	LESSON("interleave", "Where interleaved pages land",
	       "of 4096 pages interleaved over every node, how many land on node 0?",
	       "size=16M policy=interleave repeat=2", "pages",
	       "touch_pages_node0", "pages"),
	{0}};

/* The rulebook (rules.h): what its comparisons need. */
static const struct rule rules[] = {
	RULE(RULE_NODES, .floor = 2,
	     .what = "where a policy puts pages, and moving them"),
	{RULE_END}};
static const char *const compared[] = {"interleaved", "interleave_run_pages",
				       "mbind_moved", "move_pages_moved", NULL};

/* A migration's keys in words (emit_migration's, from its prefix). */
#define MIGRATION_LABELS(k)                                                    \
	{k "_moved", "pages " k " moved", "pages"},                            \
		{k "_failed", "pages " k " failed to move", "pages"},          \
	{                                                                      \
		k "_gbps", k " migration rate", "GB/s"                         \
	}

/* what a person reads for each summary key */
static const struct key_label summary_labels[] = {
	{"*_pages_node*", "%s: pages on node %s", "pages"},
	{"*_pages_outside", "%s: pages outside the asked nodes", "pages"},
	{"*_pages_absent", "%s: pages not present", "pages"},
	MIGRATION_LABELS("mbind"),
	MIGRATION_LABELS("move_pages"),
	{"first_touch_gbps", "first-touch bandwidth", "GB/s"},
	{"get_mempolicy_agree", "pages where get_mempolicy agrees", "pages"},
	{"get_mempolicy_checked", "pages get_mempolicy checked", "pages"},
	{KEY_INTERLEAVED, "interleaved across nodes", "yes/no"},
	{KEY_RUN_PAGES, "longest run of pages on one node", "pages"},
	{KEY_MIGRATE_TO, "node the pages migrate to", "node"},
	{NULL, NULL, NULL}};

/* Before the run: where the buffer goes, who touches and who reads it. */
static void mp_plan(const void *params, const struct common_params *common,
		    const struct topo *t, struct strbuf *out)
{
	const struct mp_params *mp = params;
	struct mp_plan p;
	char list[256];
	struct errinfo err;
	int cpu = -1;

	(void)common;
	resolve(mp, t, &p);
	if (mp->nodes.n)
		format_int_list(mp->nodes.v, mp->nodes.n, list, sizeof(list));
	else
		snprintf(list, sizeof(list), "the policy's default");
	strbuf_addf(out, "memory: policy %s on nodes %s\n",
		    nmem_policy_names[p.policy], list);
	if (!topo_plan_nodes(t, PLACE_COMPACT, &p.toucher, 1, 1, &cpu, &err))
		plan_view_cpus(t, "first touch", &cpu, 1, out);
	else
		strbuf_addf(out, "first touch: %s\n", err.msg);
	if (p.nfrom) {
		format_int_list(p.from, p.nfrom, list, sizeof(list));
		strbuf_addf(out, "readers: %d thread%s on %s %s\n", p.threads,
			    p.threads == 1 ? "" : "s",
			    p.nfrom == 1 ? "node" : "each of nodes", list);
	} else {
		strbuf_addstr(out, "readers: no node has enough cpus\n");
	}
	if (p.migrate_to >= 0)
		strbuf_addf(out, "pages then moved to node %d%s\n",
			    p.migrate_to,
			    topo_node_index(t, p.migrate_to) >= 0 &&
					    t->node[topo_node_index(
							    t, p.migrate_to)]
						    .cpuless
				    ? " (memory only)"
				    : "");
}

const struct experiment exp_memory_policy = {
	.name = "memory_policy",
	.smoke = "size=1M repeat=1 warmup=0",
	.headline_key = KEY_MBIND_GBPS,
	.headline_chart = CH_PAGES,
	.title = "Memory policies and page placement",
	.summary =
		"A buffer under default, bind, preferred, interleave or local "
		"policy: where its pages really are, what reading them "
		"from each node costs, and moving them",
	.section = "6.5.1-6.5.5",
	.explain =
		"On a NUMA machine each node has memory of its own, and a CPU "
		"reaches its own node's memory faster than another node's. Which "
		"node a page lands on is decided when the page is first touched, "
		"by a memory policy: the default takes the node of the CPU that "
		"touches first, bind allows only the listed nodes, preferred tries "
		"one node first and falls back, interleave deals pages out round "
		"robin, and local names the toucher's node explicitly. Given several "
		"nodes, preferred (MPOL_PREFERRED) takes the lowest of them, the rule "
		"the article gives in 6.5.2; Linux 5.15 added MPOL_PREFERRED_MANY, "
		"which prefers all of them, offered here as preferred_many where the "
		"kernel has it. A policy can be set "
		"on an address range (mbind, before the first touch) or for the "
		"thread that allocates (set_mempolicy); the range's policy wins.\n\n"
		"This experiment maps a buffer, sets the policy, touches every page "
		"from a CPU of the toucher node, then asks the kernel where each page "
		"is (move_pages with no target only reports) and cross-checks a sample "
		"with get_mempolicy. The histogram shows the result; with bind a page "
		"outside the set would be reported as forbidden, with interleave the "
		"pages should alternate between the nodes.\n\n"
		"Then threads on each node read and write the buffer: local pages come "
		"faster than remote ones, and an interleaved buffer sits in between "
		"for everyone. Finally the pages are migrated: mbind with MPOL_MF_MOVE "
		"(STRICT makes it fail when a page cannot move) rebinds the range and "
		"moves what is misplaced, move_pages moves each page to a node of its "
		"own. Migration copies every page, so it is far slower than reading "
		"it. On a machine with one node every page is on node 0 whatever the "
		"policy: the histogram says so and nothing moves.\n\n"
		"The buffer defaults to four times the machine's last-level cache, "
		"all of it together: a buffer that size leaves no more than a quarter "
		"of itself that any cache could keep between passes, so the figures "
		"are memory's. A smaller buffer is allowed, and its figures are "
		"labelled from cache.",
	EXPERIMENT_PARTS(mp),
	.plan = mp_plan,
	.min_nodes = 2,
	.check = mp_check,
};
