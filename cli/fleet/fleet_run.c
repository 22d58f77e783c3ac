/* fleet_run.c - `numalab fleet run`: one experiment on many machines, as a campaign */
#include "clock.h"
#include "fleet.h"
#include "units.h"

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "commands.h"
#include "experiment.h"
#include "fleet_setup.h"
#include "fleet_sink.h"
#include "jsonlimit.h"
#include "opts.h"
#include "params.h"
#include "registry.h"
#include "say.h"
#include "stdout_close.h"
#include "store.h"
#include "strbuf.h"
#include "strvec.h"
#include "token_file.h"
#include "utf8.h"

static volatile sig_atomic_t interrupted;

static void on_interrupt(int sig)
{
	(void)sig;
	/* counted: a second one ends the wait for the last deliveries too */
	interrupted = interrupted < 100 ? interrupted + 1 : interrupted;
}

static void print_summary(struct fleet_campaign *c)
{
	const char *const *states = fleet_state_names;
	int done = 0;

	printf("\ncampaign %s (%s%s%s): %s on %d %s\n", c->id, c->engine,
	       *c->cluster ? ", cluster " : "", c->cluster, c->experiment, c->n,
	       units_plural(c->n, "node", "nodes"));
	printf("  %-16s %-7s %-8s %-6s %s\n", "node", "state", "job", "run",
	       "headline or reason");
	for (int i = 0; i < c->n; i++) {
		struct fleet_node *n = &c->node[i];
		const char *h =
			json_string_value(json_object_get(n->doc, "headline"));
		char run[24] = "-";
		if (n->run_id)
			snprintf(run, sizeof(run), "%lld",
				 (long long)n->run_id);
		const char *say = n->state >= FLEET_FAILED ? n->reason
				  : h			   ? h
							   : "";
		/* 160 bytes at most, never the half of a character */
		printf("  %-16s %-7s %-8s %-6s %.*s\n", n->name,
		       states[n->state], *n->job_id ? n->job_id : "-", run,
		       (int)utf8_prefix_len(say, 160), say);
		done += n->state == FLEET_DONE;
	}
	printf("%d of %d %s done\n", done, c->n,
	       units_plural(c->n, "node", "nodes"));
}

/* What fleet run's argv asks: the campaign's own fields, and the rest. */
struct fleet_args {
	struct fleet_campaign c;
	const struct experiment *e;
	const char *db, *server, *token_file, *dir, *id, *ca_file, *connect_to;
	int wait_s;	/* how long deliveries are tried at the end */
	int plan, json; /* --plan: the nodes only, as text or JSON */
};

static int good_id(const char *v, size_t max)
{
	return *v && strlen(v) < max &&
	       strspn(v, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
			 "0123456789._-") == strlen(v) &&
	       v[0] != '.' && v[0] != '-';
}

/* --id ID: a name a file and a URL take as it is. */
static int campaign_id(void *dest, const char *v)
{
	struct fleet_args *o = dest;

	if (!good_id(v, sizeof(o->c.id))) {
		fprintf(stderr,
			"numalab fleet: bad campaign id '%s' (letters, digits, '.', '_', '-', at most %zu, not starting with '.' or '-')\n",
			v, sizeof(o->c.id) - 1);
		return -EINVAL;
	}
	o->id = v;
	return 0;
}

/* The experiment, then its k=v params. */
static int fleet_arg(void *dest, const char *arg)
{
	struct fleet_args *o = dest;

	if (o->e) {
		o->c.kv[o->c.nkv++] = (char *)arg;
		return -1;
	}
	o->e = experiment_find(arg);
	if (o->e)
		return -1;
	fprintf(stderr,
		"numalab fleet: unknown experiment '%s' (numalab list shows them)\n",
		arg);
	return 2;
}

#define FA struct fleet_args

/* fleet run's options, in the order its --help lists them */
static const struct opt fleet_table[] = {
	OPT_STRING("--engine", FA, c.engine, "slurm",
		   "one exclusive batch job per node (sbatch --exclusive -w),\n"
		   "followed with squeue; needs a directory the nodes share"),
	OPT_DOC("--engine clush",
		"ClusterShell over SSH (clush -w LIST -b), for a lab room"),
	OPT_STRING("--nodes", FA, c.nodes, "LIST",
		   "Slurm host-list syntax: n[1-8], lab[01-30], a,b"),
	OPT_FLAG("--all", FA, c.all,
		 "every node sinfo lists (with --partition: of that one)"),
	OPT_STRING("--constraint", FA, c.constraint, "F",
		   "only nodes with feature F (F1&F2: all, F1|F2: any)"),
	OPT_STRING("--db", FA, db, "FILE",
		   "import into this store (numalab serve --db FILE)"),
	OPT_STRING("--server", FA, server, "URL",
		   "import into a running server:\n"
		   "http(s)://HOST[:PORT][/PATH], HOST a name, an IPv4\n"
		   "address or [IPv6], checked before anything starts\n"
		   "(token: --token-file F or $NUMALAB_TOKEN)"),
	OPT_STRING("--ca-file", FA, ca_file, "FILE",
		   "https: trust the certificates in FILE (PEM), e.g. a\n"
		   "lab's self-signed one, instead of the system's; the\n"
		   "server's certificate is always verified"),
	OPT_STRING("--connect-to", FA, connect_to, "ADDR",
		   "reach the --server's host at ADDR (its name is still\n"
		   "the one the certificate must name)"),
	OPT_STRING("--dir", FA, dir, "DIR",
		   "the campaign's files (default ./numalab-campaigns/ID)"),
	OPT_INT("--timeout", FA, c.timeout_s, 1, 7 * 86400, "SECONDS",
		"a node not done by then is cancelled (default 3600)"),
	OPT_STRING("--numalab", FA, c.bin, "PATH",
		   "numalab on the nodes (slurm: this binary; clush: numalab)"),
	OPT_STRING("--clush-worker", FA, c.clush_worker, "W",
		   "clush -R W (exec runs locally, for tests; default\n"
		   "$NUMALAB_FLEET_CLUSH_WORKER, else clush's own)"),
	OPT_CALL("--id", campaign_id, "ID",
		 "the campaign's id (default: the time and a random\n"
		 "tag; numalab serve --fleet names its campaigns so)"),
	OPT_INT("--deliver-wait", FA, wait_s, 0, 7 * 86400, "S",
		"at the end, keep trying to deliver for S seconds\n"
		"(default 600); what is left stays in the campaign's\n"
		"directory for: numalab fleet deliver DIR"),
	OPT_FLAG("--plan", FA, plan,
		 "say which nodes the campaign would run on (slurm:\n"
		 "as sinfo lists them now) and how many, start nothing"),
	OPT_FLAG("--json", FA, json,
		 "with --plan: the plan as one JSON object"),
	OPT_STRING("--partition", FA, c.partition, NULL, NULL),
	OPT_STRING("--token-file", FA, token_file, NULL, NULL),
	OPT_HELP(NULL),
	OPT_END(),
};

static const struct opts_cmd fleet_cmd = {
	.prog = "numalab fleet",
	.table = fleet_table,
	.flags = OPTS_DASH | OPTS_ONCE,
	.unknown =
		"unknown option '%1$s' (numalab fleet run --help lists them)",
	.no_value = "option '%1$s' needs a value",
	.bad_int =
		"%1$s '%2$s' is not a number of seconds (allowed: %3$ld..%4$ld)",
	.arg = fleet_arg,
	.help_col = 21,
	.head = "usage: numalab fleet run EXPERIMENT [k=v ...] --engine slurm|clush\n"
		"          [--nodes LIST | --all] [--partition P] [--constraint FEATURE]\n"
		"          [--db FILE | --server URL [--token-file F] [--ca-file FILE]\n"
		"          [--connect-to ADDR]] [--dir DIR]\n"
		"          [--timeout SECONDS] [--numalab PATH] [--clush-worker WORKER]\n"
		"          [--id ID] [--deliver-wait SECONDS] [--plan [--json]]\n"
		"\n"
		"Runs `numalab run --json EXPERIMENT k=v ...` once on every node, as one\n"
		"campaign, and imports each node's run into a store or a running server.\n",
	.tail = "\n"
		"The campaign is recorded as soon as its nodes are known, each node as it\n"
		"finishes. Each node's run is kept in the campaign's directory; a delivery\n"
		"the server does not take (it is away) is tried again, 0.5 s later, then\n"
		"twice as long each time, up to every 16 s.\n"
		"Ctrl-C cancels the campaign's jobs. Exit status: 0 every node done, 1 some\n"
		"failed (each with its reason), 2 a bad request.\n",
};

/* What the options ask for together, and the params' names. Returns 0 or
 * 2 (said). */
static int check_request(const struct fleet_args *o)
{
	const struct fleet_campaign *c = &o->c;

	if (!o->e) {
		fprintf(stderr,
			"numalab fleet: which experiment? (numalab list shows them)\n");
		return 2;
	}
	if (!c->engine ||
	    (strcmp(c->engine, "slurm") && strcmp(c->engine, "clush"))) {
		fprintf(stderr,
			"numalab fleet: engine '%s' is not one of slurm, clush (give --engine)\n",
			c->engine ? c->engine : "");
		return 2;
	}
	if (c->nodes && c->all) {
		fprintf(stderr,
			"numalab fleet: give --nodes LIST or --all, not both\n");
		return 2;
	}
	if (!c->nodes && !c->all && !c->constraint) {
		fprintf(stderr,
			"numalab fleet: which nodes? (give --nodes LIST, --constraint FEATURE or --all)\n");
		return 2;
	}
	if (!strcmp(c->engine, "clush") && !c->nodes) {
		fprintf(stderr,
			"numalab fleet: the clush engine needs --nodes LIST (it has no list of its own)\n");
		return 2;
	}
	if (o->db && o->server) {
		fprintf(stderr,
			"numalab fleet: give --db FILE or --server URL, not both\n");
		return 2;
	}
	if (o->json && !o->plan) {
		fprintf(stderr, "numalab fleet: '--json' is for --plan\n");
		return 2;
	}
	if ((o->ca_file || o->connect_to) && !o->server) {
		fprintf(stderr, "numalab fleet: '%s' is for a --server URL\n",
			o->ca_file ? "--ca-file" : "--connect-to");
		return 2;
	}
	if (o->server) {
		struct fleet_server s = {.url = o->server,
					 .ca_file = o->ca_file,
					 .connect_to = o->connect_to};
		struct errinfo err;
		if (fleet_server_check(&s, &err)) {
			say(stderr, "numalab fleet: %s\n", err.msg);
			return 2;
		}
	}
	return fleet_check_params(o->e, c->kv, c->nkv);
}

extern char **environ;

/*
 * The server's token is the coordinator's alone: it delivers the runs.
 * Every command it starts (sinfo, sbatch, clush, and through clush each
 * command) inherits its environment, so the token leaves it: NUMALAB_TOKEN,
 * and any other variable holding the token's value. A Slurm job is given
 * only the few variables it needs (fleet_slurm.c).
 */
static void scrub_token(const char *token)
{
	struct strvec names = STRVEC_INIT;

	for (char **e = environ; e && *e; e++) {
		const char *eq = strchr(*e, '=');
		if (!eq)
			continue;
		if (!strncmp(*e, "NUMALAB_TOKEN=", 14) ||
		    (token && *token && strstr(eq + 1, token)))
			strvec_pushf(&names, "%.*s", (int)(eq - *e), *e);
	}
	for (size_t i = 0; i < names.n; i++)
		unsetenv(names.v[i]);
	strvec_clear(&names);
}

/* campaign.json beside the nodes' files: what `fleet deliver` sends */
static void write_record(struct fleet_campaign *c)
{
	struct strbuf path = STRBUF_INIT;
	json_t *cj = fleet_campaign_json(c);

	strbuf_addf(&path, "%s/campaign.json", c->dir);
	if (cj && !path.oom)
		json_dump_file(cj, path.buf, JSON_INDENT(1));
	json_decref(cj);
	strbuf_release(&path);
}

/* The engine has its nodes, before anything runs: the campaign is
 * recorded, on disk and where it is delivered. */
static int planned(struct fleet_campaign *c, struct errinfo *err)
{
	write_record(c);
	printf("[%6.1fs] planned %d %s\n", clock_now() - c->t0, c->n,
	       units_plural(c->n, "node", "nodes"));
	stdout_flush(stdout);
	if (c->sink && fleet_sink_begin(c->sink, err) < 0)
		return -EIO;
	/* each node's state is sent from now on as it changes */
	for (int i = 0; i < c->n; i++) {
		c->node[i].sent_state = (int)c->node[i].state;
		snprintf(c->node[i].sent_job, sizeof(c->node[i].sent_job), "%s",
			 c->node[i].job_id);
	}
	c->live = 1;
	return 0;
}

/* Where the campaign went, or why it did not, as the last lines. */
static int delivered(struct fleet_campaign *c, const struct fleet_args *o,
		     int left)
{
	if (left) {
		fprintf(stderr,
			"numalab fleet: %d deliver%s did not reach %s: every "
			"node's run is kept in %s; send them with: numalab "
			"fleet deliver %s %s %s\n",
			left, left == 1 ? "y" : "ies",
			o->db ? o->db : o->server, c->dir, c->dir,
			o->db ? "--db" : "--server", o->db ? o->db : o->server);
		return 1;
	}
	if (o->db)
		printf("imported into %s (numalab serve --db %s, then "
		       "#/campaigns/%s)\n",
		       o->db, o->db, c->id);
	else if (o->server)
		printf("imported into %s/#/campaigns/%s\n", o->server, c->id);
	return 0;
}

/*
 * Runs the engine, then delivers what is left and the final record. A
 * start the engine refuses is a campaign that failed with its message.
 * Returns the exit status.
 */
static int run_campaign(struct fleet_campaign *c, const struct fleet_args *o)
{
	struct errinfo err;
	int r, rc, left = 0;

	r = !strcmp(c->engine, "slurm") ? fleet_slurm_run(c, &err)
					: fleet_clush_run(c, &err);
	if (r)
		fprintf(stderr, "numalab fleet: %s\n", err.msg);
	if (r && !c->n && !c->sink) {
		rmdir(c->dir); /* a request refused leaves nothing behind */
		return r == -EINVAL ? 2 : 1;
	}
	/* refused by the engine (not by the server, which has no record) */
	if (r && strcmp(err.field, "server")) {
		snprintf(c->error, sizeof(c->error), "%s", err.msg);
		for (int i = 0; i < c->n; i++)
			if (c->node[i].state < FLEET_DONE) {
				c->node[i].state = FLEET_CANCELLED;
				snprintf(c->node[i].reason,
					 sizeof(c->node[i].reason),
					 "not run: %s", c->error);
			}
	}
	store_timestamp(c->finished_at, sizeof(c->finished_at));
	if (c->sink && (!r || strcmp(err.field, "server")))
		left = fleet_sink_finish(c->sink, o->wait_s);
	write_record(c);
	if (c->n && (!r || c->sink))
		print_summary(c);
	if (r)
		return r == -EINVAL ? 2 : 1;
	rc = delivered(c, o, left);
	if (rc)
		return rc;
	if (interrupted)
		return 130;
	for (int i = 0; i < c->n; i++)
		if (c->node[i].state != FLEET_DONE)
			return 1;
	return 0;
}

/*
 * The server's token into *token (from --token-file, or $NUMALAB_TOKEN),
 * then out of the environment the engines inherit. 0, or -1 said.
 */
static int fleet_token(const struct fleet_args *o, char **token)
{
	struct errinfo err;

	if (o->server) {
		if (o->token_file &&
		    token_file_read(o->token_file, token, &err)) {
			fprintf(stderr, "numalab fleet: %s\n", err.msg);
			return -1;
		}
		if (!o->token_file && getenv("NUMALAB_TOKEN"))
			*token = strdup(getenv("NUMALAB_TOKEN"));
	}
	/* without --server the token is not needed, and leaves all the same */
	char *envtok = !*token && getenv("NUMALAB_TOKEN")
			       ? strdup(getenv("NUMALAB_TOKEN"))
			       : NULL;
	scrub_token(*token ? *token : envtok);
	free(envtok);
	return 0;
}

/*
 * Where the runs go: a store or a server, reached through a sink that
 * delivers each node as it finishes (none: they stay in the campaign's
 * directory). 0, or -1 said.
 */
static int fleet_open_sink(struct fleet_args *o, const char *token,
			   struct fleet_server *srv, struct fleet_conn **conn)
{
	struct errinfo err;

	if (!o->db && !o->server)
		return 0;
	/* the connection keeps srv: it lives as long as the campaign */
	*srv = (struct fleet_server){.url = o->server,
				     .token = token,
				     .ca_file = o->ca_file,
				     .connect_to = o->connect_to};
	*conn = fleet_conn_open(o->db, o->server ? srv : NULL, &err);
	o->c.sink = *conn ? fleet_sink_new(&o->c, *conn) : NULL;
	o->c.hand = fleet_sink_node;
	if (!o->c.sink) {
		fprintf(stderr, "numalab fleet: %s\n",
			*conn ? "out of memory" : err.msg);
		return -1;
	}
	return 0;
}

/* What a campaign that ran, or did not start, leaves to free. */
static void campaign_free(struct fleet_campaign *c)
{
	for (int i = 0; i < c->n; i++) {
		free(c->node[i].name);
		free(c->node[i].partition);
		free(c->node[i].features);
		json_decref(c->node[i].doc);
	}
	free(c->node);
	free(c->kv);
	free(c->dir);
}

static int cmd_fleet_run(int argc, char **argv)
{
	struct fleet_args o = {.c = {.timeout_s = 3600}, .wait_s = 600};
	struct fleet_campaign *c = &o.c;
	char *token = NULL, *self = NULL;
	struct fleet_conn *conn = NULL;
	struct fleet_server srv;
	int rc, made = 0;

	c->kv = calloc((size_t)argc + 1, sizeof(char *));
	if (!c->kv)
		return 1;
	rc = opts_parse(&fleet_cmd, argc, argv, &o);
	if (rc >= 0 || (rc = check_request(&o)))
		goto out;
	rc = 2;
	/* what serve --fleet clush hands its campaigns, from its environment */
	if (!c->clush_worker && getenv("NUMALAB_FLEET_CLUSH_WORKER") &&
	    *getenv("NUMALAB_FLEET_CLUSH_WORKER"))
		c->clush_worker = getenv("NUMALAB_FLEET_CLUSH_WORKER");
	c->experiment = o.e->name;
	if (o.plan) {
		rc = fleet_plan(c, o.json);
		goto out;
	}
	if (fleet_token(&o, &token))
		goto out;
	if (fleet_campaign_dir(c, o.dir, o.id, &made))
		goto out;
	if (!c->bin)
		c->bin = !strcmp(c->engine, "slurm")
				 ? (self = realpath("/proc/self/exe", NULL))
				 : "numalab";
	if (!c->bin) {
		fprintf(stderr,
			"numalab fleet: cannot find this binary's path: %s (give --numalab PATH)\n",
			strerror(errno));
		goto unmade;
	}

	/* a store or server that cannot be reached: said before any job */
	rc = 1;
	if (fleet_open_sink(&o, token, &srv, &conn))
		goto unmade;
	struct sigaction sa = {.sa_handler = on_interrupt};
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	c->stop = &interrupted;
	c->t0 = clock_now();
	printf("campaign %s: %s %s through %s, files in %s\n", c->id, o.e->name,
	       c->nkv ? "with params" : "with defaults", c->engine, c->dir);
	stdout_flush(stdout);
	c->planned = planned;
	rc = run_campaign(c, &o);
	goto out;
unmade:
	/* nothing of the campaign's was written: its directory goes */
	if (made)
		rmdir(c->dir);
out:
	fleet_sink_free(c->sink);
	fleet_conn_close(conn);
	campaign_free(c);
	free(token);
	free(self);
	return rc;
}

int cmd_fleet(int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		FILE *f = argc < 2 ? stderr : stdout;
		/* both commands, before run's options: deliver is the one
		 * a campaign left undelivered needs */
		fputs("usage: numalab fleet run EXPERIMENT [k=v ...] --engine slurm|clush ...\n"
		      "       numalab fleet deliver DIR (--db FILE | --server URL ...)\n"
		      "(numalab fleet deliver --help lists deliver's options)\n\n",
		      f);
		opts_usage(&fleet_cmd, f);
		return argc < 2 ? 2 : 0;
	}
	if (!strcmp(argv[1], "run"))
		return cmd_fleet_run(argc - 1, argv + 1);
	if (!strcmp(argv[1], "deliver"))
		return fleet_deliver_cmd(argc - 1, argv + 1);
	fprintf(stderr,
		"numalab fleet: unknown command '%s' (commands: run, deliver)\n",
		argv[1]);
	return 2;
}
