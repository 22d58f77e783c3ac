/* pair_plan.c - choosing the CPU pairs and node cells a matrix experiment measures, from the topology alone */
#include "pair_plan.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NOT_A_PAIR UINT16_MAX
/* a cell's class flag: its cpu node holds memory only, no thread runs
 * there (pick_one never matches it) */
#define NO_THREADS 0x8000u

/*
 * The square both plans choose from: entry (i, j) is the class of the
 * pair or cell of items i and j (NOT_A_PAIR when there is none), order
 * lists the items the way they sit in the machine, use counts how many
 * chosen pairs each item is in.
 */
struct grid {
	int n;
	uint16_t *cls;
	int *order;
	int *use;
};

struct pick {
	int a, b;
};

static int use_max(const struct grid *g)
{
	int m = 0;

	for (int i = 0; i < g->n; i++)
		if (g->use[i] > m)
			m = g->use[i];
	return m;
}

static int picked(const struct pick *p, int np, int a, int b)
{
	for (int i = 0; i < np; i++)
		if (p[i].a == a && p[i].b == b)
			return 1;
	return 0;
}

/*
 * One pair of class c: the first item with use <= level from position
 * start on, with the first partner of class c and use <= level from the
 * opposite side of the machine on. Returns 1 with *out, or 0.
 */
static int pick_one(struct grid *g, uint16_t c, int start, int level,
		    int reverse_ok, const struct pick *done, int ndone,
		    struct pick *out)
{
	int n = g->n;

	for (int s = 0; s < n; s++) {
		int pa = (start + s) % n, a = g->order[pa];
		if (g->use[a] > level)
			continue;
		for (int u = 0; u < n; u++) {
			int b = g->order[(pa + n / 2 + u) % n];
			if (g->cls[(size_t)a * (size_t)n + (size_t)b] != c ||
			    g->use[b] > level || picked(done, ndone, a, b) ||
			    (!reverse_ok && picked(done, ndone, b, a)))
				continue;
			out->a = a;
			out->b = b;
			return 1;
		}
	}
	return 0;
}

/*
 * Up to k pairs of class c, anchored at evenly spaced places in g's
 * order; items are reused only when no unused one fits, and a pair
 * reversed only when no other is left. Fills out[0..) and returns the
 * count.
 */
static int pick_spread(struct grid *g, uint16_t c, int k, struct pick *out)
{
	int got = 0;

	for (int j = 0; j < k; j++) {
		int start = (int)((long)j * g->n / k), found = 0;

		for (int rev = 0; rev < 2 && !found; rev++) {
			int top = use_max(g);
			for (int level = 0; level <= top && !found; level++)
				found = pick_one(g, c, start, level, rev, out,
						 got, &out[got]);
		}
		if (!found)
			break;
		g->use[out[got].a]++;
		if (out[got].b != out[got].a)
			g->use[out[got].b]++;
		got++;
	}
	return got;
}

static void grid_free(struct grid *g)
{
	free(g->cls);
	free(g->order);
	free(g->use);
}

static int grid_init(struct grid *g, int n)
{
	g->n = n;
	g->cls = malloc((size_t)n * (size_t)n * sizeof(*g->cls) + 1);
	g->order = calloc((size_t)n + 1, sizeof(*g->order));
	g->use = calloc((size_t)n + 1, sizeof(*g->use));
	if (!g->cls || !g->order || !g->use) {
		grid_free(g);
		return -ENOMEM;
	}
	return 0;
}

/* Sorting key of a class's distance: one node, then nearest first, unknown
 * last. */
static int distance_key(int d)
{
	return d == 0 ? 0 : d > 0 ? d : INT_MAX;
}

/* ---- core_to_core: pairs of CPUs ---- */

int pairs_parse(const char *s, struct pairs_request *req, struct errinfo *err)
{
	memset(req, 0, sizeof(*req));
	if (!strcmp(s, "all")) {
		req->mode = PAIRS_ALL;
		return 0;
	}
	if (!strcmp(s, "by_relation")) {
		req->mode = PAIRS_BY_RELATION;
		return 0;
	}
	if (!strncmp(s, "sample:", 7)) {
		char *end;
		long n = strtol(s + 7, &end, 10);
		if (s[7] >= '0' && s[7] <= '9' && !*end && n >= 1 &&
		    n <= INT_MAX) {
			req->mode = PAIRS_SAMPLE;
			req->sample = (int)n;
			return 0;
		}
		return errinfo_set(
			err, "pairs",
			"'%s' is not a pair count: sample:N takes a whole number N of 1 or more",
			s);
	}
	return errinfo_set(
		err, "pairs",
		"unknown pairs '%s' (allowed: all, by_relation, sample:N)", s);
}

static const char *const kind_names[] = {"smt", "l2", "l3", "package",
					 "cross-package"};

struct cpu_info {
	const struct topo_pu *pu;
	int node; /* index in t->node, -1 if unknown */
};

static void relation_of(const struct topo *t, const struct cpu_info *x,
			const struct cpu_info *y, enum relation_kind *kind,
			int *distance)
{
	const struct topo_pu *a = x->pu, *b = y->pu;

	*distance = 0;
	if (a->core == b->core) {
		*kind = REL_SMT;
		return;
	}
	if (a->l2 >= 0 && a->l2 == b->l2) {
		*kind = REL_L2;
		return;
	}
	if (a->l3 >= 0 && a->l3 == b->l3) {
		*kind = REL_L3;
		return;
	}
	*kind = a->package == b->package ? REL_PACKAGE : REL_CROSS_PACKAGE;
	if (a->node != b->node) {
		int d = x->node >= 0 && y->node >= 0
				? t->distance[x->node][y->node]
				: 0;
		*distance = d > 0 ? d : -1;
	}
}

static int relation_cmp(const void *pa, const void *pb)
{
	const struct relation_class *a = pa, *b = pb;
	int ka = distance_key(a->distance), kb = distance_key(b->distance);

	if (a->kind != b->kind)
		return (int)a->kind - (int)b->kind;
	return (ka > kb) - (ka < kb);
}

static int class_index(const struct relation_class *cls, int n,
		       enum relation_kind kind, int d)
{
	for (int i = 0; i < n; i++)
		if (cls[i].kind == kind && cls[i].distance == d)
			return i;
	return -1;
}

/* The cpus of the matrix: those given, checked, or every allowed one. */
static int plan_cpus(const struct topo *t, const int *cpus, int ncpus,
		     struct pair_plan *plan, struct cpu_info **info,
		     struct errinfo *err)
{
	int n = 0;

	if (!cpus || ncpus <= 0) {
		cpus = NULL;
		ncpus = 0;
		for (int i = 0; i < t->npus; i++)
			ncpus += t->pu[i].allowed != 0;
	}
	plan->cpu = calloc((size_t)ncpus + 1, sizeof(*plan->cpu));
	*info = calloc((size_t)ncpus + 1, sizeof(**info));
	if (!plan->cpu || !*info)
		return -ENOMEM;
	if (cpus) {
		for (; n < ncpus; n++)
			plan->cpu[n] = cpus[n];
	} else {
		/* OS order, like the matrix has always been */
		for (int i = 0; i < t->npus; i++)
			if (t->pu[i].allowed)
				plan->cpu[n++] = t->pu[i].os;
		for (int i = 1; i < n; i++)
			for (int j = i;
			     j > 0 && plan->cpu[j] < plan->cpu[j - 1]; j--) {
				int x = plan->cpu[j];
				plan->cpu[j] = plan->cpu[j - 1];
				plan->cpu[j - 1] = x;
			}
	}
	plan->ncpus = n;
	for (int i = 0; i < n; i++) {
		const struct topo_pu *p = topo_pu_by_os(t, plan->cpu[i]);
		if (!p)
			return errinfo_set(
				err, "cpus",
				"cpu %d is not in this machine (it has %d cpus)",
				plan->cpu[i], t->npus);
		for (int j = 0; j < i; j++)
			if (plan->cpu[j] == plan->cpu[i])
				return errinfo_set(err, "cpus",
						   "cpu %d is listed twice",
						   plan->cpu[i]);
		(*info)[i].pu = p;
		(*info)[i].node = topo_node_index(t, p->node);
	}
	return 0;
}

/* Fills the grid with each pair's class and the plan with the classes, closest
 * first. */
static int classify_pairs(const struct topo *t, const struct cpu_info *info,
			  struct pair_plan *plan, struct grid *g)
{
	int n = plan->ncpus, cap = 8;
	int *remap;

	plan->cls = calloc((size_t)cap, sizeof(*plan->cls));
	if (!plan->cls)
		return -ENOMEM;
	for (int i = 0; i < n; i++) {
		g->cls[(size_t)i * (size_t)n + (size_t)i] = NOT_A_PAIR;
		for (int j = i + 1; j < n; j++) {
			enum relation_kind kind;
			int d, c;

			relation_of(t, &info[i], &info[j], &kind, &d);
			c = class_index(plan->cls, plan->nclasses, kind, d);
			if (c < 0) {
				if (plan->nclasses == NOT_A_PAIR - 1)
					return -ENOMEM;
				if (plan->nclasses == cap) {
					void *p = realloc(
						plan->cls,
						2 * (size_t)cap *
							sizeof(*plan->cls));
					if (!p)
						return -ENOMEM;
					plan->cls = p;
					cap *= 2;
				}
				c = plan->nclasses++;
				memset(&plan->cls[c], 0, sizeof(plan->cls[c]));
				plan->cls[c].kind = kind;
				plan->cls[c].distance = d;
				/* the provisional id, until the classes are
				 * sorted */
				plan->cls[c].planned = c;
			}
			plan->cls[c].available += 2;
			g->cls[(size_t)i * (size_t)n + (size_t)j] = (uint16_t)c;
			g->cls[(size_t)j * (size_t)n + (size_t)i] = (uint16_t)c;
		}
	}
	qsort(plan->cls, (size_t)plan->nclasses, sizeof(*plan->cls),
	      relation_cmp);
	remap = calloc((size_t)plan->nclasses + 1, sizeof(*remap));
	if (!remap)
		return -ENOMEM;
	for (int c = 0; c < plan->nclasses; c++) {
		struct relation_class *r = &plan->cls[c];
		remap[r->planned] = c;
		r->planned = 0;
		if (r->distance > 0)
			snprintf(r->name, sizeof(r->name), "%s, distance %d",
				 kind_names[r->kind], r->distance);
		else if (r->distance < 0)
			snprintf(r->name, sizeof(r->name), "%s, another node",
				 kind_names[r->kind]);
		else
			snprintf(r->name, sizeof(r->name), "%s",
				 kind_names[r->kind]);
	}
	for (size_t k = 0; k < (size_t)n * (size_t)n; k++)
		if (g->cls[k] != NOT_A_PAIR)
			g->cls[k] = (uint16_t)remap[g->cls[k]];
	free(remap);
	return 0;
}

static int add_pairs(struct pair_plan *plan, long cap)
{
	plan->pair = calloc((size_t)cap + 1, sizeof(*plan->pair));
	return plan->pair ? 0 : -ENOMEM;
}

static void put_pair(struct pair_plan *plan, const struct grid *g, int i, int j)
{
	struct cpu_pair *p = &plan->pair[plan->npairs++];

	p->row = i;
	p->col = j;
	p->a = plan->cpu[i];
	p->b = plan->cpu[j];
	p->cls = g->cls[(size_t)i * (size_t)g->n + (size_t)j];
	plan->cls[p->cls].planned++;
}

/* Row-by-row place q of the matrix without its diagonal. */
static void matrix_place(int n, uint64_t q, int *i, int *j)
{
	uint64_t off = q % (uint64_t)(n - 1);

	*i = (int)(q / (uint64_t)(n - 1));
	*j = (int)off < *i ? (int)off : (int)off + 1;
}

static int plan_by_relation(struct pair_plan *plan, struct grid *g, int k,
			    const struct cpu_info *info)
{
	long cap = 0;
	struct pick *picks;
	int rc;

	/* spread in topological order, whatever order the rows are in */
	for (int i = 0; i < g->n; i++)
		g->order[i] = i;
	for (int i = 1; i < g->n; i++)
		for (int j = i;
		     j > 0 && info[g->order[j]].pu->logical <
				      info[g->order[j - 1]].pu->logical;
		     j--) {
			int x = g->order[j];
			g->order[j] = g->order[j - 1];
			g->order[j - 1] = x;
		}
	for (int c = 0; c < plan->nclasses; c++)
		cap += plan->cls[c].available < k ? plan->cls[c].available : k;
	rc = add_pairs(plan, cap);
	picks = calloc((size_t)k + 1, sizeof(*picks));
	if (rc || !picks) {
		free(picks);
		return -ENOMEM;
	}
	for (int c = 0; c < plan->nclasses; c++) {
		int want = plan->cls[c].available < k
				   ? (int)plan->cls[c].available
				   : k;
		int got = pick_spread(g, (uint16_t)c, want, picks);
		for (int p = 0; p < got; p++)
			put_pair(plan, g, picks[p].a, picks[p].b);
	}
	free(picks);
	return 0;
}

int pair_plan_make(const struct topo *t, const int *cpus, int ncpus,
		   const struct pairs_request *req, struct pair_plan *plan,
		   struct errinfo *err)
{
	struct cpu_info *info = NULL;
	struct grid g = {0};
	int n, rc;

	memset(plan, 0, sizeof(*plan));
	rc = plan_cpus(t, cpus, ncpus, plan, &info, err);
	if (rc)
		goto fail;
	n = plan->ncpus;
	rc = grid_init(&g, n);
	if (rc)
		goto fail;
	rc = classify_pairs(t, info, plan, &g);
	if (rc)
		goto fail;
	if (n < 2)
		goto out;
	uint64_t total = (uint64_t)n * (uint64_t)(n - 1);
	if (req->mode == PAIRS_SAMPLE && (uint64_t)req->sample >= total)
		plan->sample_capped = (uint64_t)req->sample > total;
	if (req->mode == PAIRS_ALL ||
	    (req->mode == PAIRS_SAMPLE && (uint64_t)req->sample >= total)) {
		rc = add_pairs(plan, (long)total);
		for (int i = 0; !rc && i < n; i++)
			for (int j = 0; j < n; j++)
				if (i != j)
					put_pair(plan, &g, i, j);
	} else if (req->mode == PAIRS_SAMPLE) {
		rc = add_pairs(plan, req->sample);
		for (int s = 0; !rc && s < req->sample; s++) {
			/* q = s * total / N without overflow: steps of at least
			 * one */
			unsigned __int128 q = (unsigned __int128)s * total /
					      (unsigned)req->sample;
			int i, j;
			matrix_place(n, (uint64_t)q, &i, &j);
			put_pair(plan, &g, i, j);
		}
	} else {
		int k = req->per_class > 0 ? req->per_class
					   : PAIRS_PER_CLASS_DEFAULT;
		rc = plan_by_relation(plan, &g, k, info);
	}
	if (rc)
		goto fail;
out:
	grid_free(&g);
	free(info);
	return 0;
fail:
	grid_free(&g);
	free(info);
	pair_plan_free(plan);
	return rc;
}

void pair_plan_free(struct pair_plan *plan)
{
	free(plan->cpu);
	free(plan->pair);
	free(plan->cls);
	memset(plan, 0, sizeof(*plan));
}

/* ---- remote_bandwidth: cells of the node matrix ---- */

int cells_parse(const char *s, enum cells_mode *mode, struct errinfo *err)
{
	if (!strcmp(s, "full")) {
		*mode = CELLS_FULL;
		return 0;
	}
	if (!strcmp(s, "by_distance")) {
		*mode = CELLS_BY_DISTANCE;
		return 0;
	}
	return errinfo_set(err, "cells",
			   "unknown cells '%s' (allowed: full, by_distance)",
			   s);
}

static int cell_nodes(const struct topo *t, const int *nodes, int nnodes,
		      struct cell_plan *plan, int *idx, struct errinfo *err)
{
	if (nnodes > TOPO_MAX_NODES)
		return errinfo_set(
			err, "nodes",
			"%d nodes are listed, more than the %d numalab handles",
			nnodes, TOPO_MAX_NODES);
	if (!nnodes)
		for (int i = 0; i < t->nnodes; i++)
			plan->node[plan->nnodes++] = t->node[i].os;
	for (int i = 0; i < nnodes; i++) {
		plan->node[plan->nnodes++] = nodes[i];
		if (topo_node_index(t, nodes[i]) < 0)
			return errinfo_set(
				err, "nodes",
				"node %d does not exist (this machine has %d nodes)",
				nodes[i], t->nnodes);
		for (int j = 0; j < i; j++)
			if (nodes[j] == nodes[i])
				return errinfo_set(err, "nodes",
						   "node %d is listed twice",
						   nodes[i]);
	}
	for (int i = 0; i < plan->nnodes; i++)
		idx[i] = topo_node_index(t, plan->node[i]);
	return 0;
}

/* A cell's sorting key: local 0, then by distance, unknown last. */
static int cell_key(const struct topo *t, const int *idx, int i, int j)
{
	int d = t->distance[idx[i]][idx[j]];

	return i == j ? 0 : distance_key(d > 0 ? d : -1);
}

/* Classes: local first, then each distance of two nodes, nearest first; unknown
 * last. */
static int classify_cells(const struct topo *t, const int *idx,
			  struct cell_plan *plan, struct grid *g)
{
	int n = plan->nnodes, nd = 0;
	int *key = calloc((size_t)n * (size_t)n + 1, sizeof(*key));

	if (!key)
		return -ENOMEM;
	/* key[0..nd) collects the distinct keys of the cells off the diagonal
	 */
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++) {
			int x = cell_key(t, idx, i, j), k = 0;
			if (i == j)
				continue;
			while (k < nd && key[k] != x)
				k++;
			if (k == nd)
				key[nd++] = x;
		}
	for (int a = 1; a < nd; a++)
		for (int b = a; b > 0 && key[b] < key[b - 1]; b--) {
			int x = key[b];
			key[b] = key[b - 1];
			key[b - 1] = x;
		}
	plan->nclasses = n > 0 ? nd + 1 : 0;
	plan->cls = calloc((size_t)plan->nclasses + 1, sizeof(*plan->cls));
	if (!plan->cls) {
		free(key);
		return -ENOMEM;
	}
	if (n > 0) {
		plan->cls[0].distance = t->distance[idx[0]][idx[0]];
		snprintf(plan->cls[0].name, sizeof(plan->cls[0].name), "local");
	}
	for (int k = 0; k < nd; k++) {
		struct distance_class *c = &plan->cls[k + 1];
		c->rank = k + 1;
		c->distance = key[k] == INT_MAX ? 0 : key[k];
		if (c->distance)
			snprintf(c->name, sizeof(c->name), "distance %d",
				 c->distance);
		else
			snprintf(c->name, sizeof(c->name),
				 "remote, distance unknown");
	}
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++) {
			int x = cell_key(t, idx, i, j), c = 0;
			if (i != j)
				while (key[c] != x)
					c++;
			c = i == j ? 0 : c + 1;
			/* no thread runs on a memory-only node: its row
			 * holds no cell to pick (full lists it, said) */
			if (idx[i] >= 0 && t->node[idx[i]].cpuless) {
				g->cls[(size_t)i * (size_t)n + (size_t)j] =
					(uint16_t)(c | NO_THREADS);
				continue;
			}
			g->cls[(size_t)i * (size_t)n + (size_t)j] = (uint16_t)c;
			plan->cls[c].available++;
		}
	free(key);
	return 0;
}

static void put_cell(struct cell_plan *plan, const struct grid *g, int i, int j)
{
	struct node_cell *c = &plan->cell[plan->ncells++];

	c->row = i;
	c->col = j;
	c->cpu_node = plan->node[i];
	c->mem_node = plan->node[j];
	c->cls = g->cls[(size_t)i * (size_t)g->n + (size_t)j];
	plan->cls[c->cls].planned++;
}

int cell_plan_make(const struct topo *t, const int *nodes, int nnodes,
		   enum cells_mode mode, int per_class, struct cell_plan *plan,
		   struct errinfo *err)
{
	int idx[TOPO_MAX_NODES];
	struct pick *picks = NULL;
	struct grid g = {0};
	int n, k = per_class > 0 ? per_class : PAIRS_PER_CLASS_DEFAULT;
	int rc;

	memset(plan, 0, sizeof(*plan));
	rc = cell_nodes(t, nodes, nnodes, plan, idx, err);
	if (rc)
		goto fail;
	n = plan->nnodes;
	rc = grid_init(&g, n);
	if (rc)
		goto fail;
	rc = classify_cells(t, idx, plan, &g);
	if (rc)
		goto fail;
	plan->cell = calloc((size_t)n * (size_t)n + 1, sizeof(*plan->cell));
	picks = calloc((size_t)n * (size_t)n + 1, sizeof(*picks));
	if (!plan->cell || !picks) {
		rc = -ENOMEM;
		goto fail;
	}
	if (k > n * n)
		k = n * n;
	for (int i = 0; i < n; i++)
		g.order[i] = i;
	for (int c = 0; c < plan->nclasses; c++) {
		int want =
			plan->cls[c].available < k ? plan->cls[c].available : k;
		int got;

		if (mode == CELLS_FULL)
			break;
		got = pick_spread(&g, (uint16_t)c, want, picks);
		for (int p = 0; p < got; p++)
			put_cell(plan, &g, picks[p].a, picks[p].b);
	}
	for (int i = 0; mode == CELLS_FULL && i < n; i++)
		for (int j = 0; j < n; j++)
			if (!(g.cls[(size_t)i * (size_t)n + (size_t)j] &
			      NO_THREADS))
				put_cell(plan, &g, i, j);
	free(picks);
	grid_free(&g);
	return 0;
fail:
	free(picks);
	grid_free(&g);
	cell_plan_free(plan);
	return rc;
}

void cell_plan_free(struct cell_plan *plan)
{
	free(plan->cell);
	free(plan->cls);
	memset(plan, 0, sizeof(*plan));
}
