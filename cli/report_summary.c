/* report_summary.c - the summary of the closing table: each value in words, its interval and what the verdict says of it */
#include "report_summary.h"

#include <string.h>

#include "report_cols.h"
#include "units.h"

/* What the verdict says of a summary value, after it on its line. */
static void print_qualifier(FILE *f, const struct tab_qualifier *m)
{
	if (!m)
		return;
	if (!strcmp(m->kind, "at_least"))
		fprintf(f, "  (at least: %s)", m->why);
	else
		fprintf(f, "  (not a valid measurement: %s)", m->why);
}

/* Units a label already says ("cache level ...": "level"), not printed. */
static int unit_said(const char *unit)
{
	static const char *const said[] = {"count", "level", "node",
					   "cpu",   "errno", NULL};
	for (int i = 0; said[i]; i++)
		if (!strcmp(unit, said[i]))
			return 1;
	return 0;
}

/*
 * A summary value in words: its descriptor label, the number in the unit
 * a person reads (its emitted unit, else the label's), and the unit.
 */
static void summary_text(const struct sink_table *t,
			 const struct tab_summary *s, char *label, size_t llen,
			 char *num, char *unit, size_t len)
{
	const char *lu = NULL, *u = s->unit && s->unit[0] ? s->unit : NULL;
	double f = 1;

	experiment_summary_label(t->exp, s->key, label, llen, &lu);
	if (!u && lu && !unit_said(lu))
		u = lu;
	if ((u && !strcmp(u, "yes/no")) ||
	    (!u && lu && !strcmp(lu, "yes/no"))) {
		snprintf(num, len, "%s", s->value != 0 ? "yes" : "no");
		unit[0] = '\0';
		return;
	}
	u = units_pick(s->value, u, &f);
	units_number(s->value * f, num, len);
	if (s->has_interval) {
		/* the verdict's 95% interval, in the value's unit:
		 * "3.4 × (3.3–3.5)" */
		char lo[32], hi[32];
		units_number(s->lo * f, lo, sizeof(lo));
		units_number(s->hi * f, hi, sizeof(hi));
		snprintf(unit, len, "%s%s(%s–%s)", u, u[0] ? " " : "", lo, hi);
	} else
		snprintf(unit, len, "%s", u);
}

void report_summary(const struct sink_table *t)
{
	int wl = 0, wn = 0;
	char label[160], num[64], unit[64];
	FILE *f = t->out;

	for (int i = 0; i < t->nsummary; i++) {
		summary_text(t, &t->summary[i], label, sizeof(label), num, unit,
			     sizeof(num));
		wl = cols_max(wl, cols_width(label));
		wn = cols_max(wn, cols_width(num));
	}
	fprintf(f, "\nsummary\n");
	for (int i = 0; i < t->nsummary; i++) {
		const struct tab_qualifier *m =
			sink_table_qualifier(t, t->summary[i].key);

		summary_text(t, &t->summary[i], label, sizeof(label), num, unit,
			     sizeof(num));
		fputs("  ", f);
		cols_pad(f, label, wl);
		fputs("  ", f);
		cols_rpad(f, num, wn);
		if (unit[0])
			fprintf(f, " %s", unit);
		print_qualifier(f, m);
		fputc('\n', f);
	}
}
