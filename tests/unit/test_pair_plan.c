/* test_pair_plan.c - core_to_core pair plans and remote_bandwidth cell plans on synthetic machines up to 1,024 PUs and 64 nodes */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "pair_plan.h"
#include "topo.h"
#include "topo_distances.h"
#include "topo_fixture.h"

/* two sockets, each two nodes of four L3s over sixteen L2s of two SMT cores */
#define TWO_SOCKET_1024 "pack:2 numa:2 l3:4 l2:16 core:2 pu:2"
/* eight sockets of eight nodes, one L3 over eight SMT cores each */
#define NODES_64 "pack:8 numa:8 l3:1 core:8 pu:2"
#define SMALL "pack:2 numa:1 l3:1 core:2 pu:2"

/* What the test itself finds two PUs share, written apart from the plan. */
static void relation_name(const struct topo *t, const struct topo_pu *a,
			  const struct topo_pu *b, char *out, size_t len)
{
	const char *k;
	int d = 0;

	if (a->core == b->core)
		k = "smt";
	else if (a->l2 >= 0 && a->l2 == b->l2)
		k = "l2";
	else if (a->l3 >= 0 && a->l3 == b->l3)
		k = "l3";
	else
		k = a->package == b->package ? "package" : "cross-package";
	if (strcmp(k, "package") && strcmp(k, "cross-package"))
		goto plain;
	if (a->node != b->node)
		d = t->distance[topo_node_index(t, a->node)]
			       [topo_node_index(t, b->node)];
	if (a->node != b->node && d > 0) {
		snprintf(out, len, "%s, distance %d", k, d);
		return;
	}
	if (a->node != b->node) {
		snprintf(out, len, "%s, another node", k);
		return;
	}
plain:
	snprintf(out, len, "%s", k);
}

/* Every relation the cpus have is a class of the plan, and nothing else is. */
static void assert_classes_complete(const struct topo *t,
				    const struct pair_plan *p)
{
	int n = p->ncpus;
	long *seen = calloc((size_t)p->nclasses + 1, sizeof(*seen));
	char name[64];

	assert_non_null(seen);
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++) {
			int c;
			if (i == j)
				continue;
			relation_name(t, topo_pu_by_os(t, p->cpu[i]),
				      topo_pu_by_os(t, p->cpu[j]), name,
				      sizeof(name));
			for (c = 0;
			     c < p->nclasses && strcmp(p->cls[c].name, name);
			     c++)
				;
			if (c == p->nclasses)
				fail_msg(
					"relation '%s' of cpus %d and %d is no class of the plan",
					name, p->cpu[i], p->cpu[j]);
			seen[c]++;
		}
	for (int c = 0; c < p->nclasses; c++)
		assert_int_equal(seen[c], p->cls[c].available);
	free(seen);
}

/*
 * No pair twice, never a cpu with itself, each pair's class the relation
 * its cpus have, and per class the count the plan says. Returns the most
 * pairs any one cpu is in.
 */
static int assert_pairs_sound(const struct topo *t, const struct pair_plan *p)
{
	int n = p->ncpus, most = 0;
	uint8_t *hit = calloc((size_t)n * (size_t)n + 1, 1);
	int *use = calloc((size_t)n + 1, sizeof(*use));
	long *per = calloc((size_t)p->nclasses + 1, sizeof(*per));
	char name[64];

	assert_true(hit && use && per);
	for (long k = 0; k < p->npairs; k++) {
		const struct cpu_pair *q = &p->pair[k];
		assert_int_not_equal(q->a, q->b);
		assert_int_equal(p->cpu[q->row], q->a);
		assert_int_equal(p->cpu[q->col], q->b);
		if (hit[(size_t)q->row * (size_t)n + (size_t)q->col])
			fail_msg("pair %d -> %d is planned twice", q->a, q->b);
		hit[(size_t)q->row * (size_t)n + (size_t)q->col] = 1;
		assert_in_range(q->cls, 0, p->nclasses - 1);
		relation_name(t, topo_pu_by_os(t, q->a), topo_pu_by_os(t, q->b),
			      name, sizeof(name));
		assert_string_equal(p->cls[q->cls].name, name);
		per[q->cls]++;
		if (++use[q->row] > most)
			most = use[q->row];
		if (++use[q->col] > most)
			most = use[q->col];
	}
	for (int c = 0; c < p->nclasses; c++)
		assert_int_equal(per[c], p->cls[c].planned);
	free(hit);
	free(use);
	free(per);
	return most;
}

/* by_relation: every class has min(K, its pairs) pairs. */
static void assert_covered(const struct pair_plan *p, int k)
{
	for (int c = 0; c < p->nclasses; c++) {
		long want = p->cls[c].available < k ? p->cls[c].available : k;
		if (p->cls[c].planned != want)
			fail_msg("class '%s' has %d pairs, not %ld",
				 p->cls[c].name, p->cls[c].planned, want);
	}
}

static struct pair_plan plan_of(const struct topo *t, const char *pairs,
				const int *cpus, int n)
{
	struct pairs_request req;
	struct pair_plan p;
	struct errinfo err = {0};

	assert_int_equal(pairs_parse(pairs, &req, &err), 0);
	if (pair_plan_make(t, cpus, n, &req, &p, &err))
		fail_msg("plan %s: %s", pairs, err.msg);
	return p;
}

static void print_classes(const char *what, const struct pair_plan *p)
{
	printf("  %s: %ld pairs:", what, p->npairs);
	for (int c = 0; c < p->nclasses; c++)
		printf("%s %s %d of %ld", c ? "," : "", p->cls[c].name,
		       p->cls[c].planned, p->cls[c].available);
	printf("\n");
}

static void test_two_sockets_1024(void **state)
{
	struct topo *t = synthetic(TWO_SOCKET_1024);
	static const char *const want[] = {"smt",
					   "l2",
					   "l3",
					   "package",
					   "package, distance 12",
					   "cross-package, distance 21"};
	(void)state;
	assert_int_equal(t->npus, 1024);
	assert_int_equal(t->nnodes, 4);
	topo_set_distances(t, 2);

	struct pair_plan all = plan_of(t, "all", NULL, 0);
	assert_int_equal(all.ncpus, 1024);
	assert_int_equal(all.npairs, 1024L * 1023);
	assert_int_equal(all.nclasses, 6);
	for (int c = 0; c < 6; c++)
		assert_string_equal(all.cls[c].name, want[c]);
	assert_classes_complete(t, &all);
	assert_int_equal(assert_pairs_sound(t, &all), 2 * 1023);
	/* row by row, in OS order */
	assert_int_equal(all.pair[0].a, 0);
	assert_int_equal(all.pair[0].b, 1);
	assert_int_equal(all.pair[1023].a, 1);
	assert_int_equal(all.pair[1023].b, 0);
	print_classes("1,024-PU two-socket SMT, all", &all);

	struct pair_plan rel = plan_of(t, "by_relation", NULL, 0);
	assert_int_equal(rel.nclasses, 6);
	assert_int_equal(rel.npairs, 6 * PAIRS_PER_CLASS_DEFAULT);
	assert_covered(&rel, PAIRS_PER_CLASS_DEFAULT);
	/* 36 cpus out of 1,024: none is needed twice */
	assert_int_equal(assert_pairs_sound(t, &rel), 1);
	/* spread: the three SMT pairs sit under three different L3s, both
	 * packages */
	int l3[3], pk = 0;
	for (int k = 0; k < 3; k++) {
		const struct topo_pu *a = topo_pu_by_os(t, rel.pair[k].a);
		assert_int_equal(rel.pair[k].cls, 0);
		l3[k] = a->l3;
		pk |= 1 << a->package;
	}
	assert_true(l3[0] != l3[1] && l3[1] != l3[2] && l3[0] != l3[2]);
	assert_int_equal(pk, 3);
	print_classes("1,024-PU two-socket SMT, by_relation", &rel);

	/* K is a parameter */
	struct pairs_request req = {.mode = PAIRS_BY_RELATION, .per_class = 10};
	struct pair_plan k10;
	struct errinfo err;
	assert_int_equal(pair_plan_make(t, NULL, 0, &req, &k10, &err), 0);
	assert_int_equal(k10.npairs, 60);
	assert_covered(&k10, 10);
	assert_int_equal(assert_pairs_sound(t, &k10), 1);

	struct pair_plan s = plan_of(t, "sample:1000", NULL, 0);
	assert_int_equal(s.npairs, 1000);
	assert_false(s.sample_capped);
	assert_pairs_sound(t, &s);
	/* even steps: every row region of the matrix gets some */
	assert_true(s.pair[0].a == 0 && s.pair[999].a >= 1020);
	print_classes("1,024-PU two-socket SMT, sample:1000", &s);

	/* a few cpus given: only the relations they have, each covered */
	int some[] = {515, 0, 1, 2, 3, 512, 513, 514};
	struct pair_plan sub = plan_of(t, "by_relation", some, 8);
	assert_int_equal(sub.nclasses, 3);
	assert_string_equal(sub.cls[0].name, "smt");
	assert_string_equal(sub.cls[1].name, "l2");
	assert_string_equal(sub.cls[2].name, "cross-package, distance 21");
	assert_int_equal(sub.npairs, 9);
	assert_covered(&sub, PAIRS_PER_CLASS_DEFAULT);
	assert_classes_complete(t, &sub);
	assert_in_range(assert_pairs_sound(t, &sub), 2, 3);
	pair_plan_free(&sub);

	pair_plan_free(&all);
	pair_plan_free(&rel);
	pair_plan_free(&k10);
	pair_plan_free(&s);
	topo_free(t);
}

static void test_64_nodes(void **state)
{
	struct topo *t = synthetic(NODES_64);
	(void)state;
	assert_int_equal(t->npus, 1024);
	assert_int_equal(t->nnodes, 64);
	topo_set_distances(t, 4);

	struct pair_plan rel = plan_of(t, "by_relation", NULL, 0);
	/* no L2 in this description: smt, l3, and the three distances */
	assert_int_equal(rel.nclasses, 5);
	assert_string_equal(rel.cls[1].name, "l3");
	assert_string_equal(rel.cls[2].name, "package, distance 12");
	assert_string_equal(rel.cls[3].name, "cross-package, distance 21");
	assert_string_equal(rel.cls[4].name, "cross-package, distance 31");
	assert_int_equal(rel.npairs, 15);
	assert_covered(&rel, PAIRS_PER_CLASS_DEFAULT);
	assert_classes_complete(t, &rel);
	assert_int_equal(assert_pairs_sound(t, &rel), 1);
	print_classes("1,024-PU 64-node, by_relation", &rel);
	pair_plan_free(&rel);

	/* the node matrix: 4,096 cells, or three a distance class */
	struct cell_plan full, dist;
	struct errinfo err;
	assert_int_equal(cell_plan_make(t, NULL, 0, CELLS_FULL, 0, &full, &err),
			 0);
	assert_int_equal(full.nnodes, 64);
	assert_int_equal(full.ncells, 4096);
	assert_int_equal(full.nclasses, 4);
	assert_int_equal(full.cls[0].available, 64);
	assert_int_equal(full.cls[1].available, 64 * 7);
	assert_int_equal(full.cls[2].available, 64 * 24);
	assert_int_equal(full.cls[3].available, 64 * 32);
	assert_int_equal(
		cell_plan_make(t, NULL, 0, CELLS_BY_DISTANCE, 0, &dist, &err),
		0);
	assert_int_equal(dist.ncells, 12);
	static const char *const names[] = {"local", "distance 12",
					    "distance 21", "distance 31"};
	uint8_t hit[64][64] = {{0}};
	int use[64] = {0};
	for (int c = 0; c < 4; c++) {
		assert_string_equal(dist.cls[c].name, names[c]);
		assert_int_equal(dist.cls[c].rank, c);
		assert_int_equal(dist.cls[c].planned, 3);
	}
	for (int k = 0; k < dist.ncells; k++) {
		const struct node_cell *x = &dist.cell[k];
		int ia = topo_node_index(t, x->cpu_node),
		    ib = topo_node_index(t, x->mem_node);
		assert_false(hit[x->row][x->col]);
		hit[x->row][x->col] = 1;
		if (x->cls == 0)
			assert_int_equal(x->cpu_node, x->mem_node);
		else
			assert_int_equal(t->distance[ia][ib],
					 dist.cls[x->cls].distance);
		use[x->row]++;
		if (x->col != x->row)
			use[x->col]++;
	}
	/* 21 nodes serve 12 cells: none twice */
	for (int i = 0; i < 64; i++)
		assert_in_range(use[i], 0, 1);
	printf("  64-node node matrix: full %d cells, by_distance %d cells (",
	       full.ncells, dist.ncells);
	for (int c = 0; c < dist.nclasses; c++)
		printf("%s%s %d of %d", c ? ", " : "", dist.cls[c].name,
		       dist.cls[c].planned, dist.cls[c].available);
	printf(")\n");
	cell_plan_free(&full);
	cell_plan_free(&dist);
	topo_free(t);
}

static void test_small_machines(void **state)
{
	struct topo *t = synthetic(SMALL);
	(void)state;
	/* no distances known: the two nodes are only "another node" */
	struct pair_plan all = plan_of(t, "all", NULL, 0);
	assert_int_equal(all.npairs, 56);
	assert_int_equal(all.nclasses, 3);
	assert_string_equal(all.cls[0].name, "smt");
	assert_string_equal(all.cls[1].name, "l3");
	assert_string_equal(all.cls[2].name, "cross-package, another node");
	assert_classes_complete(t, &all);
	struct pair_plan rel = plan_of(t, "by_relation", NULL, 0);
	assert_int_equal(rel.npairs, 9);
	assert_covered(&rel, 3);
	/* 9 pairs on 8 cpus: some cpu twice, none more than needed */
	assert_in_range(assert_pairs_sound(t, &rel), 2, 3);
	struct pair_plan cap = plan_of(t, "sample:100", NULL, 0);
	assert_int_equal(cap.npairs, 56);
	assert_true(cap.sample_capped);
	assert_pairs_sound(t, &cap);
	struct pair_plan exact = plan_of(t, "sample:56", NULL, 0);
	assert_false(exact.sample_capped);
	assert_int_equal(exact.npairs, 56);
	assert_pairs_sound(t, &exact);
	pair_plan_free(&all);
	pair_plan_free(&rel);
	pair_plan_free(&cap);
	pair_plan_free(&exact);

	/* the cpus given are the rows, in their order */
	int cpus[] = {5, 0, 1};
	struct pair_plan three = plan_of(t, "all", cpus, 3);
	assert_int_equal(three.npairs, 6);
	assert_int_equal(three.pair[0].a, 5);
	assert_int_equal(three.pair[0].b, 0);
	assert_string_equal(three.cls[three.pair[0].cls].name,
			    "cross-package, another node");
	assert_string_equal(three.cls[three.pair[3].cls].name, "smt");
	pair_plan_free(&three);
	topo_free(t);

	/* one core of two SMT threads: both directions of its one pair */
	t = synthetic("pack:1 core:1 pu:2");
	struct pair_plan two = plan_of(t, "by_relation", NULL, 0);
	assert_int_equal(two.nclasses, 1);
	assert_int_equal(two.npairs, 2);
	assert_pairs_sound(t, &two);
	pair_plan_free(&two);
	topo_free(t);

	/* one cpu: nothing to pair */
	t = synthetic("pack:1 core:1 pu:1");
	struct pair_plan one = plan_of(t, "by_relation", NULL, 0);
	assert_int_equal(one.ncpus, 1);
	assert_int_equal(one.npairs, 0);
	assert_int_equal(one.nclasses, 0);
	pair_plan_free(&one);
	struct cell_plan c;
	struct errinfo err;
	assert_int_equal(
		cell_plan_make(t, NULL, 0, CELLS_BY_DISTANCE, 0, &c, &err), 0);
	assert_int_equal(c.ncells, 1);
	assert_string_equal(c.cls[0].name, "local");
	cell_plan_free(&c);
	topo_free(t);
}

static void test_four_node_guest_cells(void **state)
{
	/* the NUMA lane's 4-node guest: pairs near (16), far (22), diagonal
	 * (28) */
	struct topo *t = synthetic("pack:4 numa:1 core:1 pu:1");
	static const int d[4][4] = {{10, 16, 22, 28},
				    {16, 10, 28, 22},
				    {22, 28, 10, 16},
				    {28, 22, 16, 10}};
	struct cell_plan p;
	struct errinfo err;
	(void)state;
	for (int i = 0; i < 4; i++)
		memcpy(t->distance[i], d[i], sizeof(d[i]));
	assert_int_equal(
		cell_plan_make(t, NULL, 0, CELLS_BY_DISTANCE, 0, &p, &err), 0);
	assert_int_equal(p.nclasses, 4);
	assert_int_equal(p.ncells, 12);
	for (int c = 0; c < 4; c++)
		assert_int_equal(p.cls[c].available, 4);
	assert_string_equal(p.cls[1].name, "distance 16");
	assert_string_equal(p.cls[3].name, "distance 28");
	cell_plan_free(&p);
	/* K covers a whole class: every cell, the full matrix's count */
	assert_int_equal(
		cell_plan_make(t, NULL, 0, CELLS_BY_DISTANCE, 4, &p, &err), 0);
	assert_int_equal(p.ncells, 16);
	cell_plan_free(&p);
	int nodes[] = {3, 0};
	assert_int_equal(cell_plan_make(t, nodes, 2, CELLS_FULL, 0, &p, &err),
			 0);
	assert_int_equal(p.ncells, 4);
	assert_int_equal(p.cell[1].cpu_node, 3);
	assert_int_equal(p.cell[1].mem_node, 0);
	assert_string_equal(p.cls[p.cell[1].cls].name, "distance 28");
	cell_plan_free(&p);
	topo_free(t);
}

static void test_errors(void **state)
{
	struct topo *t = synthetic(SMALL);
	struct pairs_request req;
	struct pair_plan p;
	struct cell_plan c;
	struct errinfo err = {0};
	enum cells_mode mode;
	(void)state;
	assert_int_equal(pairs_parse("sample:7", &req, &err), 0);
	assert_int_equal(req.mode, PAIRS_SAMPLE);
	assert_int_equal(req.sample, 7);
	assert_int_equal(pairs_parse("some", &req, &err), -22);
	assert_string_equal(err.field, "pairs");
	assert_string_equal(
		err.msg,
		"unknown pairs 'some' (allowed: all, by_relation, sample:N)");
	for (const char *const *s =
		     (const char *const[]){"sample:0", "sample:", "sample:x",
					   "sample:-3", "sample:2x", NULL};
	     *s; s++) {
		assert_int_equal(pairs_parse(*s, &req, &err), -22);
		assert_non_null(strstr(
			err.msg,
			"sample:N takes a whole number N from 1 to 2147483647"));
	}
	int bad[] = {0, 99};
	assert_int_equal(pairs_parse("all", &req, &err), 0);
	assert_int_equal(pair_plan_make(t, bad, 2, &req, &p, &err), -22);
	assert_string_equal(err.field, "cpus");
	assert_string_equal(err.msg,
			    "cpu 99 is not in this machine (it has 8 cpus)");
	int twice[] = {1, 2, 1};
	assert_int_equal(pair_plan_make(t, twice, 3, &req, &p, &err), -22);
	assert_string_equal(err.msg, "cpu 1 is listed twice");
	assert_int_equal(cells_parse("by_distance", &mode, &err), 0);
	assert_int_equal(mode, CELLS_BY_DISTANCE);
	assert_int_equal(cells_parse("half", &mode, &err), -22);
	assert_string_equal(err.field, "cells");
	assert_string_equal(
		err.msg, "unknown cells 'half' (allowed: full, by_distance)");
	int nodes[] = {0, 7};
	assert_int_equal(cell_plan_make(t, nodes, 2, CELLS_FULL, 0, &c, &err),
			 -22);
	assert_string_equal(err.field, "nodes");
	assert_string_equal(err.msg,
			    "node 7 does not exist (this machine has 2 nodes)");
	topo_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_two_sockets_1024),
		cmocka_unit_test(test_64_nodes),
		cmocka_unit_test(test_small_machines),
		cmocka_unit_test(test_four_node_guest_cells),
		cmocka_unit_test(test_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
