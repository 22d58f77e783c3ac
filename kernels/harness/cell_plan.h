/* cell_plan.h - which node cells remote_bandwidth and memory_latency measure: a pure plan */
#ifndef NUMALAB_CELL_PLAN_H
#define NUMALAB_CELL_PLAN_H

#include "errinfo.h"
#include "params.h"
#include "topo.h"

/* cells of each class a by_distance plan takes when not told how many,
 * and pairs of each relation a by_relation one (pair_plan.h) */
#define PAIRS_PER_CLASS_DEFAULT 3

/* The matrix remote_bandwidth measures. */
enum cells_mode {
	CELLS_FULL,	  /* every (cpu node, memory node) cell */
	CELLS_BY_DISTANCE /* a few cells of each distance class */
};

struct distance_class {
	int distance; /* from the topology's matrix; 0 when unknown */
	/* 0 local, 1 the nearest remote distance in the table, 2 the next
	 * ...: an order of distances, not a count of links crossed */
	int rank;
	char name[48]; /* "local", "distance 16", "remote, distance unknown" */
	int available; /* cells of this class among the nodes */
	int planned;   /* cells of the plan in this class */
};

struct node_cell {
	int cpu_node, mem_node; /* OS indexes: threads on cpu_node, memory on
				   mem_node */
	int row, col;		/* indexes of the two in the plan's node list */
	int cls;		/* index in the plan's classes */
};

struct cell_plan {
	int nnodes;
	int node[TOPO_MAX_NODES]; /* the matrix's rows and columns */
	int ncells;
	struct node_cell *cell;
	int nclasses;
	struct distance_class *cls; /* local first, then by distance */
};

/* The choices of a cells param (enum cells_mode): "full", "by_distance". */
extern const struct param_choice cells_choices[];

/* Up to this many nodes a cells param's default measures every cell;
 * above, a few of each distance. */
#define CELLS_FULL_UP_TO 8

/* A cells param's default on t (struct param .machine_def): full up to
 * CELLS_FULL_UP_TO nodes, by_distance above. */
void cells_default(const struct topo *t, char *buf, size_t len);

/* Parses "full" or "by_distance". Returns 0, or -EINVAL with err naming field
 * "cells". */
int cells_parse(const char *s, enum cells_mode *mode, struct errinfo *err);

/*
 * Plans the cells over nodes (OS indexes; nnodes == 0 takes every node
 * of t). A node with no cpu this process may use (memory only, or
 * outside its cpuset) is a column only: no cell runs threads there; a
 * node with no memory it may bind (none, or outside its mems) is a row
 * only: no cell binds memory there. full: every other cell, row
 * by row (up to nnodes^2). by_distance: per class
 * min(per_class, its cells) cells (per_class 0: the default), spread like
 * the CPU pairs so each node serves as few cells as it can. Pure: reads
 * only t. Returns 0, or -EINVAL (a node not in t or listed twice: err
 * names field "nodes"), -ENOMEM; on failure plan holds nothing to free.
 */
int cell_plan_make(const struct topo *t, const int *nodes, int nnodes,
		   enum cells_mode mode, int per_class, struct cell_plan *plan,
		   struct errinfo *err);
void cell_plan_free(struct cell_plan *plan);

/*
 * For an estimate: the cells a plan of mode over the n nodes (OS indexes,
 * as topo_matrix_nodes lists them) holds on t, or n x n where t cannot
 * plan them (no topology, fewer nodes than listed, a node it lacks).
 */
double cell_plan_count(const struct topo *t, const int32_t *nodes, int n,
		       enum cells_mode mode);

#endif
