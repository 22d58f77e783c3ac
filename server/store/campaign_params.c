/* campaign_params.c - a campaign's params as its experiment takes them, and a node's run held to them */
#include "campaign_params.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "experiment.h"
#include "registry.h"

/* "a, b, c": every experiment's name, for the error that names none. */
static void known_experiments(char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (int i = 0; experiments[i] && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s",
					 i ? ", " : "", experiments[i]->name);
}

int campaign_params_check(const char *experiment, json_t *params,
			  struct errinfo *err)
{
	const struct experiment *e = experiment_find(experiment);
	/* about 10 KiB: never on a server thread's stack */
	struct param_value *v;
	char field[ERRINFO_FIELD_LEN], names[ERRINFO_MSG_LEN / 2];
	struct errinfo why;
	const char *key;
	json_t *val;
	int rc = 0;

	if (!e) {
		known_experiments(names, sizeof(names));
		return errinfo_set(err, "experiment",
				   "unknown experiment '%.60s' (allowed: %s)",
				   experiment, names);
	}
	v = malloc(sizeof(*v));
	if (!v)
		return errinfo_set(err, NULL, "out of memory"), -ENOMEM;
	json_object_foreach (params, key, val) {
		const struct param *p = experiment_param(e, key, strlen(key));
		snprintf(field, sizeof(field), "params.%.40s", key);
		if (!p) {
			rc = errinfo_set(err, field,
					 "experiment '%s' has no parameter "
					 "'%.40s'",
					 e->name, key);
			break;
		}
		errinfo_clear(&why);
		if (param_parse_value(p, json_string_value(val), v, &why)) {
			rc = errinfo_set(err, field, "%s", why.msg);
			break;
		}
	}
	free(v);
	return rc;
}

/* A run's param value as text: runs record numbers as numbers. */
static const char *value_text(json_t *v, char *buf, size_t len)
{
	if (json_is_integer(v)) {
		snprintf(buf, len, "%" JSON_INTEGER_FORMAT,
			 json_integer_value(v));
		return buf;
	}
	return json_string_value(v);
}

int campaign_run_matches(const char *experiment, json_t *params, json_t *run,
			 struct errinfo *err)
{
	const char *name =
		json_string_value(json_object_get(run, "experiment"));
	const struct experiment *e = experiment_find(experiment);
	json_t *have = json_object_get(run, "params"), *val;
	struct param_value *want, *got;
	char field[ERRINFO_FIELD_LEN], num[32];
	struct errinfo why;
	const char *key;
	int rc = 0;

	if (!name || strcmp(name, experiment))
		return errinfo_set(err, "run.experiment",
				   "the run is of '%.60s', the campaign of "
				   "'%.60s'",
				   name ? name : "no experiment", experiment);
	/* a campaign recorded before its params were checked: nothing to
	 * hold the run to */
	if (!e)
		return 0;
	want = malloc(sizeof(*want));
	got = malloc(sizeof(*got));
	if (!want || !got) {
		free(want);
		free(got);
		return errinfo_set(err, NULL, "out of memory"), -ENOMEM;
	}
	json_object_foreach (params, key, val) {
		const struct param *p = experiment_param(e, key, strlen(key));
		const char *text = value_text(json_object_get(have, key), num,
					      sizeof(num));
		if (!p || !text ||
		    param_parse_value(p, json_string_value(val), want, &why))
			continue;
		snprintf(field, sizeof(field), "run.params.%.40s", key);
		if (param_parse_value(p, text, got, &why) ||
		    strcmp(want->text, got->text)) {
			rc = errinfo_set(err, field,
					 "the run has %.40s=%.80s, the "
					 "campaign %.40s=%.80s",
					 key, text, key,
					 json_string_value(val));
			break;
		}
	}
	free(want);
	free(got);
	return rc;
}
