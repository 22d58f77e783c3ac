/* fleet_plan.c - `numalab fleet run --plan`: the nodes a campaign would run on, counted by its engine, nothing started */
#include "fleet.h"
#include "stdout_close.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "strbuf.h"

/* A node the engine would start a run on (not one it refused: drained,
 * down). */
static int runs_on(const struct fleet_node *n)
{
	return n->state == FLEET_PENDING || n->state == FLEET_RUNNING;
}

/* "n1, n2, n3", or "n1, n2, n3 … n40" past four. */
static void names_shown(const struct fleet_campaign *c, int count,
			struct strbuf *sb)
{
	int k = 0;

	for (int i = 0; i < c->n; i++) {
		if (!runs_on(&c->node[i]))
			continue;
		k++;
		if (count > 4 && k == count)
			strbuf_addf(sb, " … %s", c->node[i].name);
		else if (count <= 4 || k <= 3)
			strbuf_addf(sb, "%s%s", k > 1 ? ", " : "",
				    c->node[i].name);
	}
}

/* The plan as the page says it, then each node left out and why. */
static void plan_text(const struct fleet_campaign *c, int count)
{
	struct strbuf ps = STRBUF_INIT, names = STRBUF_INIT;

	for (int i = 0; i < c->nkv; i++)
		strbuf_addf(&ps, "%s%s", i ? " " : "", c->kv[i]);
	names_shown(c, count, &names);
	printf("plan: %s with %s on %d node%s (%s)%s%s%s%s, one run each, "
	       "through %s\n",
	       c->experiment, ps.len ? ps.buf : "its defaults", count,
	       count == 1 ? "" : "s", names.len ? names.buf : "none",
	       c->partition ? " in partition " : "",
	       c->partition ? c->partition : "",
	       c->constraint ? " with features " : "",
	       c->constraint ? c->constraint : "", c->engine);
	for (int i = 0; i < c->n; i++)
		if (!runs_on(&c->node[i]))
			printf("  %s gets no run: %s\n", c->node[i].name,
			       c->node[i].reason);
	strbuf_release(&ps);
	strbuf_release(&names);
}

/* The plan for a program (the page asks through the server). */
static void plan_json(const struct fleet_campaign *c, int count)
{
	json_t *nodes = json_array(), *left = json_array();
	json_t *o;

	for (int i = 0; i < c->n; i++)
		if (runs_on(&c->node[i]))
			json_array_append_new(nodes,
					      json_string(c->node[i].name));
		else
			json_array_append_new(
				left,
				json_pack("{s:s, s:s}", "node", c->node[i].name,
					  "reason", c->node[i].reason));
	o = json_pack("{s:s, s:s, s:i, s:o, s:o, s:s?, s:s?}", "engine",
		      c->engine, "experiment", c->experiment, "count", count,
		      "nodes", nodes, "unavailable", left, "partition",
		      c->partition, "constraint", c->constraint);
	if (o)
		json_dumpf(o, stdout, JSON_COMPACT);
	fputc('\n', stdout);
	json_decref(o);
}

static int plan_json_wanted;

/* The engine has its nodes: say them, and stop it there. */
static int show_plan(struct fleet_campaign *c, struct errinfo *err)
{
	int count = 0;

	for (int i = 0; i < c->n; i++)
		count += runs_on(&c->node[i]);
	if (plan_json_wanted)
		plan_json(c, count);
	else
		plan_text(c, count);
	stdout_flush(stdout);
	return errinfo_set(err, "plan", "planned only"), -ECANCELED;
}

int fleet_plan(struct fleet_campaign *c, int json)
{
	struct errinfo err;
	int r;

	plan_json_wanted = json;
	c->quiet = 1;
	c->planned = show_plan;
	r = !strcmp(c->engine, "slurm") ? fleet_slurm_run(c, &err)
					: fleet_clush_run(c, &err);
	if (r == -ECANCELED && !strcmp(err.field, "plan"))
		return 0;
	fprintf(stderr, "numalab fleet: %s\n", err.msg);
	return r == -EINVAL ? 2 : 1;
}
