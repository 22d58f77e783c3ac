/* cell_plan.c - choosing the node cells remote_bandwidth and memory_latency measure, from the topology alone */
#include "cell_plan.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan_grid.h"

/* a cell's class flags (plan_pick_spread never matches a flagged cell):
 * its cpu node runs no thread (memory only, or no cpu of it allowed), or
 * its memory node takes no memory (none, or not allowed) */
#define NO_THREADS 0x8000u
#define NO_MEMORY 0x4000u

/* Whether a row of node os runs threads, its column takes memory: as a run
 * places them, so that the plan holds only cells a run can measure. */
static int row_runs(const struct topo *t, int os)
{
	return topo_node_ncpus(t, os) > 0;
}

static int col_takes(const struct topo *t, int os)
{
	int k = topo_node_index(t, os);

	return k >= 0 && topo_node_has_memory(t, os) &&
	       (t->nmems_allowed == 0 || t->node[k].mem_allowed);
}

const struct param_choice cells_choices[] = {
	{"full", CELLS_FULL}, {"by_distance", CELLS_BY_DISTANCE}, {0}};

void cells_default(const struct topo *t, char *buf, size_t len)
{
	snprintf(buf, len, "%s",
		 t->nnodes <= CELLS_FULL_UP_TO ? "full" : "by_distance");
}

int cells_parse(const char *s, enum cells_mode *mode, struct errinfo *err)
{
	for (const struct param_choice *c = cells_choices; c->name; c++)
		if (!strcmp(s, c->name)) {
			*mode = (enum cells_mode)c->value;
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

	return i == j ? 0 : plan_distance_key(d > 0 ? d : -1);
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
			/* no thread runs where no cpu is allowed, no buffer
			 * is bound where no memory may be: such a row or
			 * column holds no cell to pick (said beside) */
			unsigned flags =
				(row_runs(t, plan->node[i]) ? 0 : NO_THREADS) |
				(col_takes(t, plan->node[j]) ? 0 : NO_MEMORY);
			if (flags) {
				*plan_grid_at(g, i, j) = (uint16_t)(c | flags);
				continue;
			}
			*plan_grid_at(g, i, j) = (uint16_t)c;
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
	c->cls = *plan_grid_at(g, i, j);
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
	rc = plan_grid_init(&g, n);
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
		got = plan_pick_spread(&g, (uint16_t)c, want, picks);
		for (int p = 0; p < got; p++)
			put_cell(plan, &g, picks[p].a, picks[p].b);
	}
	for (int i = 0; mode == CELLS_FULL && i < n; i++)
		for (int j = 0; j < n; j++)
			if (!(*plan_grid_at(&g, i, j) &
			      (NO_THREADS | NO_MEMORY)))
				put_cell(plan, &g, i, j);
	free(picks);
	plan_grid_free(&g);
	return 0;
fail:
	free(picks);
	plan_grid_free(&g);
	cell_plan_free(plan);
	return rc;
}

void cell_plan_free(struct cell_plan *plan)
{
	free(plan->cell);
	free(plan->cls);
	memset(plan, 0, sizeof(*plan));
}

double cell_plan_count(const struct topo *t, const int32_t *nodes, int n,
		       enum cells_mode mode)
{
	int list[TOPO_MAX_NODES];
	struct cell_plan plan;
	struct errinfo err;
	double cells;

	if (!t || n < 1 || n > t->nnodes || n > TOPO_MAX_NODES)
		return (double)n * n;
	for (int i = 0; i < n; i++)
		list[i] = nodes[i];
	if (cell_plan_make(t, list, n, mode, 0, &plan, &err))
		return (double)n * n;
	cells = plan.ncells;
	cell_plan_free(&plan);
	return cells;
}
