/* experiment_lint.c - checking a descriptor against itself before any run */
#include "experiment.h"
#include "lesson.h"
#include "strvec.h"

#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
/*
 * A list row's range: values of at most 5 digits, so that the longest list
 * the parser takes (PARAM_MAX_LIST values) is always recorded, never
 * refused for the length of its text.
 */
static int validate_list_range(const struct experiment *exp,
			       const struct param *p, struct errinfo *err)
{
	if (p->type != PARAM_SWEEP && p->type != PARAM_CPULIST &&
	    p->type != PARAM_NODELIST)
		return 0;
	if (p->min >= 0 && p->max <= PARAM_LIST_VALUE_MAX)
		return 0;
	return errinfo_set(
		err, p->name,
		"experiment '%s': list '%s' allows %lld-%lld, past 0-%d (PARAM_LIST_VALUE_MAX: %d such values fit a recorded text)",
		exp->name, p->name, (long long)p->min, (long long)p->max,
		PARAM_LIST_VALUE_MAX, PARAM_MAX_LIST);
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
		if (validate_list_range(exp, p, err))
			return -EINVAL;
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
					   &common, &perr) ||
		 experiment_check_read(exp, (int)argv.n, argv.v, pv, &perr))
		rc = errinfo_set(
			err, perr.field,
			"experiment '%s': its smoke run does not parse: %s",
			exp->name, perr.msg);
	strvec_clear(&argv);
	free(params);
	free(pv);
	return rc;
}

/*
 * Row p's only ("mode=sizes,loaded"): it names another param of exp,
 * and each text after '=' is one of that param's choices (an enum or a
 * set), or nothing at all for a list or text param ("cpus=": while it is
 * empty).
 */
static int validate_only(const struct experiment *exp, const struct param *p,
			 struct errinfo *err)
{
	const char *eq = p->only ? strchr(p->only, '=') : NULL, *v;
	const struct param *on;

	if (!p->only)
		return 0;
	on = eq ? experiment_param(exp, p->only, (size_t)(eq - p->only)) : NULL;
	if (!on || !strcmp(on->name, p->name))
		return errinfo_set(
			err, p->name,
			"experiment '%s': '%s' is read only by '%s', which names no other param of it",
			exp->name, p->name, p->only);
	if (!eq[1] && (on->type == PARAM_ENUM || on->type == PARAM_SET))
		return errinfo_set(
			err, p->name,
			"experiment '%s': '%s' is read only while '%s' is empty, which a choice never is",
			exp->name, p->name, on->name);
	for (v = eq + 1; *v;) {
		size_t n = strcspn(v, ",");
		const struct param_choice *c = on->choices;

		while (c && c->name &&
		       (strlen(c->name) != n || strncmp(c->name, v, n)))
			c++;
		if (!c || !c->name)
			return errinfo_set(
				err, p->name,
				"experiment '%s': '%s' is read only with %s=%.*s, which is not one of its choices",
				exp->name, p->name, on->name, (int)n, v);
		v += n + (v[n] == ',');
	}
	return 0;
}

/* Each row of exp's tables reads only when it can (validate_only), and
 * each unread names a param every experiment takes, with its why. */
static int validate_reads(const struct experiment *exp, struct errinfo *err)
{
	const struct param *const tables[] = {exp->params, placement_params,
					      common_params};

	for (size_t i = 0; i < sizeof(tables) / sizeof(tables[0]); i++)
		for (const struct param *p = tables[i]; p->name; p++)
			if ((i != 1 || exp->uses_placement) &&
			    validate_only(exp, p, err))
				return -EINVAL;
	for (const struct unread_param *u = exp->unread; u && u->param; u++) {
		const struct param *p =
			params_find(&tables[2], 1, u->param, strlen(u->param));
		struct param here;

		if (!p && exp->uses_placement)
			p = params_find(&tables[1], 1, u->param,
					strlen(u->param));
		if (!p || !u->why || !*u->why)
			return errinfo_set(
				err, u->param,
				"experiment '%s': unread '%s' is not a param every experiment takes (repeat, warmup, budget) nor one of its placement (cpus, placement), or says no why",
				exp->name, u->param);
		/* its condition, checked as a row's own .only is */
		here = *p;
		here.only = u->only;
		if (u->only && validate_only(exp, &here, err))
			return -EINVAL;
	}
	return 0;
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

/* The params part p says it reads: each one of exp's. */
static int validate_part_reads(const struct experiment *exp,
			       const struct part *p, struct errinfo *err)
{
	for (const char *const *n = p->reads; n && *n; n++)
		if (!experiment_param(exp, *n, strlen(*n)))
			return errinfo_set(
				err, NULL,
				"experiment '%s': part '%s' reads param '%s', which the experiment does not declare",
				exp->name, p->name, *n);
	return 0;
}

/*
 * The param that selects the parts (parts_param): an enum or set of exp's
 * own, with a choice named as each part that has no wanted hook of its own.
 */
static int validate_parts_param(const struct experiment *exp,
				struct errinfo *err)
{
	const struct param *row = params_find(&exp->params, 1, exp->parts_param,
					      strlen(exp->parts_param));
	const struct param_choice *c;

	if (!row || (row->type != PARAM_ENUM && row->type != PARAM_SET))
		return errinfo_set(
			err, NULL,
			"experiment '%s': parts_param '%s' is not one of its enum or set params",
			exp->name, exp->parts_param);
	for (const struct part *p = exp->parts; p && p->name; p++) {
		for (c = row->choices; !p->wanted && c && c->name; c++)
			if (!strcmp(c->name, p->name))
				break;
		if (!p->wanted && !(c && c->name))
			return errinfo_set(
				err, NULL,
				"experiment '%s': part '%s' is not a choice of '%s', which selects the parts",
				exp->name, p->name, exp->parts_param);
	}
	return 0;
}

/* Every part named once, with both its hooks, reading params the
 * experiment has, and with an estimate when the experiment has none. */
static int validate_parts(const struct experiment *exp, struct errinfo *err)
{
	if (exp->parts_param && validate_parts_param(exp, err))
		return -EINVAL;
	for (const struct part *p = exp->parts; p && p->name; p++) {
		if (!*p->name || !p->run || !p->describe)
			return errinfo_set(
				err, NULL,
				"experiment '%s': part '%s' needs a name, run and describe",
				exp->name, p->name);
		if (!exp->estimate && !p->estimate)
			return errinfo_set(
				err, NULL,
				"experiment '%s': part '%s' needs an estimate, as the experiment has none of its own",
				exp->name, p->name);
		if (validate_part_reads(exp, p, err))
			return -EINVAL;
		for (const struct part *q = exp->parts; q < p; q++)
			if (!strcmp(p->name, q->name))
				return errinfo_set(
					err, NULL,
					"experiment '%s': part '%s' is declared twice",
					exp->name, p->name);
	}
	return 0;
}

/* The label tables: well formed, every summary pattern labelled, the
 * headline naming what the experiment declares. */
static int validate_labels(const struct experiment *exp, struct errinfo *err)
{
	char buf[8];
	struct errinfo e;
	int found = 0;

	if (exp->summary_keys && exp->summary_keys[0] && !exp->summary_labels)
		return errinfo_set(
			err, NULL,
			"experiment '%s' declares summary keys but no summary_labels",
			exp->name);
	if (label_table_check(exp->summary_labels, 1, &e) ||
	    label_table_check(exp->series_labels, 0, &e))
		return errinfo_set(err, NULL, "experiment '%s': %s", exp->name,
				   e.msg);
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
	if (experiment_params_over_limit(exp, err))
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
	if ((rc = validate_reads(exp, err)) ||
	    (rc = validate_smoke(exp, err)) || (rc = validate_rules(exp, err)))
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
	return validate_parts(exp, err) ? -EINVAL : validate_labels(exp, err);
}
