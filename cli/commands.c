/* commands.c - the run, list and topology subcommands; `run --ndjson` is the server's worker */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "commands.h"
#include "events.h"
#include "experiment.h"
#include "fleet_where.h"
#include "machine.h"
#include "names.h"
#include "opts.h"
#include "rates.h"
#include "refs.h"
#include "registry.h"
#include "report.h"
#include "rundoc.h"
#include "say.h"
#include "schema.h"
#include "sink_json.h"
#include "strbuf.h"
#include "strvec.h"
#include "term.h"
#include "topo_text.h"

static volatile sig_atomic_t cancelled;

static void on_signal(int sig)
{
	(void)sig;
	cancelled = 1;
}

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

/* The param table: name, type, default, allowed, unit, then the help below. */
static void print_params(const char *title, json_t *params, size_t from,
			 size_t to)
{
	static const char *const head[] = {"name", "type", "default", "allowed",
					   "unit"};
	int w[5];
	size_t i;
	json_t *p;

	if (from >= to)
		return;
	for (int j = 0; j < 5; j++)
		w[j] = (int)strlen(head[j]);
	for (i = from; i < to; i++) {
		struct strbuf allowed = STRBUF_INIT;
		const char *cols[5];
		p = json_array_get(params, i);
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
	for (i = from; i < to; i++) {
		struct strbuf allowed = STRBUF_INIT, line = STRBUF_INIT;
		const char *def, *unit;
		int long_list;
		p = json_array_get(params, i);
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

static void print_help(const struct experiment *e, const struct topo *t)
{
	json_t *schema = schema_experiment(e, t);
	json_t *params = json_object_get(schema, "params");
	size_t own = count_rows(e->params);
	size_t placed =
		own + (e->uses_placement ? count_rows(placement_params) : 0);
	struct strbuf title = STRBUF_INIT;

	printf("usage: numalab run [--json|--ndjson] %s [k=v ...]\n\n%s (article section %s)\n",
	       e->name, e->title, e->section ? e->section : "-");
	print_wrapped(e->summary, 0);
	if (json_string_value(json_object_get(schema, "limited")))
		printf("on this machine: %s\n",
		       json_string_value(json_object_get(schema, "limited")));
	strbuf_addf(&title, "parameters of %s", e->name);
	print_params(strbuf_str(&title), params, 0, own);
	print_params("where the threads run (the placement parameters)", params,
		     own, placed);
	print_params("parameters every experiment takes", params, placed,
		     json_array_size(params));
	printf("\nA list takes commas and ranges (1-4,8); a size takes K, M or G (64M).\n"
	       "output: a table at the end of the run (a progress line meanwhile on a\n"
	       "terminal); --json: the whole run as one JSON document; --ndjson: one\n"
	       "JSON event per line (docs/events.md)\n");
	strbuf_release(&title);
	json_decref(schema);
}

static void emit_ndjson(void *arg, json_t *ev)
{
	(void)arg;
	/* one line per event, flushed: the server reads it as it comes */
	char *s = json_dumps(ev, JSON_COMPACT);
	if (s) {
		fputs(s, stdout);
		fputc('\n', stdout);
		fflush(stdout);
		free(s);
	}
}

static void emit_doc(void *arg, json_t *ev)
{
	events_fold(arg, ev, 0);
}

enum { RO_JSON = 1, RO_NDJSON, RO_HELP, RO_MAX_SECONDS };

static const struct opt run_options[] = {
	{"--json", NULL, 0, RO_JSON},
	{"--ndjson", NULL, 0, RO_NDJSON},
	{"--help", "-h", 0, RO_HELP},
	/* the server's limit on the run: its rounds never grow past it */
	{"--max-seconds", NULL, 1, RO_MAX_SECONDS},
	{0}};

static void run_usage(FILE *f)
{
	fprintf(f,
		"usage: numalab run [--json|--ndjson] [--max-seconds N] NAME [k=v ...]\n"
		"       numalab run NAME --help\n"
		"\n"
		"Runs the experiment NAME once on this machine, its threads pinned and\n"
		"its memory placed as the parameters say, and prints what it measured.\n"
		"\n"
		"  --json           the whole run as one JSON document\n"
		"  --ndjson         one JSON event per line as the run goes\n"
		"                   (what the server reads from its worker)\n"
		"  --max-seconds N  rounds never grow past N seconds in all\n"
		"  --help           with NAME: the experiment's parameters\n"
		"\n"
		"A parameter is k=v; a list takes commas and ranges (1-4,8); a size\n"
		"takes K, M or G (64M). `numalab list` names the experiments.\n");
}

enum run_output { OUT_TABLE, OUT_JSON, OUT_NDJSON };

/* What run's argv asks for. */
struct run_args {
	enum run_output out;
	const struct experiment *e;
	struct strvec kv; /* the experiment's k=v params, as given */
	int help;
	double max_seconds; /* --max-seconds, 0: none */
};

/* Reads run's argv into o. Returns -1 to go on, or the exit status (said). */
static int parse_run_args(int argc, char **argv, struct run_args *o)
{
	struct opts op = OPTS_INIT(run_options, OPTS_EQUALS, argc, argv);
	int id;

	while ((id = opts_next(&op)) != OPTS_END) {
		if (id == RO_JSON)
			o->out = OUT_JSON;
		else if (id == RO_NDJSON)
			o->out = OUT_NDJSON;
		else if (id == RO_HELP)
			o->help = 1;
		else if (id == RO_MAX_SECONDS) {
			char *end;
			o->max_seconds = strtod(op.value, &end);
			if (*end || !(o->max_seconds > 0) ||
			    o->max_seconds > 1e6) {
				say(stderr,
				    "numalab run: --max-seconds '%s' is not a number of seconds over 0 (at most 1000000)\n",
				    op.value);
				return 2;
			}
		} else if (id == OPTS_NO_VALUE) {
			say(stderr,
			    "numalab run: '%s' needs a value (seconds)\n",
			    op.arg);
			return 2;
		} else if (id == OPTS_UNKNOWN) {
			say(stderr,
			    "numalab run: unknown option '%s' (options: --json, --ndjson, --max-seconds N, --help)\n",
			    op.arg);
			return 2;
		} else if (!o->e) {
			o->e = experiment_find(op.arg);
			if (!o->e) {
				names_unknown_experiment(stderr, "numalab run",
							 op.arg);
				return 2;
			}
		} else {
			strvec_push(&o->kv, op.arg);
		}
	}
	return -1;
}

int cmd_run(int argc, char **argv)
{
	struct run_args o = {.out = OUT_TABLE, .kv = STRVEC_INIT};
	enum run_output out;
	const struct experiment *e = NULL;
	struct topo *t = NULL;
	struct param_values *pv = NULL;
	struct common_params common;
	void *params = NULL;
	struct errinfo err;
	struct sink_json js;
	struct sink_table table = {0};
	json_t *doc = NULL;
	int rc = 2, help;

	rc = parse_run_args(argc, argv, &o);
	if (rc >= 0)
		goto out;
	rc = 2;
	e = o.e;
	out = o.out;
	help = o.help;
	if (!e) {
		if (help)
			run_usage(stdout);
		else
			say(stderr,
			    "numalab run: which experiment? (numalab list shows them)\n");
		rc = help ? 0 : 2;
		goto out;
	}
	t = topo_load();
	if (!t) {
		say(stderr, "numalab run: cannot read the topology: %s\n",
		    topo_load_error());
		rc = 1;
		goto out;
	}
	if (help) {
		print_help(e, t);
		rc = 0;
		goto out;
	}
	pv = calloc(1, sizeof(*pv));
	params = calloc(1, e->params_size ? e->params_size : 1);
	if (!pv || !params) {
		rc = 1;
		goto out;
	}
	if (o.kv.oom) {
		rc = 1;
		goto out;
	}
	if (experiment_parse(e, t, (int)o.kv.n, o.kv.v, pv, params, &common,
			     &err)) {
		char msg[ERRINFO_MSG_LEN + 64];

		names_param_error(e, &err, msg, sizeof(msg));
		say(stderr, "numalab run %s: %s\n", e->name, msg);
		if (out == OUT_NDJSON)
			emit_ndjson(NULL,
				    event_end("failed", err.msg, err.field));
		rc = 2;
		goto out;
	}

	struct sigaction sa = {.sa_handler = on_signal};
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);

	struct run_ctx ctx = {.exp = e,
			      .params = params,
			      .common = common,
			      .topo = t,
			      .cancel = &cancelled,
			      .max_seconds = o.max_seconds};
	json_t *machine = machine_json(t);
	fleet_where_attach(
		machine); /* a run a fleet engine started says where */
	json_t *start = event_start(e->name, schema_params_json(pv), machine,
				    NUMALAB_VERSION);
	if (out == OUT_JSON) {
		/* the worker (--ndjson) gets the server's estimate; a run here
		 * makes its own */
		char path[4096];
		double est;
		uint64_t est_bytes;

		rates_default_path(path, sizeof(path));
		rates_init(t, path);
		if (!experiment_estimate(e, params, &common, t, &est,
					 &est_bytes))
			json_object_set_new(start, "estimate_s",
					    json_real(est));
	} else {
		/*
		 * budget=auto grows from the run's estimate: the rates cached
		 * on this machine when there are some, never a calibration
		 * that would hold the run up
		 */
		char path[4096], fp[512];
		struct rates r;

		rates_default_path(path, sizeof(path));
		rates_fingerprint(t, fp, sizeof(fp));
		if (!rates_load(path, fp, &r))
			rates_set(&r);
	}
	if (out == OUT_TABLE) {
		sink_table_init(&table, e, stdout);
		ctx.sink = &table.sink;
		printf("%s (%s)\n", e->title, e->name);
		/* what this run used: an empty value, or a param of another
		 * mode, says nothing */
		struct strbuf line = STRBUF_INIT, wrapped = STRBUF_INIT;
		for (int i = 0; i < pv->n; i++)
			if (pv->v[i].text[0] && param_applies(pv->v[i].p, pv))
				strbuf_addf(&line, " %s=%s", pv->v[i].p->name,
					    pv->v[i].text);
		int cols = term_columns(stdout);
		term_wrap(&wrapped, strbuf_str(&line), 2, cols > 22 ? cols : 0);
		printf("  %s\n", strbuf_str(&wrapped));
		strbuf_release(&line);
		strbuf_release(&wrapped);
		json_decref(start);
	} else {
		if (out == OUT_JSON) {
			doc = events_doc_new();
			sink_json_init(&js, emit_doc, doc);
		} else {
			sink_json_init(&js, emit_ndjson, NULL);
		}
		ctx.sink = &js.sink;
		sink_json_emit(&js, start);
	}

	int r = experiment_run(&ctx, &err);
	const char *status = r == 0	       ? "done"
			     : r == -ECANCELED ? "cancelled"
					       : "failed";
	char why[ERRINFO_MSG_LEN] = "";
	if (r && r != -ECANCELED && err.msg[0])
		snprintf(why, sizeof(why), "%s", err.msg);
	else if (r && r != -ECANCELED)
		snprintf(why, sizeof(why), "the experiment failed: %s",
			 strerror(-r));
	if (out == OUT_TABLE) {
		sink_table_report(&table);
		if (r)
			say(stderr, "numalab run %s: %s\n", e->name,
			    r == -ECANCELED ? "cancelled" : why);
	} else {
		sink_json_emit(&js, event_end(status, *why ? why : NULL, NULL));
	}
	if (doc) {
		/* the article's figures, on the terms of this run's points */
		json_object_set_new(doc, "references", refs_json(e));
		json_dumpf(doc, stdout, JSON_INDENT(2));
		fputc('\n', stdout);
	}
	rc = r == 0 ? 0 : r == -ECANCELED ? 130 : 1;
out:
	sink_table_release(&table);
	json_decref(doc);
	free(params);
	free(pv);
	strvec_clear(&o.kv);
	topo_free(t);
	return rc;
}

int cmd_list(int argc, char **argv)
{
	int as_json = argc > 1 && !strcmp(argv[1], "--json");

	if (argc > 1 &&
	    (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		printf("usage: numalab list [--json]\n"
		       "\n"
		       "The experiments: name, the article's section, what each does.\n"
		       "\n"
		       "  --json  every experiment's schema (its parameters with their\n"
		       "          types, defaults and limits on this machine, its charts),\n"
		       "          as GET /api/experiments answers\n");
		return 0;
	}

	if (argc > 1 && !as_json) {
		say(stderr,
		    "numalab list: unknown option '%s' (options: --json)\n",
		    argv[1]);
		return 2;
	}
	if (as_json) {
		struct topo *t = topo_load();
		json_t *a = schema_experiments(t);
		json_dumpf(a, stdout, JSON_INDENT(2));
		fputc('\n', stdout);
		json_decref(a);
		topo_free(t);
		return 0;
	}
	int w = names_width(), ws = 0;

	for (int i = 0; experiments[i]; i++) {
		const char *sec = experiments[i]->section;
		int n = sec ? (int)strlen(sec) : 0;
		ws = n > ws ? n : ws;
	}
	/* the summaries wrapped under their column, to the terminal's width */
	int cols = term_columns(stdout), indent = w + 2 + ws + 2;
	for (int i = 0; experiments[i]; i++) {
		struct strbuf sb = STRBUF_INIT;

		term_wrap(&sb, experiments[i]->summary, indent,
			  cols > indent + 20 ? cols : 0);
		printf("%-*s  %-*s  %s\n", w, experiments[i]->name, ws,
		       experiments[i]->section ? experiments[i]->section : "",
		       strbuf_str(&sb));
		strbuf_release(&sb);
	}
	return 0;
}

int cmd_topology(int argc, char **argv)
{
	int as_json = argc > 1 && !strcmp(argv[1], "--json");
	struct topo *t;

	if (argc > 1 &&
	    (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		printf("usage: numalab topology [--json]\n"
		       "\n"
		       "This machine as numalab sees it (through hwloc): packages, caches,\n"
		       "cores and CPUs as a picture, then each NUMA node's CPUs, memory and\n"
		       "distances. HWLOC_XMLFILE or HWLOC_SYNTHETIC in the environment\n"
		       "stand for another machine.\n"
		       "\n"
		       "  --json  the topology and the machine's facts, as GET /api/topology\n"
		       "          answers\n");
		return 0;
	}

	if (argc > 1 && !as_json) {
		say(stderr,
		    "numalab topology: unknown option '%s' (options: --json)\n",
		    argv[1]);
		return 2;
	}
	t = topo_load();
	if (!t) {
		say(stderr, "numalab topology: cannot read the topology: %s\n",
		    topo_load_error());
		return 1;
	}
	if (as_json) {
		json_t *o = schema_topology(t);
		json_object_set_new(o, "machine", machine_json(t));
		json_dumpf(o, stdout, JSON_INDENT(2));
		fputc('\n', stdout);
		json_decref(o);
	} else {
		struct strbuf pic = STRBUF_INIT;

		strbuf_init(&pic);
		topo_text(t, &pic);
		printf("%s\n", strbuf_str(&pic));
		strbuf_reset(&pic);
		topo_facts_text(t, &pic);
		fputs(strbuf_str(&pic), stdout);
		strbuf_release(&pic);
		for (int i = 0; i < t->ncaches; i++)
			if (t->cache[i].logical == 0)
				printf("L%d: %llu KiB per %d PU%s, line %d B\n",
				       t->cache[i].level,
				       (unsigned long long)t->cache[i].size /
					       1024,
				       t->cache[i].npus,
				       t->cache[i].npus == 1 ? "" : "s",
				       t->cache[i].line_size);
		printf("cpu  core pkg node  L2  L3 allowed\n");
		for (int i = 0; i < t->npus; i++) {
			const struct topo_pu *p = &t->pu[i];
			printf("%3d %5d %3d %4d %3d %3d %s\n", p->os, p->core,
			       p->package, p->node, p->l2, p->l3,
			       p->allowed ? "yes" : "no");
		}
	}
	topo_free(t);
	return 0;
}
