/* compare.h - the one way a verdict states that two measurements differ: from their intervals, never a fixed cut */
#ifndef NUMALAB_COMPARE_H
#define NUMALAB_COMPARE_H

#include <stddef.h>

#include "verdict.h"

enum cmp_relation {
	CMP_FEW,    /* a side has fewer than 2 rounds: nothing can be told */
	CMP_UNSURE, /* the intervals overlap but are too wide to call it "no
		       difference": more rounds would tell */
	CMP_SAME,   /* the ratio's interval lies inside [1/(1+tol), 1+tol] */
	CMP_MORE,   /* a is larger than b beyond both intervals */
	CMP_LESS    /* a is smaller than b beyond both intervals */
};

/*
 * Below this share of a round run together (the points' "overlap" extra),
 * a difference caused by threads contending was measured only part of the
 * time: a slowdown stated from it is a lower bound.
 */
#define CMP_FULL_OVERLAP 0.9

struct comparison {
	enum cmp_relation rel;
	double ratio;	 /* a's median over b's (0 when b's is 0) */
	double lo, hi;	 /* the ratio's interval: a.ci_lo / b.ci_hi .. a.ci_hi /
			    b.ci_lo */
	double together; /* the least "overlap" extra of the two (1 when
			    neither has one) */
	int lower_bound; /* together < CMP_FULL_OVERLAP: a MORE/LESS found is
			    at least this large, the true one may be larger */
	int rounds;	 /* the fewer rounds of the two sides */
	double tol;	 /* the precision it was compared at */
};

/*
 * Compares a with b (either may be NULL: CMP_FEW). tol is the smallest
 * relative difference the experiment calls a difference (0.05 = 5%):
 * the intervals must not overlap for MORE/LESS, and the ratio's whole
 * interval must sit within 1 +- tol for SAME.
 */
void compare_points(const struct result_point *a, const struct result_point *b,
		    double tol, struct comparison *c);

/* The same from two medians and intervals (cells, summary values). */
void compare_values(double a, double a_lo, double a_hi, int a_n, double b,
		    double b_lo, double b_hi, int b_n, double tol,
		    struct comparison *c);

/*
 * A point measured in turns with another (team_job.arms) carries its
 * per-pair ratio over that other as these extras: the median of the
 * ratios, its 95% interval and the number of pairs.
 */
#define CMP_PAIR_RATIO "pair_ratio"
#define CMP_PAIR_LO "pair_ratio_lo"
#define CMP_PAIR_HI "pair_ratio_hi"
#define CMP_PAIRS "pairs"

/*
 * a against b: through a's paired extras (CMP_PAIR_*) when the two were
 * measured in turns, else compare_points. The overlap and lower bound
 * are as compare_points says.
 */
void compare_paired(const struct result_point *a, const struct result_point *b,
		    double tol, struct comparison *c);

/*
 * The ratio in words for a sentence, with its 95% interval wherever one
 * was measured: "2.6× (2.4–2.9)", "at least 1.8× (1.6–2.0)" when it is a
 * lower bound, and "2.6× (1.5–4.4, wider than the 5% precision)" when
 * the interval spans more than the experiment's precision either way;
 * "2.6×" alone with fewer than 2 rounds a side. Returns buf.
 */
const char *compare_ratio_text(const struct comparison *c, char *buf,
			       size_t len);

/*
 * The verdict states summary key (the ratio c compared) with c's
 * interval, wherever compare_ratio_text would give one.
 */
void compare_state_interval(struct verdict *v, const char *key,
			    const struct comparison *c);

/* b against a instead: the ratio, its interval and MORE/LESS turned over. */
void compare_invert(struct comparison *c);

/* One short clause on why no difference could be stated (FEW, UNSURE). */
const char *compare_why_not(const struct comparison *c);

/*
 * How a stood against b, for a sentence "a was %s b" that the caller
 * writes when a did not come out larger (MORE has a sentence of its
 * own): less ("faster than") when it came out smaller, same ("as fast
 * as") when the same, and "not told apart from" when no difference could
 * be stated.
 */
const char *compare_words(const struct comparison *c, const char *less,
			  const char *same);

/* How the off-diagonal cells of a node-by-node matrix compare with the
 * local cell (the diagonal) of their row. */
struct cell_tally {
	int n;	    /* cells compared */
	int less;   /* under their row's local cell */
	int more;   /* over it */
	int same;   /* the same within tol */
	int unsure; /* too few rounds or intervals too wide to tell */
};

/* Tallies every off-diagonal cell of chart against its row's local cell
 * by their intervals (compare_values with tol). */
void compare_cells_to_diagonal(const struct run_result *r, const char *chart,
			       double tol, struct cell_tally *ct);

/*
 * The mean of chart's off-diagonal cells over the mean of its diagonal
 * (remote over local in a node-by-node matrix), off and diag those
 * means as the run summarised them, compared as compare_values does:
 * each mean's interval is the mean of its cells' interval ends, and its
 * rounds the fewest of its cells'. CMP_FEW when a side has no cell.
 */
void compare_cells_mean(const struct run_result *r, const char *chart,
			double off, double diag, double tol,
			struct comparison *c);

#endif
