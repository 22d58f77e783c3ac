/* fleet.c - a campaign: its nodes, what the engines report of them, and its record */
#include "fleet.h"
#include "clock.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "jsonlimit.h"
#include "stdout_close.h"
#include "strbuf.h"
#include "utf8.h"

const char *const fleet_state_names[] = {"pending", "running", "done", "failed",
					 "cancelled"};

int fleet_node_add(struct fleet_campaign *c, const char *name,
		   const char *partition, const char *features)
{
	struct fleet_node *n =
		realloc(c->node, sizeof(*n) * (size_t)(c->n + 1));

	if (!n)
		return -ENOMEM;
	c->node = n;
	n = &c->node[c->n];
	memset(n, 0, sizeof(*n));
	n->name = strdup(name);
	n->partition = partition && *partition ? strdup(partition) : NULL;
	n->features = strdup(features ? features : "");
	if (!n->name || !n->features)
		return -ENOMEM;
	c->n++;
	return 0;
}

static void say(struct fleet_campaign *c, struct fleet_node *n,
		const char *text)
{
	if (c->quiet || !strncmp(n->shown, text, sizeof(n->shown) - 1))
		return;
	snprintf(n->shown, sizeof(n->shown), "%s", text);
	printf("[%6.1fs] %-16s %s\n", clock_now() - c->t0, n->name, text);
	stdout_flush(stdout);
}

/* Ends s before a character its buffer cut in half (or any byte that is
 * not UTF-8): what is printed stays text. */
static void utf8_trim(char *s)
{
	s[utf8_valid_len(s, strlen(s))] = '\0';
}

void fleet_progress(struct fleet_campaign *c, struct fleet_node *n,
		    const char *fmt, ...)
{
	char text[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	utf8_trim(text);
	say(c, n, text);
}

char *fleet_node_file(const struct fleet_campaign *c,
		      const struct fleet_node *n, const char *ext)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addf(&sb, "%s/%s.%s", c->dir, n->name, ext);
	if (sb.oom) {
		strbuf_release(&sb);
		return NULL;
	}
	return strbuf_detach(&sb);
}

void fleet_changed(struct fleet_campaign *c, struct fleet_node *n)
{
	int with_run = n->doc != NULL;

	if (!c->live)
		return;
	if ((int)n->state == n->sent_state && !strcmp(n->job_id, n->sent_job))
		return;
	n->sent_state = (int)n->state;
	snprintf(n->sent_job, sizeof(n->sent_job), "%s", n->job_id);
	if (c->hand)
		c->hand(c->sink, n, with_run);
}

static void end_node(struct fleet_campaign *c, struct fleet_node *n,
		     enum fleet_state state, const char *fmt, va_list ap)
{
	char text[600];

	vsnprintf(n->reason, sizeof(n->reason), fmt, ap);
	utf8_trim(n->reason);
	n->state = state;
	snprintf(text, sizeof(text), "%s: %s", fleet_state_names[state],
		 n->reason);
	utf8_trim(text);
	say(c, n, text);
	fleet_changed(c, n);
}

void fleet_fail(struct fleet_campaign *c, struct fleet_node *n, const char *fmt,
		...)
{
	va_list ap;

	va_start(ap, fmt);
	end_node(c, n, FLEET_FAILED, fmt, ap);
	va_end(ap);
}

void fleet_cancel(struct fleet_campaign *c, struct fleet_node *n,
		  const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	end_node(c, n, FLEET_CANCELLED, fmt, ap);
	va_end(ap);
}

void fleet_take_document(struct fleet_campaign *c, struct fleet_node *n,
			 const char *text, int exit_status,
			 const char *stderr_tail)
{
	json_t *doc =
		text && *text ? jsonlimit_loads(text, 0, NULL, NULL) : NULL;
	const char *status = json_string_value(json_object_get(doc, "status"));

	if (!json_is_object(doc) || !status) {
		json_decref(doc);
		if (stderr_tail && *stderr_tail)
			fleet_fail(c, n,
				   "numalab run exited with status %d: %s",
				   exit_status, stderr_tail);
		else
			fleet_fail(
				c, n,
				"numalab run exited with status %d and gave no run document",
				exit_status);
		return;
	}
	n->doc = doc;
	if (!strcmp(status, "done")) {
		const char *h =
			json_string_value(json_object_get(doc, "headline"));
		n->state = FLEET_DONE;
		fleet_progress(c, n, "done%s%.200s", h ? ": " : "", h ? h : "");
		fleet_changed(c, n);
		return;
	}
	const char *why = json_string_value(json_object_get(doc, "error"));
	fleet_fail(c, n, "the run ended %s%s%s", status, why ? ": " : "",
		   why ? why : "");
}

int fleet_features_match(const char *features, const char *constraint)
{
	char want[256];
	int any = strchr(constraint, '|') != NULL;
	size_t off = 0;

	while (constraint[off]) {
		size_t len = strcspn(constraint + off, "&|");
		int found = 0;
		snprintf(want, sizeof(want), "%.*s", (int)len,
			 constraint + off);
		for (const char *f = features; *f;) {
			size_t fl = strcspn(f, ",");
			if (fl == strlen(want) && !strncmp(f, want, fl))
				found = 1;
			f += fl + (f[fl] == ',');
		}
		if (any && found)
			return 1;
		if (!any && !found)
			return 0;
		off += len + (constraint[off + len] != '\0');
	}
	return !any;
}

/* Its state now: running while a node is, then done, failed or cancelled. */
static const char *fleet_campaign_state(const struct fleet_campaign *c)
{
	int failed = 0, cancelled = c->stop && *c->stop;

	if (*c->error)
		return "failed";
	for (int i = 0; i < c->n; i++) {
		if (c->node[i].state < FLEET_DONE)
			return "running";
		failed |= c->node[i].state == FLEET_FAILED;
		cancelled |= c->node[i].state == FLEET_CANCELLED;
	}
	if (cancelled)
		return "cancelled";
	return failed ? "failed" : *c->finished_at ? "done" : "running";
}

json_t *fleet_campaign_json(const struct fleet_campaign *c)
{
	json_t *params = json_object(), *nodes = json_array();

	for (int i = 0; i < c->nkv; i++) {
		const char *eq = strchr(c->kv[i], '=');
		char key[128];
		if (!eq)
			continue;
		snprintf(key, sizeof(key), "%.*s", (int)(eq - c->kv[i]),
			 c->kv[i]);
		json_object_set_new(params, key, json_string(eq + 1));
	}
	for (int i = 0; i < c->n; i++) {
		const struct fleet_node *n = &c->node[i];
		json_t *features = json_array();
		for (const char *f = n->features; *f;) {
			size_t fl = strcspn(f, ",");
			if (fl)
				json_array_append_new(features,
						      json_stringn(f, fl));
			f += fl + (f[fl] == ',');
		}
		json_array_append_new(
			nodes,
			json_pack("{s:s, s:s, s:s?, s:s?, s:s?, s:o, s:b, s:o}",
				  "node", n->name, "state",
				  fleet_state_names[n->state], "reason",
				  n->state >= FLEET_FAILED && *n->reason
					  ? n->reason
					  : NULL,
				  "job_id", *n->job_id ? n->job_id : NULL,
				  "partition", n->partition, "features",
				  features, "exclusive", n->exclusive, "run_id",
				  n->run_id ? json_integer(n->run_id)
					    : json_null()));
	}
	return json_pack(
		"{s:s, s:s, s:s?, s:s, s:o, s:s, s:s?, s:s?, s:o, s:s, s:s?}",
		"id", c->id, "engine", c->engine, "cluster",
		*c->cluster ? c->cluster : NULL, "experiment", c->experiment,
		"params", params, "created_at", c->created_at, "finished_at",
		*c->finished_at ? c->finished_at : NULL, "dir", c->dir, "nodes",
		nodes, "state", fleet_campaign_state(c), "error",
		*c->error ? c->error : NULL);
}
