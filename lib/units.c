/* units.c - numbers in the units a person reads */
#include "units.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* A family of units, smallest first, each with its size in the base. */
struct scale {
	const char *name;
	double size;
};

static const struct scale times[] = {
	{"ns", 1e-9}, {"µs", 1e-6}, {"ms", 1e-3}, {"s", 1}, {NULL, 0}};
static const struct scale rates[] = {{"MB/s", 1e-3}, {"GB/s", 1}, {NULL, 0}};
static const struct scale sizes[] = {{"B", 1},
				     {"KiB", 1024},
				     {"MiB", 1024.0 * 1024},
				     {"GiB", 1024.0 * 1024 * 1024},
				     {NULL, 0}};

/* The family unit belongs to and its size there, or NULL. */
static const struct scale *family(const char *unit, double *size)
{
	static const struct {
		const char *name;
		const struct scale *fam;
		double size;
	} known[] = {{"ns", times, 1e-9},
		     {"us", times, 1e-6},
		     {"µs", times, 1e-6},
		     {"ms", times, 1e-3},
		     {"s", times, 1},
		     {"MB/s", rates, 1e-3},
		     {"GB/s", rates, 1},
		     {"B", sizes, 1},
		     {"bytes", sizes, 1},
		     {"KiB", sizes, 1024},
		     {"MiB", sizes, 1024.0 * 1024}};

	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (!strcmp(unit, known[i].name)) {
			*size = known[i].size;
			return known[i].fam;
		}
	return NULL;
}

const char *units_pick(double v, const char *unit, double *factor)
{
	const struct scale *fam, *pick;
	double size, base;

	*factor = 1;
	if (!unit)
		return "";
	if (!strcmp(unit, "x"))
		return "×";
	fam = family(unit, &size);
	if (!fam || !isfinite(v))
		return unit;
	base = fabs(v) * size;
	pick = fam;
	/* the largest unit the value is at least one of */
	for (const struct scale *s = fam; s->name; s++)
		if (base >= s->size * (fam == sizes ? 1 : 0.9995))
			pick = s;
	if (base == 0)
		pick = family(unit, &size) == times ? &times[3] : pick;
	*factor = size / pick->size;
	return pick->name;
}

void units_number(double v, char *buf, size_t len)
{
	if (!isfinite(v))
		snprintf(buf, len, "%g", v);
	else if (fabs(v) >= 100 || v == rint(v))
		snprintf(buf, len, "%.0f", v);
	else
		snprintf(buf, len, "%.3g", v);
}

void units_format(double v, const char *unit, char *buf, size_t len)
{
	double f;
	const char *u;
	char num[64];

	if (unit && !strcmp(unit, "yes/no")) {
		snprintf(buf, len, "%s", v != 0 ? "yes" : "no");
		return;
	}
	u = units_pick(v, unit, &f);
	units_number(v * f, num, sizeof(num));
	snprintf(buf, len, "%s%s%s", num, u[0] ? " " : "", u);
}

const char *units_plural(long n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}
