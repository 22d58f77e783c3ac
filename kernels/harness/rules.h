/* rules.h - the rulebook: the conditions an experiment's comparisons need, declared in its descriptor and checked by shared code */
#ifndef NUMALAB_RULES_H
#define NUMALAB_RULES_H

#include <stdint.h>

#include "verdict.h"

struct experiment;
struct common_params;
struct topo;

/*
 * What one comparison of an experiment needs. Each experiment declares
 * its list (struct experiment .rules); experiment_precheck checks it
 * against the request and the machine before the run, and
 * experiment_describe against what the run recorded after it, for every
 * experiment alike, before the experiment's own hook. The hook reads the
 * findings (run_result.rules) and must not state a comparison a failed
 * rule disowns; the harness also marks the descriptor's compared summary
 * keys (.compared) as disowned when one failed, so no panel shows them.
 */
enum rule_kind {
	RULE_END = 0,
	/*
	 * The size param .param (a size or a sweep of sizes) streams from
	 * memory, not cache: at least MEM_LLC_MULTIPLE x the last-level
	 * cache (mem_size.h), judged against a plausible cache where the
	 * machine misreports its own. A size under it is labelled "from
	 * cache"; the rule fails when every size is.
	 */
	RULE_MEMORY,
	/*
	 * The threads compared ran at the same time: the "overlap" extra of
	 * every point that has one is at least .floor (a share of a round,
	 * 0.5). Between .floor and CMP_FULL_OVERLAP a slowdown is a lower
	 * bound (the verdict says so); under .floor the rule fails. A
	 * round timed over the stretches every thread was on a cpu at once
	 * (team_job.work) has an overlap of 1, and its points' "corun" extra
	 * says how much of a round those were: under CMP_FULL_OVERLAP the
	 * verdict says the rest was left out.
	 */
	RULE_TOGETHER,
	/*
	 * The threads ran on two or more distinct cpus: before the run from
	 * the placement plan of the largest count in .param (a threads
	 * sweep; NULL: 2 threads), after it from every recorded placement
	 * with two or more threads.
	 */
	RULE_CPUS,
	/* The machine has at least .floor NUMA nodes (whether the kernel
	 * offers the calls to use them is the experiment's own check). */
	RULE_NODES,
	/*
	 * Placements compared differ: the recorded placements whose labels
	 * match the fnmatch(3) pattern .param do not all use the same cpus.
	 */
	RULE_PLACEMENTS_DIFFER,
};

struct rule {
	enum rule_kind kind;
	const char *param; /* see each kind */
	double floor;	   /* see each kind */
	/* the comparison in words, for its sentences: "one copy against a
	 * copy per node" */
	const char *what;
};

#define RULE(k, ...)                                                           \
	{                                                                      \
		.kind = (k), __VA_ARGS__                                       \
	}

/* What the rulebook found in one run, for the describe hook. */
struct rule_findings {
	int checked; /* the rules ran (0: the experiment declares none) */
	int failed;  /* some rule failed: its comparisons are disowned */
	char why[VERDICT_TEXT_LEN]; /* the first failed rule's sentence */
	/* RULE_MEMORY */
	int from_cache;	       /* how many sizes read from cache */
	uint64_t mem_floor;    /* the least size that reads memory (0: unknown)
				*/
	int cache_implausible; /* the machine reports a cache no real one has
				*/
	/* RULE_TOGETHER */
	double together; /* the least overlap of any point (1 when none) */
	int lower_bound; /* together under CMP_FULL_OVERLAP (compare.h) */
	/* RULE_CPUS */
	int one_cpu; /* a team ran on a single cpu */
	/* RULE_NODES */
	int few_nodes;
	/* RULE_PLACEMENTS_DIFFER */
	int same_placement;
};

/*
 * Before the run: each declared rule that the request or machine t
 * cannot meet adds a note ("cannot" when every comparison fails, "warn"
 * when only some would). Called by experiment_precheck.
 */
void rules_precheck(const struct experiment *exp, const void *params,
		    const struct common_params *common, const struct topo *t,
		    struct verdict *v);

/*
 * After the run: checks the declared rules against r, fills f, and adds
 * the notes the rules say (the cache label, a partial overlap, a failed
 * rule's reason). Called by experiment_describe before the hook.
 */
void rules_describe(const struct run_result *r, struct rule_findings *f,
		    struct verdict *v);

/* The .floor of exp's RULE_TOGETHER rule; 0 when it declares none. */
double rules_together_floor(const struct experiment *exp);

#endif
