/* schema.c - experiments, topology and the machine as JSON documents */
#include "schema.h"

#include "lessons_json.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

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

static json_t *param_json(const struct param *p, const char *group,
			  const struct topo *t)
{
	json_t *o = json_pack("{s:s, s:s, s:s, s:s, s:s?, s:s?}", "name", p->name,
			      "type", param_type_name(p->type), "group", group,
			      "default", p->def ? p->def : "", "unit", p->unit,
			      "help", p->help);

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
			json_array_append_new(c, json_string(p->choices[i].name));
		json_object_set_new(o, "choices", c);
	}
	return o;
}

json_t *schema_experiment(const struct experiment *e, const struct topo *t)
{
	json_t *params = json_array(), *charts = json_array();
	int nodes = t ? t->nnodes : 1;
	json_t *o;

	for (const struct param *p = e->params; p->name; p++) {
		json_t *pj = param_json(p, "experiment", t);
		/* the default a run would get here, trimmed to this machine */
		if ((p->flags & PARAM_F_CPUS) && t) {
			struct param_values *pv = calloc(1, sizeof(*pv));
			struct errinfo err;
			if (pv && !experiment_parse(e, t, 0, NULL, pv, NULL,
						    NULL, &err)) {
				const struct param_value *v =
					params_get(pv, p->name);
				if (v)
					json_object_set_new(pj, "default",
							    json_string(v->text));
			}
			free(pv);
		}
		json_array_append_new(params, pj);
	}
	if (e->uses_placement)
		for (const struct param *p = placement_params; p->name; p++)
			json_array_append_new(params,
					      param_json(p, "placement", t));
	for (const struct param *p = common_params; p->name; p++)
		json_array_append_new(params, param_json(p, "stats", t));
	for (const struct chart *c = e->charts; c && c->id; c++)
		json_array_append_new(
			charts,
			json_pack("{s:s, s:s, s:s, s:s?, s:s?, s:b}", "id", c->id,
				  "kind", chart_kind_name(c->kind), "title",
				  c->title, "x_label", c->x_label, "y_label",
				  c->y_label, "log_x", c->log_x));
	json_t *refs = json_array();
	for (const struct reference *r = e->references; r && r->chart; r++) {
		json_t *rj = json_pack("{s:s, s:s, s:f, s:f, s:s?}", "chart", r->chart,
				       "series", r->series, "x", r->x, "y", r->y,
				       "unit", r->unit);
		if (r->x_label)
			json_object_set_new(rj, "x_label", json_string(r->x_label));
		json_array_append_new(refs, rj);
	}
	o = json_pack("{s:s, s:s, s:s, s:s, s:s?, s:i, s:b, s:o, s:o, s:o}", "name",
		      e->name, "title", e->title, "summary", e->summary,
		      "explain", e->explain ? e->explain : "", "section",
		      e->section, "min_nodes", e->min_nodes, "uses_placement",
		      e->uses_placement, "params", params, "charts", charts,
		      "references", refs);
	if (e->min_nodes > nodes) {
		char why[128];
		snprintf(why, sizeof(why),
			 "needs %d NUMA nodes to show everything; this machine has %d",
			 e->min_nodes, nodes);
		/* it still runs: what one node can show is shown */
		json_object_set_new(o, "limited", json_string(why));
	}
	json_object_set_new(o, "available", json_true());
	json_object_set_new(o, "lessons", lessons_json(e));
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

json_t *schema_topology(const struct topo *t)
{
	json_t *nodes = json_array(), *pus = json_array(), *caches = json_array();

	for (int i = 0; i < t->nnodes; i++) {
		json_t *d = json_array();
		for (int j = 0; j < t->nnodes; j++)
			json_array_append_new(d, json_integer(t->distance[i][j]));
		json_array_append_new(
			nodes,
			json_pack("{s:i, s:I, s:I, s:i, s:o, s:o}", "os",
				  t->node[i].os, "mem_total",
				  (json_int_t)t->node[i].mem_total, "mem_free",
				  (json_int_t)t->node[i].mem_free, "npus",
				  t->node[i].npus, "cpus",
				  cpus_of_node(t, t->node[i].os), "distances", d));
	}
	for (int i = 0; i < t->npus; i++) {
		const struct topo_pu *p = &t->pu[i];
		json_array_append_new(
			pus, json_pack("{s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:b}",
				       "os", p->os, "logical", p->logical, "core",
				       p->core, "package", p->package, "node",
				       p->node, "l1", p->l1, "l2", p->l2, "l3",
				       p->l3, "smt_rank", p->smt_rank, "allowed",
				       p->allowed));
	}
	for (int i = 0; i < t->ncaches; i++) {
		const struct topo_cache *c = &t->cache[i];
		json_array_append_new(
			caches, json_pack("{s:i, s:i, s:I, s:i, s:i}", "level",
					  c->level, "logical", c->logical, "size",
					  (json_int_t)c->size, "line_size",
					  c->line_size, "npus", c->npus));
	}
	return json_pack("{s:s, s:i, s:i, s:i, s:i, s:i, s:b, s:b, s:s, s:i, s:o, s:o, s:o}",
			 "cpu_model", t->cpu_model, "packages", t->npackages,
			 "cores", t->ncores, "npus", t->npus, "nallowed",
			 t->nallowed, "nnodes", t->nnodes, "smt", t->smt,
			 "numa_available", t->numa_available, "allowed",
			 t->allowed_text, "line_size", t->line_size, "nodes",
			 nodes, "pus", pus, "caches", caches);
}

/* The first line of a file, without its newline; NULL if unreadable. */
static json_t *read_line(const char *path)
{
	char buf[512];
	FILE *f = fopen(path, "r");

	if (!f)
		return json_null();
	if (!fgets(buf, sizeof(buf), f)) {
		fclose(f);
		return json_null();
	}
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return json_string(buf);
}

/* "always [madvise] never" -> "madvise" */
static json_t *bracketed(const char *path)
{
	json_t *line = read_line(path);
	const char *s = json_string_value(line), *a, *b;
	json_t *r;

	if (!s)
		return line;
	a = strchr(s, '[');
	b = a ? strchr(a, ']') : NULL;
	r = a && b ? json_stringn(a + 1, (size_t)(b - a - 1)) : json_string(s);
	json_decref(line);
	return r;
}

static json_t *cpu_flags(int *vm)
{
	static const char *const wanted[] = {"avx", "avx2", "avx512f", "avx512bw",
					     "sse4_2", "fma", "rdtscp",
					     "constant_tsc", "nonstop_tsc",
					     "clflushopt", "clwb", "movdir64b",
					     "prefetchw", "3dnowprefetch",
					     "sve", "asimd", NULL};
	char line[8192];
	json_t *out = json_array();
	FILE *f = fopen("/proc/cpuinfo", "r");

	*vm = 0;
	if (!f)
		return out;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "flags", 5) && strncmp(line, "Features", 8))
			continue;
		for (int i = 0; wanted[i]; i++) {
			char pat[40];
			snprintf(pat, sizeof(pat), " %s", wanted[i]);
			char *hit = strstr(line, pat);
			size_t len = strlen(pat);
			if (hit && (hit[len] == ' ' || hit[len] == '\n' ||
				    hit[len] == '\0'))
				json_array_append_new(out, json_string(wanted[i]));
		}
		if (strstr(line, " hypervisor"))
			*vm = 1;
		break;
	}
	fclose(f);
	return out;
}

json_t *schema_machine(const struct topo *t)
{
	struct utsname u;
	char host[256] = "";
	int vm = 0;
	json_t *flags = cpu_flags(&vm);
	json_t *caches = json_array();
	json_t *freq = read_line(
		"/sys/devices/system/cpu/cpu0/cpufreq/scaling_cur_freq");
	json_t *dist = json_array();

	for (int i = 0; i < t->ncaches; i++)
		if (t->cache[i].logical == 0)
			json_array_append_new(
				caches,
				json_pack("{s:i, s:I, s:i}", "level",
					  t->cache[i].level, "size",
					  (json_int_t)t->cache[i].size,
					  "instances_of_npus", t->cache[i].npus));
	for (int i = 0; i < t->nnodes; i++) {
		json_t *row = json_array();
		for (int j = 0; j < t->nnodes; j++)
			json_array_append_new(row,
					      json_integer(t->distance[i][j]));
		json_array_append_new(dist, row);
	}
	if (json_is_string(freq)) {
		/* kHz in sysfs */
		double mhz = atof(json_string_value(freq)) / 1000.0;
		json_decref(freq);
		freq = json_real(round(mhz));
	}
	uname(&u);
	gethostname(host, sizeof(host) - 1);
	return json_pack(
		"{s:s, s:s, s:s, s:s, s:i, s:i, s:i, s:i, s:b, s:o, s:o, s:o,"
		" s:o, s:o, s:o, s:b, s:s, s:s, s:s}",
		"hostname", host, "cpu_model", t->cpu_model, "kernel", u.release,
		"arch", u.machine, "packages", t->npackages, "cores", t->ncores,
		"pus", t->npus, "nodes", t->nnodes, "smt", t->smt, "caches",
		caches, "distances", dist, "flags", flags, "thp",
		bracketed("/sys/kernel/mm/transparent_hugepage/enabled"),
		"governor",
		read_line("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor"),
		"cur_freq_mhz", freq, "vm", vm, "compiler", __VERSION__,
		"cflags", NUMALAB_CFLAGS, "version", NUMALAB_VERSION);
}

int schema_params_to_argv(json_t *params, char **argv, int cap,
			  struct errinfo *err)
{
	const char *key;
	json_t *val;
	int n = 0;

	memset(err, 0, sizeof(*err));
	if (!params || json_is_null(params))
		return 0;
	if (!json_is_object(params)) {
		snprintf(err->field, sizeof(err->field), "params");
		snprintf(err->msg, sizeof(err->msg),
			 "'params' must be an object of name: value");
		return -EINVAL;
	}
	json_object_foreach(params, key, val)
	{
		char buf[1024];
		size_t off = 0;
		json_t *items = json_is_array(val) ? val : NULL;
		size_t count = items ? json_array_size(items) : 1;

		if (n >= cap) {
			snprintf(err->msg, sizeof(err->msg), "too many parameters");
			goto fail;
		}
		if (items && count == 0) {
			snprintf(err->field, sizeof(err->field), "%.60s", key);
			snprintf(err->msg, sizeof(err->msg),
				 "'%.60s' is an empty list", key);
			goto fail;
		}
		off = (size_t)snprintf(buf, sizeof(buf), "%s=", key);
		for (size_t i = 0; i < count && off < sizeof(buf); i++) {
			json_t *v = items ? json_array_get(items, i) : val;
			const char *sep = i ? "," : "";
			if (json_is_string(v))
				off += (size_t)snprintf(buf + off, sizeof(buf) - off,
							"%s%s", sep, json_string_value(v));
			else if (json_is_integer(v))
				off += (size_t)snprintf(buf + off, sizeof(buf) - off,
							"%s%" JSON_INTEGER_FORMAT, sep,
							json_integer_value(v));
			else {
				snprintf(err->field, sizeof(err->field), "%.60s", key);
				snprintf(err->msg, sizeof(err->msg),
					 "'%.60s' must be %s", key,
					 json_is_real(v)
						 ? "a whole number, not a fraction"
						 : "a string, a whole number or a list of them");
				goto fail;
			}
		}
		if (off >= sizeof(buf)) {
			snprintf(err->field, sizeof(err->field), "%.60s", key);
			snprintf(err->msg, sizeof(err->msg),
				 "value of '%.60s' is too long", key);
			goto fail;
		}
		argv[n] = strdup(buf);
		if (!argv[n]) {
			snprintf(err->msg, sizeof(err->msg), "out of memory");
			goto fail;
		}
		n++;
	}
	return n;
fail:
	for (int i = 0; i < n; i++)
		free(argv[i]);
	return -EINVAL;
}

json_t *schema_params_json(const struct param_values *pv)
{
	json_t *o = json_object();

	for (int i = 0; i < pv->n; i++) {
		const struct param_value *v = &pv->v[i];
		if (v->p->type == PARAM_INT)
			json_object_set_new(o, v->p->name, json_integer(v->i));
		else
			json_object_set_new(o, v->p->name, json_string(v->text));
	}
	return o;
}
