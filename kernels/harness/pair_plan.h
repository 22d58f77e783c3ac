/* pair_plan.h - which CPU pairs core_to_core measures: a pure plan (the node cells, cell_plan.h, come with it) */
#ifndef NUMALAB_PAIR_PLAN_H
#define NUMALAB_PAIR_PLAN_H

#include "cell_plan.h"
#include "errinfo.h"
#include "topo.h"

/* The 'pairs' parameter of core_to_core. */
enum pairs_mode {
	PAIRS_ALL,	   /* every ordered pair: the whole matrix */
	PAIRS_BY_RELATION, /* a few pairs of each relation the cpus have */
	PAIRS_SAMPLE	   /* N ordered pairs spread evenly over the matrix */
};

struct pairs_request {
	enum pairs_mode mode;
	int sample;    /* N of sample:N */
	int per_class; /* by_relation: pairs per relation (K); 0 means the
			  default */
};

/* What two CPUs share, closest first. */
enum relation_kind {
	REL_SMT,	  /* one core */
	REL_L2,		  /* an L2, not a core */
	REL_L3,		  /* an L3, not an L2 */
	REL_PACKAGE,	  /* one package, no shared cache */
	REL_CROSS_PACKAGE /* two packages */
};

struct relation_class {
	enum relation_kind kind;
	/*
	 * The NUMA distance between the two CPUs' nodes when those differ
	 * and it is known; 0 when both are on one node (or share a cache);
	 * -1 when they are on two nodes whose distance is unknown.
	 */
	int distance;
	char name[48];	/* "smt", "l2", "l3", "package", "cross-package",
			   "cross-package, distance 21", "package, another node"
			 */
	long available; /* ordered pairs of this class among the cpus */
	int planned;	/* pairs of the plan in this class */
};

struct cpu_pair {
	int a, b;     /* OS indexes: a writes, b answers */
	int row, col; /* indexes of a and b in the plan's cpu list (the
			 heatmap's cell) */
	int cls;      /* index in the plan's classes */
};

struct pair_plan {
	int ncpus;
	int *cpu; /* the matrix's rows and columns: the cpus given, or every
		     allowed one in OS order */
	long npairs;
	struct cpu_pair *pair; /* in the order to measure them */
	int nclasses;
	struct relation_class
		*cls;	   /* closest first; every relation the cpus have */
	int sample_capped; /* sample:N asked for more pairs than the cpus have:
			      all were planned */
};

/*
 * Parses "all", "by_relation" or "sample:N" (N >= 1) into req (per_class
 * left at the default). Returns 0, or -EINVAL with err naming field
 * "pairs" and what is allowed.
 */
int pairs_parse(const char *s, struct pairs_request *req, struct errinfo *err);

/*
 * Plans the pairs. cpus (OS indexes, ncpus of them) are the matrix's rows
 * and columns; ncpus == 0 takes every allowed PU in OS order. Every plan
 * classifies its pairs; the classes are every relation the cpus have,
 * whatever the mode, each with how many ordered pairs have it.
 *   all:         every ordered pair, row by row: ncpus * (ncpus - 1).
 *   by_relation: per class min(K, ordered pairs of the class) pairs,
 *                first pairs at evenly spaced places in topological
 *                order, each partner the first fitting cpu from the
 *                opposite side of the machine, no cpu used again while
 *                an unused one fits; a reversed pair only when the class
 *                has no other left.
 *   sample:N:    N ordered pairs at even steps through the row-by-row
 *                matrix (all of them when N is more: sample_capped).
 * No pair appears twice. Each pair is meant to be timed on a line of its
 * own (a fresh allocation), so no pair inherits a line another left.
 * Fewer than 2 cpus give an empty plan. Pure: reads only t. Returns 0, or
 * -EINVAL (a cpu not in t or listed twice: err names field "cpus"),
 * -ENOMEM; on failure plan holds nothing to free.
 */
int pair_plan_make(const struct topo *t, const int *cpus, int ncpus,
		   const struct pairs_request *req, struct pair_plan *plan,
		   struct errinfo *err);
void pair_plan_free(struct pair_plan *plan);

#endif
