/* run_fixture.h - canned runs for verdict tests: a machine, points, summary values and placements built by hand */
#ifndef NUMALAB_RUN_FIXTURE_H
#define NUMALAB_RUN_FIXTURE_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "experiment.h"
#include "registry.h"
#include "team.h"
#include "topo_fixture.h"
#include "verdict.h"

#define CANNED_MAX 256
#define CANNED_EXTRAS 16

/*
 * A run to describe: fill it with canned_*() and hand &c->rr to
 * experiment_describe(). Strings must outlive it (literals do).
 */
struct canned {
	struct run_result rr;
	struct machine_facts m;
	struct common_params common;
	void *params;
	struct param_values *pv;
	struct result_point points[CANNED_MAX];
	const char *extra_keys[CANNED_MAX][CANNED_EXTRAS];
	double extra_vals[CANNED_MAX][CANNED_EXTRAS];
	struct result_summary summary[CANNED_MAX];
	struct result_placement places[CANNED_MAX];
	struct thread_place threads[CANNED_MAX][16];
	struct result_cell cells[CANNED_MAX];
	struct verdict v;
};

/*
 * A run of experiment name with the k=v params given (as a stored run
 * records them), on the machine of topology t (from synthetic() or
 * xml(); see topo_fixture.h). vm: 1 for a virtual machine.
 */
static inline struct canned *canned_new(const char *name, const struct topo *t,
					int vm, int argc, char *const *argv)
{
	struct canned *c = calloc(1, sizeof(*c));
	struct errinfo err;

	assert_non_null(c);
	c->rr.exp = experiment_find(name);
	assert_non_null(c->rr.exp);
	c->params = calloc(1, c->rr.exp->params_size);
	c->pv = calloc(1, sizeof(*c->pv));
	assert_non_null(c->params);
	assert_non_null(c->pv);
	assert_int_equal(experiment_parse_recorded(c->rr.exp, argc, argv, c->pv,
						   c->params, &c->common, &err),
			 0);
	machine_facts_from_topo(t, &c->m);
	c->m.vm = vm;
	c->rr.params = c->params;
	c->rr.common = &c->common;
	c->rr.machine = &c->m;
	c->rr.points = c->points;
	c->rr.summary = c->summary;
	c->rr.placements = c->places;
	c->rr.cells = c->cells;
	c->rr.complete = 1;
	return c;
}

static inline void canned_free(struct canned *c)
{
	free(c->params);
	free(c->pv);
	free(c);
}

/* A point whose rounds all lie within +-spread (a fraction) of y, n rounds. */
static inline void canned_point(struct canned *c, const char *chart,
				const char *series, double x,
				const char *x_label, double y, double spread,
				int n)
{
	struct result_point *p = &c->points[c->rr.npoints++];

	p->chart = chart;
	p->series = series;
	p->x = x;
	p->x_label = x_label;
	p->y = y;
	p->ci_lo = p->min = y * (1 - spread);
	p->ci_hi = p->max = y * (1 + spread);
	p->n = n;
}

/* An extra number ("overlap") on the point added last. */
static inline void canned_extra(struct canned *c, const char *key, double value)
{
	int k = c->rr.npoints - 1;
	struct result_point *p = &c->points[k];

	assert_true(k >= 0 && p->nextra < CANNED_EXTRAS);
	c->extra_keys[k][p->nextra] = key;
	c->extra_vals[k][p->nextra] = value;
	p->extra_keys = c->extra_keys[k];
	p->extra_vals = c->extra_vals[k];
	p->nextra++;
}

static inline void canned_summary(struct canned *c, const char *key,
				  double value, const char *unit)
{
	struct result_summary *s = &c->summary[c->rr.nsummary++];

	s->key = key;
	s->value = value;
	s->unit = unit;
}

/* A placement label whose n threads were seen on cpus[] (OS indexes of t). */
static inline void canned_placement(struct canned *c, const struct topo *t,
				    const char *label, const int *cpus, int n)
{
	int k = c->rr.nplacements++;
	struct result_placement *p = &c->places[k];

	for (int i = 0; i < n && i < 16; i++)
		team_describe(t, i, cpus[i], cpus[i], &c->threads[k][i]);
	p->label = label;
	p->t = c->threads[k];
	p->n = n;
}

/*
 * The precheck of experiment name with the k=v params given, resolved on
 * topology t as a request is (trimmed defaults, placement), into v.
 */
static inline void canned_precheck(const char *name, const struct topo *t,
				   int argc, char *const *argv,
				   struct verdict *v)
{
	const struct experiment *exp = experiment_find(name);
	struct param_values *pv = calloc(1, sizeof(*pv));
	struct common_params common;
	struct errinfo err;
	void *params;

	assert_non_null(exp);
	params = calloc(1, exp->params_size);
	assert_non_null(pv);
	assert_non_null(params);
	assert_int_equal(
		experiment_parse(exp, t, argc, argv, pv, params, &common, &err),
		0);
	experiment_precheck(exp, params, &common, t, v);
	free(params);
	free(pv);
}

/* Whether any note (of any level) or the headline contains text. */
static inline int verdict_says(const struct verdict *v, const char *text)
{
	if (strstr(v->headline, text))
		return 1;
	for (int i = 0; i < v->nnotes; i++)
		if (strstr(v->notes[i].text, text))
			return 1;
	/* what it said instead, for the failure's reader */
	fprintf(stderr, "# not said: %s\n# headline: %s\n", text, v->headline);
	for (int i = 0; i < v->nnotes; i++)
		fprintf(stderr, "# %s: %s\n", v->notes[i].level,
			v->notes[i].text);
	return 0;
}

/* Whether a note of this level contains text. */
static inline int verdict_says_at(const struct verdict *v, const char *level,
				  const char *text)
{
	for (int i = 0; i < v->nnotes; i++)
		if (!strcmp(v->notes[i].level, level) &&
		    strstr(v->notes[i].text, text))
			return 1;
	return 0;
}

/* Whether the verdict states summary key with an interval lo..hi that
 * holds x. */
static inline int verdict_interval_holds(const struct verdict *v,
					 const char *key, double x)
{
	for (int i = 0; i < v->nintervals; i++)
		if (!strcmp(v->intervals[i].key, key))
			return v->intervals[i].lo <= x &&
			       x <= v->intervals[i].hi;
	return 0;
}

/* Whether a note of this level exists. */
static inline int verdict_has_level(const struct verdict *v, const char *level)
{
	for (int i = 0; i < v->nnotes; i++)
		if (!strcmp(v->notes[i].level, level))
			return 1;
	return 0;
}

#endif
