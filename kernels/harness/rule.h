/* rule.h - one row of an experiment's rulebook: what a comparison needs (the checks are rules.h's) */
#ifndef NUMALAB_RULE_H
#define NUMALAB_RULE_H

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

#endif
