/* rates_cmd.c - the rates subcommand: what this machine does per unit of work, as the run-time estimates use it */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "estimate_now.h"
#include "experiment.h"
#include "names.h"
#include "opts.h"
#include "plan_view.h"
#include "rates.h"
#include "registry.h"
#include "say.h"
#include "strbuf.h"
#include "strvec.h"
#include "topo.h"
#include "units.h"

int cmd_rates(int argc, char **argv)
{
	char path[4096], guessed[512], note[ERRINFO_MSG_LEN];
	struct rates r, d;
	struct topo *t;
	int refresh = 0, rc;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--refresh")) {
			refresh = 1;
		} else if (!strcmp(argv[i], "--help") ||
			   !strcmp(argv[i], "-h")) {
			printf("usage: numalab rates [--refresh]\n\n"
			       "The rates this machine was measured at (about a third of a\n"
			       "second, cached in %s), which the run-time estimates\n"
			       "multiply each run's work by. --refresh measures them again.\n",
			       "$XDG_CACHE_HOME/numalab/rates");
			return 0;
		} else {
			fprintf(stderr,
				"numalab rates: unknown option '%s' (allowed: --refresh)\n",
				argv[i]);
			return 2;
		}
	}
	t = topo_load();
	if (!t) {
		say(stderr, "numalab rates: cannot read the topology: %s\n",
		    topo_load_error());
		return 1;
	}
	if (refresh && !t->thissystem) {
		say(stderr,
		    "numalab rates: --refresh measures this machine, and %s is "
		    "not this system: run it without the topology\n",
		    t->source);
		topo_free(t);
		return 2;
	}
	rates_default_path(path, sizeof(path));
	/* unlink, not remove: a folder at the path is not the cache's to
	 * delete (the save then says it cannot write there) */
	if (refresh)
		unlink(path);
	rc = rates_init(t, path, note, sizeof(note));
	r = *rates_get();
	printf("rates (%s)\n", r.source);
	if (r.standin)
		printf("  measured on this machine, standing in for %s: its "
		       "machine's own cannot be measured here\n",
		       t->source);
	if (rates_guessed(&r, guessed, sizeof(guessed)))
		printf("  built-in guesses, not measured: %s\n", guessed);
	const struct {
		const char *what;
		double v;
		const char *unit;
	} rows[] = {{"increment, private line", r.inc_ns, "ns"},
		    {"increment, line shared by 2", r.bounce_ns, "ns"},
		    {"atomic add, uncontended", r.atomic_ns, "ns"},
		    {"atomic add, line shared by 2", r.atomic_shared_ns, "ns"},
		    {"read, one thread", r.read_gbs, "GB/s"},
		    {"write, one thread", r.write_gbs, "GB/s"},
		    {"first touch of a page", r.touch_page_ns, "ns"},
		    {"start and join a team", r.team_s, "s"},
		    {"round trip of a line, 2 cpus", r.rtt_ns, "ns"},
		    {"a worker's start", r.start_s, "s"}};
	rates_default(&d);
	const double guess[] = {d.inc_ns,	    d.bounce_ns, d.atomic_ns,
				d.atomic_shared_ns, d.read_gbs,	 d.write_gbs,
				d.touch_page_ns,    d.team_s,	 d.rtt_ns,
				d.start_s};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		char num[64];
		double f;
		const char *u = units_pick(rows[i].v, rows[i].unit, &f);

		units_number(rows[i].v * f, num, sizeof(num));
		/* a rate not measured is the guess, and says so */
		printf("  %-34s %8s %s%s\n", rows[i].what, num, u,
		       !r.measured || rows[i].v == guess[i] ? "  (built-in)"
							    : "");
	}
	printf("  cache: %s%s\n", path, rc ? " (not saved)" : "");
	topo_free(t);
	if (*note)
		say(stderr, "numalab rates: %s\n", note);
	/* keeping the rates is this command's work, as writing its output
	 * is every command's: not done, it fails */
	return rc ? 1 : 0;
}

/* The plan's lines as a JSON array of strings. */
static json_t *plan_lines(const char *text)
{
	json_t *a = json_array();

	while (*text) {
		const char *nl = strchr(text, '\n');
		size_t n = nl ? (size_t)(nl - text) : strlen(text);
		json_array_append_new(a, json_stringn(text, n));
		text += n + (nl != NULL);
	}
	return a;
}

/* Each line of text, indented by two spaces. */
static void print_indented(const char *text)
{
	for (const char *l = text; *l;) {
		const char *nl = strchr(l, '\n');
		size_t n = nl ? (size_t)(nl - l) : strlen(l);
		printf("  %.*s\n", (int)n, l);
		l += n + (nl != NULL);
	}
}

/* What estimate's argv asks for. */
struct estimate_args {
	int json;
	const struct experiment *e;
	struct strvec kv; /* the experiment's k=v params, as given */
};

/* The experiment, then its k=v params. */
static int estimate_arg(void *dest, const char *arg)
{
	struct estimate_args *o = dest;

	if (o->e) {
		strvec_push(&o->kv, arg);
		return -1;
	}
	o->e = experiment_find(arg);
	if (!o->e) {
		names_unknown_experiment(stderr, "numalab estimate", arg);
		return 2;
	}
	return -1;
}

static const struct opt estimate_table[] = {
	OPT_FLAG("--json", struct estimate_args, json,
		 "the estimate as a JSON object"),
	OPT_HELP(NULL),
	OPT_END(),
};

/* its options read as run's are: before NAME or after it */
static const struct opts_cmd estimate_cmd = {
	.prog = "numalab estimate",
	.table = estimate_table,
	.flags = OPTS_EQUALS | OPTS_ONCE,
	.unknown = "unknown option '%1$s' (options: --json, --help)",
	.arg = estimate_arg,
	.help_col = 10,
	.head = "usage: numalab estimate [--json] NAME [k=v ...]\n"
		"\n"
		"How long the run `numalab run NAME k=v ...` would take here, and\n"
		"how much memory it would need, from its work and the rates\n"
		"`numalab rates` shows; the server refuses a run estimated to take\n"
		"longer than its --max-run-seconds. Then its plan: the nodes\n"
		"threads may run on and memory may be bound to, and where this\n"
		"run puts them (cpus, pairs, cells), so that a plan can be\n"
		"checked on a topology file (HWLOC_XMLFILE=file).\n"
		"\n",
};

int cmd_estimate(int argc, char **argv)
{
	struct estimate_args args = {.kv = STRVEC_INIT};
	const struct experiment *e;
	struct param_values *pv = NULL;
	struct common_params common;
	void *params = NULL;
	struct errinfo err;
	struct topo *t = NULL;
	char path[4096], note[ERRINFO_MSG_LEN];
	double seconds = 0;
	uint64_t bytes = 0;
	int rc = opts_parse(&estimate_cmd, argc, argv, &args);
	struct strbuf plan = STRBUF_INIT;
	char basis[256] = "";

	if (rc >= 0)
		goto out;
	rc = 2;
	e = args.e;
	if (!e) {
		say(stderr,
		    "numalab estimate: which experiment? (numalab list shows them)\n");
		goto out;
	}
	t = topo_load();
	pv = calloc(1, sizeof(*pv));
	params = calloc(1, e->params_size ? e->params_size : 1);
	if (!t || !pv || !params || args.kv.oom) {
		say(stderr, "numalab estimate: %s%s\n",
		    t ? "cannot allocate the parameters"
		      : "cannot read the topology: ",
		    t ? "" : topo_load_error());
		rc = 1;
		goto out;
	}
	if (experiment_parse(e, t, (int)args.kv.n, args.kv.v, pv, params,
			     &common, &err)) {
		char msg[ERRINFO_MSG_LEN + 64];

		names_param_error(e, &err, msg, sizeof(msg));
		say(stderr, "numalab estimate %s: %s\n", e->name, msg);
		goto out;
	}
	rates_default_path(path, sizeof(path));
	/* the estimate stands on the rates it got, saved or not */
	if (rates_init(t, path, note, sizeof(note)) || *note)
		say(stderr, "numalab estimate: %s\n", note);
	experiment_estimate_now(e, params, &common, t, &seconds, &bytes, basis,
				sizeof(basis));
	experiment_plan_view(e, params, &common, t, &plan);
	if (args.json) {
		json_t *o = json_pack(
			"{s:s, s:f, s:I, s:s, s:s, s:o}", "experiment", e->name,
			"seconds", e->estimate ? seconds : -1.0, "bytes",
			(json_int_t)bytes, "rates", rates_get()->source,
			"basis", basis, "plan", plan_lines(strbuf_str(&plan)));
		json_dumpf(o, stdout, JSON_COMPACT);
		fputc('\n', stdout);
		json_decref(o);
	} else {
		if (e->estimate)
			printf("%s: about %.3g s and %.1f MiB (rates: %s)\n"
			       "basis: %s\n",
			       e->name, seconds, bytes / 1048576.0,
			       rates_get()->source, basis);
		else
			printf("%s: no estimate\n", e->name);
		printf("plan:\n");
		print_indented(strbuf_str(&plan));
	}
	rc = 0;
out:
	strbuf_release(&plan);
	strvec_clear(&args.kv);
	free(params);
	free(pv);
	topo_free(t);
	return rc;
}
