/* labels.c - summary keys and series names said in words, with their units */
#include "labels.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "descriptor.h"
#include "strbuf.h"

#define LABEL_MAX_STARS 8

const struct key_label harness_summary_labels[] = {
	{"rounds_kept", "rounds kept", "rounds"},
	{"rounds_redone_apart", "rounds redone: the threads ran apart",
	 "rounds"},
	{"rounds_redone_preempted", "rounds redone: a thread was preempted",
	 "rounds"},
	{"rounds_started_apart",
	 "rounds started before every thread was on its cpu", "rounds"},
	{"overlap_min",
	 "least share of a round every thread was on a cpu at once",
	 "% of a round"},
	{NULL, NULL, NULL}};

/*
 * Whether s matches pat ('*' only), filling cap[i]/caplen[i] for each
 * star from star i on; the shortest text first, so the captures are the
 * leftmost-shortest ones.
 */
static int match(const char *pat, const char *s, const char **cap,
		 size_t *caplen, int i)
{
	for (; *pat; pat++, s++) {
		if (*pat == '*') {
			for (size_t n = strlen(s) + 1; n-- > 0;) {
				if (i < LABEL_MAX_STARS) {
					cap[i] = s;
					caplen[i] = n;
				}
				if (match(pat + 1, s + n, cap, caplen, i + 1))
					return 1;
			}
			return 0;
		}
		if (*pat != *s)
			return 0;
	}
	return !*s;
}

/*
 * Appends the part of a key one '*' matched: in words when parts names
 * it exactly (a series: "c11_relaxed" -> "C11 atomic, relaxed"), else as
 * it is.
 */
static void add_part(struct strbuf *sb, const struct key_label *parts,
		     const char *p, size_t n)
{
	for (const struct key_label *l = parts; l && l->key; l++)
		if (strlen(l->key) == n && !strncmp(l->key, p, n) &&
		    !strchr(l->key, '*')) {
			strbuf_addstr(sb, l->label);
			return;
		}
	strbuf_add(sb, p, n);
}

int label_lookup(const struct key_label *table, const char *key, char *buf,
		 size_t len, const char **unit)
{
	return label_lookup_parts(table, NULL, key, buf, len, unit);
}

int label_lookup_parts(const struct key_label *table,
		       const struct key_label *parts, const char *key,
		       char *buf, size_t len, const char **unit)
{
	const char *cap[LABEL_MAX_STARS];
	size_t caplen[LABEL_MAX_STARS];

	for (const struct key_label *l = table; l && l->key; l++) {
		struct strbuf sb = STRBUF_INIT;
		int k = 0;

		if (!match(l->key, key, cap, caplen, 0))
			continue;
		for (const char *p = l->label; *p; p++) {
			if (p[0] == '%' && p[1] == 's') {
				if (k < LABEL_MAX_STARS)
					add_part(&sb, parts, cap[k], caplen[k]);
				k++;
				p++;
			} else {
				strbuf_add(&sb, p, 1);
			}
		}
		snprintf(buf, len, "%s", sb.oom ? key : strbuf_str(&sb));
		strbuf_release(&sb);
		if (unit)
			*unit = l->unit;
		return 0;
	}
	snprintf(buf, len, "%s", key);
	if (unit)
		*unit = NULL;
	return -ENOENT;
}

int label_table_check(const struct key_label *table, int need_unit,
		      struct errinfo *err)
{
	for (const struct key_label *l = table; l && l->key; l++) {
		int stars = 0, subs = 0;

		for (const char *p = l->key; *p; p++) {
			stars += *p == '*';
			if (*p == '?' || *p == '[' || *p == '\\') {
				errinfo_set(
					err, NULL,
					"label key '%s' uses '%c' (allowed: '*' only)",
					l->key, *p);
				return -EINVAL;
			}
		}
		if (!l->label || !l->label[0]) {
			errinfo_set(err, NULL, "label key '%s' has no label",
				    l->key);
			return -EINVAL;
		}
		for (const char *p = l->label; *p; p++)
			if (*p == '%') {
				if (p[1] != 's') {
					errinfo_set(
						err, NULL,
						"label of '%s' has a '%%' that is not '%%s'",
						l->key);
					return -EINVAL;
				}
				subs++;
				p++;
			}
		if (subs > stars || stars > LABEL_MAX_STARS) {
			errinfo_set(
				err, NULL,
				"label of '%s' has %d '%%s' for %d '*' (allowed: at most one per '*', %d in all)",
				l->key, subs, stars, LABEL_MAX_STARS);
			return -EINVAL;
		}
		if (need_unit && (!l->unit || !l->unit[0])) {
			errinfo_set(err, NULL, "label key '%s' has no unit",
				    l->key);
			return -EINVAL;
		}
	}
	return 0;
}

int experiment_summary_label(const struct experiment *exp, const char *key,
			     char *buf, size_t len, const char **unit)
{
	/* a series the key names is said as the series is ("%s: time per
	 * increment" with "C11 atomic, relaxed", not "c11_relaxed") */
	if (exp && !label_lookup_parts(exp->summary_labels, exp->series_labels,
				       key, buf, len, unit))
		return 0;
	return label_lookup(harness_summary_labels, key, buf, len, unit);
}

int experiment_series_label(const struct experiment *exp, const char *series,
			    char *buf, size_t len, const char **unit)
{
	return label_lookup(exp ? exp->series_labels : NULL, series, buf, len,
			    unit);
}
