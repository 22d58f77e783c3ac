/* rules.h - the rulebook: the conditions an experiment's comparisons need, declared in its descriptor and checked by shared code */
#ifndef NUMALAB_RULES_H
#define NUMALAB_RULES_H

#include <stdint.h>

#include "rule.h"
#include "verdict.h"

struct experiment;
struct common_params;
struct topo;

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

#endif
