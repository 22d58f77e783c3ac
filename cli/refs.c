/* refs.c - the article's figures, on the terms of this run's points, for the CLI's table and --json */
#include "refs.h"

#include <string.h>

#include "strbuf.h"

/* Seconds per unit of a time, or 0 for a unit that is not one. */
static double seconds_per(const char *unit)
{
	static const struct {
		const char *unit;
		double s;
	} units[] = {{"s", 1}, {"ms", 1e-3}, {"us", 1e-6}, {"ns", 1e-9}};

	for (size_t i = 0; unit && i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(unit, units[i].unit))
			return units[i].s;
	return 0;
}

static json_t *ref_entry(const struct reference *r, const char *chart,
			 const char *series, double y, const char *unit)
{
	return json_pack("{s:s, s:s, s:f, s:s?, s:f, s:s?, s:n}", "chart",
			 chart, "series", series, "x", r->x, "x_label",
			 r->x_label, "y", y, "unit", unit, "normalised");
}

/* The figure of r per operation: a time in ns, anything else in r's unit. */
static json_t *per_op(const struct reference *r)
{
	double s = seconds_per(r->unit);
	double y = s ? r->y * s * 1e9 / r->ops : r->y / r->ops;
	struct strbuf series = STRBUF_INIT, how = STRBUF_INIT;
	json_t *o;

	strbuf_addf(&series, "%s, per %s", r->series, r->per);
	strbuf_addf(&how, "%g %s / %.0f %ss", r->y, r->unit ? r->unit : "",
		    r->ops, r->per);
	o = ref_entry(r, r->per_chart, strbuf_str(&series), y,
		      s ? "ns" : r->unit);
	if (o)
		json_object_set_new(o, "normalised",
				    json_string(strbuf_str(&how)));
	strbuf_release(&series);
	strbuf_release(&how);
	return o;
}

json_t *refs_json(const struct experiment *e)
{
	json_t *a = json_array();

	for (const struct reference *r = e->references; a && r && r->chart;
	     r++) {
		json_t *o = ref_entry(r, r->chart, r->series, r->y, r->unit);
		if (o && r->ops > 0)
			json_object_set_new(o, "ops", json_real(r->ops));
		if (json_array_append_new(a, o) ||
		    (r->ops > 0 && json_array_append_new(a, per_op(r)))) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}
