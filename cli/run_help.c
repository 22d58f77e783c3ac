/* run_help.c - `numalab run NAME --help`: an experiment's parameters as a table */
#include "run_help.h"

#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "schema.h"
#include "strbuf.h"

/* Prints text from column indent, wrapped before column 78. */
static void print_wrapped(const char *text, int indent)
{
	int col = 0;

	while (text && *text) {
		size_t n = strcspn(text, " ");
		if (col && col + 1 + (int)n > 78) {
			putchar('\n');
			col = 0;
		}
		if (!col)
			col = printf("%*s", indent, "");
		else
			col += printf(" ");
		col += printf("%.*s", (int)n, text);
		text += n;
		text += strspn(text, " ");
	}
	putchar('\n');
}

/* The allowed values of one param of the schema: its choices or its range. */
static void param_allowed(json_t *p, struct strbuf *sb)
{
	json_t *choices = json_object_get(p, "choices"), *c;
	size_t k;

	json_array_foreach (choices, k, c)
		strbuf_addf(sb, "%s%s", k ? "|" : "", json_string_value(c));
	if (!choices && json_object_get(p, "max"))
		strbuf_addf(sb,
			    "%" JSON_INTEGER_FORMAT "..%" JSON_INTEGER_FORMAT,
			    json_integer_value(json_object_get(p, "min")),
			    json_integer_value(json_object_get(p, "max")));
	if (!sb->len)
		strbuf_addstr(sb, "-");
}

/* ". Read here only with modes among created_pinned, pinned_after or
 * process_mask": a row the experiment reads only while one of its own
 * params holds a value (the schema's only_here). */
static void only_here(json_t *here, struct strbuf *line)
{
	json_t *vals = json_object_get(here, "values");
	size_t n = json_array_size(vals);

	if (!here || !n)
		return;
	strbuf_addf(line, ". Read here only with %s among ",
		    json_string_value(json_object_get(here, "param")));
	for (size_t i = 0; i < n; i++)
		strbuf_addf(line, "%s%s",
			    !i		? ""
			    : i + 1 < n ? ", "
					: " or ",
			    json_string_value(json_array_get(vals, i)));
}

/*
 * The param table of the n rows of params whose indexes are in rows: name,
 * type, default, allowed, unit, then the help below.
 */
static void print_params(const char *title, json_t *params, const size_t *rows,
			 size_t n)
{
	static const char *const head[] = {"name", "type", "default", "allowed",
					   "unit"};
	int w[5];
	json_t *p;

	if (!n)
		return;
	for (int j = 0; j < 5; j++)
		w[j] = (int)strlen(head[j]);
	for (size_t i = 0; i < n; i++) {
		struct strbuf allowed = STRBUF_INIT;
		const char *cols[5];
		p = json_array_get(params, rows[i]);
		param_allowed(p, &allowed);
		cols[0] = json_string_value(json_object_get(p, "name"));
		cols[1] = json_string_value(json_object_get(p, "type"));
		cols[2] = json_string_value(json_object_get(p, "default"));
		cols[3] = strbuf_str(&allowed);
		cols[4] = json_string_value(json_object_get(p, "unit"));
		for (int j = 0; j < 5; j++) {
			int n = cols[j] ? (int)strlen(cols[j]) : 0;
			/* a long list of choices goes on its own line */
			if (j == 3 && n > 30)
				n = 0;
			if (n > w[j])
				w[j] = n;
		}
		strbuf_release(&allowed);
	}
	printf("\n%s\n  %-*s  %-*s  %-*s  %-*s  %s\n", title, w[0], head[0],
	       w[1], head[1], w[2], head[2], w[3], head[3], head[4]);
	for (size_t i = 0; i < n; i++) {
		struct strbuf allowed = STRBUF_INIT, line = STRBUF_INIT;
		const char *def, *unit;
		int long_list;
		p = json_array_get(params, rows[i]);
		param_allowed(p, &allowed);
		def = json_string_value(json_object_get(p, "default"));
		unit = json_string_value(json_object_get(p, "unit"));
		long_list = allowed.len > 30;
		printf("  %-*s  %-*s  %-*s  %-*s  %s\n", w[0],
		       json_string_value(json_object_get(p, "name")), w[1],
		       json_string_value(json_object_get(p, "type")), w[2],
		       def && *def ? def : "''", w[3],
		       long_list ? "see below" : strbuf_str(&allowed),
		       unit ? unit : "-");
		if (long_list)
			strbuf_addf(&line, "allowed: %s. ",
				    strbuf_str(&allowed));
		strbuf_addstr(&line,
			      json_string_value(json_object_get(p, "help")));
		only_here(json_object_get(p, "only_here"), &line);
		print_wrapped(strbuf_str(&line), 6);
		strbuf_release(&allowed);
		strbuf_release(&line);
	}
}

static size_t count_rows(const struct param *p)
{
	size_t n = 0;

	while (p && p[n].name)
		n++;
	return n;
}

/*
 * The rows from..to of params (the schema's), in one table; those the
 * experiment never reads (their "unread") in a line after it instead.
 */
static void print_range(const char *title, json_t *params, size_t from,
			size_t to)
{
	size_t rows[PARAM_MAX_PER_EXP], n = 0;
	struct strbuf unread = STRBUF_INIT;

	for (size_t i = from; i < to && n < PARAM_MAX_PER_EXP; i++) {
		json_t *p = json_array_get(params, i);
		const char *why =
			json_string_value(json_object_get(p, "unread"));
		if (why)
			strbuf_addf(
				&unread, "%s'%s' (%s)",
				unread.len ? "; " : "not read here: ",
				json_string_value(json_object_get(p, "name")),
				why);
		else
			rows[n++] = i;
	}
	print_params(title, params, rows, n);
	if (unread.len)
		print_wrapped(strbuf_str(&unread), 2);
	strbuf_release(&unread);
}

/*
 * The experiment's own params, the first own rows of params: those every
 * part reads under "parameters of NAME", then one table a part of those
 * its reads name (experiment_param_part).
 */
static void print_own(const struct experiment *e, json_t *params, size_t own)
{
	size_t rows[PARAM_MAX_PER_EXP], n = 0;
	struct strbuf title = STRBUF_INIT;

	for (size_t i = 0; i < own && n < PARAM_MAX_PER_EXP; i++)
		if (!experiment_param_part(e, e->params[i].name))
			rows[n++] = i;
	strbuf_addf(&title, "parameters of %s", e->name);
	print_params(strbuf_str(&title), params, rows, n);
	for (const struct part *p = e->parts; p && p->name; p++) {
		n = 0;
		for (size_t i = 0; i < own && n < PARAM_MAX_PER_EXP; i++)
			if (experiment_param_part(e, e->params[i].name) == p)
				rows[n++] = i;
		strbuf_reset(&title);
		strbuf_addf(&title, "parameters the part '%s' alone reads",
			    p->name);
		print_params(strbuf_str(&title), params, rows, n);
	}
	strbuf_release(&title);
}

void run_help(const struct experiment *e, const struct topo *t)
{
	json_t *schema = schema_experiment(e, t);
	json_t *params = json_object_get(schema, "params");
	size_t own = count_rows(e->params);
	size_t placed =
		own + (e->uses_placement ? count_rows(placement_params) : 0);

	printf("usage: numalab run [--json|--ndjson] [--max-seconds N] %s [k=v ...]\n\n%s (article section %s)\n",
	       e->name, e->title, e->section ? e->section : "-");
	print_wrapped(e->summary, 0);
	if (json_string_value(json_object_get(schema, "limited")))
		printf("on this machine: %s\n",
		       json_string_value(json_object_get(schema, "limited")));
	print_own(e, params, own);
	print_range("where the threads run (the placement parameters)", params,
		    own, placed);
	print_range("parameters every experiment takes", params, placed,
		    json_array_size(params));
	printf("\nA list takes commas and ranges (1-4,8); a size takes K, M or G (64M).\n"
	       "output: a table at the end of the run (a progress line meanwhile on a\n"
	       "terminal); --json: the whole run as one JSON document; --ndjson: one\n"
	       "JSON event per line (docs/events.md)\n");
	json_decref(schema);
}
