/* schema.c - experiments, their params and the topology as JSON documents */
#include "schema.h"

#include "lessons_json.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "registry.h"
#include "strbuf.h"

static const char *chart_kind_name(enum chart_kind k)
{
	switch (k) {
	case CHART_LINE:
		return "line";
	case CHART_BAR:
		return "bar";
	case CHART_HEATMAP:
		return "heatmap";
	}
	return "line";
}

/* "mode=sizes,loaded" -> {"param": "mode", "values": [...]}; "cpus=" -> its
 * one value the empty text */
static json_t *only_json(const char *only)
{
	const char *eq = strchr(only, '='), *v = eq + 1;
	json_t *vals = json_array();

	if (!*v)
		json_array_append_new(vals, json_string(""));
	while (*v) {
		size_t n = strcspn(v, ",");
		json_array_append_new(vals, json_stringn(v, n));
		v += n + (v[n] == ',');
	}
	return json_pack("{s:s%, s:o}", "param", only, (size_t)(eq - only),
			 "values", vals);
}

/* A placement or common param's row as experiment e reads it: "unread"
 * with the why where it never does, "only_here" where it does only while
 * one of e's own params holds a value. */
static void param_here(json_t *pj, const struct experiment *e,
		       const struct param *p)
{
	const struct unread_param *u = experiment_unread(e, p->name);

	if (u && !u->only)
		json_object_set_new(pj, "unread", json_string(u->why));
	else if (u && strchr(u->only, '='))
		json_object_set_new(pj, "only_here", only_json(u->only));
}

static json_t *param_json(const struct param *p, const char *group,
			  const struct topo *t)
{
	json_t *o = json_pack("{s:s, s:s, s:s, s:s, s:s?, s:s?}", "name",
			      p->name, "type", param_type_name(p->type),
			      "group", group, "default", p->def ? p->def : "",
			      "unit", p->unit, "help", p->help);

	if (p->type == PARAM_INT || p->type == PARAM_SIZE ||
	    p->type == PARAM_SWEEP || p->type == PARAM_CPULIST ||
	    p->type == PARAM_NODELIST) {
		int64_t max = p->max;
		if ((p->flags & PARAM_F_CPUS) && t && t->nallowed < max)
			max = t->nallowed;
		json_object_set_new(o, "min", json_integer(p->min));
		json_object_set_new(o, "max", json_integer(max));
	}
	if (p->choices) {
		json_t *c = json_array();
		for (int i = 0; p->choices[i].name; i++)
			json_array_append_new(c,
					      json_string(p->choices[i].name));
		json_object_set_new(o, "choices", c);
	}
	if (p->only && strchr(p->only, '='))
		json_object_set_new(o, "only", only_json(p->only));
	return o;
}

/*
 * A label table as [{key, label, unit}]: each '*' of key is a greedy
 * "(.*)" whose text fills the next "%s" of label. with_harness: the
 * harness's own summary keys follow the experiment's.
 */
static json_t *labels_json(const struct key_label *table, int with_harness)
{
	json_t *a = json_array();

	for (int pass = 0; pass < 1 + with_harness; pass++)
		for (const struct key_label *l = pass ? harness_summary_labels
						      : table;
		     l && l->key; l++)
			json_array_append_new(a, json_pack("{s:s, s:s, s:s?}",
							   "key", l->key,
							   "label", l->label,
							   "unit", l->unit));
	return a;
}

json_t *schema_experiment(const struct experiment *e, const struct topo *t)
{
	json_t *params = json_array(), *charts = json_array();
	int nodes = t ? t->nnodes : 1;
	json_t *o;

	for (const struct param *p = e->params; p->name; p++) {
		json_t *pj = param_json(p, "experiment", t);
		/* the default a run would get here: trimmed to this machine's
		 * cpus, sized from its caches */
		if (((p->flags & (PARAM_F_CPUS | PARAM_F_MEMORY)) ||
		     p->machine_def) &&
		    t) {
			struct param_values *pv = calloc(1, sizeof(*pv));
			struct errinfo err;
			if (pv && !experiment_parse(e, t, 0, NULL, pv, NULL,
						    NULL, &err)) {
				const struct param_value *v =
					params_get(pv, p->name);
				if (v)
					json_object_set_new(
						pj, "default",
						json_string(v->text));
			}
			free(pv);
		}
		json_array_append_new(params, pj);
	}
	if (e->uses_placement)
		for (const struct param *p = placement_params; p->name; p++) {
			json_t *pj = param_json(p, "placement", t);
			param_here(pj, e, p);
			json_array_append_new(params, pj);
		}
	for (const struct param *p = common_params; p->name; p++) {
		json_t *pj = param_json(p, "stats", t);
		param_here(pj, e, p);
		json_array_append_new(params, pj);
	}
	for (const struct chart *c = e->charts; c && c->id; c++) {
		json_t *cj = json_pack(
			"{s:s, s:s, s:s, s:s?, s:s?, s:b, s:b}", "id", c->id,
			"kind", chart_kind_name(c->kind), "title", c->title,
			"x_label", c->x_label, "y_label", c->y_label, "log_x",
			c->log_x, "log_y", c->log_y);
		if (c->marks)
			json_object_set_new(cj, "marks", json_string(c->marks));
		if (c->per_param && c->per)
			json_object_set_new(cj, "per",
					    json_pack("{s:s, s:s}", "param",
						      c->per_param, "operation",
						      c->per));
		json_array_append_new(charts, cj);
	}
	json_t *refs = json_array();
	for (const struct reference *r = e->references; r && r->chart; r++) {
		json_t *rj = json_pack("{s:s, s:s, s:f, s:f, s:s?}", "chart",
				       r->chart, "series", r->series, "x", r->x,
				       "y", r->y, "unit", r->unit);
		if (r->x_label)
			json_object_set_new(rj, "x_label",
					    json_string(r->x_label));
		json_array_append_new(refs, rj);
	}
	o = json_pack("{s:s, s:s, s:s, s:s, s:s?, s:i, s:b, s:o, s:o, s:o}",
		      "name", e->name, "title", e->title, "summary", e->summary,
		      "explain", e->explain ? e->explain : "", "section",
		      e->section, "min_nodes", e->min_nodes, "uses_placement",
		      e->uses_placement, "params", params, "charts", charts,
		      "references", refs);
	if (e->min_nodes > nodes) {
		char why[128];
		snprintf(
			why, sizeof(why),
			"needs %d NUMA nodes to show everything; this machine has %d",
			e->min_nodes, nodes);
		/* it still runs: what one node can show is shown */
		json_object_set_new(o, "limited", json_string(why));
	}
	json_object_set_new(o, "lessons", lessons_json(e));
	json_object_set_new(o, "smoke", params_text_json(e->smoke));
	json_object_set_new(o, "summary_labels",
			    labels_json(e->summary_labels, 1));
	json_object_set_new(o, "series_labels",
			    labels_json(e->series_labels, 0));
	json_object_set_new(o, "headline_key",
			    e->headline_key ? json_string(e->headline_key)
					    : json_null());
	json_object_set_new(o, "headline_chart",
			    e->headline_chart ? json_string(e->headline_chart)
					      : json_null());
	return o;
}

json_t *schema_experiments(const struct topo *t)
{
	json_t *a = json_array();

	for (int i = 0; experiments[i]; i++)
		json_array_append_new(a, schema_experiment(experiments[i], t));
	return a;
}

static json_t *cpus_of_node(const struct topo *t, int node_os)
{
	int32_t v[PARAM_MAX_LIST];
	int n = 0;
	char buf[512];

	for (int i = 0; i < t->npus && n < PARAM_MAX_LIST; i++)
		if (t->pu[i].node == node_os)
			v[n++] = t->pu[i].os;
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && v[j] < v[j - 1]; j--) {
			int32_t x = v[j];
			v[j] = v[j - 1];
			v[j - 1] = x;
		}
	format_int_list(v, n, buf, sizeof(buf));
	return json_string(buf);
}

/*
 * What kind of memory a node holds and who reaches it: hwloc's subtype
 * (null when the topology does not say), its initiators (the cpus it is
 * nearest to), whether no PU has it as its local node, and the
 * memory-side caches in front of it.
 */
static void node_memory_facts(json_t *o, const struct topo_node *nd)
{
	if (!o)
		return;
	json_object_set_new(o, "kind",
			    nd->kind[0] ? json_string(nd->kind) : json_null());
	json_object_set_new(o, "initiators", json_string(nd->initiators));
	json_object_set_new(o, "cpuless", json_boolean(nd->cpuless));
	json_object_set_new(o, "memcaches", json_integer(nd->nmemcaches));
	json_object_set_new(o, "memcache_size",
			    json_integer((json_int_t)nd->memcache_size));
	json_object_set_new(o, "mem_allowed", json_boolean(nd->mem_allowed));
}

json_t *schema_distances(const struct topo *t, int i)
{
	json_t *d = json_array();

	for (int j = 0; j < t->nnodes; j++)
		json_array_append_new(
			d, t->distance[i][j] ? json_integer(t->distance[i][j])
					     : json_null());
	return d;
}

json_t *schema_topology(const struct topo *t)
{
	json_t *nodes = json_array(), *pus = json_array(),
	       *caches = json_array();

	for (int i = 0; i < t->nnodes; i++) {
		json_t *d = schema_distances(t, i);
		json_array_append_new(
			nodes,
			json_pack("{s:i, s:I, s:o, s:i, s:o, s:o}", "os",
				  t->node[i].os, "mem_total",
				  (json_int_t)t->node[i].mem_total, "mem_free",
				  /* unknown (a topology file) is not zero */
				  t->node[i].mem_free_known
					  ? json_integer((json_int_t)t->node[i]
								 .mem_free)
					  : json_null(),
				  "npus", t->node[i].npus, "cpus",
				  cpus_of_node(t, t->node[i].os), "distances",
				  d));
		node_memory_facts(json_array_get(nodes, (size_t)i),
				  &t->node[i]);
	}
	for (int i = 0; i < t->npus; i++) {
		const struct topo_pu *p = &t->pu[i];
		json_array_append_new(
			pus,
			json_pack(
				"{s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:b}",
				"os", p->os, "logical", p->logical, "core",
				p->core, "package", p->package, "node", p->node,
				"l1", p->l1, "l2", p->l2, "l3", p->l3,
				"smt_rank", p->smt_rank, "allowed",
				p->allowed));
	}
	for (int i = 0; i < t->ncaches; i++) {
		const struct topo_cache *c = &t->cache[i];
		json_array_append_new(
			caches,
			json_pack("{s:i, s:i, s:I, s:i, s:i}", "level",
				  c->level, "logical", c->logical, "size",
				  (json_int_t)c->size, "line_size",
				  c->line_size, "npus", c->npus));
	}
	json_t *o = json_pack(
		"{s:s, s:i, s:i, s:i, s:i, s:i, s:b, s:b, s:s, s:i, s:o, s:o, s:o}",
		"cpu_model", t->cpu_model, "packages", t->npackages, "cores",
		t->ncores, "npus", t->npus, "nallowed", t->nallowed, "nnodes",
		t->nnodes, "smt", t->smt, "numa_available", t->numa_available,
		"allowed", t->allowed_text, "line_size", t->line_size, "nodes",
		nodes, "pus", pus, "caches", caches);
	/* the topology's own facts, and whether it is this machine */
	json_object_set_new(o, "source", json_string(t->source));
	json_object_set_new(o, "this_system", json_boolean(t->thissystem));
	json_object_set_new(o, "arch",
			    t->arch[0] ? json_string(t->arch) : json_null());
	json_object_set_new(o, "offline_pus", json_integer(t->noffline));
	/* the cpuset every placement honours, and where each half was read */
	json_object_set_new(
		o, "cpuset",
		json_pack("{s:s, s:s, s:s, s:s}", "cpus", t->allowed_text,
			  "cpus_from", t->cpus_source, "mems",
			  t->allowed_mems_text, "mems_from", t->mems_source));
	return o;
}

json_t *schema_params_json(const struct experiment *e,
			   const struct param_values *pv)
{
	json_t *o = json_object();

	for (int i = 0; i < pv->n; i++) {
		const struct param_value *v = &pv->v[i];
		/* what the run reads: one it would not read, asked for again,
		 * is refused */
		if (!experiment_reads(e, v->p, pv, NULL))
			continue;
		if (v->p->type == PARAM_INT)
			json_object_set_new(o, v->p->name, json_integer(v->i));
		else
			json_object_set_new(o, v->p->name,
					    json_string(v->text));
	}
	return o;
}
