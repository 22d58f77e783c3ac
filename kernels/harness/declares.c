/* declares.c - what a descriptor declares, asked of it alone */
#include "declares.h"
#include "rule.h"

#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const harness_summary_keys[] = {
	"rounds_kept", "rounds_redone_apart", "rounds_redone_preempted",
	"rounds_started_apart", NULL};

int adapt_summary_key(const char *key)
{
	for (int i = 0; key && harness_summary_keys[i]; i++)
		if (!strcmp(key, harness_summary_keys[i]))
			return 1;
	return 0;
}

int summary_room(long values, const char *param, const char *each,
		 struct errinfo *err)
{
	long own = 0;

	while (harness_summary_keys[own])
		own++;
	if (values + own <= RUN_SUMMARY_MAX)
		return 0;
	return errinfo_set(
		err, param,
		"'%s' would make %ld summary values (one for each %s), but a run records at most %ld of its own: ask for fewer",
		param, values, each, (long)RUN_SUMMARY_MAX - own);
}

int experiment_declares_chart(const struct experiment *exp, const char *id)
{
	for (const struct chart *c = exp->charts; c && c->id; c++)
		if (!strcmp(c->id, id))
			return 1;
	return 0;
}

int experiment_declares_summary(const struct experiment *exp, const char *key)
{
	if (adapt_summary_key(key))
		return 1; /* the harness's account of rounds, in every run */
	for (const char *const *k = exp->summary_keys; k && *k; k++)
		if (!fnmatch(*k, key, 0))
			return 1;
	return 0;
}

const struct unread_param *experiment_unread(const struct experiment *exp,
					     const char *name)
{
	for (const struct unread_param *u = exp->unread; u && u->param; u++)
		if (!strcmp(u->param, name))
			return u;
	return NULL;
}

int experiment_never_reads(const struct experiment *exp, const char *name)
{
	const struct unread_param *u = experiment_unread(exp, name);

	return u && !u->only;
}

double experiment_precision(const struct experiment *exp)
{
	return exp && exp->precision > 0 ? exp->precision : 0.05;
}

const struct reference *experiment_figure(const struct experiment *exp,
					  const char *id)
{
	for (const struct reference *r = exp->references; id && r && r->chart;
	     r++)
		if (r->id && !strcmp(r->id, id))
			return r;
	return NULL;
}

/* Seconds in one of unit ("s", "ms", "us", "µs", "ns"), 0 when not a time. */
static double time_unit(const char *unit)
{
	static const struct {
		const char *name;
		double s;
	} units[] = {{"s", 1},	   {"ms", 1e-3}, {"us", 1e-6},
		     {"µs", 1e-6}, {"ns", 1e-9}, {NULL, 0}};

	for (int i = 0; unit && units[i].name; i++)
		if (!strcmp(unit, units[i].name))
			return units[i].s;
	return 0;
}

int experiment_figure_in(const struct experiment *exp, const char *id,
			 const char *unit, double *out)
{
	const struct reference *r = experiment_figure(exp, id);
	double from, to;

	if (!r || !r->unit || !unit)
		return -1;
	if (!strcmp(r->unit, unit))
		*out = r->y;
	else if (!strcmp(r->unit, "%") && !strcmp(unit, "x"))
		*out = r->y / 100;
	else if (!strcmp(r->unit, "x") && !strcmp(unit, "%"))
		*out = r->y * 100;
	else if ((from = time_unit(r->unit)) > 0 && (to = time_unit(unit)) > 0)
		*out = r->y * from / to;
	else
		return -1;
	return 0;
}

double rules_together_floor(const struct experiment *exp)
{
	for (const struct rule *r = exp ? exp->rules : NULL;
	     r && r->kind != RULE_END; r++)
		if (r->kind == RULE_TOGETHER)
			return r->floor;
	return 0;
}
