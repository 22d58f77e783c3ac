/* run.c - the run subcommand: one experiment here, as a table, one JSON document, or events (the server's worker) */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cancel.h"
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
#include "run_help.h"
#include "rundoc.h"
#include "say.h"
#include "schema.h"
#include "sink_json.h"
#include "sink_table.h"
#include "stdout_close.h"
#include "strbuf.h"
#include "strvec.h"
#include "term.h"
#include "topo_here.h"
#include "version.h"

static volatile sig_atomic_t cancelled;

static void on_signal(int sig)
{
	(void)sig;
	cancel_set(&cancelled);
}

enum run_output { OUT_TABLE, OUT_JSON, OUT_NDJSON };

/* What run's argv asks for. */
struct run_args {
	int out; /* enum run_output */
	const struct experiment *e;
	struct strvec kv; /* the experiment's k=v params, as given */
	int help;
	double max_seconds; /* --max-seconds, 0: none */
};

/* --max-seconds N: the server's limit on the run, its rounds never grow
 * past it. */
static int max_seconds(void *dest, const char *v)
{
	struct run_args *o = dest;
	char *end;

	o->max_seconds = strtod(v, &end);
	if (*end || !(o->max_seconds > 0) || o->max_seconds > 1e6) {
		say(stderr,
		    "numalab run: --max-seconds '%s' is not a number of seconds over 0 (at most 1000000)\n",
		    v);
		return -EINVAL;
	}
	return 0;
}

/* The experiment, then its k=v params. */
static int run_arg(void *dest, const char *arg)
{
	struct run_args *o = dest;

	if (o->e) {
		strvec_push(&o->kv, arg);
		return -1;
	}
	o->e = experiment_find(arg);
	if (!o->e) {
		names_unknown_experiment(stderr, "numalab run", arg);
		return 2;
	}
	return -1;
}

#define RA struct run_args

static const struct opt run_table[] = {
	OPT_SET("--json", RA, out, OUT_JSON,
		"the whole run as one JSON document"),
	OPT_SET("--ndjson", RA, out, OUT_NDJSON,
		"one JSON event per line as the run goes\n"
		"(what the server reads from its worker)"),
	OPT_CALL("--max-seconds", max_seconds, "N",
		 "rounds never grow past N seconds in all"),
	{OPTION_FLAG, "--help", "-h", offsetof(RA, help), 0, 0, NULL, NULL,
	 "with NAME: the experiment's parameters", 0},
	OPT_END(),
};

static const struct opts_cmd run_cmd = {
	.prog = "numalab run",
	.table = run_table,
	.flags = OPTS_EQUALS | OPTS_ONCE,
	.unknown =
		"unknown option '%1$s' (options: --json, --ndjson, --max-seconds N, --help)",
	.no_value = "'%1$s' needs a value (seconds)",
	.arg = run_arg,
	.help_col = 19,
	.head = "usage: numalab run [--json|--ndjson] [--max-seconds N] NAME [k=v ...]\n"
		"       numalab run NAME --help\n"
		"\n"
		"Runs the experiment NAME once on this machine, its threads pinned and\n"
		"its memory placed as the parameters say, and prints what it measured.\n"
		"\n",
	.tail = "\n"
		"A parameter is k=v; a list takes commas and ranges (1-4,8); a size\n"
		"takes K, M or G (64M). `numalab list` names the experiments.\n",
};

static void emit_ndjson(void *arg, json_t *ev)
{
	(void)arg;
	/* one line per event, flushed: the server reads it as it comes */
	char *s = json_dumps(ev, JSON_COMPACT);
	if (s) {
		fputs(s, stdout);
		fputc('\n', stdout);
		stdout_flush(stdout);
		free(s);
	}
}

static void emit_doc(void *arg, json_t *ev)
{
	events_fold(arg, ev, 0);
}

/* A run on its way: what it reads, and where its events go. */
struct run_out {
	const struct experiment *e;
	const struct param_values *pv;
	struct topo *t;
	struct sink_json js;
	struct sink_table table;
	json_t *doc; /* --json: the document the events fold into */
};

/*
 * budget=auto grows from the run's estimate: the rates cached on this
 * machine when there are some, never a calibration that would hold the
 * run up (the worker gets the server's estimate in its params)
 */
static void rates_cached(const struct topo *t)
{
	char path[4096], fp[512];
	struct rates r;

	rates_default_path(path, sizeof(path));
	rates_fingerprint(t, fp, sizeof(fp));
	if (!rates_load(path, fp, &r))
		rates_set(&r);
}

/* The table: the title and what this run used, the table at the end. */
static struct sink *table_begin(struct run_out *ro, const struct run_ctx *ctx,
				json_t *start)
{
	struct strbuf line = STRBUF_INIT, wrapped = STRBUF_INIT;
	const struct param_values *pv = ro->pv;

	rates_cached(ro->t);
	sink_table_init(&ro->table, ro->e, stdout);
	printf("%s (%s)\n", ro->e->title, ro->e->name);
	/* an empty value, or a param the run does not read, says nothing */
	for (int i = 0; i < pv->n; i++)
		if (pv->v[i].text[0] &&
		    experiment_reads(ro->e, pv->v[i].p, pv, NULL))
			strbuf_addf(&line, " %s=%s", pv->v[i].p->name,
				    pv->v[i].text);
	int cols = term_columns(stdout);
	term_wrap(&wrapped, strbuf_str(&line), 2, cols > 22 ? cols : 0);
	printf("  %s\n", strbuf_str(&wrapped));
	strbuf_release(&line);
	strbuf_release(&wrapped);
	json_decref(start);
	(void)ctx;
	return &ro->table.rec.sink;
}

static void table_end(struct run_out *ro, int r, const char *status,
		      const char *why)
{
	(void)status;
	sink_table_report(&ro->table);
	if (r)
		say(stderr, "numalab run %s: %s\n", ro->e->name,
		    r == -ECANCELED ? "cancelled" : why);
}

/* --json: the run folded into one document, printed at the end. */
static struct sink *json_begin(struct run_out *ro, const struct run_ctx *ctx,
			       json_t *start)
{
	char path[4096], note[ERRINFO_MSG_LEN];
	double est;
	uint64_t est_bytes;

	/* a run here makes its own estimate */
	rates_default_path(path, sizeof(path));
	if (rates_init(ro->t, path, note, sizeof(note)) || *note)
		say(stderr, "numalab run: %s\n", note);
	if (!experiment_estimate(ro->e, ctx->params, &ctx->common, ro->t, &est,
				 &est_bytes))
		json_object_set_new(start, "estimate_s", json_real(est));
	ro->doc = events_doc_new();
	sink_json_init(&ro->js, emit_doc, ro->doc);
	sink_json_emit(&ro->js, start);
	return &ro->js.sink;
}

static void json_end(struct run_out *ro, int r, const char *status,
		     const char *why)
{
	(void)r;
	sink_json_emit(&ro->js, event_end(status, *why ? why : NULL, NULL));
	/* the article's figures, on the terms of this run's points */
	json_object_set_new(ro->doc, "references", refs_json(ro->e));
	json_dumpf(ro->doc, stdout, JSON_INDENT(2));
	fputc('\n', stdout);
}

/* --ndjson: each event a line as it comes (the server's worker). */
static struct sink *ndjson_begin(struct run_out *ro, const struct run_ctx *ctx,
				 json_t *start)
{
	(void)ctx;
	rates_cached(ro->t);
	sink_json_init(&ro->js, emit_ndjson, NULL);
	sink_json_emit(&ro->js, start);
	return &ro->js.sink;
}

static void ndjson_end(struct run_out *ro, int r, const char *status,
		       const char *why)
{
	(void)r;
	sink_json_emit(&ro->js, event_end(status, *why ? why : NULL, NULL));
}

/* Each output mode: where the run's events go, and how it ends. */
static const struct run_mode {
	struct sink *(*begin)(struct run_out *ro, const struct run_ctx *ctx,
			      json_t *start);
	void (*end)(struct run_out *ro, int r, const char *status,
		    const char *why);
} run_modes[] = {
	[OUT_TABLE] = {table_begin, table_end},
	[OUT_JSON] = {json_begin, json_end},
	[OUT_NDJSON] = {ndjson_begin, ndjson_end},
};

/* Runs the experiment with its params parsed, out in mode. The exit
 * status. */
static int run_parsed(const struct run_mode *mode, struct run_out *ro,
		      struct run_ctx *ctx)
{
	struct errinfo err;
	const struct experiment *e = ro->e;

	struct sigaction sa = {.sa_handler = on_signal};
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	ctx->cancel = &cancelled;

	json_t *machine = machine_json(ro->t);
	/* a run a fleet engine started says where */
	fleet_where_attach(machine);
	ctx->sink =
		mode->begin(ro, ctx,
			    event_start(e->name, schema_params_json(e, ro->pv),
					machine, numalab_version()));

	int r = experiment_run(ctx, &err);
	const char *status = r == 0	       ? "done"
			     : r == -ECANCELED ? "cancelled"
					       : "failed";
	char why[ERRINFO_MSG_LEN] = "";
	if (r && r != -ECANCELED && err.msg[0])
		snprintf(why, sizeof(why), "%s", err.msg);
	else if (r && r != -ECANCELED)
		snprintf(why, sizeof(why), "the experiment failed: %s",
			 strerror(-r));
	mode->end(ro, r, status, why);
	return r == 0 ? 0 : r == -ECANCELED ? 130 : 1;
}

/* A run refused before it started: its end event, in ndjson, for the
 * server that reads it. */
static void run_refused(const struct run_args *o, const struct errinfo *err)
{
	json_t *end;

	if (o->out != OUT_NDJSON)
		return;
	end = event_end("failed", err->msg, err->field);
	emit_ndjson(NULL, end);
	json_decref(end);
}

/* The experiment's params from its k=v, then the run. The exit status. */
static int run_params(struct run_args *o, struct run_out *ro)
{
	const struct experiment *e = o->e;
	struct param_values *pv = calloc(1, sizeof(*pv));
	void *params = calloc(1, e->params_size ? e->params_size : 1);
	struct run_ctx ctx = {.exp = e,
			      .params = params,
			      .topo = ro->t,
			      .max_seconds = o->max_seconds};
	struct errinfo err;
	int rc = 1;

	if (!pv || !params || o->kv.oom)
		goto out;
	/* refused before the params: a run under another machine's file
	 * could not be made right by any of them */
	if (topo_run_here(ro->t, &err)) {
		say(stderr, "numalab run %s: %s\n", e->name, err.msg);
		run_refused(o, &err);
		rc = 2;
		goto out;
	}
	if (experiment_parse(e, ro->t, (int)o->kv.n, o->kv.v, pv, params,
			     &ctx.common, &err)) {
		char msg[ERRINFO_MSG_LEN + 64];

		names_param_error(e, &err, msg, sizeof(msg));
		say(stderr, "numalab run %s: %s\n", e->name, msg);
		run_refused(o, &err);
		rc = 2;
		goto out;
	}
	ro->pv = pv;
	rc = run_parsed(&run_modes[o->out], ro, &ctx);
out:
	free(params);
	free(pv);
	return rc;
}

int run_start_only(void)
{
	struct topo *t = topo_load();
	json_t *machine;

	if (!t) {
		say(stderr, "numalab-worker: cannot read the topology: %s\n",
		    topo_load_error());
		return 1;
	}
	rates_cached(t);
	machine = machine_json(t);
	json_dumpf(machine, stdout, JSON_COMPACT);
	fputc('\n', stdout);
	json_decref(machine);
	topo_free(t);
	return 0;
}

int cmd_run(int argc, char **argv)
{
	struct run_args o = {.out = OUT_TABLE, .kv = STRVEC_INIT};
	struct run_out ro = {0};
	int rc = opts_parse(&run_cmd, argc, argv, &o);

	if (rc >= 0)
		goto out;
	rc = 2;
	if (!o.e) {
		if (o.help)
			opts_usage(&run_cmd, stdout);
		else
			say(stderr,
			    "numalab run: which experiment? (numalab list shows them)\n");
		rc = o.help ? 0 : 2;
		goto out;
	}
	ro.e = o.e;
	ro.t = topo_load();
	if (!ro.t) {
		say(stderr, "numalab run: cannot read the topology: %s\n",
		    topo_load_error());
		rc = 1;
	} else if (o.help) {
		run_help(o.e, ro.t);
		rc = 0;
	} else {
		rc = run_params(&o, &ro);
	}
out:
	sink_table_release(&ro.table);
	json_decref(ro.doc);
	strvec_clear(&o.kv);
	topo_free(ro.t);
	return rc;
}
