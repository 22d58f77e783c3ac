/* rules.c - the rulebook: what an experiment's comparisons need, checked before and after every run */
#include "rules.h"

#include <fnmatch.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "declares.h"
#include "mem_size.h"
#include "team.h"
#include "topo.h"

/* The most values of one param the rules look at (a sweep's elements). */
#define RULES_MAX_VALUES PARAM_MAX_LIST

/* "this machine reports 508 MiB of L3 per core, which no real cache has",
 * or that it names none: what sizes are judged against instead */
static void judged_cache_note(const struct machine_facts *m, struct verdict *v)
{
	int cores = m->ncores > 0 ? m->ncores : m->npus;
	int per = m->llc_instances > 0 ? cores / m->llc_instances : 1;
	char each[32], judged[32];

	mem_size_text(m->llc_bytes / (uint64_t)(per > 0 ? per : 1), each,
		      sizeof(each));
	mem_size_text(machine_llc_judged(m), judged, sizeof(judged));
	if (machine_cache_unknown(m)) {
		char whose[48] = "names no cache";
		if (m->llc_level > 0)
			snprintf(whose, sizeof(whose),
				 "gives no size for its L%d cache",
				 m->llc_level);
		verdict_note(
			v, "info",
			"this machine's topology %s: sizes are judged against a plausible %s of cache in all (%llu MiB per core)",
			whose, judged,
			(unsigned long long)(RULES_LLC_PLAUSIBLE_PER_CORE >>
					     20));
		return;
	}
	if (!machine_cache_implausible(m))
		return;
	verdict_note(
		v, "info",
		"this machine reports %s of L%d per core, which no real cache has (%s): sizes are judged against a plausible %s of L%d in all (%llu MiB per core)",
		each, m->llc_level,
		m->vm == 1 ? "a virtual machine's report"
			   : "a report of its firmware or hypervisor",
		judged, m->llc_level,
		(unsigned long long)(RULES_LLC_PLAUSIBLE_PER_CORE >> 20));
}

/* The row of exp's own table named name, or NULL. */
static const struct param *own_param(const struct experiment *exp,
				     const char *name)
{
	for (const struct param *p = exp->params; name && p && p->name; p++)
		if (!strcmp(p->name, name))
			return p;
	return NULL;
}

/*
 * The values row p holds in params (an INT or SIZE one, a SWEEP's
 * elements) into out (cap of them). Returns their count, 0 when the row
 * holds no number.
 */
static int values_of(const struct param *p, const void *params, int64_t *out,
		     int cap)
{
	const char *field;
	const struct int_list *l;
	int n = 0;

	if (!p || !params)
		return 0;
	field = (const char *)params + p->offset;
	switch (p->type) {
	case PARAM_INT:
	case PARAM_SIZE:
		memcpy(&out[0], field, sizeof(int64_t));
		return 1;
	case PARAM_SWEEP:
		l = (const struct int_list *)(const void *)field;
		for (int i = 0; i < l->n && n < cap; i++)
			out[n++] = l->v[i];
		return n;
	default:
		return 0;
	}
}

/* The largest value of the rule's param; dflt when it names none. */
static int64_t most_of(const struct experiment *exp, const struct rule *r,
		       const void *params, int64_t dflt)
{
	int64_t *vals = calloc(RULES_MAX_VALUES, sizeof(*vals));
	int64_t most = 0;
	int n = vals ? values_of(own_param(exp, r->param), params, vals,
				 RULES_MAX_VALUES)
		     : 0;

	for (int i = 0; i < n; i++)
		if (vals[i] > most)
			most = vals[i];
	free(vals);
	return n > 0 ? most : dflt;
}

static const char *what_of(const struct rule *r, const char *dflt)
{
	return r->what && *r->what ? r->what : dflt;
}

/* The first failed rule's sentence is the findings' why; each says its
 * own note. */
__attribute__((format(printf, 3, 4))) static void
fail(struct rule_findings *f, struct verdict *v, const char *fmt, ...)
{
	char why[VERDICT_TEXT_LEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	if (!f->failed)
		snprintf(f->why, sizeof(f->why), "%s", why);
	f->failed = 1;
	verdict_note(v, "cannot", "%s", why);
}

/* How many of the n sizes read from cache on m. */
static int count_from_cache(const struct machine_facts *m, const int64_t *sz,
			    int n)
{
	int k = 0;

	for (int i = 0; i < n; i++)
		k += sz[i] >= 0 && mem_from_cache(m, (uint64_t)sz[i]);
	return k;
}

static void precheck_memory(const struct experiment *exp, const struct rule *r,
			    const void *params, const struct machine_facts *m,
			    struct verdict *v)
{
	int64_t *sz = calloc(RULES_MAX_VALUES, sizeof(*sz));
	int n = sz ? values_of(own_param(exp, r->param), params, sz,
			       RULES_MAX_VALUES)
		   : 0;
	int k = count_from_cache(m, sz, n);
	char size[32], floor[32], cache[160];

	if (k > 0) {
		mem_size_text((uint64_t)sz[0], size, sizeof(size));
		mem_size_text(mem_llc_floor(m), floor, sizeof(floor));
		mem_cache_words(m, cache, sizeof(cache));
		if (n == 1)
			verdict_note(
				v, "cannot",
				"'%s' of %s is under %s, %d times %s: %s would come from cache, not memory",
				r->param, size, floor, MEM_LLC_MULTIPLE, cache,
				what_of(r, "its figures"));
		else
			verdict_note(
				v, k == n ? "cannot" : "warn",
				"%d of the %d sizes of '%s' are under %s, %d times %s: their figures would come from cache, not memory",
				k, n, r->param, floor, MEM_LLC_MULTIPLE, cache);
	}
	free(sz);
}

/*
 * Distinct cpus is all the rule asks: threads on SMT siblings do run
 * together, and what a shared core changes is each experiment's to say.
 */
static void precheck_cpus(const struct experiment *exp, const struct rule *r,
			  const void *params,
			  const struct common_params *common,
			  const struct topo *t, struct verdict *v)
{
	int64_t n = most_of(exp, r, params, 2);
	const char *what = what_of(r, "the comparison");
	struct errinfo err;
	int *plan;

	if (n < 2)
		return;
	if (t->nallowed < 2) {
		verdict_note(
			v, "cannot",
			"this process may use only cpu %s: the threads would take turns on it instead of running together, so %s cannot be shown",
			t->allowed_text, what);
		return;
	}
	if (!exp->uses_placement || !common || common->placement == PLACE_OS)
		return;
	plan = calloc((size_t)n, sizeof(*plan));
	/* a plan that fails is the parse's to report */
	if (plan &&
	    !topo_plan(t, common->placement, common->cpus.v, common->cpus.n,
		       (int)n, plan, &err) &&
	    topo_plan_distinct(plan, (int)n) < 2)
		verdict_note(
			v, "cannot",
			"the placement puts every thread on cpu %d: the threads would take turns instead of running together, so %s cannot be shown",
			plan[0], what);
	free(plan);
}

static void precheck_together(const struct experiment *exp,
			      const struct rule *r, const void *params,
			      const struct topo *t, struct verdict *v)
{
	int64_t n = most_of(exp, r, params, 0);

	if (t->nallowed > 0 && n > t->nallowed)
		verdict_note(
			v, "warn",
			"%lld threads on %d cpus cannot all run at once: %s would be measured with threads taking turns, a lower bound at best",
			(long long)n, t->nallowed,
			what_of(r, "the comparison"));
}

/*
 * The node count only: whether the kernel offers the NUMA calls is each
 * experiment's own check (a captured topology has none to offer).
 */
static void precheck_nodes(const struct rule *r, const struct machine_facts *m,
			   struct verdict *v)
{
	int need = r->floor >= 1 ? (int)r->floor : 2;

	if (m->nnodes < need)
		verdict_note(
			v, "cannot",
			"this machine has %d NUMA node%s: %s needs at least %d",
			m->nnodes, m->nnodes == 1 ? "" : "s",
			what_of(r, "the comparison"), need);
}

void rules_precheck(const struct experiment *exp, const void *params,
		    const struct common_params *common, const struct topo *t,
		    struct verdict *v)
{
	struct machine_facts m;
	int memory = 0;

	if (!exp || !exp->rules || !t)
		return;
	machine_facts_from_topo(t, &m);
	for (const struct rule *r = exp->rules; r->kind != RULE_END; r++) {
		switch (r->kind) {
		case RULE_MEMORY:
			if (!memory++)
				judged_cache_note(&m, v);
			precheck_memory(exp, r, params, &m, v);
			break;
		case RULE_CPUS:
			precheck_cpus(exp, r, params, common, t, v);
			break;
		case RULE_TOGETHER:
			precheck_together(exp, r, params, t, v);
			break;
		case RULE_NODES:
			precheck_nodes(r, &m, v);
			break;
		default:
			break;
		}
	}
}

static void describe_memory(const struct run_result *rr, const struct rule *r,
			    const struct machine_facts *m,
			    struct rule_findings *f, struct verdict *v)
{
	int64_t *sz = calloc(RULES_MAX_VALUES, sizeof(*sz));
	int n = sz ? values_of(own_param(rr->exp, r->param), rr->params, sz,
			       RULES_MAX_VALUES)
		   : 0;
	int k = count_from_cache(m, sz, n);
	const char *what = what_of(r, "its figures");
	char floor[32], cache[160];

	f->mem_floor = mem_llc_floor(m);
	f->from_cache += k;
	mem_size_text(f->mem_floor, floor, sizeof(floor));
	if (n == 1)
		mem_cache_note(m, (uint64_t)sz[0], what, v);
	else if (k > 0)
		verdict_note(
			v, "warn",
			"%d of the %d sizes of '%s' are under %s, %d times %s: their figures came from cache, not memory (labelled \"from cache\")",
			k, n, r->param, floor, MEM_LLC_MULTIPLE,
			mem_cache_words(m, cache, sizeof(cache)));
	if (n == 1 && k == 1 && f->mem_floor) {
		char size[32];
		mem_size_text((uint64_t)sz[0], size, sizeof(size));
		fail(f, v,
		     "%s cannot be stated for memory: the buffer of %s is under %s, so the figures came from cache",
		     what, size, floor);
	} else if (n > 1 && k == n && f->mem_floor)
		fail(f, v,
		     "%s cannot be stated for memory: every size of '%s' is under %s, so the figures came from cache",
		     what, r->param, floor);
	free(sz);
}

static void describe_together(const struct run_result *rr, const struct rule *r,
			      struct rule_findings *f, struct verdict *v)
{
	double least = 1, corun = 1, o;
	double floor = r->floor > 0 ? r->floor : 0.5;
	const char *what = what_of(r, "the slowdown");

	for (int i = 0; i < rr->npoints; i++) {
		if (!result_point_extra(&rr->points[i], "overlap", &o) &&
		    o < least)
			least = o;
		if (!result_point_extra(&rr->points[i], "corun", &o) &&
		    o < corun)
			corun = o;
	}
	if (least < f->together)
		f->together = least;
	if (least < floor)
		fail(f, v,
		     "%s cannot be stated: the threads ran together only %.0f%% of a round at worst, under the %.0f%% it needs, so they mostly took turns",
		     what, least * 100, floor * 100);
	else if (least < CMP_FULL_OVERLAP) {
		f->lower_bound = 1;
		verdict_note(
			v, "warn",
			"a lower bound: the threads ran together only %.0f%% of a round, so %s is at least what is shown and may be larger",
			least * 100, what);
	}
	/* timed from the stretches all threads ran (team_job.work) */
	if (least >= floor && corun < CMP_FULL_OVERLAP)
		verdict_note(
			v, "info",
			"%s is timed over the stretches of each round when every thread was on a cpu at once: the least share of a round every thread was on a cpu at once was %.0f%% (a round stands on at least %d spans between its progress marks, or is measured again); the rest, when a thread was off its cpu (another process held it) or had finished its share, is left out rather than averaged in",
			what, round(corun * 100), TEAM_CORUN_LEAST);
}

static int cpu_of(const struct thread_place *t)
{
	return t->cpu_observed >= 0 ? t->cpu_observed : t->cpu_requested;
}

static void describe_cpus(const struct run_result *rr, const struct rule *r,
			  const struct machine_facts *m,
			  struct rule_findings *f, struct verdict *v)
{
	const char *what = what_of(r, "the comparison");

	for (int i = 0; i < rr->nplacements; i++) {
		const struct result_placement *p = &rr->placements[i];
		if (p->n < 2 || result_placement_distinct_cpus(p) != 1)
			continue;
		f->one_cpu = 1;
		fail(f, v,
		     "%s cannot be stated: the %d threads of '%s' all ran on cpu %d, taking turns instead of running together",
		     what, p->n, p->label ? p->label : "", cpu_of(&p->t[0]));
		return;
	}
	if (m && m->nallowed == 1) {
		f->one_cpu = 1;
		fail(f, v,
		     "%s cannot be stated: the run could use only one cpu, so its threads took turns instead of running together",
		     what);
	}
}

static void describe_nodes(const struct rule *r, const struct machine_facts *m,
			   struct rule_findings *f, struct verdict *v)
{
	int need = r->floor >= 1 ? (int)r->floor : 2;

	/* a stored run whose machine record names no nodes: unknown */
	if (m->nnodes <= 0 || m->nnodes >= need)
		return;
	f->few_nodes = 1;
	fail(f, v,
	     "%s cannot be shown: this machine has %d NUMA node%s and it needs at least %d",
	     what_of(r, "the comparison"), m->nnodes, m->nnodes == 1 ? "" : "s",
	     need);
}

static void describe_differ(const struct run_result *rr, const struct rule *r,
			    struct rule_findings *f, struct verdict *v)
{
	const struct result_placement *first = NULL;
	int matched = 0, same = 1;

	for (int i = 0; i < rr->nplacements; i++) {
		const struct result_placement *p = &rr->placements[i];
		if (!p->label || !r->param || fnmatch(r->param, p->label, 0))
			continue;
		matched++;
		if (!first)
			first = p;
		else if (!result_placement_same_cpus(first, p))
			same = 0;
	}
	if (matched < 2 || !same)
		return;
	f->same_placement = 1;
	fail(f, v,
	     "%s cannot be stated: the %d placements compared ran on the same cpus, so they measured the same thing",
	     what_of(r, "the comparison"), matched);
}

void rules_describe(const struct run_result *r, struct rule_findings *f,
		    struct verdict *v)
{
	const struct machine_facts *m = r->machine;
	int memory = 0;

	memset(f, 0, sizeof(*f));
	f->together = 1;
	if (!r->exp || !r->exp->rules)
		return;
	f->checked = 1;
	f->cache_implausible = m && machine_cache_implausible(m);
	for (const struct rule *k = r->exp->rules; k->kind != RULE_END; k++) {
		switch (k->kind) {
		case RULE_MEMORY:
			if (!m)
				break;
			if (!memory++)
				judged_cache_note(m, v);
			describe_memory(r, k, m, f, v);
			break;
		case RULE_TOGETHER:
			describe_together(r, k, f, v);
			break;
		case RULE_CPUS:
			describe_cpus(r, k, m, f, v);
			break;
		case RULE_NODES:
			if (m)
				describe_nodes(k, m, f, v);
			break;
		case RULE_PLACEMENTS_DIFFER:
			describe_differ(r, k, f, v);
			break;
		default:
			break;
		}
	}
}
