/* verdict.c - the facts a verdict may use, lookups over a run, and the verdict's sentences */
#include "verdict.h"

#include <fnmatch.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topo.h"

void machine_facts_from_topo(const struct topo *t, struct machine_facts *m)
{
	memset(m, 0, sizeof(*m));
	m->vm = -1;
	m->emulator = -1;
	if (!t)
		return;
	m->vm = t->vm;
	m->emulator = t->emulator;
	m->npus = t->npus;
	m->nallowed = t->nallowed;
	m->ncores = t->ncores;
	m->npackages = t->npackages;
	m->nnodes = t->nnodes;
	m->smt = t->smt;
	m->line_size = t->line_size;
	m->numa_available = t->numa_available;
	for (int i = 0; i < t->ncaches; i++) {
		const struct topo_cache *c = &t->cache[i];
		if (c->level > m->llc_level) {
			m->llc_level = c->level;
			m->llc_instances = 0;
			m->llc_bytes = 0;
		}
		if (c->level == m->llc_level) {
			m->llc_instances++;
			if (c->size > m->llc_bytes)
				m->llc_bytes = c->size;
		}
		if (c->level == 2)
			m->l2_instances++;
	}
}

uint64_t machine_llc_total(const struct machine_facts *m)
{
	return m->llc_bytes *
	       (uint64_t)(m->llc_instances > 0 ? m->llc_instances : 0);
}

int precheck_needs_nodes(const struct topo *t, struct machine_facts *m,
			 const char *why, struct verdict *v)
{
	machine_facts_from_topo(t, m);
	if (m->nnodes >= 2)
		return 1;
	verdict_note(v, "cannot", "%s", why);
	return 0;
}

void verdict_headline(struct verdict *v, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(v->headline, sizeof(v->headline), fmt, ap);
	va_end(ap);
}

void verdict_note(struct verdict *v, const char *level, const char *fmt, ...)
{
	va_list ap;

	if (v->nnotes >= VERDICT_MAX_NOTES) {
		snprintf(v->notes[VERDICT_MAX_NOTES - 1].text, VERDICT_TEXT_LEN,
			 "more notes were left out");
		return;
	}
	snprintf(v->notes[v->nnotes].level, sizeof(v->notes[0].level), "%s",
		 level);
	va_start(ap, fmt);
	vsnprintf(v->notes[v->nnotes].text, VERDICT_TEXT_LEN, fmt, ap);
	va_end(ap);
	v->nnotes++;
}

void verdict_qualify(struct verdict *v, const char *key, int kind,
		     const char *fmt, ...)
{
	va_list ap;

	for (int i = 0; i < v->nqualifiers; i++)
		if (!strcmp(v->qualifiers[i].key, key))
			return;
	if (v->nqualifiers >= VERDICT_MAX_QUALIFIERS)
		return;
	snprintf(v->qualifiers[v->nqualifiers].key, VERDICT_KEY_LEN, "%s", key);
	v->qualifiers[v->nqualifiers].kind = kind;
	va_start(ap, fmt);
	vsnprintf(v->qualifiers[v->nqualifiers].why, VERDICT_TEXT_LEN, fmt, ap);
	va_end(ap);
	v->nqualifiers++;
}

void verdict_interval(struct verdict *v, const char *key, double lo, double hi)
{
	if (!isfinite(lo) || !isfinite(hi) || lo > hi ||
	    v->nintervals >= VERDICT_MAX_QUALIFIERS)
		return;
	for (int i = 0; i < v->nintervals; i++)
		if (!strcmp(v->intervals[i].key, key))
			return;
	snprintf(v->intervals[v->nintervals].key, VERDICT_KEY_LEN, "%s", key);
	v->intervals[v->nintervals].lo = lo;
	v->intervals[v->nintervals++].hi = hi;
}

const char *verdict_qualifier_why(const struct verdict *v, const char *key,
				  int *kind)
{
	for (int i = 0; i < v->nqualifiers; i++)
		if (!fnmatch(v->qualifiers[i].key, key, 0)) {
			if (kind)
				*kind = v->qualifiers[i].kind;
			return v->qualifiers[i].why;
		}
	return NULL;
}

const char *verdict_qualifier_name(int kind)
{
	return kind == VERDICT_AT_LEAST ? "at_least" : "disowned";
}

static int streq(const char *a, const char *b)
{
	return a && b && !strcmp(a, b);
}

static const struct result_point *
result_point_find_opt(const struct run_result *r, const char *chart,
		      const char *series, double x)
{
	for (int i = 0; i < r->npoints; i++) {
		const struct result_point *p = &r->points[i];
		if (streq(p->chart, chart) && streq(p->series, series) &&
		    fabs(p->x - x) < 1e-9)
			return p;
	}
	return NULL;
}

const struct result_point *
result_point_find_label_opt(const struct run_result *r, const char *chart,
			    const char *series, const char *x_label)
{
	for (int i = 0; i < r->npoints; i++) {
		const struct result_point *p = &r->points[i];
		if (streq(p->chart, chart) && streq(p->series, series) &&
		    streq(p->x_label, x_label))
			return p;
	}
	return NULL;
}

int result_summary_get_opt(const struct run_result *r, const char *key,
			   double *out)
{
	for (int i = r->nsummary - 1; i >= 0; i--)
		if (streq(r->summary[i].key, key)) {
			*out = r->summary[i].value;
			return 0;
		}
	return -1;
}

static const struct result_placement *
result_placement_find_opt(const struct run_result *r, const char *label)
{
	for (int i = 0; i < r->nplacements; i++)
		if (streq(r->placements[i].label, label))
			return &r->placements[i];
	return NULL;
}

/* Tells a complete run's trace hook what a lookup did not find. */
__attribute__((format(printf, 2, 3))) static void
missing(const struct run_result *r, const char *fmt, ...)
{
	char what[VERDICT_TEXT_LEN];
	va_list ap;

	if (!r->trace || !r->complete)
		return;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	r->trace(r->trace_arg, what);
}

static const char *text_or(const char *s)
{
	return s ? s : "(null)";
}

const struct result_point *result_point_find(const struct run_result *r,
					     const char *chart,
					     const char *series, double x)
{
	const struct result_point *p =
		result_point_find_opt(r, chart, series, x);

	if (!p)
		missing(r, "point of chart '%s', series '%s' at x = %g",
			text_or(chart), text_or(series), x);
	return p;
}

const struct result_point *result_point_find_label(const struct run_result *r,
						   const char *chart,
						   const char *series,
						   const char *x_label)
{
	const struct result_point *p =
		result_point_find_label_opt(r, chart, series, x_label);

	if (!p)
		missing(r, "point of chart '%s', series '%s' at '%s'",
			text_or(chart), text_or(series), text_or(x_label));
	return p;
}

int result_summary_get(const struct run_result *r, const char *key, double *out)
{
	int rc = result_summary_get_opt(r, key, out);

	if (rc)
		missing(r, "summary key '%s'", text_or(key));
	return rc;
}

const struct result_placement *result_placement_find(const struct run_result *r,
						     const char *label)
{
	const struct result_placement *p = result_placement_find_opt(r, label);

	if (!p)
		missing(r, "placement '%s'", text_or(label));
	return p;
}

int result_point_extra(const struct result_point *p, const char *key,
		       double *out)
{
	for (int i = 0; p && i < p->nextra; i++)
		if (streq(p->extra_keys[i], key)) {
			*out = p->extra_vals[i];
			return 0;
		}
	return -1;
}

static int cpu_of(const struct thread_place *t)
{
	return t->cpu_observed >= 0 ? t->cpu_observed : t->cpu_requested;
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	/* not x - y: an imported run's cpu numbers may be INT_MAX and -1 */
	return (x > y) - (x < y);
}

/* The sorted CPUs of a placement into out (cap entries). Returns the count. */
static int sorted_cpus(const struct result_placement *p, int *out, int cap)
{
	int n = 0;

	for (int i = 0; i < p->n && n < cap; i++)
		out[n++] = cpu_of(&p->t[i]);
	qsort(out, (size_t)n, sizeof(int), cmp_int);
	return n;
}

int result_placement_same_cpus(const struct result_placement *a,
			       const struct result_placement *b)
{
	int ca[1024], cb[1024], na, nb;

	if (!a || !b || a->n != b->n)
		return 0;
	na = sorted_cpus(a, ca, 1024);
	nb = sorted_cpus(b, cb, 1024);
	return na == nb && !memcmp(ca, cb, (size_t)na * sizeof(int));
}

int result_placement_distinct_cpus(const struct result_placement *p)
{
	int c[1024], n, d = 0;

	if (!p)
		return 0;
	n = sorted_cpus(p, c, 1024);
	for (int i = 0; i < n; i++)
		if (c[i] >= 0 && (i == 0 || c[i] != c[i - 1]))
			d++;
	return d;
}

int result_placement_distinct_cores(const struct result_placement *p)
{
	int d = 0;

	for (int i = 0; p && i < p->n; i++) {
		int core = p->t[i].core, seen = 0;
		if (core < 0)
			continue;
		for (int k = 0; k < i && !seen; k++)
			seen = p->t[k].core == core;
		d += !seen;
	}
	return d;
}

int topo_plan_siblings(const struct topo *t, const int *plan, int n, int *a,
		       int *b)
{
	for (int i = 0; i < n; i++) {
		const struct topo_pu *p =
			plan[i] >= 0 ? topo_pu_by_os(t, plan[i]) : NULL;
		for (int k = 0; p && k < i; k++) {
			const struct topo_pu *q =
				plan[k] >= 0 ? topo_pu_by_os(t, plan[k]) : NULL;
			if (q && q->os != p->os && q->core == p->core) {
				*a = q->os;
				*b = p->os;
				return 1;
			}
		}
	}
	return 0;
}

int topo_plan_distinct(const int *plan, int n)
{
	int d = 0;

	for (int i = 0; i < n; i++) {
		int seen = plan[i] < 0;
		for (int k = 0; k < i && !seen; k++)
			seen = plan[k] == plan[i];
		d += !seen;
	}
	return d;
}

void verdict_emit(const struct verdict *v, struct sink *s,
		  const struct run_result *r)
{
	for (int i = 0; i < v->nnotes; i++)
		sink_note(s, v->notes[i].level, "%s", v->notes[i].text);
	for (int i = 0; i < v->nintervals; i++) {
		const char *key = v->intervals[i].key;
		for (int k = 0; r && k < r->nsummary; k++)
			if (r->summary[k].key &&
			    !strcmp(r->summary[k].key, key))
				sink_summary_interval(
					s, key, r->summary[k].value,
					v->intervals[i].lo, v->intervals[i].hi,
					r->summary[k].unit);
	}
	/* the qualifiers before the headline: a reader that shows the headline
	 * already knows which numbers it may not show */
	for (int i = 0; i < v->nqualifiers; i++)
		sink_qualify(s, v->qualifiers[i].key,
			     verdict_qualifier_name(v->qualifiers[i].kind),
			     v->qualifiers[i].why);
	if (v->headline[0])
		sink_headline(s, "%s", v->headline);
}

int machine_cache_implausible(const struct machine_facts *m)
{
	int cores = m->ncores > 0 ? m->ncores : m->npus;
	int per;

	if (!m->llc_bytes || cores <= 0 || m->llc_instances <= 0)
		return 0;
	/* the cores under one instance: a private cache has one */
	per = cores / m->llc_instances;
	if (per < 1)
		per = 1;
	return m->llc_bytes > RULES_LLC_MOST_PER_CORE * (uint64_t)per;
}

int machine_cache_unknown(const struct machine_facts *m)
{
	return !m->llc_bytes || m->llc_instances <= 0;
}

uint64_t machine_llc_judged(const struct machine_facts *m)
{
	int cores = m->ncores > 0 ? m->ncores : m->npus;

	if (machine_cache_implausible(m) || machine_cache_unknown(m))
		return RULES_LLC_PLAUSIBLE_PER_CORE *
		       (uint64_t)(cores > 0 ? cores : 1);
	return machine_llc_total(m);
}
