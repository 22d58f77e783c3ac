/* import.c - checking and storing a run exported from another server or `numalab run --json` */
#include "import.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "describe_doc.h"
#include "events.h"
#include "experiment.h"
#include "schema.h"

static int in_list(const char *s, const char *const *list)
{
	for (; *list; list++)
		if (!strcmp(s, *list))
			return 1;
	return 0;
}

static int number_or_null(json_t *v)
{
	return json_is_number(v) || json_is_null(v);
}

static int string_or_null(json_t *v)
{
	return !v || json_is_string(v) || json_is_null(v);
}

/* The chart ids of e, NULL-terminated, into ids (at most cap-1). */
static int chart_known(const struct experiment *e, const char *id)
{
	for (const struct chart *c = e->charts; c && c->id; c++)
		if (!strcmp(c->id, id))
			return 1;
	return 0;
}

static int check_stats(struct errinfo *c, json_t *item, const char *where)
{
	static const char *const keys[] = {"n",	    "median", "min",
					   "max",   "mean",   "stddev",
					   "ci_lo", "ci_hi",  NULL};
	json_t *raw = json_object_get(item, "samples");
	json_t *st = json_object_get(item, "stats"), *v;
	const char *key;
	size_t i;

	if (!json_is_array(raw))
		return errinfo_set(c, "samples",
				   "%s: 'samples' must be an array of numbers",
				   where);
	json_array_foreach (raw, i, v)
		if (!number_or_null(v))
			return errinfo_set(c, "samples",
					   "%s: raw sample %zu is not a number",
					   where, i);
	if (!json_is_object(st))
		return errinfo_set(c, "samples",
				   "%s: 'stats' must be an object", where);
	for (int k = 0; keys[k]; k++)
		if (!number_or_null(json_object_get(st, keys[k])))
			return errinfo_set(c, "samples",
					   "%s: 'stats.%s' must be a number",
					   where, keys[k]);
	json_object_foreach (st, key, v)
		if (!in_list(key, keys))
			return errinfo_set(c, "samples",
					   "%s: unknown field 'stats.%.40s'",
					   where, key);
	if (json_integer_value(json_object_get(st, "n")) !=
	    (json_int_t)json_array_size(raw))
		return errinfo_set(
			c, "samples",
			"%s: 'stats.n' is not the number of raw samples (%zu)",
			where, json_array_size(raw));
	return 0;
}

static int check_sample(struct errinfo *c, const struct experiment *e,
			json_t *s, size_t i)
{
	static const char *const keys[] = {
		"chart", "series",  "x",     "x_label", "y",
		"unit",	 "samples", "stats", "extra",	NULL};
	char where[48];
	const char *key, *chart;
	json_t *v;

	snprintf(where, sizeof(where), "sample %zu", i);
	if (!json_is_object(s))
		return errinfo_set(c, "samples", "%s is not an object", where);
	json_object_foreach (s, key, v)
		if (!in_list(key, keys))
			return errinfo_set(c, "samples",
					   "%s: unknown field '%.40s'", where,
					   key);
	chart = json_string_value(json_object_get(s, "chart"));
	if (!chart)
		return errinfo_set(c, "samples", "%s: 'chart' must be a string",
				   where);
	if (!chart_known(e, chart))
		return errinfo_set(c, "samples",
				   "%s: experiment '%s' has no chart '%.40s'",
				   where, e->name, chart);
	if (!json_is_string(json_object_get(s, "series")))
		return errinfo_set(c, "samples",
				   "%s: 'series' must be a string", where);
	if (!number_or_null(json_object_get(s, "x")) ||
	    !number_or_null(json_object_get(s, "y")))
		return errinfo_set(c, "samples",
				   "%s: 'x' and 'y' must be numbers", where);
	if (!string_or_null(json_object_get(s, "x_label")) ||
	    !string_or_null(json_object_get(s, "unit")))
		return errinfo_set(c, "samples",
				   "%s: 'x_label' and 'unit' must be text",
				   where);
	v = json_object_get(s, "extra");
	if (v) {
		json_t *x;
		if (!json_is_object(v))
			return errinfo_set(c, "samples",
					   "%s: 'extra' must be an object",
					   where);
		json_object_foreach (v, key, x)
			if (!number_or_null(x))
				return errinfo_set(
					c, "samples",
					"%s: 'extra.%.40s' must be a number",
					where, key);
	}
	return check_stats(c, s, where);
}

static int check_cell(struct errinfo *c, const struct experiment *e, json_t *s,
		      size_t i)
{
	static const char *const keys[] = {
		"chart", "row",	    "col",   "row_label", "col_label", "value",
		"unit",	 "samples", "stats", "note",	  NULL};
	char where[48];
	const char *key, *chart;
	json_t *v;

	snprintf(where, sizeof(where), "cell %zu", i);
	if (!json_is_object(s))
		return errinfo_set(c, "cells", "%s is not an object", where);
	json_object_foreach (s, key, v)
		if (!in_list(key, keys))
			return errinfo_set(c, "cells",
					   "%s: unknown field '%.40s'", where,
					   key);
	chart = json_string_value(json_object_get(s, "chart"));
	if (!chart || !chart_known(e, chart))
		return errinfo_set(c, "cells",
				   "%s: 'chart' must name a chart of '%s'",
				   where, e->name);
	if (!json_is_integer(json_object_get(s, "row")) ||
	    !json_is_integer(json_object_get(s, "col")))
		return errinfo_set(c, "cells",
				   "%s: 'row' and 'col' must be whole numbers",
				   where);
	if (!number_or_null(json_object_get(s, "value")))
		return errinfo_set(c, "cells",
				   "%s: 'value' must be a number or null",
				   where);
	if (!string_or_null(json_object_get(s, "row_label")) ||
	    !string_or_null(json_object_get(s, "col_label")) ||
	    !string_or_null(json_object_get(s, "unit")) ||
	    !string_or_null(json_object_get(s, "note")))
		return errinfo_set(c, "cells",
				   "%s: labels, 'unit' and 'note' must be text",
				   where);
	return check_stats(c, s, where);
}

/*
 * The samples' series per chart and points per series, against the caps
 * (import.h): a chart the page would take seconds to draw is refused here.
 */
static int check_bounds(struct errinfo *c, json_t *samples)
{
	json_t *charts = json_object(), *series, *n, *s;
	const char *chart, *name;
	size_t i;
	int rc = 0;

	if (!charts)
		return errinfo_set(c, NULL,
				   "out of memory checking the samples");
	json_array_foreach (samples, i, s) {
		chart = json_string_value(json_object_get(s, "chart"));
		name = json_string_value(json_object_get(s, "series"));
		series = json_object_get(charts, chart);
		if (!series) {
			series = json_object();
			json_object_set_new(charts, chart, series);
		}
		n = json_object_get(series, name);
		if (!n && json_object_size(series) >= IMPORT_MAX_SERIES) {
			rc = errinfo_set(
				c, "samples",
				"sample %zu: chart '%.40s' has more than %d series (allowed: at most %d a chart)",
				i, chart, IMPORT_MAX_SERIES, IMPORT_MAX_SERIES);
			break;
		}
		if (n && json_integer_value(n) >= IMPORT_MAX_POINTS) {
			rc = errinfo_set(
				c, "samples",
				"sample %zu: series '%.40s' of chart '%.40s' has more than %d points (allowed: at most %d a series)",
				i, name, chart, IMPORT_MAX_POINTS,
				IMPORT_MAX_POINTS);
			break;
		}
		json_object_set_new(
			series, name,
			json_integer(n ? json_integer_value(n) + 1 : 1));
	}
	json_decref(charts);
	return rc;
}

static int check_array(struct errinfo *c, json_t *doc, const char *key)
{
	json_t *a = json_object_get(doc, key);

	if (!a)
		return errinfo_set(c, key, "missing field '%s'", key);
	if (!json_is_array(a))
		return errinfo_set(c, key, "'%s' must be an array", key);
	return 0;
}

static int check_params(struct errinfo *c, json_t *params,
			const struct experiment *e, const struct topo *t)
{
	json_t *schema = schema_experiment(e, t), *p, *v;
	const char *key;
	size_t i;
	int rc = 0;

	if (!json_is_object(params)) {
		json_decref(schema);
		return errinfo_set(c, "params", "'params' must be an object");
	}
	/* the names, not the values: a run from a bigger machine names cpus
	 * this one lacks */
	json_object_foreach (params, key, v) {
		int known = 0;
		json_array_foreach (json_object_get(schema, "params"), i, p)
			if (!strcmp(key, json_string_value(
						 json_object_get(p, "name"))
						 ?: ""))
				known = 1;
		if (!known) {
			rc = errinfo_set(
				c, "params",
				"experiment '%s' has no parameter '%.40s'",
				e->name, key);
			break;
		}
		if (!json_is_string(v) && !json_is_number(v)) {
			rc = errinfo_set(
				c, "params",
				"parameter '%.40s' must be text or a number",
				key);
			break;
		}
	}
	json_decref(schema);
	return rc;
}

int import_validate(json_t *doc, const struct topo *t, struct errinfo *err)
{
	static const char *const keys[] = {
		"id",	      "experiment", "status",
		"created_at", "started_at", "finished_at",
		"params",     "machine",    "version",
		"placement",  "samples",    "cells",
		"notes",      "progress",   "summary",
		"headline",   "error",	    "request",
		"imported",   "references", "verdict_today",
		"estimate_s", NULL};
	static const char *const texts[] = {
		"created_at", "started_at", "finished_at", "version",
		"headline",   "error",	    NULL};
	const struct experiment *e;
	const char *key, *name, *status;
	json_t *v, *item;
	size_t i;

	errinfo_clear(err);
	if (!json_is_object(doc))
		return errinfo_set(err, NULL, "a run must be a JSON object");
	json_object_foreach (doc, key, v)
		if (!in_list(key, keys))
			return errinfo_set(err, key, "unknown field '%.60s'",
					   key);
	name = json_string_value(json_object_get(doc, "experiment"));
	if (!name)
		return errinfo_set(err, "experiment",
				   "missing field 'experiment' (a string)");
	e = experiment_find(name);
	if (!e)
		return errinfo_set(err, "experiment",
				   "unknown experiment '%.60s'", name);
	status = json_string_value(json_object_get(doc, "status"));
	if (!status)
		return errinfo_set(err, "status",
				   "missing field 'status' (a string)");
	/* a queued or running run is not one to import */
	if (!event_status_final(status))
		return errinfo_set(
			err, "status",
			"status '%.40s' is not a finished run's (allowed: done, "
			"failed, cancelled, interrupted)",
			status);
	v = json_object_get(doc, "id");
	if (v && !json_is_null(v) &&
	    (!json_is_integer(v) || json_integer_value(v) < 1))
		return errinfo_set(err, "id",
				   "'id' must be a positive whole number");
	v = json_object_get(doc, "estimate_s");
	if (v && !json_is_null(v) &&
	    (!json_is_number(v) || json_number_value(v) < 0))
		return errinfo_set(
			err, "estimate_s",
			"'estimate_s' must be a number of seconds, 0 or more");
	for (int k = 0; texts[k]; k++)
		if (!string_or_null(json_object_get(doc, texts[k])))
			return errinfo_set(err, texts[k],
					   "'%s' must be text or null",
					   texts[k]);
	if (check_params(err, json_object_get(doc, "params"), e, t))
		return -EINVAL;
	/* the article's figures a CLI document carries: not the run's, not kept
	 */
	v = json_object_get(doc, "references");
	if (v && !json_is_array(v))
		return errinfo_set(err, "references",
				   "'references' must be an array");
	if (!json_is_object(json_object_get(doc, "machine")))
		return errinfo_set(err, "machine",
				   "missing field 'machine' (an object)");
	if (check_array(err, doc, "samples") ||
	    check_array(err, doc, "cells") ||
	    check_array(err, doc, "placement") ||
	    check_array(err, doc, "notes"))
		return -EINVAL;
	json_array_foreach (json_object_get(doc, "samples"), i, item)
		if (check_sample(err, e, item, i))
			return -EINVAL;
	if (check_bounds(err, json_object_get(doc, "samples")))
		return -EINVAL;
	json_array_foreach (json_object_get(doc, "cells"), i, item)
		if (check_cell(err, e, item, i))
			return -EINVAL;
	json_array_foreach (json_object_get(doc, "placement"), i, item)
		if (!json_is_object(item) ||
		    !json_is_string(json_object_get(item, "label")) ||
		    !json_is_array(json_object_get(item, "threads")))
			return errinfo_set(
				err, "placement",
				"placement %zu must be {\"label\": text, \"threads\": [...]}",
				i);
	json_array_foreach (json_object_get(doc, "notes"), i, item) {
		const char *level =
			json_string_value(json_object_get(item, "level"));
		if (!level ||
		    (strcmp(level, "info") && strcmp(level, "warn") &&
		     strcmp(level, "cannot")) ||
		    !json_is_string(json_object_get(item, "text")))
			return errinfo_set(
				err, "notes",
				"note %zu must be {\"level\": \"info\", "
				"\"warn\" or \"cannot\", \"text\": text}",
				i);
	}
	v = json_object_get(doc, "summary");
	if (v && !json_is_null(v)) {
		if (!json_is_object(v))
			return errinfo_set(err, "summary",
					   "'summary' must be an object");
		json_object_foreach (v, key, item)
			if (!json_is_object(item) ||
			    !(number_or_null(json_object_get(item, "value")) ||
			      json_is_string(json_object_get(item, "value"))) ||
			    !string_or_null(json_object_get(item, "unit")))
				return errinfo_set(
					err, "summary",
					"summary '%.40s' must be {\"value\": number, \"unit\": text}",
					key);
	}
	v = json_object_get(doc, "progress");
	if (v && !json_is_null(v) && !json_is_object(v))
		return errinfo_set(err, "progress",
				   "'progress' must be an object");
	v = json_object_get(doc, "imported");
	if (v && !json_is_null(v) && !json_is_object(v))
		return errinfo_set(err, "imported",
				   "'imported' must be an object");
	/* the param values as today's table reads them: what describing needs
	 */
	struct verdict *vd = calloc(1, sizeof(*vd));
	int rc = vd ? describe_doc(doc, vd, err) : -ENOMEM;
	free(vd);
	if (rc == -ENOMEM)
		return errinfo_set(err, NULL, "out of memory reading the run");
	if (rc && !*err->field)
		snprintf(err->field, sizeof(err->field), "params");
	return rc;
}

static const char *text_of(json_t *doc, const char *key)
{
	return json_string_value(json_object_get(doc, key));
}

/*
 * Where it came from: kept from the first import when a run travels on,
 * with the headline it arrived with ("as imported") and the verdict this
 * server's rules gave it; client (the address it was sent from) is this
 * hop's, so a forged one is overwritten.
 */
static json_t *provenance(json_t *doc, const char *now, const char *client,
			  json_t *today)
{
	json_t *prev = json_object_get(doc, "imported");
	json_t *m = json_object_get(doc, "machine");
	json_t *p;

	if (json_is_object(prev))
		p = json_deep_copy(prev);
	else
		p = json_pack("{s:O?, s:s?, s:s, s:s}", "original_id",
			      json_object_get(doc, "id"), "host",
			      text_of(m, "hostname"), "at", now, "source",
			      json_object_get(doc, "id")
				      ? "export"
				      : "numalab run --json");
	if (!p)
		return NULL;
	if (!json_object_get(p, "headline"))
		json_object_set(p, "headline",
				json_object_get(doc, "headline")
					?: json_null());
	if (client)
		json_object_set_new(p, "client", json_string(client));
	if (today)
		json_object_set(p, "verdict", today);
	return p;
}

int import_store(struct store *st, json_t *doc, const char *client, int64_t *id,
		 struct errinfo *err)
{
	const struct runlog_event **ptrs = NULL;
	struct runlog_event *ev = NULL;
	char now[40];
	char *params = NULL, *request = NULL, *machine = NULL, *summary = NULL;
	const char *status = text_of(doc, "status");
	json_t *req = json_object_get(doc, "request"), *imported,
	       *events = NULL;
	json_t *e, *today, *own = json_copy(doc);
	const char *headline;
	size_t n = 0, i;
	int rc = -EIO;

	store_timestamp(now, sizeof(now));
	/* today's rules speak for the run; what it said on arrival is kept
	 * beside */
	today = own ? describe_doc_today(own, NULL) : NULL;
	headline = json_string_value(json_object_get(today, "headline"));
	imported = own ? provenance(own, now, client, today) : NULL;
	if (imported && headline)
		json_object_set_new(own, "headline", json_string(headline));
	doc = own;
	events = imported ? events_from_doc(doc, imported) : NULL;
	json_decref(imported);
	json_decref(today);
	if (!events) {
		errinfo_set(err, NULL,
			    "out of memory rebuilding the run's events");
		goto out;
	}
	/* each numbered and serialised as the store keeps them */
	ev = calloc(json_array_size(events), sizeof(*ev));
	ptrs = calloc(json_array_size(events), sizeof(*ptrs));
	if (!ev || !ptrs) {
		errinfo_set(err, NULL,
			    "out of memory rebuilding the run's events");
		goto out;
	}
	json_array_foreach (events, i, e) {
		json_object_set_new(e, "seq", json_integer((json_int_t)i + 1));
		ev[i].seq = (int64_t)i + 1;
		snprintf(ev[i].type, sizeof(ev[i].type), "%s",
			 json_string_value(json_object_get(e, "type")));
		ev[i].json = json_dumps(e, JSON_COMPACT);
		if (!ev[i].json) {
			errinfo_set(
				err, NULL,
				"out of memory rebuilding the run's events");
			goto out;
		}
		ev[i].len = strlen(ev[i].json);
		ptrs[i] = &ev[i];
		n = i + 1;
	}
	params = json_dumps(json_object_get(doc, "params"), JSON_COMPACT);
	machine = json_dumps(json_object_get(doc, "machine"), JSON_COMPACT);
	summary = json_is_object(json_object_get(doc, "summary"))
			  ? json_dumps(json_object_get(doc, "summary"),
				       JSON_COMPACT)
			  : NULL;
	/* `numalab run --json` has no request: the one that would have made it
	 */
	if (req && !json_is_null(req))
		request = json_dumps(req, JSON_COMPACT | JSON_ENCODE_ANY);
	else {
		req = json_pack("{s:O, s:O}", "experiment",
				json_object_get(doc, "experiment"), "params",
				json_object_get(doc, "params"));
		request = req ? json_dumps(req, JSON_COMPACT) : NULL;
		json_decref(req);
	}
	if (!params || !machine || !request) {
		errinfo_set(err, NULL, "out of memory");
		goto out;
	}
	rc = store_create_run(st, text_of(doc, "experiment"), params, request,
			      text_of(doc, "created_at") ?: now, id, err);
	if (rc)
		goto out;
	rc = store_run_started(st, *id, text_of(doc, "started_at"), err);
	if (!rc)
		rc = store_run_machine(st, *id, machine, err);
	if (!rc)
		rc = store_append_events(st, *id, ptrs, (int)n, err);
	if (!rc)
		rc = store_run_finished(st, *id, status,
					text_of(doc, "finished_at"),
					text_of(doc, "error"),
					text_of(doc, "headline"), summary, err);
	if (rc)
		/* never leave a half-imported run looking like one that will
		 * run */
		store_run_finished(st, *id, "failed", now,
				   "the import could not be stored", NULL, NULL,
				   NULL);
out:
	for (size_t k = 0; k < n; k++)
		free(ev[k].json);
	free(ev);
	free(ptrs);
	json_decref(events);
	free(params);
	free(request);
	free(machine);
	free(summary);
	json_decref(own);
	return rc;
}
