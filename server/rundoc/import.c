/* import.c - checking a run exported from another server or `numalab run --json` against the contract */
#include "import.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "describe_doc.h"
#include "display_name.h"
#include "events.h"
#include "experiment.h"
#include "import_coherent.h"
#include "jsonschema.h"
#include "registry.h"

/* Whether e has a chart of this id. */
static int chart_known(const struct experiment *e, const char *id)
{
	for (const struct chart *c = e->charts; c && c->id; c++)
		if (!strcmp(c->id, id))
			return 1;
	return 0;
}

/*
 * What the schema cannot say of one sample or cell: its chart is one of
 * the experiment's, and stats.n counts its raw samples.
 */
static int check_point(struct errinfo *c, const struct experiment *e, json_t *s,
		       const char *key, size_t i)
{
	const char *chart = json_string_value(json_object_get(s, "chart"));
	json_t *n = json_object_get(json_object_get(s, "stats"), "n");
	size_t raw = json_array_size(json_object_get(s, "samples"));
	char field[ERRINFO_FIELD_LEN];

	if (!chart_known(e, chart)) {
		snprintf(field, sizeof(field), "%s[%zu].chart", key, i);
		return errinfo_set(c, field,
				   "'%s' is '%.40s': experiment '%s' has no "
				   "such chart",
				   field, chart, e->name);
	}
	if (json_integer_value(n) != (json_int_t)raw) {
		snprintf(field, sizeof(field), "%s[%zu].stats.n", key, i);
		return errinfo_set(c, field,
				   "'%s' is %" JSON_INTEGER_FORMAT
				   ", not the number of raw samples (%zu)",
				   field, json_integer_value(n), raw);
	}
	return 0;
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

/* The names, not the values: a run from a bigger machine names cpus this
 * one lacks. */
static int check_params(struct errinfo *c, json_t *params,
			const struct experiment *e)
{
	char field[ERRINFO_FIELD_LEN];
	const char *key;
	json_t *v;

	json_object_foreach (params, key, v) {
		if (experiment_param(e, key, strlen(key)))
			continue;
		snprintf(field, sizeof(field), "params.%.40s", key);
		return errinfo_set(c, field,
				   "experiment '%s' has no parameter '%.40s'",
				   e->name, key);
	}
	return 0;
}

/*
 * The class block as the live classroom takes it (api_class.c): a lesson
 * of the run's experiment, guesses and the teacher's above 0, names a
 * class may be shown (display_name_check). 0, or -EINVAL with err set.
 */
static int check_class(struct errinfo *c, json_t *block,
		       const struct experiment *e)
{
	const char *lesson =
		json_string_value(json_object_get(block, "lesson"));
	json_t *tg = json_object_get(block, "teacher_guess"), *g;
	const struct lesson *l;
	char field[ERRINFO_FIELD_LEN];
	size_t i;

	if (!block)
		return 0;
	for (l = e->lessons; l && l->id && strcmp(l->id, lesson); l++)
		;
	if (!l || !l->id)
		return errinfo_set(c, "class.lesson",
				   "unknown lesson '%.64s' of '%s'", lesson,
				   e->name);
	if (json_is_number(tg) && !(json_number_value(tg) > 0))
		return errinfo_set(c, "class.teacher_guess",
				   "'class.teacher_guess' must be above 0");
	json_array_foreach (json_object_get(block, "guesses"), i, g) {
		json_t *v = json_object_get(g, "value");
		const char *name =
			json_string_value(json_object_get(g, "name"));
		if (!(json_number_value(v) > 0)) {
			snprintf(field, sizeof(field),
				 "class.guesses[%zu].value", i);
			return errinfo_set(c, field,
					   "'%s' must be above 0 (got %g)",
					   field, json_number_value(v));
		}
		if (name) {
			char quoted[sizeof(field) + 2];
			snprintf(field, sizeof(field),
				 "class.guesses[%zu].name", i);
			snprintf(quoted, sizeof(quoted), "'%s'", field);
			if (display_name_check(name, quoted, field, c))
				return -EINVAL;
		}
	}
	return 0;
}

int import_validate(json_t *doc, struct errinfo *err)
{
	const struct experiment *e;
	const char *name, *status;
	json_t *item;
	size_t i;
	int rc;

	/* which params an experiment takes does not depend on the machine */
	/* every field known, of its type and within its bounds: the contract
	 * GET /api/openapi.json publishes */
	rc = jsonschema_check("RunDocument", doc, err);
	if (rc)
		return -EINVAL;
	name = json_string_value(json_object_get(doc, "experiment"));
	e = experiment_find(name);
	if (!e)
		return errinfo_set(err, "experiment",
				   "unknown experiment '%.60s'", name);
	status = json_string_value(json_object_get(doc, "status"));
	/* a queued or running run is not one to import */
	if (!event_status_final(status))
		return errinfo_set(
			err, "status",
			"status '%.40s' is not a finished run's (allowed: done, "
			"failed, cancelled, interrupted)",
			status);
	if (import_check_coherent(doc, err))
		return -EINVAL;
	if (check_params(err, json_object_get(doc, "params"), e))
		return -EINVAL;
	json_array_foreach (json_object_get(doc, "samples"), i, item)
		if (check_point(err, e, item, "samples", i))
			return -EINVAL;
	if (check_bounds(err, json_object_get(doc, "samples")))
		return -EINVAL;
	if (check_class(err, json_object_get(doc, "class"), e))
		return -EINVAL;
	json_array_foreach (json_object_get(doc, "cells"), i, item)
		if (check_point(err, e, item, "cells", i))
			return -EINVAL;
	/* the param values as today's table reads them: what describing needs
	 */
	struct verdict *vd = calloc(1, sizeof(*vd));
	rc = vd ? describe_doc(doc, vd, err) : -ENOMEM;
	free(vd);
	if (rc == -ENOMEM)
		return errinfo_set(err, NULL, "out of memory reading the run");
	if (rc && !*err->field)
		snprintf(err->field, sizeof(err->field), "params");
	return rc;
}
