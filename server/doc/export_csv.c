/* export_csv.c - a run document's raw samples as CSV, one row per sample */
#include "export_csv.h"

#include <inttypes.h>
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
static void fmt_number(json_t *v, char *buf, size_t len)
{
	buf[0] = '\0';
	if (json_is_integer(v)) {
		snprintf(buf, len, "%" JSON_INTEGER_FORMAT,
			 json_integer_value(v));
	} else if (json_is_real(v)) {
		double d = json_real_value(v);
		for (int prec = 15; prec <= 17; prec++) {
			snprintf(buf, len, "%.*g", prec, d);
			if (strtod(buf, NULL) == d)
				break;
		}
	}
}

static const char *str_of(json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

static void csv_row(struct strbuf *c, const struct experiment *exp,
		    const char *id, const char *kind, json_t *item,
		    const char *x, const char *row, const char *col,
		    const char *index, const char *value)
{
	int is_cell = !strcmp(kind, "cell");
	const char *series = is_cell ? NULL : str_of(item, "series");
	char label[160] = "";

	field(c, id, 0);
	field(c, kind, 0);
	field(c, str_of(item, "chart"), 0);
	field(c, is_cell ? NULL : str_of(item, "series"), 0);
	field(c, x, 0);
	field(c, is_cell ? NULL : str_of(item, "x_label"), 0);
	field(c, row, 0);
	field(c, col, 0);
	field(c, is_cell ? str_of(item, "row_label") : NULL, 0);
	field(c, is_cell ? str_of(item, "col_label") : NULL, 0);
	field(c, str_of(item, "unit"), 0);
	field(c, index, 0);
	field(c, value, 0);
	/* the series in words, from the descriptor of the experiment */
	if (series)
		experiment_series_label(exp, series, label, sizeof(label),
					NULL);
	field(c, label[0] ? label : NULL, 1);
}

/* Every raw sample of a sample or cell, one row each. */
static void csv_item(struct strbuf *c, const struct experiment *exp,
		     const char *id, const char *kind, json_t *item)
{
	json_t *samples = json_object_get(item, "samples"), *v;
	char x[40] = "", row[40] = "", col[40] = "", idx[24], val[40];
	size_t i;

	if (!strcmp(kind, "cell")) {
		fmt_number(json_object_get(item, "row"), row, sizeof(row));
		fmt_number(json_object_get(item, "col"), col, sizeof(col));
	} else {
		fmt_number(json_object_get(item, "x"), x, sizeof(x));
	}
	if (!json_is_array(samples) || !json_array_size(samples)) {
		/* no raw samples kept: the value itself, if there is one */
		fmt_number(json_object_get(
				   item, strcmp(kind, "cell") ? "y" : "value"),
			   val, sizeof(val));
		csv_row(c, exp, id, kind, item, x, row, col, val[0] ? "0" : "",
			val);
		return;
	}
	json_array_foreach (samples, i, v) {
		snprintf(idx, sizeof(idx), "%zu", i);
		fmt_number(v, val, sizeof(val));
		csv_row(c, exp, id, kind, item, x, row, col, idx, val);
	}
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
		      "col_label,unit,sample_index,value,series_label\r\n");
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
