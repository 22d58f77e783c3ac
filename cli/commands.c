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
#include "machine.h"
#include "fleet_where.h"
#include "rundoc.h"
#include "say.h"
#include "schema.h"
#include "sink_json.h"
#include "sink_table.h"
#include "strbuf.h"
#include "strvec.h"

static volatile sig_atomic_t cancelled;

static void on_signal(int sig)
{
	(void)sig;
	cancelled = 1;
}

static void print_help(const struct experiment *e, const struct topo *t)
{
	json_t *schema = schema_experiment(e, t);
	size_t i;
	json_t *p;

	printf("numalab run %s [k=v ...]  -  %s (article section %s)\n\n%s\n\n",
	       e->name, e->title, e->section ? e->section : "-", e->summary);
	printf("parameters:\n");
	json_array_foreach(json_object_get(schema, "params"), i, p)
	{
		const char *type = json_string_value(json_object_get(p, "type"));
		json_t *choices = json_object_get(p, "choices");
		struct strbuf allowed = STRBUF_INIT;
		if (choices) {
			size_t k;
			json_t *c;
			json_array_foreach(choices, k, c)
				strbuf_addf(&allowed, "%s%s", k ? "|" : "",
					    json_string_value(c));
		} else if (json_object_get(p, "max")) {
			strbuf_addf(&allowed,
				    "%" JSON_INTEGER_FORMAT "..%" JSON_INTEGER_FORMAT,
				    json_integer_value(json_object_get(p, "min")),
				    json_integer_value(json_object_get(p, "max")));
		}
		printf("  %-12s %-8s default '%s'  [%s]%s%s\n      %s\n",
		       json_string_value(json_object_get(p, "name")), type,
		       json_string_value(json_object_get(p, "default")),
		       strbuf_str(&allowed),
		       json_object_get(p, "unit") ? " " : "",
		       json_string_value(json_object_get(p, "unit"))
			       ? json_string_value(json_object_get(p, "unit"))
			       : "",
		       json_string_value(json_object_get(p, "help")));
		strbuf_release(&allowed);
	}
	printf("\noutput: a table on a terminal; --json: the whole run as one JSON "
	       "document; --ndjson: one JSON event per line (docs/events.md)\n");
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

int cmd_run(int argc, char **argv)
{
	enum { OUT_TABLE, OUT_JSON, OUT_NDJSON } out = OUT_TABLE;
	const struct experiment *e = NULL;
	struct topo *t = NULL;
	struct param_values *pv = NULL;
	struct common_params common;
	void *params = NULL;
	struct errinfo err;
	struct sink_json js;
	struct sink table;
	json_t *doc = NULL;
	int a = 1, rc = 2, help = 0;
	struct strvec kv = STRVEC_INIT;

	for (; a < argc; a++) {
		if (!strcmp(argv[a], "--json"))
			out = OUT_JSON;
		else if (!strcmp(argv[a], "--ndjson"))
			out = OUT_NDJSON;
		else if (!strcmp(argv[a], "--help") || !strcmp(argv[a], "-h"))
			help = 1;
		else if (argv[a][0] == '-' && argv[a][1] == '-') {
			say(stderr, "numalab run: unknown option '%s' (options: --json, --ndjson, --help)\n",
				argv[a]);
			goto out;
		} else if (!e) {
			e = experiment_find(argv[a]);
			if (!e) {
				say(stderr, "numalab run: unknown experiment '%s' (known:",
					argv[a]);
				for (int i = 0; experiments[i]; i++)
					say(stderr, " %s", experiments[i]->name);
				say(stderr, ")\n");
				goto out;
			}
		} else {
			strvec_push(&kv, argv[a]);
		}
	}
	if (!e) {
		say(stderr, help ? "usage: numalab run [--json|--ndjson] NAME [k=v ...]\n"
				     : "numalab run: which experiment? (numalab list shows them)\n");
		rc = help ? 0 : 2;
		goto out;
	}
	t = topo_load();
	if (!t) {
		say(stderr, "numalab run: cannot read the topology: %s\n",
			strerror(errno));
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
	if (kv.oom) {
		rc = 1;
		goto out;
	}
	if (experiment_parse(e, t, (int)kv.n, kv.v, pv, params, &common, &err)) {
		say(stderr, "numalab run %s: %s\n", e->name, err.msg);
		if (out == OUT_NDJSON)
			emit_ndjson(NULL, json_pack("{s:s, s:s, s:s, s:s}", "type", "end",
						    "status", "failed", "error", err.msg,
						    "field", err.field));
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
			      .cancel = &cancelled};
	json_t *machine = machine_json(t);
	fleet_where_attach(machine); /* a run a fleet engine started says where */
	json_t *start = json_pack("{s:s, s:s, s:o, s:o, s:s}", "type", "start",
				  "experiment", e->name, "params",
				  schema_params_json(pv), "machine", machine,
				  "version", NUMALAB_VERSION);
	if (out == OUT_TABLE) {
		sink_table_init(&table, stdout);
		ctx.sink = &table;
		printf("%s (%s)\n", e->title, e->name);
		for (int i = 0; i < pv->n; i++)
			printf("%s%s=%s", i ? " " : "  ", pv->v[i].p->name,
			       pv->v[i].text);
		printf("\n\n");
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
	const char *status = r == 0 ? "done" : r == -ECANCELED ? "cancelled" : "failed";
	char why[ERRINFO_MSG_LEN] = "";
	if (r && r != -ECANCELED && err.msg[0])
		snprintf(why, sizeof(why), "%s", err.msg);
	else if (r && r != -ECANCELED)
		snprintf(why, sizeof(why), "the experiment failed: %s", strerror(-r));
	if (out == OUT_TABLE) {
		if (r)
			say(stderr, "numalab run %s: %s\n", e->name,
				r == -ECANCELED ? "cancelled" : why);
	} else {
		json_t *end = json_pack("{s:s, s:s}", "type", "end", "status", status);
		if (*why)
			json_object_set_new(end, "error", json_string(why));
		sink_json_emit(&js, end);
	}
	if (doc) {
		json_dumpf(doc, stdout, JSON_INDENT(2));
		fputc('\n', stdout);
	}
	rc = r == 0 ? 0 : r == -ECANCELED ? 130 : 1;
out:
	json_decref(doc);
	free(params);
	free(pv);
	strvec_clear(&kv);
	topo_free(t);
	return rc;
}

int cmd_list(int argc, char **argv)
{
	int as_json = argc > 1 && !strcmp(argv[1], "--json");

	if (argc > 1 && !as_json) {
		say(stderr, "numalab list: unknown option '%s' (options: --json)\n",
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
	for (int i = 0; experiments[i]; i++)
		printf("%-20s %-8s %s\n", experiments[i]->name,
		       experiments[i]->section ? experiments[i]->section : "",
		       experiments[i]->summary);
	return 0;
}

int cmd_topology(int argc, char **argv)
{
	int as_json = argc > 1 && !strcmp(argv[1], "--json");
	struct topo *t;

	if (argc > 1 && !as_json) {
		say(stderr, "numalab topology: unknown option '%s' (options: --json)\n",
			argv[1]);
		return 2;
	}
	t = topo_load();
	if (!t) {
		say(stderr, "numalab topology: cannot read the topology: %s\n",
			strerror(errno));
		return 1;
	}
	if (as_json) {
		json_t *o = schema_topology(t);
		json_object_set_new(o, "machine", machine_json(t));
		json_dumpf(o, stdout, JSON_INDENT(2));
		fputc('\n', stdout);
		json_decref(o);
	} else {
		printf("%s\n%d package(s), %d core(s), %d PU(s) (%d allowed: %s), %d NUMA node(s)%s\n",
		       t->cpu_model, t->npackages, t->ncores, t->npus, t->nallowed,
		       t->allowed_text, t->nnodes, t->smt ? ", SMT" : "");
		for (int i = 0; i < t->nnodes; i++) {
			printf("node %d: %d PUs, %.1f GiB (%.1f GiB free), distances:",
			       t->node[i].os, t->node[i].npus,
			       t->node[i].mem_total / 1073741824.0,
			       t->node[i].mem_free / 1073741824.0);
			for (int j = 0; j < t->nnodes; j++)
				printf(" %d", t->distance[i][j]);
			printf("\n");
		}
		for (int i = 0; i < t->ncaches; i++)
			if (t->cache[i].logical == 0)
				printf("L%d: %llu KiB per %d PU(s), line %d B\n",
				       t->cache[i].level,
				       (unsigned long long)t->cache[i].size / 1024,
				       t->cache[i].npus, t->cache[i].line_size);
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
