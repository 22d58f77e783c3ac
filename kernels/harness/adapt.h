/* adapt.h - how many rounds a point keeps: the stop rule, the redo rule, and the run's account of both */
#ifndef NUMALAB_ADAPT_H
#define NUMALAB_ADAPT_H

#include <stddef.h>

#include "sink.h"

struct experiment;
struct common_params;
struct errinfo;

/* A point keeps at most this many times repeat rounds, and never more than
 * ADAPT_MOST_ROUNDS. */
#define ADAPT_MOST_FACTOR 20
#define ADAPT_MOST_ROUNDS 300
/* A point redoes at most max(repeat, ADAPT_REDO_LEAST) rounds. */
#define ADAPT_REDO_LEAST 30
/* A thread that ran for less of its body's wall time than this was
 * preempted. */
#define ADAPT_CPU_SHARE 0.9
/* budget=auto: this many times the run's estimate. */
#define ADAPT_AUTO_FACTOR 3
/* A budget never passes this share of a run's time limit: the least rounds
 * of the points after it must still fit. */
#define ADAPT_LIMIT_SHARE 0.8
/* The budget param: "auto" reads as this, seconds are 0..ADAPT_BUDGET_MOST. */
#define ADAPT_BUDGET_AUTO (-1.0)
#define ADAPT_BUDGET_MOST 3600

/* The rules of one point, as team_run applies them. */
struct adapt_point {
	int least;	   /* rounds it keeps whatever they show */
	int most;	   /* rounds it keeps at most */
	int redo_most;	   /* rounds it may measure again */
	double half_width; /* enough: the median's 95% interval within
			      +- this share of it */
	double floor;	   /* a round whose overlap is under it ran apart; 0:
			      none */
	double deadline;   /* clock_now() past which it stops growing; 0:
			      none */
	double redo_until; /* clock_now() past which it redoes nothing: the
			      budget's end; 0: none */
};

/* What becomes of one measured round. */
enum adapt_fate { ADAPT_KEEP, ADAPT_REDO_APART, ADAPT_REDO_PREEMPTED };

/*
 * The redo rule. A round is flawed when its overlap (the share of it all
 * threads ran at once) is under p->floor: it ran apart; or when some
 * thread ran for less than ADAPT_CPU_SHARE of its body's wall time
 * (cpu_share, the least over the threads): it was preempted. adapt_flaw
 * says which (ADAPT_KEEP: neither).
 */
enum adapt_fate adapt_flaw(const struct adapt_point *p, double overlap,
			   double cpu_share);

/*
 * Whether a flawed round may be measured again: while the point has
 * redone fewer than p->redo_most, the budget is not spent (now before
 * p->redo_until), and flaws are the exception here. After p->least
 * redos, a point whose flawless rounds (clean) are fewer than a third
 * of its redos measures on a machine where every round is flawed:
 * redoing them would only spend the budget its rounds could grow into.
 */
int adapt_may_redo(const struct adapt_point *p, int redone, int clean,
		   double now);

/* What becomes of a round: its flaw when it may be redone, else kept. */
enum adapt_fate adapt_judge(const struct adapt_point *p, double overlap,
			    double cpu_share, int redone, int clean,
			    double now);

/*
 * The stop rule: 1 when the n kept rounds kept[] (seconds) are enough:
 * n reached p->most, or n is at least p->least and either the 95%
 * interval of their median is within p->half_width of it or the
 * deadline has passed (now). 0: keep measuring.
 */
int adapt_enough(const struct adapt_point *p, const double *kept, int n,
		 double now);

/*
 * The same for a point measured in pairs (team_job.arms): ratios[] are
 * the n complete pairs' ratios, counted against p->least and p->most as
 * rounds are. A ratio of two sides each held to p->half_width spans
 * about twice that, so the pairs are enough at twice the width.
 */
int adapt_enough_ratios(const struct adapt_point *p, const double *ratios,
			int n, double now);

/* The most rounds a point keeps and redoes for repeat: its kept ceiling and
 * its redo bound. */
int adapt_most_kept(int repeat);
int adapt_most_redone(int repeat);

/*
 * Reads a budget param's text: "auto" (ADAPT_BUDGET_AUTO) or seconds
 * from 0 to ADAPT_BUDGET_MOST (0: exactly repeat rounds, nothing
 * redone). The PARAM_TEXT hook of the common budget row: field is a
 * double. Returns 0, or -EINVAL with err naming what is allowed.
 */
int adapt_parse_budget(const char *text, void *field, char *norm,
		       size_t normlen, struct errinfo *err);

/*
 * One run's account: its budget, the progress the experiment reported
 * (to share what is left of the budget among the points left), and how
 * many rounds were kept and redone. Its sink passes every event on to
 * the run's own and watches the progress.
 */
struct adapt_run {
	struct sink sink;   /* its .next: the run's own */
	int exact;	    /* budget 0: exactly repeat rounds */
	int repeat;	    /* the least rounds a point keeps */
	double half_width;  /* of the experiment's question */
	double floor;	    /* its RULE_TOGETHER floor, 0: none */
	double end;	    /* clock_now() when the budget is spent, 0: none */
	double done, total; /* the last progress event */
	/*
	 * The running part's share (adapt_run_part): when it is spent (0:
	 * no share of its own, the run's steps left share what is left),
	 * its progress steps, and the progress done at its first event
	 * (< 0: none yet).
	 */
	double part_end;
	int part_steps;
	double part_from;
	long kept, apart, preempted;
	long started_apart; /* rounds whose start gate was forced open */
};

/*
 * Starts the account of a run of exp with common's repeat and budget:
 * budget_s is the resolved budget in seconds (ADAPT_BUDGET_AUTO is not
 * one; 0: exact), counted from now. Its sink passes on to next.
 */
void adapt_run_init(struct adapt_run *a, const struct experiment *exp,
		    const struct common_params *common, double budget_s,
		    struct sink *next);

/*
 * The budget a run gets: common's seconds, or for auto
 * ADAPT_AUTO_FACTOR x estimate_s (no estimate, 0: no deadline, the
 * rounds' ceiling alone); never past ADAPT_LIMIT_SHARE of limit_s when
 * that is over 0.
 */
double adapt_budget(const struct common_params *common, double estimate_s,
		    double limit_s);

/*
 * Fills p for the next point of the run: the least and most rounds, the
 * redo bound, the precision and floor, and a deadline that gives it its
 * share of what is left of the budget (what is left over the steps not
 * yet done; within a part given a share, what is left of the share over
 * the part's steps not yet done). a may be NULL: exactly repeat rounds.
 */
void adapt_run_point(const struct adapt_run *a, int repeat, double now,
		     struct adapt_point *p);

/* The same for a point that measures steps of the run's progress at once
 * (two things in turns: 2): its deadline is that many shares. */
void adapt_run_point_steps(const struct adapt_run *a, int repeat, int steps,
			   double now, struct adapt_point *p);

/*
 * The part about to run gets share (0..1) of what is left of the budget
 * at now, and its points share that over its steps (the progress events
 * it sends, one before each point) instead of over the run's. share 0,
 * steps 0, an exact run or one without a budget: no share of its own.
 * a may be NULL.
 */
void adapt_run_part(struct adapt_run *a, double share, int steps, double now);

/* Adds one point's rounds to the account. */
void adapt_run_count(struct adapt_run *a, int kept, int apart, int preempted);

/* Adds one point's rounds that started before every thread was on its cpu
 * (team_result.started_apart). */
void adapt_run_count_gate(struct adapt_run *a, int started_apart);

/*
 * Says the account through s: the summary values rounds_kept,
 * rounds_redone_apart and rounds_redone_preempted, and one "info" note
 * ("kept 45 rounds; redid 12: 9 where the threads ran apart, 3
 * preempted"), and where a start gate was forced open,
 * rounds_started_apart and a sentence in that note. Says nothing when no
 * round was kept.
 */
void adapt_run_report(const struct adapt_run *a, struct sink *s);

/* The note's text for those counts, into buf. */
void adapt_words(long kept, long apart, long preempted, char *buf, size_t len);

#endif
