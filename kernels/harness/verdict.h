/* verdict.h - what a run showed, as an experiment's describe() reads it, and the sentences it says */
#ifndef NUMALAB_VERDICT_H
#define NUMALAB_VERDICT_H

#include <stdint.h>

#include "sink.h"

struct experiment;
struct topo;
struct rule_findings;
struct verdict;

/*
 * The facts about a machine that a verdict may lean on. Filled from a
 * live topology (machine_facts_from_topo) or from a stored run's machine
 * record (the server does that), so a stored or imported run is judged
 * against the machine it ran on, not the one that reads it.
 */
struct machine_facts {
	int npus, nallowed, ncores, npackages, nnodes;
	int smt;	    /* some core has two or more PUs */
	int vm;		    /* a hypervisor was seen (-1: unknown) */
	int emulator;	    /* it emulates the cpu (qemu TCG): times are
			       the emulator's (-1: unknown) */
	int line_size;	    /* bytes */
	int llc_level;	    /* level of the last-level cache, 0 if none known */
	int llc_instances;  /* how many of them */
	uint64_t llc_bytes; /* size of one */
	int l2_instances;
	int numa_available; /* the kernel has NUMA system calls */
};

void machine_facts_from_topo(const struct topo *t, struct machine_facts *m);
/*
 * The opening of a precheck whose comparisons need two NUMA nodes: fills m
 * from t and, on a machine of one node, notes "cannot" with why (one
 * sentence: what cannot be shown, and that it needs 2 nodes). Returns
 * whether t has 2 nodes or more.
 */
int precheck_needs_nodes(const struct topo *t, struct machine_facts *m,
			 const char *why, struct verdict *v);
/* Total bytes of last-level cache on the machine (0 if unknown). */
uint64_t machine_llc_total(const struct machine_facts *m);

/* One point as the run recorded it (y is the median of n rounds). */
struct result_point {
	const char *chart, *series, *x_label;
	const char *unit; /* of y, NULL when the run gave none */
	double x, y;
	double ci_lo, ci_hi; /* 95% interval of the median (the range below 6
				rounds) */
	double min, max;
	int n;
	/* the point's extra numbers ("overlap": 0.93), nextra of them */
	const char *const *extra_keys;
	const double *extra_vals;
	int nextra;
};

struct result_summary {
	const char *key;
	double value;
	const char *unit;
};

/* Where a team of threads ran, as observed inside each thread. */
struct result_placement {
	const char *label;
	const struct thread_place *t;
	int n;
};

struct result_cell {
	const char *chart;
	int row, col;
	const char *row_label, *col_label, *unit; /* NULL when not given */
	double value; /* NaN when not measured (note says why) */
	const char *note;
	double ci_lo, ci_hi; /* 95% interval of the median, as result_point's */
	int n;		     /* rounds behind value */
};

/* A run as describe() sees it. Every array may be empty. */
struct run_result {
	const struct experiment *exp;
	const void *params; /* the experiment's own typed params */
	const void *common; /* struct common_params */
	const struct machine_facts *machine;
	const struct result_point *points;
	int npoints;
	const struct result_cell *cells;
	int ncells;
	const struct result_summary *summary;
	int nsummary;
	const struct result_placement *placements;
	int nplacements;
	int complete; /* the run ended normally (not cancelled, failed,
			 interrupted) */
	/* what the rulebook found (rules.h), set by experiment_describe
	 * before the hook; NULL outside it */
	const struct rule_findings *rules;
	/*
	 * Told of every lookup of a complete run (result_point_find,
	 * result_point_find_label, result_summary_get, result_placement_find)
	 * that found nothing, with what was asked for in words ("summary key
	 * 'x'"): the registry test's check that describe() asks only for what
	 * run() emits. NULL: nobody is told. The _opt lookups never tell.
	 */
	void (*trace)(void *arg, const char *missing);
	void *trace_arg;
};

#define VERDICT_MAX_NOTES 16
#define VERDICT_TEXT_LEN 512

/*
 * What numalab says about a run: one headline and a few notes. A note's
 * level is "info", "warn" or "cannot" (what this run or machine could not
 * show, and why).
 */
#define VERDICT_MAX_QUALIFIERS 8
#define VERDICT_KEY_LEN 64

/* What a verdict says of a summary value it did not state as measured. */
enum verdict_qualifier_kind {
	/* no valid comparison stands behind the number: show no bar for it,
	 * and say why */
	VERDICT_DISOWNED = 1,
	/* the true figure is at least this (the threads ran together only
	 * part of the time) */
	VERDICT_AT_LEAST,
};

struct verdict {
	char headline[VERDICT_TEXT_LEN];
	int nnotes;
	struct {
		char level[8];
		char text[VERDICT_TEXT_LEN];
	} notes[VERDICT_MAX_NOTES];
	/*
	 * Summary keys (or fnmatch(3) patterns of them) the verdict qualifies:
	 * the classroom's answer panel, the CLI and the page read these
	 * before showing a key's number as this machine's answer.
	 */
	int nqualifiers;
	struct {
		char key[VERDICT_KEY_LEN];
		int kind; /* enum verdict_qualifier_kind */
		char why[VERDICT_TEXT_LEN];
	} qualifiers[VERDICT_MAX_QUALIFIERS];
	/*
	 * Summary keys (exact) whose value the verdict states with a 95%
	 * interval: the ratio it compared, lo..hi as its sentence gives
	 * them. Sent beside the value (sink_summary_interval).
	 */
	int nintervals;
	struct {
		char key[VERDICT_KEY_LEN];
		double lo, hi;
	} intervals[VERDICT_MAX_QUALIFIERS];
};

__attribute__((format(printf, 2, 3))) void
verdict_headline(struct verdict *v, const char *fmt, ...);
/* Adds a note; past VERDICT_MAX_NOTES it is dropped and the last note says so.
 */
__attribute__((format(printf, 3, 4))) void
verdict_note(struct verdict *v, const char *level, const char *fmt, ...);

/*
 * Qualifies summary key (a pattern) with kind and the reason in words (the
 * sentence the verdict gives). A key qualified twice keeps its first qualifier;
 * past VERDICT_MAX_QUALIFIERS qualifiers are dropped. "*" qualifies every key.
 */
__attribute__((format(printf, 4, 5))) void
verdict_qualify(struct verdict *v, const char *key, int kind, const char *fmt,
		...);
/*
 * States summary key's value with its 95% interval lo..hi (a key given
 * twice keeps its first; an interval that is not finite and ordered is
 * none). compare_state_interval gives a comparison's.
 */
void verdict_interval(struct verdict *v, const char *key, double lo, double hi);
/* The qualifier that covers summary key (fnmatch), or NULL. */
const char *verdict_qualifier_why(const struct verdict *v, const char *key,
				  int *kind);
/* "disowned", "at_least": the qualifier's name in events and JSON (the event
 * "mark"). */
const char *verdict_qualifier_name(int kind);

/*
 * Lookups of what run() always emits: NULL / -1 when absent, and a
 * complete run's trace hook is told (the contract between run() and
 * describe()).
 */
const struct result_point *result_point_find(const struct run_result *r,
					     const char *chart,
					     const char *series, double x);
const struct result_point *result_point_find_label(const struct run_result *r,
						   const char *chart,
						   const char *series,
						   const char *x_label);
int result_summary_get(const struct run_result *r, const char *key,
		       double *out);
const struct result_placement *result_placement_find(const struct run_result *r,
						     const char *label);
/*
 * The same for what a run emits only sometimes (a point of a part the
 * params may leave out, a key only some machines give): never traced.
 */
const struct result_point *
result_point_find_label_opt(const struct run_result *r, const char *chart,
			    const char *series, const char *x_label);
int result_summary_get_opt(const struct run_result *r, const char *key,
			   double *out);
/* A point's extra number by key: 0 and *out set, or -1 when absent. */
int result_point_extra(const struct result_point *p, const char *key,
		       double *out);

/* The set of CPUs two placements used are the same (in any order). */
int result_placement_same_cpus(const struct result_placement *a,
			       const struct result_placement *b);
/* The observed placement's threads overlap in distinct CPUs (>= 2). */
int result_placement_distinct_cpus(const struct result_placement *p);

/* How many distinct cores the observed placement's threads ran on. */
int result_placement_distinct_cores(const struct result_placement *p);

/*
 * Whether two of the n planned CPUs (OS indexes, -1 = unpinned) are SMT
 * siblings of one core of t; if so *a and *b name the first such pair.
 */
int topo_plan_siblings(const struct topo *t, const int *plan, int n, int *a,
		       int *b);
/* How many distinct pinned CPUs a plan holds. */
int topo_plan_distinct(const int *plan, int n);

/*
 * Sends the verdict through a sink: its notes, the summary values of r it
 * states with an interval (again, with the interval), its qualifiers, then
 * the headline.
 */
void verdict_emit(const struct verdict *v, struct sink *s,
		  const struct run_result *r);

/*
 * A last-level cache no real machine has (a hypervisor's invention: this
 * lab's VM reports 508 MiB per cpu): more than RULES_LLC_MOST_PER_CORE per
 * core that shares it. The most a real one has is 48 MiB per core (AMD's
 * 16-core EPYC 9184X: 96 MiB of stacked L3 over each 2 cores). 1 when
 * implausible; 0 when the cores are unknown.
 */
#define RULES_LLC_MOST_PER_CORE (64ull << 20)
int machine_cache_implausible(const struct machine_facts *m);

/* 1 when the topology names no cache at all (a VM that passes none on,
 * a topology file without them). */
int machine_cache_unknown(const struct machine_facts *m);

/*
 * The last-level cache to judge sizes against: the reported total, or,
 * where it is implausible or unknown, RULES_LLC_PLAUSIBLE_PER_CORE x the
 * cores (the most a real one of this many cores holds): a buffer that
 * might be in a cache nobody named is never stated as memory.
 */
#define RULES_LLC_PLAUSIBLE_PER_CORE (16ull << 20)
uint64_t machine_llc_judged(const struct machine_facts *m);

#endif
