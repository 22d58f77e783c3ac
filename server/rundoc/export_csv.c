/* export_csv.c - a run document's raw samples as CSV, one row per sample, then a row of each point's median and interval */
#include "export_csv.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "csv.h"
#include "experiment.h"
#include "registry.h"
#include "strbuf.h"

/* One field and its separator; csv_field neutralises formula text. */
static void field(struct strbuf *c, const char *v, int last)
{
	csv_field(c, v);
	strbuf_addstr(c, last ? "\r\n" : ",");
}

/* The shortest text that reads back as the same double. */
static void number_text(double d, char *buf, size_t len)
{
	for (int prec = 15; prec <= 17; prec++) {
		snprintf(buf, len, "%.*g", prec, d);
		if (strtod(buf, NULL) == d)
			break;
	}
}

static void fmt_number(json_t *v, char *buf, size_t len)
{
	buf[0] = '\0';
	if (json_is_integer(v))
		snprintf(buf, len, "%" JSON_INTEGER_FORMAT,
			 json_integer_value(v));
	else if (json_is_real(v))
		number_text(json_real_value(v), buf, len);
}

static const char *str_of(json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

/* A value in a unit a person reads: seconds as s, ms, us or ns by the
 * size of the point's median m, any other unit as it is. */
static const char *shown_unit(const char *unit, double m, double *f)
{
	static const struct {
		const char *name;
		double size;
	} secs[] = {{"s", 1}, {"ms", 1e-3}, {"µs", 1e-6}, {"ns", 1e-9}};

	*f = 1;
	if (!unit || strcmp(unit, "s"))
		return unit;
	for (size_t i = 0; i < sizeof(secs) / sizeof(secs[0]); i++)
		if (m >= secs[i].size ||
		    i + 1 == sizeof(secs) / sizeof(secs[0])) {
			*f = 1 / secs[i].size;
			return secs[i].name;
		}
	return unit;
}

/* What every row of one sample or cell shares. */
struct item_ctx {
	const struct experiment *exp;
	const char *id, *kind, *x_axis, *unit;
	json_t *item;
	char x[40], row[40], col[40];
	double f; /* the value times f is in unit (shown_unit) */
};

/* One row: kind "sample"/"cell" a raw sample (index), "median" the point's
 * median with its 95% interval (lo, hi, NULL when not kept). */
static void csv_row(struct strbuf *c, const struct item_ctx *it,
		    const char *kind, const char *index, json_t *value,
		    json_t *lo, json_t *hi)
{
	int is_cell = !strcmp(it->kind, "cell");
	const char *series = is_cell ? NULL : str_of(it->item, "series");
	char label[160] = "", val[40] = "", l[40] = "", h[40] = "",
	     shown[40] = "";

	fmt_number(value, val, sizeof(val));
	if (json_is_number(value))
		number_text(json_number_value(value) * it->f, shown,
			    sizeof(shown));
	if (json_is_number(lo) && json_is_number(hi)) {
		number_text(json_number_value(lo) * it->f, l, sizeof(l));
		number_text(json_number_value(hi) * it->f, h, sizeof(h));
	}
	field(c, it->id, 0);
	field(c, kind, 0);
	field(c, str_of(it->item, "chart"), 0);
	field(c, is_cell ? NULL : str_of(it->item, "series"), 0);
	field(c, it->x, 0);
	field(c, is_cell ? NULL : str_of(it->item, "x_label"), 0);
	field(c, it->row, 0);
	field(c, it->col, 0);
	field(c, is_cell ? str_of(it->item, "row_label") : NULL, 0);
	field(c, is_cell ? str_of(it->item, "col_label") : NULL, 0);
	field(c, str_of(it->item, "unit"), 0);
	field(c, index, 0);
	field(c, val, 0);
	/* the series in words, from the descriptor of the experiment */
	if (series)
		experiment_series_label(it->exp, series, label, sizeof(label),
					NULL);
	field(c, label[0] ? label : NULL, 0);
	field(c, it->x_axis, 0);
	field(c, shown[0] ? shown : NULL, 0);
	field(c, shown[0] ? it->unit : NULL, 0);
	field(c, l[0] ? l : NULL, 0);
	field(c, h[0] ? h : NULL, 1);
}

/* The chart's x axis in words ("threads"), from the experiment. */
static const char *x_axis_of(const struct experiment *exp, const char *chart)
{
	for (const struct chart *ch = exp ? exp->charts : NULL;
	     chart && ch && ch->id; ch++)
		if (!strcmp(ch->id, chart))
			return ch->x_label;
	return NULL;
}

/* Every raw sample of a sample or cell, one row each, then its median and
 * 95% interval in one row. */
static void csv_item(struct strbuf *c, const struct experiment *exp,
		     const char *id, const char *kind, json_t *item)
{
	json_t *samples = json_object_get(item, "samples"), *v;
	json_t *stats = json_object_get(item, "stats");
	json_t *mid = json_object_get(stats, "median");
	int is_cell = !strcmp(kind, "cell");
	struct item_ctx it = {.exp = exp, .id = id, .kind = kind, .item = item};
	char idx[24];
	size_t i;

	if (!mid)
		mid = json_object_get(item, is_cell ? "value" : "y");
	it.unit = shown_unit(str_of(item, "unit"), fabs(json_number_value(mid)),
			     &it.f);
	it.x_axis = is_cell ? NULL : x_axis_of(exp, str_of(item, "chart"));
	if (is_cell) {
		fmt_number(json_object_get(item, "row"), it.row,
			   sizeof(it.row));
		fmt_number(json_object_get(item, "col"), it.col,
			   sizeof(it.col));
	} else {
		fmt_number(json_object_get(item, "x"), it.x, sizeof(it.x));
	}
	if (!json_is_array(samples) || !json_array_size(samples)) {
		/* no raw samples kept: the value itself, if there is one */
		json_t *val = json_object_get(item, is_cell ? "value" : "y");
		csv_row(c, &it, kind, json_is_number(val) ? "0" : "", val, NULL,
			NULL);
		return;
	}
	json_array_foreach (samples, i, v) {
		snprintf(idx, sizeof(idx), "%zu", i);
		csv_row(c, &it, kind, idx, v, NULL, NULL);
	}
	if (json_is_number(mid))
		csv_row(c, &it, "median", NULL, mid,
			json_object_get(stats, "ci_lo"),
			json_object_get(stats, "ci_hi"));
}

char *export_csv(json_t *doc, int64_t id, size_t *len)
{
	struct strbuf c = STRBUF_INIT;
	char id_text[24];
	json_t *item;
	size_t i;

	const char *name = str_of(doc, "experiment");
	const struct experiment *exp = name ? experiment_find(name) : NULL;

	snprintf(id_text, sizeof(id_text), "%" PRId64, id);
	strbuf_addstr(&c,
		      "run_id,kind,chart,series,x,x_label,row,col,row_label,"
		      "col_label,unit,sample_index,value,series_label,x_axis,"
		      "value_shown,unit_shown,ci_lo_shown,ci_hi_shown\r\n");
	json_array_foreach (json_object_get(doc, "samples"), i, item)
		csv_item(&c, exp, id_text, "sample", item);
	json_array_foreach (json_object_get(doc, "cells"), i, item)
		csv_item(&c, exp, id_text, "cell", item);
	if (c.oom) {
		strbuf_release(&c);
		return NULL;
	}
	*len = c.len;
	return strbuf_detach(&c);
}
