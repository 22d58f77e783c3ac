/* declares.h - what a descriptor declares, asked of it alone: charts, summary keys, figures, precision */
#ifndef NUMALAB_DECLARES_H
#define NUMALAB_DECLARES_H

#include "descriptor.h"
#include "errinfo.h"

/* Whether exp declares chart id / a summary_keys pattern matching key. */
int experiment_declares_chart(const struct experiment *exp, const char *id);
int experiment_declares_summary(const struct experiment *exp, const char *key);

/* Whether key is one of the summary keys adapt_run_report says: every
 * experiment may emit them. */
int adapt_summary_key(const char *key);
/* Those keys, in the order the report says them: kept, redone apart,
 * redone preempted; NULL-terminated. */
extern const char *const harness_summary_keys[];

/*
 * Whether a run whose experiment records `values` summary values has room
 * for them beside the harness's own within RUN_SUMMARY_MAX. Returns 0, or
 * -EINVAL with err naming `param` and saying what each value is (`each`:
 * "a thread count and stride").
 */
int summary_room(long values, const char *param, const char *each,
		 struct errinfo *err);

/* The row of exp's .unread for the common or placement param `name`, or
 * NULL when exp reads it wherever the param's own .only holds. */
const struct unread_param *experiment_unread(const struct experiment *exp,
					     const char *name);
/* Whether exp reads that param under no condition at all. */
int experiment_never_reads(const struct experiment *exp, const char *name);

/* The smallest difference exp calls one (its .precision, or 0.05). */
double experiment_precision(const struct experiment *exp);

/* The article figure exp names id (struct reference .id), or NULL. */
const struct reference *experiment_figure(const struct experiment *exp,
					  const char *id);
/*
 * That figure's value in unit: its own y when the units agree, y / 100
 * for "%" asked as "x" (and x 100 the other way), s as ms/us/ns. Returns
 * 0, or -1 when it has no such figure or the units do not convert.
 */
int experiment_figure_in(const struct experiment *exp, const char *id,
			 const char *unit, double *out);

/* The .floor of exp's RULE_TOGETHER rule (rule.h); 0 when it declares
 * none. */
double rules_together_floor(const struct experiment *exp);

#endif
