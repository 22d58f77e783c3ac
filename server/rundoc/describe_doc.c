/* describe_doc.c - a stored or imported run document described again with today's rules */
#include "describe_doc.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "experiment.h"
#include "jsonlimit.h"
#include "point_text.h"
#include "registry.h"
#include "schema.h"
#include "strbuf.h"
#include "strvec.h"

#define DOC_MAX_ARGS 64

/* Everything a run_result points at, owned here; strings stay in the doc. */
struct doc_run {
	struct run_result rr;
	struct machine_facts m;
	struct common_params common;
	struct param_values *pv;
	void *params;
	struct result_point *points;
	struct point_store ps; /* every point's extras, and text's strings */
	json_t *trees;	       /* texts the walk did not read, parsed */
	struct result_cell *cells;
	struct result_summary *summary;
	struct result_placement *places;
	struct thread_place *threads; /* every placement's threads, one block */
};

static double num(json_t *v, double dflt)
{
	return json_is_number(v) ? json_number_value(v) : dflt;
}

/* An int field; dflt when absent, not a whole number or past an int. */
static int inum(json_t *o, const char *key, int dflt)
{
	json_t *v = json_object_get(o, key);
	json_int_t n = json_integer_value(v);

	return json_is_integer(v) && n >= INT_MIN && n <= INT_MAX ? (int)n
								  : dflt;
}

static const char *text(json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

void describe_doc_machine(json_t *machine, struct machine_facts *m)
{
	json_t *c, *vm = json_object_get(machine, "vm"),
		   *emu = json_object_get(machine, "emulator");
	size_t i;

	memset(m, 0, sizeof(*m));
	m->npus = inum(machine, "pus", 0);
	/* the record keeps no allowed set: a run is made with all of them */
	m->nallowed = inum(machine, "allowed", m->npus);
	m->ncores = inum(machine, "cores", 0);
	m->npackages = inum(machine, "packages", 0);
	m->nnodes = inum(machine, "nodes", 0);
	m->smt = json_is_true(json_object_get(machine, "smt"));
	m->vm = json_is_boolean(vm)   ? json_is_true(vm)
		: json_is_integer(vm) ? json_integer_value(vm) != 0
				      : -1;
	m->emulator = json_is_boolean(emu) ? json_is_true(emu) : -1;
	m->line_size = inum(machine, "line_size", 64);
	m->numa_available = inum(machine, "numa_available", m->nnodes > 1);
	json_array_foreach (json_object_get(machine, "caches"), i, c) {
		int level = inum(c, "level", 0),
		    per = inum(c, "instances_of_npus", 0);
		json_t *sz = json_object_get(c, "size");
		uint64_t size =
			json_is_integer(sz) && json_integer_value(sz) > 0
				? (uint64_t)json_integer_value(sz)
				: 0;
		/* one record per level: how many of it cover the machine's PUs
		 * (in 64 bits: npus + per - 1 passes INT_MAX for a large per)
		 */
		int n = per > 0 && m->npus > 0
				? (int)(((int64_t)m->npus + per - 1) / per)
				: 1;

		if (level <= 0)
			continue;
		if (level > m->llc_level) {
			m->llc_level = level;
			m->llc_instances = 0;
			m->llc_bytes = 0;
		}
		if (level == m->llc_level) {
			if (n > m->llc_instances)
				m->llc_instances = n;
			if (size > m->llc_bytes)
				m->llc_bytes = size;
		}
		if (level == 2 && n > m->l2_instances)
			m->l2_instances = n;
	}
}

static void doc_run_free(struct doc_run *d)
{
	if (!d)
		return;
	free(d->pv);
	free(d->params);
	free(d->points);
	point_store_free(&d->ps);
	json_decref(d->trees);
	free(d->cells);
	free(d->summary);
	free(d->places);
	free(d->threads);
	free(d);
}

static int read_params(struct doc_run *d, const struct experiment *e,
		       json_t *params, struct errinfo *err)
{
	struct strvec argv = STRVEC_INIT;
	int rc;

	/* about 100 KiB, filled as it is parsed: not zeroed first */
	d->pv = malloc(sizeof(*d->pv));
	/* zeroed by the parse that fills it (and unread when it fails) */
	d->params = malloc(e->params_size ? e->params_size : 1);
	if (!d->pv || !d->params)
		return -ENOMEM;
	d->pv->n = 0;
	rc = schema_params_to_argv(json_is_object(params) ? params : NULL,
				   &argv, DOC_MAX_ARGS, err);
	if (rc >= 0)
		rc = experiment_parse_recorded(e, (int)argv.n, argv.v, d->pv,
					       d->params, &d->common, err);
	strvec_clear(&argv);
	return rc < 0 ? rc : 0;
}

/* A point from a sample's values; its extras into d->ps. */
static void point_of_values(struct doc_run *d, struct result_point *p,
			    json_t *s)
{
	json_t *st = json_object_get(s, "stats"), *x;
	const char *k;

	/* a text the walk gave up on may have left some of p set */
	memset(p, 0, sizeof(*p));
	p->chart = text(s, "chart") ?: "";
	p->series = text(s, "series") ?: "";
	p->x_label = text(s, "x_label");
	p->unit = text(s, "unit");
	p->x = num(json_object_get(s, "x"), NAN);
	p->y = num(json_object_get(s, "y"), NAN);
	p->ci_lo = num(json_object_get(st, "ci_lo"), p->y);
	p->ci_hi = num(json_object_get(st, "ci_hi"), p->y);
	p->min = num(json_object_get(st, "min"), p->y);
	p->max = num(json_object_get(st, "max"), p->y);
	p->n = inum(st, "n", 1);
	p->extra_keys = &d->ps.keys[d->ps.nx];
	p->extra_vals = &d->ps.vals[d->ps.nx];
	json_object_foreach (json_object_get(s, "extra"), k, x) {
		if (!json_is_number(x))
			continue;
		d->ps.keys[d->ps.nx] = k;
		d->ps.vals[d->ps.nx++] = json_number_value(x);
		p->nextra++;
	}
}

/* Sample i's text, when the document keeps it as text (a placeholder). */
static const char *sample_text(const struct doc_text *dt, json_t *s, size_t i,
			       size_t *len)
{
	return dt && json_is_null(s) ? dt->item(dt->ctx, "samples", i, len)
				     : NULL;
}

/* A kept text read as values (one the walk does not read), held by d.
 * NULL on ENOMEM. */
static json_t *parsed(struct doc_run *d, const char *t, size_t len)
{
	static const struct jsonlimit stored = {.depth =
							JSONLIMIT_DEPTH_STORED};
	struct strbuf sb = STRBUF_INIT;
	json_t *v;

	strbuf_addch(&sb, '{');
	strbuf_add(&sb, t, len);
	v = sb.oom ? NULL
		   : jsonlimit_load(sb.buf, sb.len, 0, &stored, NULL, NULL, 0);
	strbuf_release(&sb);
	if (!v)
		v = json_object(); /* as a point without values */
	if (!d->trees)
		d->trees = json_array();
	if (!v || json_array_append_new(d->trees, v))
		return NULL;
	return v;
}

static int read_points(struct doc_run *d, json_t *samples,
		       const struct doc_text *dt)
{
	size_t n = json_array_size(samples), nx = 0, bytes = 0, len, i;
	const char *t;
	json_t *s;

	json_array_foreach (samples, i, s) {
		if ((t = sample_text(dt, s, i, &len))) {
			bytes += len;
			nx += point_text_members(t, len);
		} else {
			nx += json_object_size(json_object_get(s, "extra"));
		}
	}
	d->points = calloc(n + 1, sizeof(*d->points));
	if (!d->points || point_store_init(&d->ps, bytes, nx))
		return -ENOMEM;
	json_array_foreach (samples, i, s) {
		struct result_point *p = &d->points[i];

		t = sample_text(dt, s, i, &len);
		/* kept as text: read in place, or parsed when it is not plain
		 */
		if (t && !point_from_text(t, len, p, &d->ps))
			continue;
		if (t && !(s = parsed(d, t, len)))
			return -ENOMEM;
		point_of_values(d, p, s);
	}
	d->rr.points = d->points;
	d->rr.npoints = (int)n;
	return 0;
}

static int read_cells(struct doc_run *d, json_t *cells)
{
	size_t n = json_array_size(cells), i;
	json_t *c;

	d->cells = calloc(n + 1, sizeof(*d->cells));
	if (!d->cells)
		return -ENOMEM;
	json_array_foreach (cells, i, c) {
		json_t *st = json_object_get(c, "stats");

		d->cells[i].chart = text(c, "chart") ?: "";
		d->cells[i].row = inum(c, "row", 0);
		d->cells[i].col = inum(c, "col", 0);
		d->cells[i].row_label = text(c, "row_label");
		d->cells[i].col_label = text(c, "col_label");
		d->cells[i].unit = text(c, "unit");
		d->cells[i].value = num(json_object_get(c, "value"), NAN);
		d->cells[i].note = text(c, "note");
		d->cells[i].ci_lo =
			num(json_object_get(st, "ci_lo"), d->cells[i].value);
		d->cells[i].ci_hi =
			num(json_object_get(st, "ci_hi"), d->cells[i].value);
		d->cells[i].n = inum(st, "n", 1);
	}
	d->rr.cells = d->cells;
	d->rr.ncells = (int)n;
	return 0;
}

static int read_summary(struct doc_run *d, json_t *summary)
{
	const char *key;
	json_t *s;
	int n = 0;

	d->summary = calloc(json_object_size(summary) + 1, sizeof(*d->summary));
	if (!d->summary)
		return -ENOMEM;
	json_object_foreach (summary, key, s) {
		/* a value that is no number says nothing a rule can weigh */
		if (!json_is_number(json_object_get(s, "value")))
			continue;
		d->summary[n].key = key;
		d->summary[n].value =
			json_number_value(json_object_get(s, "value"));
		d->summary[n++].unit = text(s, "unit");
	}
	d->rr.summary = d->summary;
	d->rr.nsummary = n;
	return 0;
}

static int read_placements(struct doc_run *d, json_t *placement)
{
	size_t n = json_array_size(placement), nt = 0, i, j;
	json_t *p, *t;

	json_array_foreach (placement, i, p)
		nt += json_array_size(json_object_get(p, "threads"));
	d->places = calloc(n + 1, sizeof(*d->places));
	d->threads = calloc(nt + 1, sizeof(*d->threads));
	if (!d->places || !d->threads)
		return -ENOMEM;
	nt = 0;
	json_array_foreach (placement, i, p) {
		struct result_placement *rp = &d->places[i];

		rp->label = text(p, "label") ?: "";
		rp->t = &d->threads[nt];
		json_array_foreach (json_object_get(p, "threads"), j, t) {
			struct thread_place *tp = &d->threads[nt++];

			tp->thread = inum(t, "thread", (int)j);
			tp->cpu_requested = inum(t, "cpu", -1);
			tp->cpu_observed = inum(t, "cpu_observed", -1);
			tp->core = inum(t, "core", -1);
			tp->package = inum(t, "package", -1);
			tp->node = inum(t, "node", -1);
			tp->l2 = inum(t, "l2", -1);
			tp->l3 = inum(t, "l3", -1);
			rp->n++;
		}
	}
	d->rr.placements = d->places;
	d->rr.nplacements = (int)n;
	return 0;
}

int describe_doc(json_t *doc, struct verdict *v, struct errinfo *err)
{
	return describe_doc_text(doc, NULL, v, err);
}

int describe_doc_text(json_t *doc, const struct doc_text *dt, struct verdict *v,
		      struct errinfo *err)
{
	const char *name = text(doc, "experiment");
	const struct experiment *e = name ? experiment_find(name) : NULL;
	const char *status = text(doc, "status");
	struct doc_run *d;
	int rc;

	errinfo_clear(err);
	if (!e) {
		memset(v, 0, sizeof(*v));
		return errinfo_set(err, "experiment",
				   "unknown experiment '%.60s'",
				   name ? name : "");
	}
	d = calloc(1, sizeof(*d));
	if (!d) {
		memset(v, 0, sizeof(*v));
		return -ENOMEM;
	}
	rc = read_params(d, e, json_object_get(doc, "params"), err);
	if (!rc)
		rc = read_points(d, json_object_get(doc, "samples"), dt);
	if (!rc)
		rc = read_cells(d, json_object_get(doc, "cells"));
	if (!rc)
		rc = read_summary(d, json_object_get(doc, "summary"));
	if (!rc)
		rc = read_placements(d, json_object_get(doc, "placement"));
	if (rc == -ENOMEM)
		errinfo_set(err, NULL, "out of memory describing the run");
	if (!rc) {
		describe_doc_machine(json_object_get(doc, "machine"), &d->m);
		d->rr.exp = e;
		d->rr.params = d->params;
		d->rr.common = &d->common;
		d->rr.machine = &d->m;
		d->rr.complete = status && !strcmp(status, "done");
		/* it clears v first */
		experiment_describe(&d->rr, v);
	} else {
		memset(v, 0, sizeof(*v));
	}
	doc_run_free(d);
	return rc;
}

json_t *describe_doc_verdict_json(const struct verdict *v)
{
	json_t *notes = json_array(), *marks = json_array();

	/* a verdict short of a note or a mark is not the verdict */
	for (int i = 0; notes && i < v->nnotes; i++)
		if (json_array_append_new(notes,
					  json_pack("{s:s, s:s}", "level",
						    v->notes[i].level, "text",
						    v->notes[i].text)))
			goto fail;
	for (int i = 0; marks && i < v->nqualifiers; i++)
		if (json_array_append_new(
			    marks, json_pack("{s:s, s:s, s:s}", "key",
					     v->qualifiers[i].key, "mark",
					     verdict_qualifier_name(
						     v->qualifiers[i].kind),
					     "why", v->qualifiers[i].why)))
			goto fail;
	if (!notes || !marks)
		goto fail;
	return json_pack("{s:s?, s:o, s:o}", "headline",
			 v->headline[0] ? v->headline : NULL, "notes", notes,
			 "marks", marks);
fail:
	json_decref(notes);
	json_decref(marks);
	return NULL;
}

json_t *describe_doc_today(json_t *doc, struct errinfo *err)
{
	return describe_doc_today_text(doc, NULL, err);
}

json_t *describe_doc_today_text(json_t *doc, const struct doc_text *dt,
				struct errinfo *err)
{
	struct errinfo own;
	/* describe_doc clears it */
	struct verdict *v = malloc(sizeof(*v));
	const char *stored = text(doc, "headline");
	json_t *out = NULL;
	int rc;

	if (!v) {
		errno = ENOMEM;
		return NULL;
	}
	rc = describe_doc_text(doc, dt, v, err ? err : &own);
	if (rc)
		errno = -rc;
	else {
		out = describe_doc_verdict_json(v);
		if (!out)
			errno = ENOMEM;
		if (out && json_object_set_new(
				   out, "changed",
				   json_boolean(strcmp(stored ? stored : "",
						       v->headline)))) {
			json_decref(out);
			out = NULL;
			errno = ENOMEM;
		}
	}
	free(v);
	return out;
}
