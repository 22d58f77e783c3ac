/* params.c - parsing and validation of parameter values against a param table */
#include "params.h"

#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strbuf.h"

const char *param_type_name(enum param_type t)
{
	switch (t) {
	case PARAM_INT:
		return "int";
	case PARAM_SIZE:
		return "size";
	case PARAM_SWEEP:
		return "sweep";
	case PARAM_ENUM:
		return "enum";
	case PARAM_SET:
		return "set";
	case PARAM_CPULIST:
		return "cpulist";
	case PARAM_NODELIST:
		return "nodelist";
	case PARAM_TEXT:
		return "text";
	}
	return "unknown";
}

static int choice_index(const struct param *p, const char *s, size_t len)
{
	for (int i = 0; p->choices && p->choices[i].name; i++)
		if (strlen(p->choices[i].name) == len &&
		    !strncmp(p->choices[i].name, s, len))
			return i;
	return -1;
}

static void list_choices(const struct param *p, char *buf, size_t len)
{
	struct strbuf sb = STRBUF_INIT;

	for (int i = 0; p->choices && p->choices[i].name; i++)
		strbuf_addf(&sb, "%s%s", i ? ", " : "", p->choices[i].name);
	snprintf(buf, len, "%s", strbuf_str(&sb));
	strbuf_release(&sb);
}

static void fmt_bound(const struct param *p, int64_t v, char *buf, size_t len)
{
	if (p->type == PARAM_SIZE) {
		static const char suf[] = "KMGT";
		int k = -1;
		while (k < 3 && v >= 1024 && v % 1024 == 0) {
			v /= 1024;
			k++;
		}
		if (k >= 0)
			snprintf(buf, len, "%" PRId64 "%c", v, suf[k]);
		else
			snprintf(buf, len, "%" PRId64, v);
	} else {
		snprintf(buf, len, "%" PRId64, v);
	}
}

/* An int or a size within the param's range. */
static int parse_number(const struct param *p, const char *text,
			struct param_value *out, struct errinfo *err)
{
	const char *end = text;
	char lo[32], hi[32];
	int rc;

	if (p->type == PARAM_INT) {
		rc = numtext_u63(text, &end, &out->i);
		if (!rc && *end)
			rc = -EINVAL;
	} else {
		rc = numtext_size(text, &out->i);
	}
	/* the bounds in words only for a value that is refused */
	if (rc || out->i < p->min || out->i > p->max) {
		fmt_bound(p, p->min, lo, sizeof(lo));
		fmt_bound(p, p->max, hi, sizeof(hi));
	}
	if (rc == -ERANGE || (!rc && (out->i < p->min || out->i > p->max))) {
		snprintf(err->msg, sizeof(err->msg),
			 "'%s' is out of range for '%s' (allowed %s-%s%s%s)",
			 text, p->name, lo, hi, p->unit ? " " : "",
			 p->unit ? p->unit : "");
		return -EINVAL;
	}
	if (rc) {
		snprintf(err->msg, sizeof(err->msg),
			 "'%s' is not %s for '%s' (allowed %s-%s)", text,
			 p->type == PARAM_SIZE ? "a size (like 64K, 8M, 1G)"
					       : "a whole number",
			 p->name, lo, hi);
		return -EINVAL;
	}
	/* an int's text is its digits: fmt_bound writes them so */
	fmt_bound(p, out->i, out->text, sizeof(out->text));
	return 0;
}

/* A sweep, a cpu list or a node list: integers within the param's range
 * (an empty list: not given, the strategy decides). */
static int parse_list(const struct param *p, const char *text,
		      struct param_value *out, struct errinfo *err)
{
	char buf[NUMTEXT_SHOWN_LEN];
	struct errinfo e;
	int rc;

	if (*text == '\0' && p->type != PARAM_SWEEP) {
		out->n = 0;
		return 0;
	}
	/* a cpu list is thread i's cpu at i: its order is the request */
	rc = (p->type == PARAM_CPULIST ? parse_int_list_ordered
				       : parse_int_list)(
		text, p->min, p->max, out->list, PARAM_MAX_LIST, &e);
	if (rc < 0) {
		snprintf(err->msg, sizeof(err->msg), "bad %s '%s' for '%s': %s",
			 p->type == PARAM_SWEEP	    ? "value"
			 : p->type == PARAM_CPULIST ? "cpu list"
						    : "node list",
			 numtext_shown(text, buf), p->name, e.msg);
		return -EINVAL;
	}
	out->n = rc;
	/* a text no longer than the values written out, which fit text for
	 * every row experiment_lint passes (PARAM_LIST_VALUE_MAX) */
	if (format_int_list_steps(out->list, out->n, out->text,
				  sizeof(out->text))) {
		snprintf(err->msg, sizeof(err->msg),
			 "'%s' is too long to record (at most %d values of at "
			 "most %d)",
			 p->name, PARAM_MAX_LIST, PARAM_LIST_VALUE_MAX);
		return -EINVAL;
	}
	return 0;
}

/* One of the param's choices. */
static int parse_enum(const struct param *p, const char *text,
		      struct param_value *out, struct errinfo *err)
{
	char tmp[PARAM_ERR_LEN];
	int k = choice_index(p, text, strlen(text));

	if (k < 0) {
		list_choices(p, tmp, sizeof(tmp));
		snprintf(err->msg, sizeof(err->msg),
			 "unknown %s '%s' (allowed: %s)", p->name, text, tmp);
		return -EINVAL;
	}
	out->i = p->choices[k].value;
	snprintf(out->text, sizeof(out->text), "%s", p->choices[k].name);
	return 0;
}

/* The choices a set's text names ("all", or a,b,...) into seen. */
static int set_seen(const struct param *p, const char *text,
		    unsigned char seen[64], struct errinfo *err)
{
	char tmp[PARAM_ERR_LEN];
	const char *s = text;

	if (!strcmp(text, "all")) {
		for (int i = 0; p->choices[i].name && i < 64; i++)
			seen[i] = 1;
		return 0;
	}
	if (!*s) {
		snprintf(err->msg, sizeof(err->msg),
			 "'%s' needs at least one choice", p->name);
		return -EINVAL;
	}
	while (*s) {
		size_t len = strcspn(s, ",");
		int k = choice_index(p, s, len);
		if (k < 0 || k >= 64) {
			list_choices(p, tmp, sizeof(tmp));
			snprintf(err->msg, sizeof(err->msg),
				 "unknown %s '%.*s' (allowed: %s, or all)",
				 p->name, (int)len, s, tmp);
			return -EINVAL;
		}
		if (seen[k]) {
			snprintf(err->msg, sizeof(err->msg),
				 "%s '%.*s' is listed twice", p->name, (int)len,
				 s);
			return -EINVAL;
		}
		seen[k] = 1;
		s += len;
		if (*s == ',' && *++s == '\0') {
			snprintf(err->msg, sizeof(err->msg),
				 "trailing ',' in '%s'", p->name);
			return -EINVAL;
		}
	}
	return 0;
}

/* Some of the param's choices, or all: a list, a mask and a text. */
static int parse_set(const struct param *p, const char *text,
		     struct param_value *out, struct errinfo *err)
{
	unsigned char seen[64] = {0};
	struct strbuf sb = STRBUF_INIT;

	if (set_seen(p, text, seen, err))
		return -EINVAL;
	/* keep the table's order: results then come out in it too */
	for (int i = 0; p->choices[i].name && i < 64; i++) {
		if (!seen[i])
			continue;
		out->list[out->n++] = i;
		out->i |= (int64_t)1 << p->choices[i].value;
		strbuf_addf(&sb, "%s%s", sb.len ? "," : "", p->choices[i].name);
	}
	/* a text cut short would be recorded as the run's value */
	if (sb.oom) {
		strbuf_release(&sb);
		errinfo_set(err, p->name, "out of memory");
		return -ENOMEM;
	}
	snprintf(out->text, sizeof(out->text), "%s", strbuf_str(&sb));
	strbuf_release(&sb);
	return 0;
}

/* err's field: p's name, cut to fit (as snprintf's "%s" would: a parse
 * names it for every value of every request, before it knows of any
 * error). */
static void name_field(struct errinfo *err, const struct param *p)
{
	size_t n = strlen(p->name);

	if (n >= sizeof(err->field))
		n = sizeof(err->field) - 1;
	memcpy(err->field, p->name, n);
	err->field[n] = '\0';
}

int param_check_length(const char *name, size_t len, struct errinfo *err)
{
	if (len < PARAM_VALUE_LEN)
		return 0;
	return errinfo_set(
		err, name,
		"value of '%.60s' is too long (at most %d characters)", name,
		PARAM_VALUE_LEN - 1);
}

int param_parse_value(const struct param *p, const char *text,
		      struct param_value *out, struct errinfo *err)
{
	int rc;

	/* the head, and the field a TEXT fills: a list is filled to its n
	 * and the text to its NUL (zeroing the whole 4 KiB of a list for
	 * every value was most of a request's parse) */
	memset(out, 0, offsetof(struct param_value, text));
	out->text[0] = '\0';
	if (p->type == PARAM_TEXT)
		memset(out->field, 0, sizeof(out->field));
	out->p = p;
	name_field(err, p);
	if (param_check_length(p->name, strlen(text), err))
		return -EINVAL;
	switch (p->type) {
	case PARAM_INT:
	case PARAM_SIZE:
		return parse_number(p, text, out, err);
	case PARAM_SWEEP:
	case PARAM_CPULIST:
	case PARAM_NODELIST:
		return parse_list(p, text, out, err);
	case PARAM_ENUM:
		return parse_enum(p, text, out, err);
	case PARAM_SET:
		return parse_set(p, text, out, err);
	case PARAM_TEXT:
		if (!p->parse || p->field_size > sizeof(out->field))
			break;
		rc = p->parse(text, out->field, out->text, sizeof(out->text),
			      err);
		name_field(err, p);
		return rc ? -EINVAL : 0;
	}
	snprintf(err->msg, sizeof(err->msg), "bad type for '%s'", p->name);
	return -EINVAL;
}

const struct param *params_find(const struct param *const *tables, int ntables,
				const char *name, size_t len)
{
	for (int t = 0; t < ntables; t++)
		for (const struct param *p = tables[t]; p && p->name; p++)
			if (strlen(p->name) == len &&
			    !strncmp(p->name, name, len))
				return p;
	return NULL;
}

int params_parse(const struct param *const *tables, int ntables, int argc,
		 char *const *argv, struct param_values *out,
		 struct errinfo *err)
{
	const char *given[PARAM_MAX_PER_EXP] = {0};
	const struct param *order[PARAM_MAX_PER_EXP];
	int np = 0;

	memset(err, 0, sizeof(*err));
	for (int t = 0; t < ntables; t++)
		for (const struct param *p = tables[t]; p && p->name; p++) {
			if (np >= PARAM_MAX_PER_EXP)
				return errinfo_set(
					err, NULL,
					"too many parameters in the table (at most %d)",
					PARAM_MAX_PER_EXP);
			order[np++] = p;
		}
	for (int a = 0; a < argc; a++) {
		const char *eq = strchr(argv[a], '=');
		const struct param *p;
		if (!eq) {
			snprintf(err->msg, sizeof(err->msg),
				 "expected name=value, got '%.200s'", argv[a]);
			return -EINVAL;
		}
		p = params_find(tables, ntables, argv[a],
				(size_t)(eq - argv[a]));
		if (!p) {
			snprintf(err->field, sizeof(err->field), "%.*s",
				 (int)(eq - argv[a]), argv[a]);
			snprintf(err->msg, sizeof(err->msg),
				 "unknown parameter '%.*s'",
				 (int)(eq - argv[a] > 100 ? 100 : eq - argv[a]),
				 argv[a]);
			return -EINVAL;
		}
		for (int i = 0; i < np; i++) {
			if (order[i] != p)
				continue;
			if (given[i]) {
				snprintf(err->field, sizeof(err->field), "%s",
					 p->name);
				snprintf(err->msg, sizeof(err->msg),
					 "parameter '%s' is given twice",
					 p->name);
				return -EINVAL;
			}
			given[i] = eq + 1;
		}
	}
	out->n = 0;
	for (int i = 0; i < np; i++) {
		const char *text = given[i] ? given[i] : order[i]->def;
		int rc = param_parse_value(order[i], text ? text : "",
					   &out->v[out->n], err);
		if (rc)
			return rc;
		out->n++;
	}
	return 0;
}

static size_t param_field_size(enum param_type t)
{
	switch (t) {
	case PARAM_INT:
	case PARAM_SIZE:
		return sizeof(int64_t);
	case PARAM_ENUM:
		return sizeof(int);
	case PARAM_SET:
		return sizeof(unsigned);
	case PARAM_SWEEP:
	case PARAM_CPULIST:
	case PARAM_NODELIST:
		return sizeof(struct int_list);
	case PARAM_TEXT:
		return 0;
	}
	return 0;
}

size_t param_row_size(const struct param *p)
{
	return p->type == PARAM_TEXT ? p->field_size
				     : param_field_size(p->type);
}

int param_chosen(const struct param *p, const void *base, const char *name)
{
	const char *at = (const char *)base + p->offset;
	unsigned set;
	int one;

	for (const struct param_choice *c = p->choices; c && c->name; c++) {
		if (strcmp(c->name, name))
			continue;
		if (p->type == PARAM_ENUM) {
			memcpy(&one, at, sizeof(one));
			return one == c->value;
		}
		if (p->type == PARAM_SET) {
			memcpy(&set, at, sizeof(set));
			return c->value >= 0 && c->value < 32 &&
			       (set >> c->value & 1u);
		}
	}
	return 0;
}

void param_store(const struct param_value *v, void *base)
{
	char *at = (char *)base + v->p->offset;

	switch (v->p->type) {
	case PARAM_INT:
	case PARAM_SIZE:
		memcpy(at, &v->i, sizeof(int64_t));
		break;
	case PARAM_ENUM: {
		int e = (int)v->i;
		memcpy(at, &e, sizeof(e));
		break;
	}
	case PARAM_SET: {
		unsigned m = (unsigned)v->i;
		memcpy(at, &m, sizeof(m));
		break;
	}
	case PARAM_SWEEP:
	case PARAM_CPULIST:
	case PARAM_NODELIST: {
		struct int_list *l = (struct int_list *)(void *)at;
		l->n = v->n;
		memcpy(l->v, v->list, (size_t)v->n * sizeof(l->v[0]));
		break;
	}
	case PARAM_TEXT:
		memcpy(at, v->field, v->p->field_size);
		break;
	}
}

const struct param_value *params_get(const struct param_values *pv,
				     const char *name)
{
	for (int i = 0; i < pv->n; i++)
		if (!strcmp(pv->v[i].p->name, name))
			return &pv->v[i];
	return NULL;
}

/* Whether the comma list want (n bytes) names the choice text (len bytes). */
static int listed(const char *want, size_t n, const char *text, size_t len)
{
	const char *end = want + n;

	/* nothing after '=': the one value is the empty one */
	if (n == 0)
		return len == 0;
	while (want < end) {
		size_t k = strcspn(want, ",");

		if (k > (size_t)(end - want))
			k = (size_t)(end - want);
		if (k == len && !strncmp(want, text, k))
			return 1;
		want += k + 1;
	}
	return 0;
}

int param_holds(const struct param_value *v, const char *want, size_t n)
{
	const char *t = v->text;

	if (v->p->type != PARAM_SET)
		return listed(want, n, t, strlen(t));
	/* a set: one of its chosen names is among them */
	while (*t) {
		size_t k = strcspn(t, ",");

		if (k && listed(want, n, t, k))
			return 1;
		t += k + (t[k] == ',');
	}
	return 0;
}

int param_applies(const struct param *p, const struct param_values *pv)
{
	const char *eq = p->only ? strchr(p->only, '=') : NULL;

	if (!eq)
		return 1;
	for (int i = 0; i < pv->n; i++) {
		const char *name = pv->v[i].p->name;

		if (strlen(name) != (size_t)(eq - p->only) ||
		    strncmp(name, p->only, (size_t)(eq - p->only)))
			continue;
		return param_holds(&pv->v[i], eq + 1, strlen(eq + 1));
	}
	return 1;
}
