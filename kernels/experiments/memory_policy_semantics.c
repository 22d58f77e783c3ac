/* policy_semantics.c - what the memory policy calls do to pages already there, which policy wins, and what the queries answer */
#define _GNU_SOURCE
#include <errno.h>
#include <numaif.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cancel.h"
#include "experiment.h"
#include "numa_mem.h"
#include "page_census.h"
#include "plan_view.h"
#include "stats.h"
#include "workcost.h"

#ifndef MPOL_PREFERRED_MANY
#define MPOL_PREFERRED_MANY 5 /* Linux 5.15 */
#endif

#define PS_WORDS (NMEM_MAX_NODE / (8 * sizeof(unsigned long)))
#define PS_MAXNODE (NMEM_MAX_NODE + 1)
#define PS_PREDICT 64 /* pages whose interleave node get_mempolicy predicts */

enum ps_step {
	STEP_AFTER_TOUCH,
	STEP_VMA_WINS,
	STEP_STRICT,
	STEP_GET_MEMPOLICY,
	STEP_MIGRATE_PAGES,
	STEP_PREFERRED,
	STEP_COUNT
};

/* Choice names double as the steps' summary key prefixes and x labels. */
/*
 * The suffixes of a step's summary keys ("<step>_<suffix>"), named once
 * for run() and describe().
 */
#define KEY_POLICY_OK "policy_ok"
#define S_AGREE "agree"
#define S_TOTAL "total"
#define S_ERRNO "errno"
#define S_NODES "nodes"
#define S_PREDICTED "predicted"
#define S_ASKED "asked"
#define S_COUNTER_MOVES "counter_moves"
#define S_IN_ORDER "in_order"
#define S_POLICY_KEPT "policy_kept"
#define S_MANY_ERRNO "many_errno"
#define S_MANY_ON_B "many_on_b"
#define S_PAGES "pages"
#define S_NO_CPU_ON_B "no_cpu_on_b"
#define S_GBPS "gbps"

static const struct param_choice steps[] = {
	{"after_touch", STEP_AFTER_TOUCH},
	{"vma_wins", STEP_VMA_WINS},
	{"strict", STEP_STRICT},
	{"get_mempolicy", STEP_GET_MEMPOLICY},
	{"migrate_pages", STEP_MIGRATE_PAGES},
	{"preferred", STEP_PREFERRED},
	{0}};

struct ps_params {
	int64_t size;
	struct int_list nodes;
	unsigned steps; /* bit per enum ps_step */
};

#define PARAM_STRUCT struct ps_params
static const struct param params[] = {
	PARAM_SIZE(
		size, "4M", 64 << 10, 1LL << 34, "bytes",
		"the buffer each step places (the migration moves this much)"),
	PARAM_NODELIST(
		nodes, "", 0, NMEM_MAX_NODE - 1,
		"two nodes a,b: pages start on a and the steps send them to b; empty: the lowest and the highest node this process may use"),
	PARAM_SET(steps, "all", steps,
		  "which of the article's statements to try"),
	{0}};

static const struct chart charts[] = {
	CHART("steps", CHART_BAR,
	      "How much of each step went as the article says", "step",
	      "pages or answers as predicted (%)"),
	CHART("migrate", CHART_BAR,
	      "migrate_pages: a whole process's pages moved between two nodes",
	      "direction", "GB/s"),
	{0}};

static const char *const summary_keys[] = {
	"node_a",	   "node_b",	  "after_touch_*",
	"vma_wins_*",	   "strict_*",	  "get_mempolicy_*",
	"migrate_pages_*", "preferred_*", NULL};

struct ps_ctx {
	struct run_ctx *run;
	int a, b;
	size_t size;
};

static void fill(unsigned long *mask, const int *nodes, int n)
{
	memset(mask, 0, PS_WORDS * sizeof(unsigned long));
	for (int i = 0; i < n; i++)
		if (nodes[i] >= 0 && nodes[i] < NMEM_MAX_NODE)
			mask[nodes[i] / (8 * sizeof(unsigned long))] |=
				1UL << (nodes[i] % (8 * sizeof(unsigned long)));
}

static int buf_new(size_t len, struct nmem_buf *b)
{
	struct nmem_spec s = {.len = len, .policy = NMEM_DEFAULT, .thp = -1};
	struct errinfo err;

	return nmem_alloc(&s, NULL, b, &err);
}

static void touch(char *p, size_t len, size_t page)
{
	for (size_t o = 0; o < len; o += page)
		((volatile char *)p)[o] = 1;
}

/* Pages of b[from, to) on node; -1 when the query fails. */
static long count_on(const struct nmem_buf *b, size_t from, size_t to, int node)
{
	int *st = calloc(b->npages, sizeof(int));
	long n = 0;

	if (!st || nmem_where(b, st)) {
		free(st);
		return -1;
	}
	for (size_t i = from; i < to && i < b->npages; i++)
		n += st[i] == node;
	free(st);
	return n;
}

static int bind_range(void *p, size_t len, int mode, const int *nodes, int n,
		      unsigned flags)
{
	unsigned long mask[PS_WORDS];

	fill(mask, nodes, n);
	return mbind(p, len, mode, n ? mask : NULL, n ? PS_MAXNODE : 0, flags)
		       ? -errno
		       : 0;
}

static void key(struct ps_ctx *c, int step, const char *what, double v,
		const char *unit)
{
	char k[96];

	snprintf(k, sizeof(k), "%s_%s", steps[step].name, what);
	sink_summary(c->run->sink, k, v, unit);
}

/* The step's row: agreeing out of total, as a percentage. */
static void row(struct ps_ctx *c, int step, long agree, long total)
{
	key(c, step, S_AGREE, (double)agree, "");
	key(c, step, S_TOTAL, (double)total, "");
	if (total > 0) {
		struct point p = {.chart = "steps",
				  .series = "as the article says",
				  .x = step,
				  .x_label = steps[step].name,
				  .y = 100.0 * (double)agree / (double)total,
				  .unit = "%"};
		sink_point(c->run->sink, &p);
	}
}

/* mbind without a flag after the first touch: the old pages stay, new ones
 * follow. */
static int step_after_touch(struct ps_ctx *c)
{
	struct nmem_buf b;
	size_t half;
	long old_on_a, new_on_b;
	int rc = buf_new(2 * c->size, &b);

	if (rc)
		return rc;
	half = b.npages / 2 * b.page;
	if ((rc = bind_range(b.base, b.len, MPOL_BIND, &c->a, 1, 0)))
		goto out;
	touch(b.base, half, b.page);
	if ((rc = bind_range(b.base, b.len, MPOL_BIND, &c->b, 1, 0)))
		goto out;
	touch(b.base + half, b.len - half, b.page);
	old_on_a = count_on(&b, 0, b.npages / 2, c->a);
	new_on_b = count_on(&b, b.npages / 2, b.npages, c->b);
	if (old_on_a < 0 || new_on_b < 0) {
		rc = -ENOSYS;
		goto out;
	}
	key(c, STEP_AFTER_TOUCH, "old_on_a", (double)old_on_a, "pages");
	key(c, STEP_AFTER_TOUCH, "new_on_b", (double)new_on_b, "pages");
	row(c, STEP_AFTER_TOUCH, old_on_a + new_on_b, (long)b.npages);
out:
	nmem_free(&b);
	return rc;
}

struct task_job {
	struct ps_ctx *c;
	int rc;
	long vma_on_a, task_on_b, pages;
};

/* Runs in a thread of its own, so the task policy it sets dies with it. */
static void *vma_wins_thread(void *arg)
{
	struct task_job *j = arg;
	struct ps_ctx *c = j->c;
	struct nmem_buf vma, plain;
	unsigned long mask[PS_WORDS];

	j->rc = buf_new(c->size, &vma);
	if (j->rc)
		return NULL;
	if ((j->rc = buf_new(c->size, &plain))) {
		nmem_free(&vma);
		return NULL;
	}
	j->rc = bind_range(vma.base, vma.len, MPOL_BIND, &c->a, 1, 0);
	fill(mask, &c->b, 1);
	if (!j->rc && set_mempolicy(MPOL_BIND, mask, PS_MAXNODE))
		j->rc = -errno;
	if (!j->rc) {
		touch(vma.base, vma.len, vma.page);
		touch(plain.base, plain.len, plain.page);
		set_mempolicy(MPOL_DEFAULT, NULL, 0);
		j->vma_on_a = count_on(&vma, 0, vma.npages, c->a);
		j->task_on_b = count_on(&plain, 0, plain.npages, c->b);
		j->pages = (long)vma.npages;
		if (j->vma_on_a < 0 || j->task_on_b < 0)
			j->rc = -ENOSYS;
	}
	nmem_free(&vma);
	nmem_free(&plain);
	return NULL;
}

static int in_thread(void *(*fn)(void *), void *arg, int cpu)
{
	pthread_attr_t attr;
	pthread_t th;
	int rc;

	pthread_attr_init(&attr);
	if (cpu >= 0) {
		cpu_set_t set;
		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		pthread_attr_setaffinity_np(&attr, sizeof(set), &set);
	}
	rc = -pthread_create(&th, &attr, fn, arg);
	pthread_attr_destroy(&attr);
	if (!rc)
		pthread_join(th, NULL);
	return rc;
}

static int step_vma_wins(struct ps_ctx *c)
{
	struct task_job j = {.c = c};
	int rc = in_thread(vma_wins_thread, &j, -1);

	if (rc || j.rc)
		return rc ? rc : j.rc;
	key(c, STEP_VMA_WINS, "vma_on_a", (double)j.vma_on_a, "pages");
	key(c, STEP_VMA_WINS, "task_on_b", (double)j.task_on_b, "pages");
	row(c, STEP_VMA_WINS, j.vma_on_a + j.task_on_b, 2 * j.pages);
	return 0;
}

/* MPOL_MF_STRICT alone: a check that moves nothing. */
static int step_strict(struct ps_ctx *c)
{
	struct nmem_buf b;
	int rc = buf_new(c->size, &b), elsewhere, same, mode = -1;
	unsigned long mask[PS_WORDS];
	long on_a;

	if (rc)
		return rc;
	if ((rc = bind_range(b.base, b.len, MPOL_BIND, &c->a, 1, 0)))
		goto out;
	touch(b.base, b.len, b.page);
	elsewhere =
		bind_range(b.base, b.len, MPOL_BIND, &c->b, 1, MPOL_MF_STRICT);
	/* after a refused check the range's policy should still name a only */
	memset(mask, 0, sizeof(mask));
	if (!get_mempolicy(&mode, mask, PS_MAXNODE, b.base, MPOL_F_ADDR)) {
		unsigned long want[PS_WORDS];
		fill(want, &c->a, 1);
		key(c, STEP_STRICT, S_POLICY_KEPT,
		    mode == MPOL_BIND && !memcmp(mask, want, sizeof(want)), "");
	}
	same = bind_range(b.base, b.len, MPOL_BIND, &c->a, 1, MPOL_MF_STRICT);
	on_a = count_on(&b, 0, b.npages, c->a);
	if (on_a < 0) {
		rc = -ENOSYS;
		goto out;
	}
	key(c, STEP_STRICT, "elsewhere_errno", -elsewhere, "");
	key(c, STEP_STRICT, "same_errno", -same, "");
	key(c, STEP_STRICT, "on_a", (double)on_a, "pages");
	key(c, STEP_STRICT, S_PAGES, (double)b.npages, "pages");
	row(c, STEP_STRICT,
	    (c->a == c->b || elsewhere == -EIO) + (same == 0) +
		    (on_a == (long)b.npages),
	    3);
out:
	nmem_free(&b);
	return rc;
}

struct predict_job {
	struct ps_ctx *c;
	const int *nodes;
	int n, rc;
	int mode_ok;
	long agree, total;
	long counter_moves; /* times the predicted node changed between queries
			     */
	long in_order; /* neighbouring pages whose nodes follow the node order
			*/
};

/* The node after `node` in nodes[0..n) (ascending), wrapping. */
static int next_in(const int *nodes, int n, int node)
{
	for (int i = 0; i < n; i++)
		if (nodes[i] > node)
			return nodes[i];
	return nodes[0];
}

static void *predict_thread(void *arg)
{
	struct predict_job *j = arg;
	unsigned long mask[PS_WORDS], got[PS_WORDS];
	int predicted[PS_PREDICT], mode = -1;
	size_t two_mb = 2u << 20;
	struct nmem_buf b;
	char *start;
	int *st = NULL;

	if ((j->rc = buf_new(2 * two_mb, &b)))
		return NULL;
	/*
	 * The pages come from one 2 MiB stretch whose page table is made
	 * before the policy is set: a page-table page allocated under
	 * interleave would take a node's turn between query and touch.
	 */
	start = (char *)(((uintptr_t)b.base + two_mb - 1) &
			 ~(uintptr_t)(two_mb - 1));
	touch(start, b.page, b.page);
	fill(mask, j->nodes, j->n);
	if (set_mempolicy(MPOL_INTERLEAVE, mask, PS_MAXNODE)) {
		j->rc = -errno;
		goto out;
	}
	memset(got, 0, sizeof(got));
	j->mode_ok = !get_mempolicy(&mode, got, PS_MAXNODE, NULL, 0) &&
		     mode == MPOL_INTERLEAVE && !memcmp(got, mask, sizeof(got));
	for (int i = 0; i < PS_PREDICT; i++) {
		int node = -1;
		if (get_mempolicy(&node, NULL, 0, NULL, MPOL_F_NODE))
			node = -1;
		predicted[i] = node;
		touch(start + (size_t)(i + 1) * b.page, b.page, b.page);
	}
	set_mempolicy(MPOL_DEFAULT, NULL, 0);
	st = calloc(b.npages, sizeof(int));
	if (!st || nmem_where(&b, st)) {
		j->rc = -ENOSYS;
		goto out;
	}
	size_t first = (size_t)(start - b.base) / b.page + 1;
	for (int i = 0; i < PS_PREDICT; i++) {
		j->agree += predicted[i] >= 0 &&
			    st[first + (size_t)i] == predicted[i];
		if (i > 0) {
			j->counter_moves += predicted[i] != predicted[i - 1];
			j->in_order += st[first + (size_t)i] ==
				       next_in(j->nodes, j->n,
					       st[first + (size_t)i - 1]);
		}
	}
	j->total = PS_PREDICT;
out:
	free(st);
	nmem_free(&b);
	return NULL;
}

/* The nodes get_mempolicy's trial interleaves over: those with memory. */
static int interleave_nodes(const struct topo *t, int *nodes)
{
	int n = 0;

	for (int i = 0; i < t->nnodes; i++)
		if (t->node[i].mem_allowed &&
		    (t->node[i].mem_total > 0 || t->nnodes == 1))
			nodes[n++] = t->node[i].os;
	return n;
}

static int step_get_mempolicy(struct ps_ctx *c)
{
	int nodes[TOPO_MAX_NODES];
	int n = interleave_nodes(c->run->topo, nodes);
	struct predict_job j = {.c = c, .nodes = nodes, .n = n};
	int rc;

	rc = in_thread(predict_thread, &j, -1);
	if (rc || j.rc)
		return rc ? rc : j.rc;
	key(c, STEP_GET_MEMPOLICY, S_NODES, n, "nodes");
	key(c, STEP_GET_MEMPOLICY, KEY_POLICY_OK, j.mode_ok, "");
	key(c, STEP_GET_MEMPOLICY, S_PREDICTED, (double)j.agree, "pages");
	key(c, STEP_GET_MEMPOLICY, S_ASKED, (double)j.total, "pages");
	key(c, STEP_GET_MEMPOLICY, S_COUNTER_MOVES, (double)j.counter_moves,
	    "");
	key(c, STEP_GET_MEMPOLICY, S_IN_ORDER, (double)j.in_order, "pages");
	row(c, STEP_GET_MEMPOLICY, j.mode_ok + j.agree, 1 + j.total);
	return 0;
}

/* The child: first-touches its buffer on node a, then answers census requests.
 */
static void migrate_child(struct ps_ctx *c, int in, int out)
{
	struct nmem_buf b;
	unsigned long mask[PS_WORDS];
	long counts[2];
	char cmd;

	if (buf_new(c->size, &b))
		_exit(1);
	fill(mask, &c->a, 1);
	if (set_mempolicy(MPOL_PREFERRED, mask, PS_MAXNODE))
		_exit(1);
	touch(b.base, b.len, b.page);
	set_mempolicy(MPOL_DEFAULT, NULL, 0);
	while (read(in, &cmd, 1) == 1 && cmd == 'q') {
		counts[0] = count_on(&b, 0, b.npages, c->a);
		counts[1] = count_on(&b, 0, b.npages, c->b);
		if (write(out, counts, sizeof(counts)) != sizeof(counts))
			break;
	}
	_exit(0);
}

static int ask(int to, int from, long *counts)
{
	char q = 'q';

	if (write(to, &q, 1) != 1 ||
	    read(from, counts, 2 * sizeof(long)) != (ssize_t)(2 * sizeof(long)))
		return -EIO;
	return 0;
}

/* The rates of migrate_pages, one a round: a to b, and back. */
struct migrate_rates {
	double *fwd, *back;
	int nfwd, nback;
	long first_moved; /* pages on b after the first move; -1: none */
};

/*
 * Moves the child's pages from a to b and back, round by round, timing
 * each move and counting the pages it moved. Returns 0 or -errno.
 */
static int migrate_rounds(struct ps_ctx *c, pid_t pid, int to, int from,
			  struct migrate_rates *m)
{
	int rounds = (int)c->run->common.repeat, rc = 0;

	for (int r = 0; r < rounds && !cancel_asked(c->run->cancel); r++) {
		unsigned long src_mask[PS_WORDS], dst_mask[PS_WORDS];
		int src = r % 2 ? c->b : c->a, dst = r % 2 ? c->a : c->b;
		long before[2], after[2];
		double t0, t1;

		fill(src_mask, &src, 1);
		fill(dst_mask, &dst, 1);
		if ((rc = ask(to, from, before)))
			break;
		t0 = clock_now();
		if (migrate_pages(pid, PS_MAXNODE, src_mask, dst_mask) < 0) {
			rc = -errno;
			break;
		}
		t1 = clock_now();
		if ((rc = ask(to, from, after)))
			break;
		long moved =
			r % 2 ? after[0] - before[0] : after[1] - before[1];
		if (m->first_moved < 0)
			m->first_moved = after[1];
		if (t1 > t0 && moved > 0) {
			double v = (double)moved * 4096.0 / (t1 - t0) / 1e9;
			if (r % 2)
				m->back[m->nback++] = v;
			else
				m->fwd[m->nfwd++] = v;
		}
	}
	return rc;
}

/* The step's keys and row, and a bar per direction that moved pages. */
static void emit_migrate(struct ps_ctx *c, const struct migrate_rates *m,
			 size_t npages)
{
	key(c, STEP_MIGRATE_PAGES, S_PAGES, (double)npages, "pages");
	if (m->first_moved >= 0) {
		key(c, STEP_MIGRATE_PAGES, "on_b", (double)m->first_moved,
		    "pages");
		row(c, STEP_MIGRATE_PAGES, m->first_moved, (long)npages);
	}
	for (int dir = 0; dir < 2; dir++) {
		double *v = dir ? m->back : m->fwd;
		int n = dir ? m->nback : m->nfwd;
		char label[64];
		struct stats s;
		if (!n)
			continue;
		stats_compute(v, n, &s);
		snprintf(label, sizeof(label), "node %d to %d",
			 dir ? c->b : c->a, dir ? c->a : c->b);
		struct point p = {.chart = "migrate",
				  .series = "migrate_pages",
				  .x = dir,
				  .x_label = label,
				  .y = s.median,
				  .unit = "GB/s",
				  .samples = v,
				  .nsamples = n};
		sink_point(c->run->sink, &p);
		if (!dir)
			key(c, STEP_MIGRATE_PAGES, S_GBPS, s.median, "GB/s");
	}
}

static int step_migrate_pages(struct ps_ctx *c)
{
	int down[2], up[2], rc = 0, rounds = (int)c->run->common.repeat;
	long counts[2];
	struct migrate_rates m = {
		.fwd = calloc((size_t)rounds + 1, sizeof(double)),
		.back = calloc((size_t)rounds + 1, sizeof(double)),
		.first_moved = -1};
	size_t npages = (c->size + 4095) / 4096;
	pid_t pid;

	if (!m.fwd || !m.back || pipe(down) || pipe(up)) {
		free(m.fwd);
		free(m.back);
		return -ENOMEM;
	}
	pid = fork();
	if (pid == 0) {
		close(down[1]);
		close(up[0]);
		migrate_child(c, down[0], up[1]);
	}
	close(down[0]);
	close(up[1]);
	if (pid < 0) {
		rc = -errno;
		goto out;
	}
	if ((rc = ask(down[1], up[0], counts)))
		goto out;
	npages = (size_t)counts[0];
	rc = migrate_rounds(c, pid, down[1], up[0], &m);
	if (rc == -ENOSYS || rc == -EPERM || rc == -EINVAL) {
		key(c, STEP_MIGRATE_PAGES, S_ERRNO, -rc, "");
		rc = 0;
		goto out;
	}
	if (!rc)
		emit_migrate(c, &m, npages);
out:
	close(down[1]);
	close(up[0]);
	if (pid > 0)
		waitpid(pid, NULL, 0);
	free(m.fwd);
	free(m.back);
	return rc;
}

struct pref_job {
	struct ps_ctx *c;
	int rc, many_errno, mask_lowest;
	long plain_on_a, many_on_b, pages;
};

static void *preferred_thread(void *arg)
{
	struct pref_job *j = arg;
	struct ps_ctx *c = j->c;
	int both[2] = {c->a, c->b}, mode = -1;
	unsigned long mask[PS_WORDS], got[PS_WORDS], lowest[PS_WORDS];
	struct nmem_buf plain, many;

	if ((j->rc = buf_new(c->size, &plain)))
		return NULL;
	if ((j->rc = buf_new(c->size, &many))) {
		nmem_free(&plain);
		return NULL;
	}
	fill(mask, both, 2);
	if (set_mempolicy(MPOL_PREFERRED, mask, PS_MAXNODE)) {
		j->rc = -errno;
		goto out;
	}
	memset(got, 0, sizeof(got));
	fill(lowest, &c->a, 1);
	j->mask_lowest = !get_mempolicy(&mode, got, PS_MAXNODE, NULL, 0) &&
			 !memcmp(got, lowest, sizeof(got));
	touch(plain.base, plain.len, plain.page);
	if (set_mempolicy(MPOL_PREFERRED_MANY, mask, PS_MAXNODE))
		j->many_errno = errno;
	else
		touch(many.base, many.len, many.page);
	set_mempolicy(MPOL_DEFAULT, NULL, 0);
	j->pages = (long)plain.npages;
	j->plain_on_a = count_on(&plain, 0, plain.npages, c->a);
	j->many_on_b =
		j->many_errno ? 0 : count_on(&many, 0, many.npages, c->b);
	if (j->plain_on_a < 0 || j->many_on_b < 0)
		j->rc = -ENOSYS;
out:
	nmem_free(&plain);
	nmem_free(&many);
	return NULL;
}

/* The first allowed cpu of node b, the preferred step's toucher; -1: none. */
static int toucher_on(const struct topo *t, int b)
{
	for (int i = 0; i < t->npus; i++)
		if (t->pu[i].allowed && t->pu[i].node == b)
			return t->pu[i].os;
	return -1;
}

/* MPOL_PREFERRED over a,b from a cpu of b: the article's rule says a (the
 * lowest). */
static int step_preferred(struct ps_ctx *c)
{
	struct pref_job j = {.c = c};
	int cpu = toucher_on(c->run->topo, c->b), rc;

	if (cpu < 0) {
		key(c, STEP_PREFERRED, S_NO_CPU_ON_B, 1, "");
		return 0;
	}
	rc = in_thread(preferred_thread, &j, cpu);
	if (rc || j.rc)
		return rc ? rc : j.rc;
	key(c, STEP_PREFERRED, "cpu", cpu, "");
	key(c, STEP_PREFERRED, "mask_lowest", j.mask_lowest, "");
	key(c, STEP_PREFERRED, "on_a", (double)j.plain_on_a, "pages");
	key(c, STEP_PREFERRED, S_PAGES, (double)j.pages, "pages");
	if (j.many_errno)
		key(c, STEP_PREFERRED, S_MANY_ERRNO, j.many_errno, "");
	else
		key(c, STEP_PREFERRED, S_MANY_ON_B, (double)j.many_on_b,
		    "pages");
	row(c, STEP_PREFERRED, j.plain_on_a, j.pages);
	if (!j.many_errno) {
		struct point p = {
			.chart = "steps",
			.series = "MPOL_PREFERRED_MANY: on the local node b",
			.x = STEP_PREFERRED,
			.x_label = steps[STEP_PREFERRED].name,
			.y = 100.0 * (double)j.many_on_b / (double)j.pages,
			.unit = "%"};
		sink_point(c->run->sink, &p);
	}
	return 0;
}

/* The two nodes: as given, or the lowest and highest this process may place
 * memory on. */
static void pick_nodes(const struct ps_params *pp, const struct topo *t, int *a,
		       int *b)
{
	*a = *b = -1;
	if (pp->nodes.n == 2) {
		*a = pp->nodes.v[0];
		*b = pp->nodes.v[1];
		return;
	}
	for (int i = 0; i < t->nnodes; i++) {
		if (!t->node[i].mem_allowed ||
		    (t->node[i].mem_total == 0 && t->nnodes > 1))
			continue;
		if (*a < 0)
			*a = t->node[i].os;
		*b = t->node[i].os;
	}
	if (*a < 0)
		*a = *b = 0;
}

static int ps_run(struct run_ctx *ctx)
{
	const struct ps_params *pp = ctx->params;
	static int (*const fns[STEP_COUNT])(struct ps_ctx *) = {
		step_after_touch,   step_vma_wins,	step_strict,
		step_get_mempolicy, step_migrate_pages, step_preferred};
	struct ps_ctx c = {.run = ctx, .size = (size_t)pp->size};
	int total = 0, done = 0;

	if (!mem_caps()->policy || !mem_caps()->move_pages) {
		sink_note(
			ctx->sink, "cannot",
			"this kernel or container does not answer the memory policy calls: %s",
			mem_caps()->why);
		return 0;
	}
	pick_nodes(pp, ctx->topo, &c.a, &c.b);
	sink_summary(ctx->sink, "node_a", c.a, "");
	sink_summary(ctx->sink, "node_b", c.b, "");
	for (int s = 0; s < STEP_COUNT; s++)
		total += (pp->steps >> s) & 1;
	for (int s = 0; s < STEP_COUNT; s++) {
		int rc;
		if (!((pp->steps >> s) & 1))
			continue;
		if (cancel_asked(ctx->cancel))
			return -ECANCELED;
		sink_progress(ctx->sink, done++, total, steps[s].name);
		rc = fns[s](&c);
		if (rc == -ENOMEM || rc == -ECANCELED)
			return rc;
		if (rc)
			key(&c, s, "errno", -rc, "");
	}
	sink_progress(ctx->sink, total, total, "done");
	return 0;
}

static int ps_check(const void *params, const struct common_params *common,
		    const struct topo *t, struct errinfo *err)
{
	const struct ps_params *pp = params;

	(void)common;
	if (pp->nodes.n != 0 && pp->nodes.n != 2)
		return errinfo_set(
			err, "nodes",
			"'nodes' names %d node%s, but the steps need two (a,b) or none",
			pp->nodes.n, pp->nodes.n == 1 ? "" : "s");
	if (pp->nodes.n == 2 && pp->nodes.v[0] == pp->nodes.v[1])
		return errinfo_set(err, "nodes", "'nodes' names node %d twice",
				   pp->nodes.v[0]);
	return topo_check_nodes(t, pp->nodes.v, pp->nodes.n, "nodes", 1, 0,
				err);
}

static void ps_precheck(const void *params, const struct common_params *common,
			const struct topo *t, struct verdict *v)
{
	const struct ps_params *pp = params;
	int a, b;

	(void)common;
	if (!t->numa_available) {
		verdict_note(
			v, "cannot",
			"this kernel has no NUMA system calls: no step can be tried");
		return;
	}
	pick_nodes(pp, t, &a, &b);
	if (a == b)
		verdict_note(
			v, "cannot",
			"this process may place memory on one node only (%s, from %s): "
			"moving pages, the winner of two policies, a failing strict check, "
			"interleave predictions and preferring the lowest of two nodes all need two",
			t->allowed_mems_text, t->mems_source);
}

/* A step's summary value "<step>_<suffix>": 0, or -1 when absent. */
static int step_get(const struct run_result *r, int step, const char *suffix,
		    double *out)
{
	char k[96];

	snprintf(k, sizeof(k), "%s_%s", steps[step].name, suffix);
	return result_summary_get_opt(r, k, out);
}

/* What one step's numbers say, as a note. */
static void judge(const struct run_result *r, struct verdict *v, int step,
		  int one_node, int *ok, int *bad, int *cannot, int *uncounted)
{
	char k[96];
	double agree, total, err, policy_ok = 0;
	const char *name = steps[step].name;
	const struct ps_params *pp = r->params;

	if (!((pp->steps >> step) & 1))
		return;
	snprintf(k, sizeof(k), "%s_" S_ERRNO, name);
	if (!result_summary_get_opt(r, k, &err)) {
		verdict_note(v, "cannot", "%s: the kernel refused a call: %s",
			     name, strerror((int)err));
		(*cannot)++;
		return;
	}
	snprintf(k, sizeof(k), "%s_" S_AGREE, name);
	if (result_summary_get(r, k, &agree)) {
		verdict_note(v, "cannot",
			     "%s: the run recorded no result for this step",
			     name);
		(*cannot)++;
		return;
	}
	snprintf(k, sizeof(k), "%s_" S_TOTAL, name);
	result_summary_get(r, k, &total);
	/*
	 * On one node get_mempolicy's page predictions are trivially right
	 * (interleave over one node always names it): only its answer with
	 * flags 0, the policy itself, means something there.
	 */
	snprintf(k, sizeof(k), "%s_" KEY_POLICY_OK, name);
	if (one_node && step == STEP_GET_MEMPOLICY &&
	    !result_summary_get(r, k, &policy_ok)) {
		if (policy_ok > 0) {
			(*ok)++;
			verdict_note(
				v, "info",
				"%s: confirmed the one check that means something on one node (the policy it reported was the one set); its %.0f page predictions need two nodes and are not counted",
				name, total - 1);
		} else {
			(*bad)++;
			verdict_note(
				v, "warn",
				"%s: contradicted: the policy it reported was not the one set",
				name);
		}
		*uncounted += (int)(total - 1);
		return;
	}
	if (one_node && step != STEP_GET_MEMPOLICY) {
		verdict_note(
			v, "cannot",
			"%s: with one node every page is on it whatever the call asks, so "
			"this step cannot tell the article's rule from any other",
			name);
		(*cannot)++;
		return;
	}
	if (agree >= total && total > 0) {
		(*ok)++;
		verdict_note(v, "info",
			     "%s: confirmed (%.0f of %.0f as predicted)", name,
			     agree, total);
	} else {
		(*bad)++;
		verdict_note(
			v, "warn",
			"%s: contradicted: only %.0f of %.0f as the article predicts",
			name, agree, total);
	}
}

/* get_mempolicy's notes: one node, or a counter that did not move. */
static void say_get_mempolicy(const struct run_result *r, int one,
			      struct verdict *v)
{
	const struct ps_params *pp = r->params;
	double x, asked = 0, got = 0, moves = -1, in_order = 0;

	if ((pp->steps >> STEP_GET_MEMPOLICY) & 1 &&
	    !step_get(r, STEP_GET_MEMPOLICY, S_NODES, &x) && x < 2)
		verdict_note(
			v, "cannot",
			"get_mempolicy: interleave over one node always names it next, so the "
			"MPOL_F_NODE prediction is trivially right here; only the flags-0 answer "
			"(the policy itself) is shown");
	if (!one && !step_get(r, STEP_GET_MEMPOLICY, S_PREDICTED, &got) &&
	    !step_get(r, STEP_GET_MEMPOLICY, S_ASKED, &asked) && got < asked &&
	    !step_get(r, STEP_GET_MEMPOLICY, S_COUNTER_MOVES, &moves) &&
	    !step_get(r, STEP_GET_MEMPOLICY, S_IN_ORDER, &in_order) &&
	    moves == 0 && in_order >= asked - 1)
		verdict_note(
			v, "info",
			"get_mempolicy: the pages did interleave one by one in node order, "
			"but MPOL_F_NODE kept naming the same node: this kernel places a "
			"thread's interleaved page by its offset in the mapping, and the "
			"counter MPOL_F_NODE reads moved only for its own allocations, not "
			"with these page faults");
}

/* preferred's notes: MPOL_PREFERRED_MANY, or no toucher on node b. */
static void say_preferred(const struct run_result *r, int one, double b,
			  struct verdict *v)
{
	double x;

	if (!step_get(r, STEP_PREFERRED, S_MANY_ERRNO, &x))
		verdict_note(
			v, "cannot",
			"preferred: this kernel lacks MPOL_PREFERRED_MANY (Linux 5.15+): %s",
			strerror((int)x));
	else if (!step_get(r, STEP_PREFERRED, S_MANY_ON_B, &x) && !one) {
		double pages = 0;
		step_get(r, STEP_PREFERRED, S_PAGES, &pages);
		verdict_note(
			v, "info",
			"preferred: MPOL_PREFERRED_MANY over the same two nodes put %.0f of %.0f "
			"pages on node %.0f, the toucher's own: the newer mode keeps the whole "
			"set and starts from the nearest",
			x, pages, b);
	}
	if (!step_get(r, STEP_PREFERRED, S_NO_CPU_ON_B, &x))
		verdict_note(
			v, "cannot",
			"preferred: node %.0f has no cpu this process may use, so no toucher "
			"can prove that the lowest node wins over the local one",
			b);
}

/* What the steps add beside their verdicts: strict's policy, the rates. */
static void say_steps(const struct run_result *r, int one, double b,
		      struct verdict *v)
{
	double x;

	say_get_mempolicy(r, one, v);
	if (!step_get(r, STEP_STRICT, S_POLICY_KEPT, &x) && !one)
		verdict_note(
			v, x ? "info" : "warn",
			x ? "strict: the refused check left the range's policy as it was"
			  : "strict: the refused check still changed the range's policy "
			    "(the article says the policy only changes when every page is in place)");
	say_preferred(r, one, b, v);
	if (!step_get(r, STEP_MIGRATE_PAGES, S_GBPS, &x) && !one)
		verdict_note(
			v, "info",
			"migrate_pages moved the child's pages at %.2f GB/s%s",
			x,
			r->machine->vm == 1
				? " (a virtual machine: the rate is the emulator's)"
				: "");
}

/* The steps counted: as the article says, against it, not shown. */
struct ps_tally {
	int ok, bad, cannot, uncounted;
};

/* The headline: the steps counted, or why one node could show little. */
static void ps_headline(const struct ps_tally *n, int one, struct verdict *v)
{
	if (one && (n->ok || n->bad)) {
		char pred[64] = "";

		if (n->uncounted)
			snprintf(pred, sizeof(pred),
				 " and get_mempolicy's %d page predictions",
				 n->uncounted);
		verdict_headline(
			v,
			"one memory node: the checks that need two could not be made (%d step%s%s); %s",
			n->cannot, n->cannot == 1 ? "" : "s", pred,
			n->bad ? "the check that means something on one node, get_mempolicy's policy answer, went against the article"
			       : "the check that means something on one node, get_mempolicy's policy answer, went as the article says");
	} else if (n->bad)
		verdict_headline(
			v,
			"%d step%s went against the article, %d as it says, %d could not be shown",
			n->bad, n->bad == 1 ? "" : "s", n->ok, n->cannot);
	else if (n->ok)
		verdict_headline(
			v,
			"every step that could be shown went as the article says (%d), %d could not be shown here",
			n->ok, n->cannot);
	else
		verdict_headline(
			v, "nothing could be shown here: %s",
			one ? "the policies need two memory nodes to differ"
			    : "every step failed");
}

static void ps_describe(const struct run_result *r, struct verdict *v)
{
	double a = 0, b = 0;
	struct ps_tally n = {0};
	int one;

	if (result_summary_get(r, "node_a", &a) ||
	    result_summary_get(r, "node_b", &b)) {
		verdict_headline(
			v,
			"no step ran: the memory policy calls are not available here");
		return;
	}
	/* the nodes the run recorded: one when it could place memory on one
	 * only */
	one = a == b;
	for (int s = 0; s < STEP_COUNT; s++)
		judge(r, v, s, one, &n.ok, &n.bad, &n.cannot, &n.uncounted);
	say_steps(r, one, b, v);
	ps_headline(&n, one, v);
}

static void ps_estimate(const void *params, const struct common_params *common,
			const struct topo *t, double *seconds, uint64_t *bytes)
{
	const struct ps_params *pp = params;

	double size = (double)pp->size, rounds = (double)common->repeat;
	/*
	 * The buffers each step touches, in sizes: after_touch 2 (two halves
	 * of a double buffer), vma_wins 2, strict 1, migrate_pages 1 (in its
	 * child), preferred 2; get_mempolicy touches 64 pages. Each is freed
	 * again (the child's at its exit).
	 */
	double touches = 8 + 64 * 4096.0 / (size > 0 ? size : 4096.0);
	/*
	 * And counted where its pages are, in sizes: after_touch twice its
	 * double buffer (4), vma_wins 2, strict 1, preferred 2, the child
	 * once before the rounds (2: node a's pages and node b's); each
	 * round of migrate_pages asks the child before and after its move
	 * (4), and the move walks the child's pages whether or not any moves
	 * (1). The lab VM's run took 0.83 us a page a round on one node,
	 * 0.2 us a page for each of these five; its default run 30 ms past
	 * its start where the touches alone made 14.
	 */
	double censuses = 11 + 5 * rounds;
	/* migrate_pages moves the child's buffer once a round, between two
	 * nodes: a move costs about a copy of the page; one node moves none */
	double moves = t && t->nnodes >= 2 ? rounds : 0;

	/* six steps, two of them on threads of their own, and a forked child */
	*seconds = cost_teams_s(3) + touches * cost_touch_s(t, size, 1) +
		   8 * cost_free_s(size) + censuses * cost_census_s(size) +
		   moves * cost_stream_s(t, COST_COPY, size, 1);
	*bytes = (uint64_t)pp->size * 3 + (8u << 20);
}

/* " (memory only)" after a node that has no cpu, "" otherwise. */
static const char *memory_only(const struct topo *t, int node)
{
	int k = topo_node_index(t, node);

	return k >= 0 && t->node[k].cpuless ? " (memory only)" : "";
}

/*
 * Before the run: the two nodes, the nodes get_mempolicy interleaves
 * over, and the cpus that touch: unpinned for every step but preferred,
 * whose toucher is a cpu of node b.
 */
static void ps_plan(const void *params, const struct common_params *common,
		    const struct topo *t, struct strbuf *out)
{
	const struct ps_params *pp = params;
	int a, b, cpu, nodes[TOPO_MAX_NODES], n;
	int32_t v[TOPO_MAX_NODES];
	char list[256];

	(void)common;
	pick_nodes(pp, t, &a, &b);
	if (a == b)
		strbuf_addf(
			out,
			"memory: node %d only, the one node with memory this process may use: no step can send pages to another\n",
			a);
	else
		strbuf_addf(out, "memory: node a %d%s, node b %d%s\n", a,
			    memory_only(t, a), b, memory_only(t, b));
	if (pp->steps & ~(1u << STEP_PREFERRED))
		strbuf_addf(
			out,
			"threads: not pinned, where the kernel puts them, on cpus %s\n",
			t->allowed_text);
	if ((pp->steps >> STEP_GET_MEMPOLICY) & 1) {
		n = interleave_nodes(t, nodes);
		for (int i = 0; i < n; i++)
			v[i] = nodes[i];
		format_int_list(v, n, list, sizeof(list));
		strbuf_addf(out, "get_mempolicy: interleave over node%s %s\n",
			    n == 1 ? "" : "s", n ? list : "none");
	}
	if ((pp->steps >> STEP_MIGRATE_PAGES) & 1 && a != b)
		strbuf_addf(
			out,
			"migrate_pages: a child process's pages moved from node %d to %d and back\n",
			a, b);
	if (!((pp->steps >> STEP_PREFERRED) & 1))
		return;
	cpu = toucher_on(t, b);
	if (cpu >= 0)
		plan_view_cpus(t, "preferred: the toucher", &cpu, 1, out);
	else
		strbuf_addf(
			out,
			"preferred: not placed: node %d has no cpu this process may use\n",
			b);
}

static const struct lesson lessons[] = {
	LESSON("after-touch", "A policy set after the first touch",
	       "mbind names another node after 1,024 pages were touched: how many of them stay where they were?",
	       "repeat=1", "pages", "after_touch_old_on_a", "steps"),
	{0}};

/*
 * A sibling of memory_policy, not steps of it: memory_policy measures one
 * policy's placement and bandwidth with one set of params, while these
 * are six small trials of what the calls mean, each with its own buffers
 * and none with a bandwidth; keeping them apart keeps both tables short.
 */
/* The rulebook (rules.h): what its comparisons need. */
static const struct rule rules[] = {
	RULE(RULE_NODES, .floor = 2,
	     .what = "which policy wins, and where pages go"),
	{RULE_END}};
static const char *const compared[] = {"vma_wins_*", "preferred_*", NULL};

/* its steps time their own rounds, none through the team harness */
static const struct unread_param unread[] = {
	{.param = "warmup",
	 .why = "each step runs 'repeat' rounds and keeps every one"},
	{.param = "budget",
	 .why = "each step takes exactly 'repeat' rounds, none added or redone"},
	{0}};

/* what a person reads for each summary key */
static const struct key_label summary_labels[] = {
	{"node_a", "node a", "node"},
	{"node_b", "node b", "node"},
	{"*_agree", "%s: checks as the article says", "checks"},
	{"*_total", "%s: checks made", "checks"},
	{"after_touch_old_on_a", "after_touch: old pages on node a", "pages"},
	{"after_touch_new_on_b", "after_touch: new pages on node b", "pages"},
	{"vma_wins_vma_on_a", "vma_wins: pages of the mbind range on node a",
	 "pages"},
	{"vma_wins_task_on_b", "vma_wins: pages of the task policy on node b",
	 "pages"},
	{"strict_policy_kept", "strict: policy kept after the failure",
	 "yes/no"},
	{"strict_elsewhere_errno", "strict: errno of a move to another node",
	 "errno"},
	{"strict_same_errno", "strict: errno of a move to the same node",
	 "errno"},
	{"strict_*_errno", "strict: errno of a move (%s)", "errno"},
	{"get_mempolicy_policy_ok", "get_mempolicy: policy read back as set",
	 "yes/no"},
	{"get_mempolicy_nodes", "get_mempolicy: nodes", "nodes"},
	{"get_mempolicy_counter_moves", "get_mempolicy: counter moves seen",
	 "moves"},
	{"get_mempolicy_in_order", "get_mempolicy: pages in node order",
	 "pages"},
	{"get_mempolicy_*", "get_mempolicy: pages %s", "pages"},
	{"preferred_cpu", "preferred: cpu", "cpu"},
	{"preferred_mask_lowest", "preferred: lowest node of the mask", "node"},
	{"preferred_many_on_b", "preferred many: pages on node b", "pages"},
	{"*_on_a", "%s: pages on node a", "pages"},
	{"*_on_b", "%s: pages on node b", "pages"},
	{"*_pages", "%s: pages", "pages"},
	{"*_*", "%s: %s", "count"},
	{NULL, NULL, NULL}};

const struct experiment exp_memory_policy_semantics = {
	.name = "memory_policy_semantics",
	.smoke = "size=64K repeat=1",
	.unread = unread,
	.headline_chart = "steps",
	.title = "Memory policy semantics",
	.summary =
		"What the policy calls do to pages already placed, which of two "
		"policies wins, and what get_mempolicy and migrate_pages answer",
	.section = "6.5.1-6.5.5",
	.explain =
		"Six short trials of statements the article makes about Linux memory "
		"policies, each judged by asking the kernel where every page is "
		"(move_pages). They are a sibling of the memory_policy experiment rather "
		"than more of its steps: that one measures where one policy puts a buffer "
		"and what it costs to read, these only ask whether the rules hold, each "
		"with buffers of its own.\n\n"
		"after_touch: a policy set on a range whose pages already exist does not "
		"move them (mbind without MPOL_MF_MOVE); only pages touched later follow "
		"it. vma_wins: a thread whose own policy says node b touches a range "
		"whose policy says node a; the range's policy wins (the article's "
		"figure 6.15: range, then thread, then the system default), while a "
		"range without a policy follows the thread. strict: MPOL_MF_STRICT "
		"alone moves nothing; it fails when pages sit outside the nodes named, "
		"and succeeds when they are all inside.\n\n"
		"get_mempolicy: asked with no flag it returns the thread's policy and "
		"its nodes; with MPOL_F_NODE under interleave it names the node the "
		"next page will come from, which the trial checks page by page. "
		"migrate_pages: a child process is told to move all its pages from one "
		"node to another, and back, timed. preferred: the article says a "
		"preferred policy over several nodes uses only the lowest of them; "
		"Linux 5.15 added MPOL_PREFERRED_MANY, which keeps the whole set. A "
		"thread on the higher node touches under each, side by side.\n\n"
		"On a machine with one node every page lands there whatever the "
		"policy, so most trials cannot tell anything apart; the run says so "
		"per step.",
	EXPERIMENT_PARTS(ps),
	.plan = ps_plan,
	.min_nodes = 2,
	.fixed_share = 1, /* no step times through the team harness */
	.check = ps_check,
};
