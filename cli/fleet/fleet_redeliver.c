/* fleet_redeliver.c - `numalab fleet deliver DIR`: a campaign's files sent again, each run stored once */
#include "fleet.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fleet_sink.h"
#include "jsonlimit.h"
#include "opts.h"
#include "say.h"
#include "store.h"
#include "strbuf.h"
#include "token_file.h"
#include "units.h"

struct deliver_args {
	const char *dir, *db, *server, *token_file, *ca_file, *connect_to;
	int wait_s;
};

/* The campaign's directory, one. */
static int one_dir(void *dest, const char *arg)
{
	struct deliver_args *o = dest;

	if (o->dir) {
		say(stderr,
		    "numalab fleet deliver: one directory, not '%s' too\n",
		    arg);
		return 2;
	}
	o->dir = arg;
	return -1;
}

#define DA struct deliver_args

static const struct opt deliver_table[] = {
	OPT_STRING("--db", DA, db, NULL, NULL),
	OPT_STRING("--server", DA, server, NULL, NULL),
	OPT_STRING("--token-file", DA, token_file, NULL, NULL),
	OPT_STRING("--ca-file", DA, ca_file, NULL, NULL),
	OPT_STRING("--connect-to", DA, connect_to, NULL, NULL),
	OPT_INT("--deliver-wait", DA, wait_s, 0, INT_MAX, NULL, NULL),
	OPT_HELP(NULL),
	OPT_END(),
};

static const struct opts_cmd deliver_cmd = {
	.prog = "numalab fleet deliver",
	.table = deliver_table,
	.flags = OPTS_DASH,
	.unknown =
		"unknown option '%1$s' (numalab fleet deliver --help lists the options)",
	.no_value =
		"a value is missing after '%1$s' (numalab fleet deliver --help lists the options)",
	.bad_int = "%1$s '%2$s' is not a number of seconds",
	.arg = one_dir,
	.head = "usage: numalab fleet deliver DIR (--db FILE | --server URL\n"
		"          [--token-file F] [--ca-file FILE] [--connect-to ADDR])\n"
		"          [--deliver-wait SECONDS]\n"
		"\n"
		"Sends the campaign in DIR (what numalab fleet run left there:\n"
		"campaign.json and each node's NODE.json) to a store or a running server:\n"
		"its record, then every node's state and run, then its end. A run the\n"
		"server has already is not stored again, so it is safe to run twice.\n"
		"Exit status: 0 all delivered, 1 some not, 2 a bad request.\n",
};

/* -1 to go on, or the exit status */
static int parse(int argc, char **argv, struct deliver_args *o)
{
	int rc = opts_parse(&deliver_cmd, argc, argv, o);

	if (rc >= 0)
		return rc;
	if (!o->dir || (!o->db == !o->server)) {
		fprintf(stderr, "numalab fleet deliver: give a campaign's "
				"directory and --db FILE or --server URL\n");
		return 2;
	}
	return -1;
}

static enum fleet_state state_named(const char *s)
{
	for (int i = 0; i <= FLEET_CANCELLED; i++)
		if (s && !strcmp(s, fleet_state_names[i]))
			return (enum fleet_state)i;
	return FLEET_PENDING;
}

static const char *text(json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

/* features ["a","b"] back into "a,b" */
static void features_of(json_t *a, struct strbuf *sb)
{
	size_t i;
	json_t *f;

	json_array_foreach (a, i, f)
		strbuf_addf(sb, "%s%s", i ? "," : "", json_string_value(f));
}

/* c from campaign.json (rec, which c's strings point into). 0 or 2. */
static int load(struct fleet_campaign *c, json_t *rec)
{
	static char engine[16];
	json_t *params = json_object_get(rec, "params"), *v, *n;
	const char *key;
	size_t i;

	if (!text(rec, "id") || !text(rec, "engine") ||
	    !text(rec, "experiment") ||
	    !json_is_array(json_object_get(rec, "nodes")))
		return 2;
	snprintf(c->id, sizeof(c->id), "%s", text(rec, "id"));
	snprintf(engine, sizeof(engine), "%s", text(rec, "engine"));
	c->engine = engine;
	snprintf(c->cluster, sizeof(c->cluster), "%s",
		 text(rec, "cluster") ? text(rec, "cluster") : "");
	c->experiment = text(rec, "experiment");
	snprintf(c->created_at, sizeof(c->created_at), "%s",
		 text(rec, "created_at") ? text(rec, "created_at") : "");
	snprintf(c->finished_at, sizeof(c->finished_at), "%s",
		 text(rec, "finished_at") ? text(rec, "finished_at") : "");
	snprintf(c->error, sizeof(c->error), "%s",
		 text(rec, "error") ? text(rec, "error") : "");
	c->kv = calloc(json_object_size(params) + 1, sizeof(char *));
	json_object_foreach (params, key, v) {
		struct strbuf kv = STRBUF_INIT;
		strbuf_addf(&kv, "%s=%s", key,
			    json_string_value(v) ? json_string_value(v) : "");
		c->kv[c->nkv++] = strbuf_detach(&kv);
	}
	json_array_foreach (json_object_get(rec, "nodes"), i, n) {
		struct strbuf f = STRBUF_INIT;
		struct fleet_node *nd;
		features_of(json_object_get(n, "features"), &f);
		if (!text(n, "node") ||
		    fleet_node_add(c, text(n, "node"), text(n, "partition"),
				   f.buf ? f.buf : "")) {
			strbuf_release(&f);
			return 2;
		}
		strbuf_release(&f);
		nd = &c->node[c->n - 1];
		nd->state = state_named(text(n, "state"));
		snprintf(nd->reason, sizeof(nd->reason), "%s",
			 text(n, "reason") ? text(n, "reason") : "");
		snprintf(nd->job_id, sizeof(nd->job_id), "%s",
			 text(n, "job_id") ? text(n, "job_id") : "");
		nd->exclusive = json_is_true(json_object_get(n, "exclusive"));
	}
	return 0;
}

/* A node the record left running (the coordinator stopped): what its
 * document says, when it has one. */
static int node_doc(struct fleet_campaign *c, struct fleet_node *n)
{
	char *path = fleet_node_file(c, n, "json");
	json_error_t jerr;
	FILE *f = path ? fopen(path, "r") : NULL;
	json_t *doc = NULL;

	if (f) {
		doc = json_loadf(f, 0, &jerr);
		fclose(f);
	}
	free(path);
	if (!json_is_object(doc)) {
		json_decref(doc);
		return 0;
	}
	if (n->state < FLEET_DONE) {
		const char *st = text(doc, "status");
		n->state =
			st && !strcmp(st, "done") ? FLEET_DONE : FLEET_FAILED;
		if (n->state == FLEET_FAILED)
			snprintf(n->reason, sizeof(n->reason),
				 "the run ended %s%s%s", st ? st : "unknown",
				 text(doc, "error") ? ": " : "",
				 text(doc, "error") ? text(doc, "error") : "");
	}
	json_decref(doc);
	return 1;
}

static int deliver_dir(struct fleet_campaign *c, struct deliver_args *o,
		       const struct fleet_server *srv)
{
	struct fleet_conn *k;
	struct errinfo err;
	int left, sent = 0, rc;

	k = fleet_conn_open(o->db, o->server ? srv : NULL, &err);
	if (!k) {
		fprintf(stderr, "numalab fleet deliver: %s\n", err.msg);
		return 1;
	}
	c->sink = fleet_sink_new(c, k);
	if (!c->sink) {
		fleet_conn_close(k);
		return 1;
	}
	/* the record first, as it was (a node's run arrives after it) */
	if (fleet_sink_begin(c->sink, &err) < 0) {
		fprintf(stderr, "numalab fleet deliver: %s\n", err.msg);
		fleet_sink_free(c->sink);
		fleet_conn_close(k);
		return 1;
	}
	for (int i = 0; i < c->n; i++) {
		int has = node_doc(c, &c->node[i]);
		fleet_sink_node(c->sink, &c->node[i], has);
		sent += has;
	}
	if (!*c->finished_at)
		store_timestamp(c->finished_at, sizeof(c->finished_at));
	left = fleet_sink_finish(c->sink, o->wait_s);
	fleet_sink_free(c->sink);
	c->sink = NULL;
	fleet_conn_close(k);
	if (left) {
		fprintf(stderr,
			"numalab fleet deliver: %d deliver%s did not reach %s; "
			"run this again when it can be reached\n",
			left, left == 1 ? "y" : "ies",
			o->db ? o->db : o->server);
		return 1;
	}
	rc = 0;
	for (int i = 0; i < c->n; i++)
		rc |= c->node[i].state != FLEET_DONE;
	printf("campaign %s: %d %s, %d %s delivered into %s (a run it had "
	       "already is kept once)\n",
	       c->id, c->n, units_plural(c->n, "node", "nodes"), sent,
	       units_plural(sent, "run", "runs"), o->db ? o->db : o->server);
	return rc;
}

int fleet_deliver_cmd(int argc, char **argv)
{
	struct deliver_args o = {.wait_s = 60};
	struct fleet_campaign c = {0};
	static volatile sig_atomic_t never;
	struct strbuf path = STRBUF_INIT;
	struct errinfo err;
	char *token = NULL;
	json_error_t jerr;
	json_t *rec = NULL;
	int rc = parse(argc, argv, &o);

	if (rc >= 0)
		return rc;
	rc = 2;
	struct fleet_server srv = {.url = o.server,
				   .ca_file = o.ca_file,
				   .connect_to = o.connect_to};
	if (o.server && fleet_server_check(&srv, &err)) {
		say(stderr, "numalab fleet deliver: %s\n", err.msg);
		goto out;
	}
	if (o.token_file && token_file_read(o.token_file, &token, &err)) {
		fprintf(stderr, "numalab fleet deliver: %s\n", err.msg);
		goto out;
	}
	if (!o.token_file && getenv("NUMALAB_TOKEN"))
		token = strdup(getenv("NUMALAB_TOKEN"));
	srv.token = token;
	c.dir = realpath(o.dir, NULL);
	strbuf_addf(&path, "%s/campaign.json", c.dir ? c.dir : o.dir);
	rec = c.dir ? json_load_file(path.buf, 0, &jerr) : NULL;
	if (!rec || load(&c, rec)) {
		fprintf(stderr,
			"numalab fleet deliver: '%s' holds no campaign numalab "
			"fleet run left (%s)\n",
			o.dir,
			!c.dir ? strerror(errno)
			: !rec ? jerr.text
			       : "campaign.json lacks its id, engine, experiment or nodes");
		goto out;
	}
	c.stop = &never;
	c.live = 1;
	rc = deliver_dir(&c, &o, &srv);
out:
	for (int i = 0; i < c.n; i++) {
		free(c.node[i].name);
		free(c.node[i].partition);
		free(c.node[i].features);
	}
	for (int i = 0; i < c.nkv; i++)
		free(c.kv[i]);
	free(c.kv);
	free(c.node);
	free(c.dir);
	free(token);
	json_decref(rec);
	strbuf_release(&path);
	return rc;
}
