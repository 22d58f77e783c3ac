/* pair_plan.c - choosing the CPU pairs core_to_core measures, from the topology alone */
#include "pair_plan.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan_grid.h"

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
			"'%s' is not a pair count: sample:N takes a whole number N from 1 to %d",
			s, INT_MAX);
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
	int ka = plan_distance_key(a->distance),
	    kb = plan_distance_key(b->distance);

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
		*plan_grid_at(g, i, i) = NOT_A_PAIR;
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
			*plan_grid_at(g, i, j) = (uint16_t)c;
			*plan_grid_at(g, j, i) = (uint16_t)c;
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
	p->cls = *plan_grid_at(g, i, j);
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
		int got = plan_pick_spread(g, (uint16_t)c, want, picks);
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
	rc = plan_grid_init(&g, n);
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
	plan_grid_free(&g);
	free(info);
	return 0;
fail:
	plan_grid_free(&g);
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
