/* experiment_parse.c - the params every experiment shares, and parsing a request for one */
#include "adapt.h"
#include "experiment.h"
#include "mem_size.h"

#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strbuf.h"
#include "units.h"

static const struct param_choice strategies[] = {{"spread", PLACE_SPREAD},
						 {"compact", PLACE_COMPACT},
						 {"os", PLACE_OS},
						 {0}};

#define PARAM_STRUCT struct common_params
const struct param placement_params[] = {
	PARAM_CPULIST(
		cpus, "", 0, 65535,
		"run thread i on the i-th CPU of this list (e.g. 0,2-3); empty: use the placement strategy"),
	PARAM_ENUM(
		placement, "spread", strategies,
		"spread: as far apart as possible (nodes, caches, cores); compact: as close as possible; os: no pinning. Read only while 'cpus' is empty",
		.only = "cpus="),
	{0}};

const struct param common_params[] = {
	PARAM_INT(
		repeat, "5", 1, 1000, "rounds",
		"the least timed rounds per point: the point is their median; more follow while its 95% interval is wider than the experiment's precision and the budget lasts"),
	PARAM_INT(warmup, "1", 0, 100, "rounds",
		  "untimed rounds before the timed ones"),
	PARAM_TEXT(
		budget, "auto", adapt_parse_budget,
		"seconds the rounds may grow into, and redo rounds where the threads ran apart or were preempted: auto (3x the run's estimate, within the server's limit) or 0-3600 (0: exactly 'repeat' rounds, none redone)"),
	{0}};

const struct param *experiment_param(const struct experiment *exp,
				     const char *name, size_t len)
{
	const struct param *tables[3];
	int nt = 0;

	tables[nt++] = exp->params;
	if (exp->uses_placement)
		tables[nt++] = placement_params;
	tables[nt++] = common_params;
	return params_find(tables, nt, name, len);
}

const struct part *experiment_param_part(const struct experiment *exp,
					 const char *name)
{
	for (const struct part *p = exp->parts; p && p->name; p++)
		for (const char *const *r = p->reads; r && *r; r++)
			if (!strcmp(*r, name))
				return p;
	return NULL;
}

/* Trims a PARAM_F_CPUS default ("1-4") to the CPUs the machine allows. */
static void trim_default(const struct param *p, const struct topo *t, char *buf,
			 size_t len)
{
	int32_t v[PARAM_MAX_LIST];
	struct errinfo err;
	int n = parse_int_list(p->def, p->min, p->max, v, PARAM_MAX_LIST, &err);
	int k = 0;

	snprintf(buf, len, "%s", p->def);
	if (n <= 0)
		return;
	for (int i = 0; i < n; i++)
		if (v[i] <= t->nallowed)
			v[k++] = v[i];
	if (k == 0)
		v[k++] = t->nallowed > 0 ? t->nallowed : 1;
	format_int_list(v, k, buf, len);
}

/*
 * A PARAM_F_MEMORY default: mem_default_bytes (mem_size.h), the one
 * rule its help states, from the smallest node's size.
 */
static void memory_default(const struct topo *t, char *buf, size_t len)
{
	struct machine_facts m;
	uint64_t least = 0;

	machine_facts_from_topo(t, &m);
	/* the node's size, not what is free now: a default must not move
	 * from one call to the next */
	for (int i = 0; i < t->nnodes; i++)
		if (t->node[i].mem_total &&
		    (!least || t->node[i].mem_total < least))
			least = t->node[i].mem_total;
	snprintf(buf, len, "%lluM",
		 (unsigned long long)(mem_default_bytes(&m, least) >> 20));
}
static int count_params(const struct param *p)
{
	int n = 0;

	while (p && p[n].name)
		n++;
	return n;
}

/* How many params exp takes in all: its own, placement's, the common ones. */
static int total_params(const struct experiment *exp)
{
	return count_params(exp->params) +
	       (exp->uses_placement ? count_params(placement_params) : 0) +
	       count_params(common_params);
}
int experiment_params_over_limit(const struct experiment *exp,
				 struct errinfo *err)
{
	int n = total_params(exp);

	if (n <= PARAM_MAX_PER_EXP)
		return 0;
	return errinfo_set(
		err, NULL,
		"experiment '%s' takes %d parameters with the common ones, over the limit of %d (PARAM_MAX_PER_EXP)",
		exp->name, n, PARAM_MAX_PER_EXP);
}

static int own_row(const struct experiment *exp, const struct param *p)
{
	int n = count_params(exp->params);

	return p >= exp->params && p < exp->params + n;
}

/*
 * A bad value for a thread count: the row's range is what the param takes
 * anywhere, this machine's cpus what a run can use here; the error says
 * both, as --help's range is this machine's.
 */
static void cpus_said(const struct experiment *exp, const struct topo *t,
		      struct errinfo *err)
{
	size_t len = strlen(err->msg);

	if (!t || !err->field[0])
		return;
	for (const struct param *p = exp->params; p && p->name; p++)
		if ((p->flags & PARAM_F_CPUS) && !strcmp(p->name, err->field)) {
			snprintf(err->msg + len, sizeof(err->msg) - len,
				 "; this process may use %d %s here (%s)",
				 t->nallowed,
				 units_plural(t->nallowed, "cpu", "cpus"),
				 t->allowed_text);
			return;
		}
}

/*
 * Parses the k=v texts against exp's tables (trimming PARAM_F_CPUS
 * defaults to t and sizing PARAM_F_MEMORY ones from its caches when t
 * is given) and stores every value in params or
 * common. Returns 0 or -EINVAL with err set.
 */
static int parse_tables(const struct experiment *exp, const struct topo *t,
			int argc, char *const *argv, struct param_values *pv,
			void *params, struct common_params *common,
			struct errinfo *err)
{
	const struct param *tables[3];
	struct param trimmed[PARAM_MAX_PER_EXP + 1];
	char defs[PARAM_MAX_PER_EXP][64];
	int nt = 0, np = 0, rc;

	memset(err, 0, sizeof(*err));
	if (experiment_params_over_limit(exp, err))
		return -EINVAL;
	/* a copy of the table with machine-dependent defaults trimmed */
	for (const struct param *p = exp->params; p->name; p++) {
		trimmed[np] = *p;
		if ((p->flags & PARAM_F_CPUS) && t) {
			trim_default(p, t, defs[np], sizeof(defs[np]));
			trimmed[np].def = defs[np];
		}
		if ((p->flags & PARAM_F_MEMORY) && t) {
			memory_default(t, defs[np], sizeof(defs[np]));
			trimmed[np].def = defs[np];
		}
		if (p->machine_def && t) {
			p->machine_def(t, defs[np], sizeof(defs[np]));
			trimmed[np].def = defs[np];
		}
		np++;
	}
	memset(&trimmed[np], 0, sizeof(trimmed[np]));
	tables[nt++] = trimmed;
	if (exp->uses_placement)
		tables[nt++] = placement_params;
	tables[nt++] = common_params;
	rc = params_parse(tables, nt, argc, argv, pv, err);
	if (rc) {
		cpus_said(exp, t, err);
		return rc;
	}
	/* point every value back at the real table row */
	for (int i = 0; i < pv->n; i++)
		if (pv->v[i].p >= trimmed && pv->v[i].p < trimmed + np)
			pv->v[i].p = exp->params + (pv->v[i].p - trimmed);
	memset(common, 0, sizeof(*common));
	common->placement = PLACE_SPREAD;
	memset(params, 0, exp->params_size);
	for (int i = 0; i < pv->n; i++)
		param_store(&pv->v[i],
			    own_row(exp, pv->v[i].p) ? params : (void *)common);
	/* an experiment that takes exactly its rounds has no budget to grow
	 * into: its estimate, quiet or busy, counts none */
	if (experiment_never_reads(exp, "budget"))
		common->budget = 0;
	return 0;
}

/* The value of the param named by the n bytes of name among pv; NULL: none. */
static const struct param_value *value_named(const struct param_values *pv,
					     const char *name, size_t n)
{
	for (int i = 0; i < pv->n; i++)
		if (strlen(pv->v[i].p->name) == n &&
		    !strncmp(pv->v[i].p->name, name, n))
			return &pv->v[i];
	return NULL;
}

/*
 * The choices of want (n bytes, comma separated) in words, the first
 * after name= for an enum ("mode=sizes or loaded"), bare for a set.
 */
static void choices_said(struct strbuf *sb, const char *name, const char *want,
			 size_t n, int set)
{
	const char *end = want + n;

	if (!set)
		strbuf_addf(sb, "%s=", name);
	while (want < end) {
		size_t k = strcspn(want, ",");
		const char *next;

		if (k > (size_t)(end - want))
			k = (size_t)(end - want);
		next = want + k + 1;
		strbuf_add(sb, want, k);
		if (next < end)
			strbuf_addstr(sb,
				      memchr(next, ',', (size_t)(end - next))
					      ? ", "
					      : " or ");
		want = next;
	}
}

/* Why p (its only failing against on, the value it names) is not read. */
static void only_said(const struct param *p, const struct param_value *on,
		      struct errinfo *why)
{
	const char *want = strchr(p->only, '=') + 1;
	size_t n = strlen(want);
	struct strbuf sb = STRBUF_INIT;
	int set = on->p->type == PARAM_SET;

	if (!n)
		strbuf_addf(&sb, "while '%s' is empty", on->p->name);
	else if (set)
		strbuf_addf(&sb, "when '%s' has %s", on->p->name,
			    strchr(want, ',') ? "one of " : "");
	else
		strbuf_addstr(&sb, "in ");
	if (n)
		choices_said(&sb, on->p->name, want, n, set);
	errinfo_set(why, p->name, "'%s' is read only %s (%s is %s)", p->name,
		    strbuf_str(&sb), on->p->name, on->text);
	strbuf_release(&sb);
}

int experiment_reads(const struct experiment *exp, const struct param *p,
		     const struct param_values *pv, struct errinfo *why)
{
	const char *eq = p->only ? strchr(p->only, '=') : NULL;
	const struct unread_param *u = experiment_unread(exp, p->name);
	struct param here;

	if (u && !u->only) {
		if (why)
			errinfo_set(why, p->name, "'%s' is not read by %s: %s",
				    p->name, exp->name, u->why);
		return 0;
	}
	/* read here only where the experiment's own condition holds */
	if (u && strchr(u->only, '=')) {
		const char *on = u->only;
		here = *p;
		here.only = on;
		if (!param_applies(&here, pv)) {
			if (why)
				only_said(&here,
					  value_named(pv, on, strcspn(on, "=")),
					  why);
			return 0;
		}
	}
	if (!eq || param_applies(p, pv))
		return 1;
	/* param_applies found the param only names, holding another value */
	if (why)
		only_said(p, value_named(pv, p->only, (size_t)(eq - p->only)),
			  why);
	return 0;
}

int experiment_check_read(const struct experiment *exp, int argc,
			  char *const *argv, const struct param_values *pv,
			  struct errinfo *err)
{
	for (int a = 0; a < argc; a++) {
		const struct param_value *v =
			value_named(pv, argv[a], strcspn(argv[a], "="));

		if (v && !experiment_reads(exp, v->p, pv, err))
			return -EINVAL;
	}
	return 0;
}

/* The placement and thread-count checks of PARAM_F_CPUS values against t. */
static int check_cpus(const struct experiment *exp, const struct topo *t,
		      const struct param_values *pv,
		      const struct common_params *common, struct errinfo *err)
{
	for (int i = 0; i < pv->n; i++) {
		const struct param_value *v = &pv->v[i];
		int64_t most = 0;
		int rc;

		/* a count the run will not read plans no thread */
		if (!(v->p->flags & PARAM_F_CPUS) ||
		    !experiment_reads(exp, v->p, pv, NULL))
			continue;
		for (int k = 0; k < v->n; k++)
			if (v->list[k] > most)
				most = v->list[k];
		if (v->p->type == PARAM_INT)
			most = v->i;
		if (exp->uses_placement) {
			int plan[PARAM_MAX_LIST];
			if (most > PARAM_MAX_LIST)
				most = PARAM_MAX_LIST;
			rc = topo_plan(t, common->placement, common->cpus.v,
				       common->cpus.n, (int)most, plan, err);
			if (rc) {
				snprintf(err->field, sizeof(err->field), "%s",
					 common->cpus.n ? "cpus" : v->p->name);
				return rc;
			}
		} else if (most > t->nallowed) {
			return errinfo_set(
				err, v->p->name,
				"'%s' asks for %lld threads, but only %d %s available to this process (allowed: %s)",
				v->p->name, (long long)most, t->nallowed,
				units_plural(t->nallowed, "cpu is", "cpus are"),
				t->allowed_text);
		}
	}
	return 0;
}

int experiment_parse(const struct experiment *exp, const struct topo *t,
		     int argc, char *const *argv, struct param_values *pv,
		     void *params, struct common_params *common,
		     struct errinfo *err)
{
	struct common_params *own_common = NULL;
	void *own_params = NULL;
	int rc = -ENOMEM;

	if (!common)
		common = own_common = malloc(sizeof(*common));
	if (!params)
		params = own_params =
			calloc(1, exp->params_size ? exp->params_size : 1);
	if (!common || !params) {
		errinfo_set(err, NULL, "out of memory");
		goto out;
	}
	rc = parse_tables(exp, t, argc, argv, pv, params, common, err);
	if (!rc)
		rc = experiment_check_read(exp, argc, argv, pv, err);
	if (!rc && t)
		rc = check_cpus(exp, t, pv, common, err);
	if (!rc && exp->check)
		rc = exp->check(params, common, t, err);
out:
	free(own_common);
	free(own_params);
	return rc;
}

int experiment_check_elsewhere(const struct experiment *exp, int argc,
			       char *const *argv, struct errinfo *err)
{
	struct param_values *pv = malloc(sizeof(*pv));
	void *params = calloc(1, exp->params_size ? exp->params_size : 1);
	struct common_params common;
	struct errinfo perr;
	int rc = -ENOMEM;

	if (!pv || !params) {
		errinfo_set(err, NULL, "out of memory");
		goto out;
	}
	rc = 0;
	if (!parse_tables(exp, NULL, argc, argv, pv, params, &common, &perr))
		rc = experiment_check_read(exp, argc, argv, pv, err);
out:
	free(pv);
	free(params);
	return rc;
}

int experiment_parse_recorded(const struct experiment *exp, int argc,
			      char *const *argv, struct param_values *pv,
			      void *params, struct common_params *common,
			      struct errinfo *err)
{
	return parse_tables(exp, NULL, argc, argv, pv, params, common, err);
}
