/* experiment.c - params every experiment shares, and parsing a request for one */
#include "experiment.h"
#include "adapt.h"
#include "lesson.h"
#include "rates.h"
#include "record.h"
#include "strvec.h"
#include "verdict_mem.h"

#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
		"spread: as far apart as possible (nodes, caches, cores); compact: as close as possible; os: no pinning"),
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

const struct experiment *experiment_find(const char *name)
{
	for (int i = 0; experiments[i]; i++)
		if (!strcmp(experiments[i]->name, name))
			return experiments[i];
	return NULL;
}

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

/* Trims a PARAM_F_CPUS default ("1-4") to the CPUs the machine allows. */
static void trim_default(const struct param *p, const struct topo *t, char *buf,
			 size_t len)
{
	int32_t v[PARAM_MAX_LIST];
	char msg[PARAM_ERR_LEN];
	int n = parse_int_list(p->def, p->min, p->max, v, PARAM_MAX_LIST, msg,
			       sizeof(msg));
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
 * A PARAM_F_MEMORY default: mem_default_bytes (verdict_mem.h), the one
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

static int over_limit(const struct experiment *exp, struct errinfo *err)
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
	if (over_limit(exp, err))
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
	if (rc)
		return rc;
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

		if (!(v->p->flags & PARAM_F_CPUS))
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
				       common->cpus.n, (int)most, plan,
				       err->msg, sizeof(err->msg));
			if (rc) {
				snprintf(err->field, sizeof(err->field), "%s",
					 common->cpus.n ? "cpus" : v->p->name);
				return rc;
			}
		} else if (most > t->nallowed) {
			return errinfo_set(
				err, v->p->name,
				"'%s' asks for %lld threads, but only %d cpus are available to this process (allowed: %s)",
				v->p->name, (long long)most, t->nallowed,
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
	if (!rc && t)
		rc = check_cpus(exp, t, pv, common, err);
	if (!rc && exp->check)
		rc = exp->check(params, common, t, err);
out:
	free(own_common);
	free(own_params);
	return rc;
}

int experiment_parse_recorded(const struct experiment *exp, int argc,
			      char *const *argv, struct param_values *pv,
			      void *params, struct common_params *common,
			      struct errinfo *err)
{
	return parse_tables(exp, NULL, argc, argv, pv, params, common, err);
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

/* One table's rows: offsets that fit, choices that pair cleanly, defaults that
 * parse. */
static int validate_table(const struct experiment *exp,
			  const struct param *table, size_t size,
			  struct errinfo *err)
{
	for (const struct param *p = table; p->name; p++) {
		struct param_value *v;
		int rc;

		if (p->offset + param_row_size(p) > size)
			return errinfo_set(
				err, p->name,
				"experiment '%s': the field of '%s' (offset %zu, %zu bytes) does not fit its struct of %zu bytes",
				exp->name, p->name, p->offset,
				param_row_size(p), size);
		if ((p->type == PARAM_TEXT) !=
			    (p->parse != NULL && p->field_size > 0) ||
		    p->field_size > PARAM_TEXT_MAX)
			return errinfo_set(
				err, p->name,
				"experiment '%s': '%s' %s (a field of 1-%d bytes)",
				exp->name, p->name,
				p->type == PARAM_TEXT
					? "needs a parse hook and a field"
					: "has a parse hook but is not text",
				PARAM_TEXT_MAX);
		if ((p->type == PARAM_ENUM || p->type == PARAM_SET) !=
		    (p->choices != NULL))
			return errinfo_set(
				err, p->name,
				"experiment '%s': '%s' %s a choice list",
				exp->name, p->name,
				p->choices ? "must not have" : "needs");
		for (int i = 0; p->choices && p->choices[i].name; i++) {
			if (p->type == PARAM_SET &&
			    (p->choices[i].value < 0 ||
			     p->choices[i].value > PARAM_MAX_SET_VALUE))
				return errinfo_set(
					err, p->name,
					"experiment '%s': choice '%s' of set '%s' has value %d (allowed 0-%d)",
					exp->name, p->choices[i].name, p->name,
					p->choices[i].value,
					PARAM_MAX_SET_VALUE);
			for (int j = 0; j < i; j++) {
				if (!strcmp(p->choices[i].name,
					    p->choices[j].name))
					return errinfo_set(
						err, p->name,
						"experiment '%s': choice '%s' of '%s' is listed twice",
						exp->name, p->choices[i].name,
						p->name);
				if (p->choices[i].value == p->choices[j].value)
					return errinfo_set(
						err, p->name,
						"experiment '%s': choices '%s' and '%s' of '%s' have the same value %d",
						exp->name, p->choices[j].name,
						p->choices[i].name, p->name,
						p->choices[i].value);
			}
		}
		v = malloc(sizeof(*v));
		if (!v)
			return errinfo_set(err, NULL, "out of memory");
		rc = param_parse_value(p, p->def ? p->def : "", v, err);
		free(v);
		if (rc) {
			char why[ERRINFO_MSG_LEN];
			snprintf(why, sizeof(why), "%s", err->msg);
			return errinfo_set(
				err, p->name,
				"experiment '%s': the default of '%s' does not parse: %s",
				exp->name, p->name, why);
		}
	}
	return 0;
}

/* The smoke run is there and its params parse (as a recorded run's do). */
static int validate_smoke(const struct experiment *exp, struct errinfo *err)
{
	struct strvec argv = STRVEC_INIT;
	struct param_values *pv = calloc(1, sizeof(*pv));
	void *params = calloc(1, exp->params_size ? exp->params_size : 1);
	struct common_params common;
	struct errinfo perr;
	int rc = 0;

	if (!exp->smoke || !*exp->smoke)
		rc = errinfo_set(
			err, NULL,
			"experiment '%s' has no smoke run (.smoke = \"k=v ...\": the smallest run that draws its charts)",
			exp->name);
	else if (!pv || !params || params_text_argv(exp->smoke, &argv))
		rc = -ENOMEM;
	else if (experiment_parse_recorded(exp, (int)argv.n, argv.v, pv, params,
					   &common, &perr))
		rc = errinfo_set(
			err, perr.field,
			"experiment '%s': its smoke run does not parse: %s",
			exp->name, perr.msg);
	strvec_clear(&argv);
	free(params);
	free(pv);
	return rc;
}

/* The kinds whose .param names a param of the experiment's own table. */
static int rule_names_param(enum rule_kind k)
{
	return k == RULE_MEMORY || k == RULE_CPUS || k == RULE_TOGETHER;
}

static const char *const rule_kinds[] = {[RULE_END] = "end",
					 [RULE_MEMORY] = "RULE_MEMORY",
					 [RULE_TOGETHER] = "RULE_TOGETHER",
					 [RULE_CPUS] = "RULE_CPUS",
					 [RULE_NODES] = "RULE_NODES",
					 [RULE_PLACEMENTS_DIFFER] =
						 "RULE_PLACEMENTS_DIFFER"};

/* Whether summary_keys pattern s covers the compared pattern c: one
 * matches the other (a pattern matches itself). */
static int key_covers(const char *s, const char *c)
{
	return !strcmp(s, c) || !fnmatch(s, c, 0) || !fnmatch(c, s, 0);
}

/* The rulebook: every rule's param declared, every compared key emitted. */
static int validate_rules(const struct experiment *exp, struct errinfo *err)
{
	for (const struct rule *r = exp->rules; r && r->kind != RULE_END; r++) {
		const char *kind =
			r->kind > RULE_END && r->kind <= RULE_PLACEMENTS_DIFFER
				? rule_kinds[r->kind]
				: NULL;
		const struct param *p = NULL;

		if (!kind)
			return errinfo_set(
				err, NULL,
				"experiment '%s': a rule has unknown kind %d",
				exp->name, (int)r->kind);
		for (const struct param *q = exp->params; r->param && q->name;
		     q++)
			if (!strcmp(q->name, r->param))
				p = q;
		if (rule_names_param(r->kind) && r->param && !p)
			return errinfo_set(
				err, NULL,
				"experiment '%s': its %s rule names param '%s', which it does not declare",
				exp->name, kind, r->param);
		if (r->kind == RULE_MEMORY && !p)
			return errinfo_set(
				err, NULL,
				"experiment '%s': its RULE_MEMORY rule names no size param",
				exp->name);
		if (p && p->type != PARAM_INT && p->type != PARAM_SIZE &&
		    p->type != PARAM_SWEEP)
			return errinfo_set(
				err, p->name,
				"experiment '%s': its %s rule names '%s', a %s param, not a number or a sweep",
				exp->name, kind, p->name,
				param_type_name(p->type));
		if (r->kind == RULE_PLACEMENTS_DIFFER && !r->param)
			return errinfo_set(
				err, NULL,
				"experiment '%s': its RULE_PLACEMENTS_DIFFER rule names no placement pattern",
				exp->name);
		if (r->floor < 0 || (r->kind == RULE_TOGETHER && r->floor > 1))
			return errinfo_set(
				err, NULL,
				"experiment '%s': its %s rule has floor %g (allowed: %s)",
				exp->name, kind, r->floor,
				r->kind == RULE_TOGETHER
					? "0-1, a share of a round"
					: "0 or more");
	}
	if (exp->compared && exp->compared[0] &&
	    (!exp->rules || exp->rules[0].kind == RULE_END))
		return errinfo_set(
			err, NULL,
			"experiment '%s' names compared keys but declares no rules that could disown them",
			exp->name);
	for (const char *const *c = exp->compared; c && *c; c++) {
		int found = 0;
		for (const char *const *k = exp->summary_keys;
		     k && *k && !found; k++)
			found = key_covers(*k, *c);
		if (!found)
			return errinfo_set(
				err, NULL,
				"experiment '%s': compared key '%s' matches none of its summary keys",
				exp->name, *c);
	}
	if (exp->precision < 0 || exp->precision >= 1)
		return errinfo_set(
			err, NULL,
			"experiment '%s': precision %g is not a share between 0 and 1",
			exp->name, exp->precision);
	return 0;
}

/* The label tables: well formed, every summary pattern labelled, the
 * headline naming what the experiment declares. */
static int validate_labels(const struct experiment *exp, struct errinfo *err)
{
	char why[ERRINFO_MSG_LEN], buf[8];
	int found = 0;

	if (exp->summary_keys && exp->summary_keys[0] && !exp->summary_labels)
		return errinfo_set(
			err, NULL,
			"experiment '%s' declares summary keys but no summary_labels",
			exp->name);
	if (label_table_check(exp->summary_labels, 1, why, sizeof(why)) ||
	    label_table_check(exp->series_labels, 0, why, sizeof(why)))
		return errinfo_set(err, NULL, "experiment '%s': %s", exp->name,
				   why);
	/* a row that matches the pattern itself covers every key it matches */
	for (const char *const *k = exp->summary_keys; k && *k; k++)
		if (experiment_summary_label(exp, *k, buf, sizeof(buf), NULL))
			return errinfo_set(
				err, NULL,
				"experiment '%s': summary key '%s' has no label (add a summary_labels row that matches it)",
				exp->name, *k);
	for (const char *const *k = exp->summary_keys;
	     exp->headline_key && k && *k && !found; k++)
		found = key_covers(*k, exp->headline_key);
	if (exp->headline_key && !found)
		return errinfo_set(
			err, NULL,
			"experiment '%s': headline key '%s' matches none of its summary keys",
			exp->name, exp->headline_key);
	if (exp->headline_chart &&
	    !experiment_declares_chart(exp, exp->headline_chart))
		return errinfo_set(
			err, NULL,
			"experiment '%s': headline chart '%s' is not one it declares",
			exp->name, exp->headline_chart);
	return 0;
}

int experiment_validate(const struct experiment *exp, struct errinfo *err)
{
	int rc;

	memset(err, 0, sizeof(*err));
	if (over_limit(exp, err))
		return -EINVAL;
	if (!exp->params)
		return errinfo_set(err, NULL,
				   "experiment '%s' has no param table",
				   exp->name);
	if ((rc = validate_table(exp, exp->params, exp->params_size, err)) ||
	    (rc = validate_table(exp, placement_params,
				 sizeof(struct common_params), err)) ||
	    (rc = validate_table(exp, common_params,
				 sizeof(struct common_params), err)))
		return rc;
	for (const struct param *p = exp->params; p->name; p++)
		for (const struct param *q = exp->params; q < p; q++)
			if (!strcmp(p->name, q->name))
				return errinfo_set(
					err, p->name,
					"experiment '%s': parameter '%s' is declared twice",
					exp->name, p->name);
	if ((rc = validate_smoke(exp, err)) || (rc = validate_rules(exp, err)))
		return rc;
	if (!exp->charts || !exp->charts[0].id)
		return errinfo_set(err, NULL,
				   "experiment '%s' declares no chart",
				   exp->name);
	for (const struct chart *c = exp->charts; c->id; c++) {
		if (!*c->id)
			return errinfo_set(
				err, NULL,
				"experiment '%s': a chart has an empty id",
				exp->name);
		for (const struct chart *d = exp->charts; d < c; d++)
			if (!strcmp(c->id, d->id))
				return errinfo_set(
					err, NULL,
					"experiment '%s': chart '%s' is declared twice",
					exp->name, c->id);
		if ((c->per_param || c->per) &&
		    (!c->per_param || !c->per ||
		     !experiment_param(exp, c->per_param,
				       strlen(c->per_param))))
			return errinfo_set(
				err, NULL,
				"experiment '%s': chart '%s' is counted per operation of '%s', which is not one of its params (or names no operation)",
				exp->name, c->id,
				c->per_param ? c->per_param : "");
	}
	for (const struct reference *r = exp->references; r && r->chart; r++)
		if (!experiment_declares_chart(exp, r->chart))
			return errinfo_set(
				err, NULL,
				"experiment '%s': a reference names chart '%s', which it does not declare",
				exp->name, r->chart);
		else if (r->ops > 0 &&
			 (!r->per || !r->per_chart ||
			  !experiment_declares_chart(exp, r->per_chart)))
			return errinfo_set(
				err, NULL,
				"experiment '%s': reference '%s' covers %g operations but names no declared chart for its figure per operation",
				exp->name, r->series, r->ops);
	return validate_labels(exp, err);
}

/*
 * The account of ctx's rounds, its budget resolved (auto: from the run's
 * own estimate), passing events on to next; NULL when out of memory (the
 * run then takes exactly repeat rounds).
 */
static struct adapt_run *adapt_start(const struct run_ctx *ctx,
				     struct sink *next)
{
	struct adapt_run *a = calloc(1, sizeof(*a));
	double est = 0;
	uint64_t bytes = 0;

	if (!a)
		return NULL;
	if (ctx->common.budget == ADAPT_BUDGET_AUTO && ctx->exp->estimate)
		ctx->exp->estimate(ctx->params, &ctx->common, ctx->topo, &est,
				   &bytes);
	adapt_run_init(a, ctx->exp, &ctx->common,
		       adapt_budget(&ctx->common, est, ctx->max_seconds), next);
	return a;
}

int experiment_run(struct run_ctx *ctx, struct errinfo *err)
{
	struct sink *s = ctx->sink;
	int rc;

	struct record rec;
	struct run_ctx rctx = *ctx;
	struct machine_facts m;
	struct run_result rr = {0};
	struct verdict *v;
	struct adapt_run *ad;

	memset(err, 0, sizeof(*err));
	if (!s)
		return ctx->exp->run(ctx);
	s->declared = ctx->exp;
	s->undeclared[0] = '\0';
	record_init(&rec, s);
	rctx.sink = &rec.sink;
	ad = adapt_start(ctx, &rec.sink);
	if (ad) {
		rctx.sink = &ad->sink;
		rctx.adapt = ad;
	}
	rc = ctx->exp->run(&rctx);
	/* recorded before the verdict, which may read it */
	adapt_run_report(ad, &rec.sink);
	free(ad);
	if ((rc == 0 || rc == -ECANCELED) && ctx->exp->describe) {
		v = calloc(1, sizeof(*v));
		if (v) {
			machine_facts_from_topo(ctx->topo, &m);
			record_result(&rec, &rr);
			rr.exp = ctx->exp;
			rr.params = ctx->params;
			rr.common = &ctx->common;
			rr.machine = &m;
			rr.complete = rc == 0;
			experiment_describe(&rr, v);
			verdict_emit(v, s);
			free(v);
		}
	}
	record_free(&rec);
	s->declared = NULL;
	if (s->undeclared[0] && rc != -ECANCELED) {
		errinfo_set(
			err, NULL,
			"experiment '%s' emitted %s, which its descriptor does not declare",
			ctx->exp->name, s->undeclared);
		return -EPROTO;
	}
	return rc;
}

/*
 * Drops the notes from first on that repeat an earlier note word for
 * word: the rulebook and a hook may say the same sentence.
 */
static void drop_repeats(struct verdict *v, int first)
{
	int k = first;

	for (int i = first; i < v->nnotes; i++) {
		int seen = 0;
		for (int j = 0; j < k && !seen; j++)
			seen = !strcmp(v->notes[j].text, v->notes[i].text);
		if (!seen && k != i)
			v->notes[k] = v->notes[i];
		k += !seen;
	}
	v->nnotes = k;
}

/* A summary key of one thread: nobody ran with it, so no together mark. */
static int one_thread_key(const char *key)
{
	return !fnmatch("*_1_threads", key, 0) ||
	       !fnmatch("*_1_threads_*", key, 0);
}

/*
 * The lower-bound mark for one compared pattern: on each key of a
 * team (never a one-thread key: it ran alone by design), or on the
 * pattern itself when the keys would not fit in the verdict's marks.
 */
static void mark_lower_bound(const struct run_result *r, const char *pattern,
			     const struct rule_findings *f, struct verdict *v)
{
	int teams = 0, alone = 0;

	for (int i = 0; i < r->nsummary; i++) {
		if (fnmatch(pattern, r->summary[i].key, 0))
			continue;
		if (one_thread_key(r->summary[i].key))
			alone++;
		else
			teams++;
	}
	if (!alone || teams > VERDICT_MAX_MARKS - v->nmarks) {
		verdict_mark(
			v, pattern, VERDICT_AT_LEAST,
			"a lower bound: the threads ran together only %.0f%% of a round",
			f->together * 100);
		return;
	}
	for (int i = 0; i < r->nsummary; i++)
		if (!fnmatch(pattern, r->summary[i].key, 0) &&
		    !one_thread_key(r->summary[i].key) &&
		    !verdict_mark_why(v, r->summary[i].key, NULL))
			verdict_mark(
				v, r->summary[i].key, VERDICT_AT_LEAST,
				"a lower bound: the threads ran together only %.0f%% of a round",
				f->together * 100);
}

/* Marks every compared key the way the rulebook's findings say. */
static void mark_compared(const struct run_result *r,
			  const struct rule_findings *f, struct verdict *v)
{
	for (const char *const *k = r->exp->compared; k && *k; k++) {
		if (f->failed)
			verdict_mark(v, *k, VERDICT_DISOWNED, "%s", f->why);
		else if (f->lower_bound && !verdict_mark_why(v, *k, NULL))
			mark_lower_bound(r, *k, f, v);
	}
}

void experiment_describe(const struct run_result *r, struct verdict *v)
{
	struct run_result rr = *r;
	struct rule_findings f;

	memset(v, 0, sizeof(*v));
	if (!r->exp)
		return;
	/* the rules first, so the hook reads their findings */
	rules_describe(r, &f, v);
	rr.rules = &f;
	if (r->exp->describe)
		r->exp->describe(&rr, v);
	drop_repeats(v, 0);
	mark_compared(r, &f, v);
}

void experiment_precheck(const struct experiment *exp, const void *params,
			 const struct common_params *common,
			 const struct topo *t, struct verdict *v)
{
	memset(v, 0, sizeof(*v));
	if (!t)
		return;
	rules_precheck(exp, params, common, t, v);
	if (exp->precheck)
		exp->precheck(params, common, t, v);
	drop_repeats(v, 0);
}

void experiment_precheck_placement(const struct topo *t,
				   const struct common_params *common,
				   int nthreads, const char *same_cpu,
				   const char *siblings, struct verdict *v)
{
	int *plan = calloc((size_t)(nthreads > 0 ? nthreads : 1), sizeof(int));
	char msg[ERRINFO_MSG_LEN];
	int a, b;

	if (plan &&
	    !topo_plan(t, common->placement, common->cpus.v, common->cpus.n,
		       nthreads, plan, msg, sizeof(msg))) {
		if (common->placement != PLACE_OS &&
		    topo_plan_distinct(plan, nthreads) < 2)
			verdict_note(
				v, "cannot",
				"the placement puts every thread on cpu %d: %s",
				plan[0], same_cpu);
		else if (topo_plan_siblings(t, plan, nthreads, &a, &b))
			verdict_note(
				v, "warn",
				"the placement puts threads on smt siblings (cpu %d and %d share a core): %s",
				a, b, siblings);
	}
	free(plan);
}

int experiment_plan(const struct run_ctx *ctx, int nthreads, int *cpus,
		    struct errinfo *err)
{
	memset(err, 0, sizeof(*err));
	snprintf(err->field, sizeof(err->field), "cpus");
	return topo_plan(ctx->topo, ctx->common.placement, ctx->common.cpus.v,
			 ctx->common.cpus.n, nthreads, cpus, err->msg,
			 sizeof(err->msg));
}

int experiment_estimate(const struct experiment *exp, const void *params,
			const struct common_params *common,
			const struct topo *t, double *seconds, uint64_t *bytes)
{
	double budget;

	*seconds = 0;
	*bytes = 0;
	if (!exp->estimate)
		return -ENOENT;
	exp->estimate(params, common, t, seconds, bytes);
	/*
	 * The rounds grow into the budget only while a point's interval is
	 * wide: a quiet machine stops near the least rounds, a busy one
	 * near the budget. The geometric middle of the two is within
	 * sqrt(budget / least) of either, 1.73x for auto's 3x: closer than
	 * the arithmetic middle (2x of the least).
	 */
	budget = adapt_budget(common, *seconds, 0);
	if (budget > *seconds && *seconds > 0)
		*seconds += *seconds * (sqrt(budget / *seconds) - 1) *
			    (1 - exp->fixed_share);
	*seconds += rates_get()->start_s;
	return 0;
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
