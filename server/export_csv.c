/* export_csv.c - a run document's raw samples as CSV, one row per sample */
#include "export_csv.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strbuf.h"

/* A plain number, as fmt_number writes one: a minus sign is no formula. */
static int csv_is_number(const char *v)
{
	char *end;

	strtod(v, &end);
	return end != v && !*end && !strpbrk(v, "xXnN");
}

/*
 * One field, quoted when it must be (RFC 4180); text a spreadsheet would
 * run as a formula gets a leading ' (OWASP's CSV injection advice).
 */
static void csv_field(struct strbuf *c, const char *v, int last)
{
	int formula = v && *v && strchr("=+-@\t\r", *v) && !csv_is_number(v);

	if (v && (formula || v[strcspn(v, ",\"\r\n")])) {
		strbuf_addch(c, '"');
		if (formula)
			strbuf_addch(c, '\'');
		for (const char *p = v; *p; p++) {
			if (*p == '"')
				strbuf_addch(c, '"');
			strbuf_addch(c, *p);
		}
		strbuf_addch(c, '"');
	} else if (v) {
		strbuf_addstr(c, v);
	}
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

static void csv_row(struct strbuf *c, const char *id, const char *kind,
		    json_t *item, const char *x, const char *row,
		    const char *col, const char *index, const char *value)
{
	int is_cell = !strcmp(kind, "cell");

	csv_field(c, id, 0);
	csv_field(c, kind, 0);
	csv_field(c, str_of(item, "chart"), 0);
	csv_field(c, is_cell ? NULL : str_of(item, "series"), 0);
	csv_field(c, x, 0);
	csv_field(c, is_cell ? NULL : str_of(item, "x_label"), 0);
	csv_field(c, row, 0);
	csv_field(c, col, 0);
	csv_field(c, is_cell ? str_of(item, "row_label") : NULL, 0);
	csv_field(c, is_cell ? str_of(item, "col_label") : NULL, 0);
	csv_field(c, str_of(item, "unit"), 0);
	csv_field(c, index, 0);
	csv_field(c, value, 1);
}

/* Every raw sample of a sample or cell, one row each. */
static void csv_item(struct strbuf *c, const char *id, const char *kind,
		     json_t *item)
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
		csv_row(c, id, kind, item, x, row, col, val[0] ? "0" : "", val);
		return;
	}
	json_array_foreach (samples, i, v) {
		snprintf(idx, sizeof(idx), "%zu", i);
		fmt_number(v, val, sizeof(val));
		csv_row(c, id, kind, item, x, row, col, idx, val);
	}
}

char *export_csv(json_t *doc, int64_t id, size_t *len)
{
	struct strbuf c = STRBUF_INIT;
	char id_text[24];
	json_t *item;
	size_t i;

	snprintf(id_text, sizeof(id_text), "%" PRId64, id);
	strbuf_addstr(&c,
		      "run_id,kind,chart,series,x,x_label,row,col,row_label,"
		      "col_label,unit,sample_index,value\r\n");
	json_array_foreach (json_object_get(doc, "samples"), i, item)
		csv_item(&c, id_text, "sample", item);
	json_array_foreach (json_object_get(doc, "cells"), i, item)
		csv_item(&c, id_text, "cell", item);
	if (c.oom) {
		strbuf_release(&c);
		return NULL;
	}
	*len = c.len;
	return strbuf_detach(&c);
}
