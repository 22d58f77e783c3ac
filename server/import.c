/* import.c - taking in a run exported from another server or `numalab run --json` */
#include "import.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "experiment.h"
#include "rundoc.h"
#include "schema.h"

struct check {
	char *why;
	size_t whylen;
	char *field;
	size_t fieldlen;
};

static int bad(struct check *c, const char *field, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int bad(struct check *c, const char *field, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(c->why, c->whylen, fmt, ap);
	va_end(ap);
	snprintf(c->field, c->fieldlen, "%s", field ? field : "");
	return -EINVAL;
}

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

static int check_stats(struct check *c, json_t *item, const char *where)
{
	static const char *const keys[] = {"n",	    "median", "min",   "max",
					   "mean",  "stddev", "ci_lo", "ci_hi",
					   NULL};
	json_t *raw = json_object_get(item, "samples");
	json_t *st = json_object_get(item, "stats"), *v;
	const char *key;
	size_t i;

	if (!json_is_array(raw))
		return bad(c, "samples", "%s: 'samples' must be an array of numbers",
			   where);
	json_array_foreach(raw, i, v) if (!number_or_null(v)) return bad(
		c, "samples", "%s: raw sample %zu is not a number", where, i);
	if (!json_is_object(st))
		return bad(c, "samples", "%s: 'stats' must be an object", where);
	for (int k = 0; keys[k]; k++)
		if (!number_or_null(json_object_get(st, keys[k])))
			return bad(c, "samples",
				   "%s: 'stats.%s' must be a number", where,
				   keys[k]);
	json_object_foreach(st, key, v) if (!in_list(key, keys)) return bad(
		c, "samples", "%s: unknown field 'stats.%.40s'", where, key);
	if (json_integer_value(json_object_get(st, "n")) !=
	    (json_int_t)json_array_size(raw))
		return bad(c, "samples",
			   "%s: 'stats.n' is not the number of raw samples (%zu)",
			   where, json_array_size(raw));
	return 0;
}

static int check_sample(struct check *c, const struct experiment *e,
			json_t *s, size_t i)
{
	static const char *const keys[] = {"chart", "series",	"x",	 "x_label",
					   "y",	    "unit",	"samples", "stats",
					   "extra", NULL};
	char where[48];
	const char *key, *chart;
	json_t *v;

	snprintf(where, sizeof(where), "sample %zu", i);
	if (!json_is_object(s))
		return bad(c, "samples", "%s is not an object", where);
	json_object_foreach(s, key, v) if (!in_list(key, keys)) return bad(
		c, "samples", "%s: unknown field '%.40s'", where, key);
	chart = json_string_value(json_object_get(s, "chart"));
	if (!chart)
		return bad(c, "samples", "%s: 'chart' must be a string", where);
	if (!chart_known(e, chart))
		return bad(c, "samples", "%s: experiment '%s' has no chart '%.40s'",
			   where, e->name, chart);
	if (!json_is_string(json_object_get(s, "series")))
		return bad(c, "samples", "%s: 'series' must be a string", where);
	if (!number_or_null(json_object_get(s, "x")) ||
	    !number_or_null(json_object_get(s, "y")))
		return bad(c, "samples", "%s: 'x' and 'y' must be numbers", where);
	if (!string_or_null(json_object_get(s, "x_label")) ||
	    !string_or_null(json_object_get(s, "unit")))
		return bad(c, "samples", "%s: 'x_label' and 'unit' must be text",
			   where);
	v = json_object_get(s, "extra");
	if (v) {
		json_t *x;
		if (!json_is_object(v))
			return bad(c, "samples", "%s: 'extra' must be an object",
				   where);
		json_object_foreach(v, key, x) if (!number_or_null(x)) return bad(
			c, "samples", "%s: 'extra.%.40s' must be a number", where,
			key);
	}
	return check_stats(c, s, where);
}

static int check_cell(struct check *c, const struct experiment *e, json_t *s,
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
		return bad(c, "cells", "%s is not an object", where);
	json_object_foreach(s, key, v) if (!in_list(key, keys)) return bad(
		c, "cells", "%s: unknown field '%.40s'", where, key);
	chart = json_string_value(json_object_get(s, "chart"));
	if (!chart || !chart_known(e, chart))
		return bad(c, "cells", "%s: 'chart' must name a chart of '%s'",
			   where, e->name);
	if (!json_is_integer(json_object_get(s, "row")) ||
	    !json_is_integer(json_object_get(s, "col")))
		return bad(c, "cells", "%s: 'row' and 'col' must be whole numbers",
			   where);
	if (!number_or_null(json_object_get(s, "value")))
		return bad(c, "cells", "%s: 'value' must be a number or null",
			   where);
	if (!string_or_null(json_object_get(s, "row_label")) ||
	    !string_or_null(json_object_get(s, "col_label")) ||
	    !string_or_null(json_object_get(s, "unit")) ||
	    !string_or_null(json_object_get(s, "note")))
		return bad(c, "cells", "%s: labels, 'unit' and 'note' must be text",
			   where);
	return check_stats(c, s, where);
}

static int check_array(struct check *c, json_t *doc, const char *key)
{
	json_t *a = json_object_get(doc, key);

	if (!a)
		return bad(c, key, "missing field '%s'", key);
	if (!json_is_array(a))
		return bad(c, key, "'%s' must be an array", key);
	return 0;
}

static int check_params(struct check *c, json_t *params,
			const struct experiment *e, const struct topo *t)
{
	json_t *schema = schema_experiment(e, t), *p, *v;
	const char *key;
	size_t i;
	int rc = 0;

	if (!json_is_object(params)) {
		json_decref(schema);
		return bad(c, "params", "'params' must be an object");
	}
	/* the names, not the values: a run from a bigger machine names cpus this one lacks */
	json_object_foreach(params, key, v)
	{
		int known = 0;
		json_array_foreach(json_object_get(schema, "params"), i, p) if (
			!strcmp(key,
				json_string_value(json_object_get(p, "name")) ?: ""))
			known = 1;
		if (!known) {
			rc = bad(c, "params", "experiment '%s' has no parameter '%.40s'",
				 e->name, key);
			break;
		}
		if (!json_is_string(v) && !json_is_number(v)) {
			rc = bad(c, "params", "parameter '%.40s' must be text or a number",
				 key);
			break;
		}
	}
	json_decref(schema);
	return rc;
}

int import_validate(json_t *doc, const struct topo *t, char *why,
		    size_t whylen, char *field, size_t fieldlen)
{
	static const char *const keys[] = {
		"id",	     "experiment", "status",	  "created_at", "started_at",
		"finished_at", "params",   "machine",	  "version",	"placement",
		"samples",   "cells",	   "notes",	  "progress",	"summary",
		"headline",  "error",	   "request",	  "imported",	NULL};
	static const char *const texts[] = {"created_at", "started_at",
					    "finished_at", "version",
					    "headline",	  "error", NULL};
	struct check c = {why, whylen, field, fieldlen};
	const struct experiment *e;
	const char *key, *name, *status;
	json_t *v, *item;
	size_t i;

	why[0] = field[0] = '\0';
	if (!json_is_object(doc))
		return bad(&c, NULL, "a run must be a JSON object");
	json_object_foreach(doc, key, v) if (!in_list(key, keys)) return bad(
		&c, key, "unknown field '%.60s'", key);
	name = json_string_value(json_object_get(doc, "experiment"));
	if (!name)
		return bad(&c, "experiment", "missing field 'experiment' (a string)");
	e = experiment_find(name);
	if (!e)
		return bad(&c, "experiment", "unknown experiment '%.60s'", name);
	status = json_string_value(json_object_get(doc, "status"));
	if (!status)
		return bad(&c, "status", "missing field 'status' (a string)");
	/* a queued or running run is not one to import */
	if (!rundoc_status_final(status))
		return bad(&c, "status",
			   "status '%.40s' is not a finished run's (allowed: done, "
			   "failed, cancelled, interrupted)",
			   status);
	v = json_object_get(doc, "id");
	if (v && !json_is_null(v) &&
	    (!json_is_integer(v) || json_integer_value(v) < 1))
		return bad(&c, "id", "'id' must be a positive whole number");
	for (int k = 0; texts[k]; k++)
		if (!string_or_null(json_object_get(doc, texts[k])))
			return bad(&c, texts[k], "'%s' must be text or null",
				   texts[k]);
	if (check_params(&c, json_object_get(doc, "params"), e, t))
		return -EINVAL;
	if (!json_is_object(json_object_get(doc, "machine")))
		return bad(&c, "machine", "missing field 'machine' (an object)");
	if (check_array(&c, doc, "samples") || check_array(&c, doc, "cells") ||
	    check_array(&c, doc, "placement") || check_array(&c, doc, "notes"))
		return -EINVAL;
	json_array_foreach(json_object_get(doc, "samples"), i, item) if (
		check_sample(&c, e, item, i)) return -EINVAL;
	json_array_foreach(json_object_get(doc, "cells"), i, item) if (
		check_cell(&c, e, item, i)) return -EINVAL;
	json_array_foreach(json_object_get(doc, "placement"), i, item) if (
		!json_is_object(item) ||
		!json_is_string(json_object_get(item, "label")) ||
		!json_is_array(json_object_get(item, "threads"))) return bad(
		&c, "placement",
		"placement %zu must be {\"label\": text, \"threads\": [...]}", i);
	json_array_foreach(json_object_get(doc, "notes"), i, item)
	{
		const char *level = json_string_value(json_object_get(item, "level"));
		if (!level || (strcmp(level, "info") && strcmp(level, "warn")) ||
		    !json_is_string(json_object_get(item, "text")))
			return bad(&c, "notes",
				   "note %zu must be {\"level\": \"info\" or "
				   "\"warn\", \"text\": text}",
				   i);
	}
	v = json_object_get(doc, "summary");
	if (v && !json_is_null(v)) {
		if (!json_is_object(v))
			return bad(&c, "summary", "'summary' must be an object");
		json_object_foreach(v, key, item) if (
			!json_is_object(item) ||
			!(number_or_null(json_object_get(item, "value")) ||
			  json_is_string(json_object_get(item, "value"))) ||
			!string_or_null(json_object_get(item, "unit"))) return bad(
			&c, "summary",
			"summary '%.40s' must be {\"value\": number, \"unit\": text}",
			key);
	}
	v = json_object_get(doc, "progress");
	if (v && !json_is_null(v) && !json_is_object(v))
		return bad(&c, "progress", "'progress' must be an object");
	v = json_object_get(doc, "imported");
	if (v && !json_is_null(v) && !json_is_object(v))
		return bad(&c, "imported", "'imported' must be an object");
	return 0;
}

/* The events being rebuilt: each numbered and serialised as the store keeps them. */
struct evbuf {
	struct runlog_event *ev;
	int n, cap;
	int failed;
};

static void put(struct evbuf *b, const char *type, json_t *ev)
{
	char *s;

	if (!ev || b->failed) {
		json_decref(ev);
		b->failed = 1;
		return;
	}
	if (b->n == b->cap) {
		int cap = b->cap ? b->cap * 2 : 64;
		struct runlog_event *n = realloc(b->ev, (size_t)cap * sizeof(*n));
		if (!n) {
			json_decref(ev);
			b->failed = 1;
			return;
		}
		b->ev = n;
		b->cap = cap;
	}
	json_object_set_new(ev, "type", json_string(type));
	json_object_set_new(ev, "seq", json_integer(b->n + 1));
	s = json_dumps(ev, JSON_COMPACT);
	json_decref(ev);
	if (!s) {
		b->failed = 1;
		return;
	}
	b->ev[b->n].seq = b->n + 1;
	snprintf(b->ev[b->n].type, sizeof(b->ev[b->n].type), "%s", type);
	b->ev[b->n].json = s;
	b->ev[b->n].len = strlen(s);
	b->n++;
}

static void put_each(struct evbuf *b, json_t *doc, const char *key,
		     const char *type)
{
	json_t *item;
	size_t i;

	json_array_foreach(json_object_get(doc, key), i, item)
		put(b, type, json_deep_copy(item));
}

static const char *text_of(json_t *doc, const char *key)
{
	return json_string_value(json_object_get(doc, key));
}

/* Where it came from: kept from the first import when a run travels on. */
static json_t *provenance(json_t *doc, const char *now)
{
	json_t *prev = json_object_get(doc, "imported");
	json_t *m = json_object_get(doc, "machine");

	if (json_is_object(prev))
		return json_deep_copy(prev);
	return json_pack("{s:O?, s:s?, s:s, s:s}", "original_id",
			 json_object_get(doc, "id"), "host",
			 text_of(m, "hostname"), "at", now, "source",
			 json_object_get(doc, "id") ? "export" : "numalab run --json");
}

int import_store(struct store *st, json_t *doc, int64_t *id, char *err,
		 size_t errlen)
{
	struct evbuf b = {0};
	const struct runlog_event **ptrs = NULL;
	char now[40];
	char *params = NULL, *request = NULL, *machine = NULL, *summary = NULL;
	const char *status = text_of(doc, "status");
	const char *key;
	json_t *v, *req = json_object_get(doc, "request");
	int rc = -EIO;

	store_timestamp(now, sizeof(now));
	put(&b, "start",
	    json_pack("{s:O, s:O, s:O, s:O?}", "experiment",
		      json_object_get(doc, "experiment"), "params",
		      json_object_get(doc, "params"), "machine",
		      json_object_get(doc, "machine"), "version",
		      json_object_get(doc, "version")));
	put_each(&b, doc, "placement", "placement");
	put_each(&b, doc, "samples", "sample");
	put_each(&b, doc, "cells", "cell");
	put_each(&b, doc, "notes", "note");
	if (json_is_object(json_object_get(doc, "progress")))
		put(&b, "progress", json_deep_copy(json_object_get(doc, "progress")));
	json_object_foreach(json_object_get(doc, "summary"), key, v)
		put(&b, "summary",
		    json_pack("{s:s, s:O?, s:O?}", "key", key, "value",
			      json_object_get(v, "value"), "unit",
			      json_object_get(v, "unit")));
	if (text_of(doc, "headline"))
		put(&b, "headline",
		    json_pack("{s:s}", "text", text_of(doc, "headline")));
	put(&b, "imported", provenance(doc, now));
	put(&b, status,
	    json_pack("{s:s, s:O?, s:O?, s:O?}", "status", status, "error",
		      json_object_get(doc, "error"), "summary",
		      json_object_get(doc, "summary"), "headline",
		      json_object_get(doc, "headline")));
	if (b.failed) {
		snprintf(err, errlen, "out of memory rebuilding the run's events");
		goto out;
	}
	params = json_dumps(json_object_get(doc, "params"), JSON_COMPACT);
	machine = json_dumps(json_object_get(doc, "machine"), JSON_COMPACT);
	summary = json_is_object(json_object_get(doc, "summary"))
			  ? json_dumps(json_object_get(doc, "summary"), JSON_COMPACT)
			  : NULL;
	/* `numalab run --json` has no request: the one that would have made it */
	if (req && !json_is_null(req))
		request = json_dumps(req, JSON_COMPACT | JSON_ENCODE_ANY);
	else {
		req = json_pack("{s:O, s:O}", "experiment",
				json_object_get(doc, "experiment"), "params",
				json_object_get(doc, "params"));
		request = req ? json_dumps(req, JSON_COMPACT) : NULL;
		json_decref(req);
	}
	ptrs = calloc((size_t)b.n, sizeof(*ptrs));
	if (!params || !machine || !request || !ptrs) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	for (int i = 0; i < b.n; i++)
		ptrs[i] = &b.ev[i];
	rc = store_create_run(st, text_of(doc, "experiment"), params, request,
			      text_of(doc, "created_at") ?: now, id, err, errlen);
	if (rc)
		goto out;
	rc = store_run_started(st, *id, text_of(doc, "started_at"), err, errlen);
	if (!rc)
		rc = store_run_machine(st, *id, machine, err, errlen);
	if (!rc)
		rc = store_append_events(st, *id, ptrs, b.n, err, errlen);
	if (!rc)
		rc = store_run_finished(st, *id, status,
					text_of(doc, "finished_at"),
					text_of(doc, "error"),
					text_of(doc, "headline"), summary, err,
					errlen);
	if (rc)
		/* never leave a half-imported run looking like one that will run */
		store_run_finished(st, *id, "failed", now,
				   "the import could not be stored", NULL, NULL,
				   NULL, 0);
out:
	for (int i = 0; i < b.n; i++)
		free(b.ev[i].json);
	free(b.ev);
	free(ptrs);
	free(params);
	free(request);
	free(machine);
	free(summary);
	return rc;
}

enum MHD_Result import_respond(struct http_request *rq, struct store *st,
			       const struct topo *t)
{
	char why[512], field[64], loc[64], err[256] = "";
	json_error_t jerr;
	json_t *doc;
	int64_t id;
	enum MHD_Result ret;

	if (!rq->body_len)
		return http_error(rq, MHD_HTTP_BAD_REQUEST, NULL,
				  "empty request body (send a run: the JSON of "
				  "GET /api/runs/{id} or numalab run --json)");
	doc = json_loadb(rq->body, rq->body_len, JSON_REJECT_DUPLICATES, &jerr);
	if (!doc)
		return http_error(rq, MHD_HTTP_BAD_REQUEST, NULL,
				  "malformed JSON at line %d, column %d: %s",
				  jerr.line, jerr.column, jerr.text);
	if (import_validate(doc, t, why, sizeof(why), field, sizeof(field))) {
		json_decref(doc);
		return http_error(rq, MHD_HTTP_BAD_REQUEST, *field ? field : NULL,
				  "cannot import: %s", why);
	}
	if (import_store(st, doc, &id, err, sizeof(err))) {
		json_decref(doc);
		return http_error(rq, MHD_HTTP_INTERNAL_SERVER_ERROR, NULL,
				  "cannot import: %s", *err ? err : "store error");
	}
	json_decref(doc);
	snprintf(loc, sizeof(loc), "/api/runs/%" PRId64, id);
	struct MHD_Response *r = http_json_response(
		json_pack("{s:I, s:s, s:b}", "id", (json_int_t)id, "url", loc,
			  "imported", 1));
	if (r)
		MHD_add_response_header(r, "Location", loc);
	ret = http_respond(rq, MHD_HTTP_CREATED, r);
	return ret;
}
