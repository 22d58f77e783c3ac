/* campaign_check.c - whether a campaign document is one the store takes */
#include "campaign_check.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "campaign_params.h"
#include "datetime.h"
#include "jsonschema.h"

/* Whether state is one a campaign may be in: running, done, failed,
 * cancelled. */
static int campaigns_state_known(const char *state)
{
	static const char *const states[] = {"running", "done", "failed",
					     "cancelled", NULL};

	for (int i = 0; states[i]; i++)
		if (!strcmp(states[i], state))
			return 1;
	return 0;
}

static int text_or_null(json_t *o, const char *key, int required,
			struct errinfo *err, const char *where)
{
	json_t *v = json_object_get(o, key);

	if (!v && !required)
		return 0;
	if (json_is_string(v) || (!required && json_is_null(v)))
		return 0;
	return errinfo_set(err, key, "%s'%s' must be text%s", where, key,
			   required ? "" : " or null");
}

static int known_keys(json_t *o, const char *const *keys, struct errinfo *err,
		      const char *where)
{
	const char *key;
	json_t *v;

	json_object_foreach (o, key, v) {
		int ok = 0;
		for (int i = 0; keys[i]; i++)
			ok |= !strcmp(keys[i], key);
		if (!ok)
			return errinfo_set(err, key, "%sunknown field '%.60s'",
					   where, key);
	}
	return 0;
}

static int check_node(json_t *n, size_t i, struct errinfo *err)
{
	static const char *const keys[] = {"node",	"state",     "reason",
					   "job_id",	"partition", "features",
					   "exclusive", "run_id",    NULL};
	static const char *const states[] = {"done",	"failed",    "pending",
					     "running", "cancelled", NULL};
	char where[40];
	const char *state;
	json_t *v;
	size_t k;
	int ok = 0;

	snprintf(where, sizeof(where), "node %zu: ", i);
	if (!json_is_object(n))
		return errinfo_set(err, "nodes", "node %zu is not an object",
				   i);
	if (known_keys(n, keys, err, where) ||
	    text_or_null(n, "node", 1, err, where) ||
	    text_or_null(n, "state", 1, err, where) ||
	    text_or_null(n, "reason", 0, err, where) ||
	    text_or_null(n, "job_id", 0, err, where) ||
	    text_or_null(n, "partition", 0, err, where))
		return -EINVAL;
	state = json_string_value(json_object_get(n, "state"));
	for (int s = 0; states[s]; s++)
		ok |= !strcmp(states[s], state);
	if (!ok)
		return errinfo_set(
			err, "state",
			"%sstate '%.40s' is not one of done, failed, pending, running, cancelled",
			where, state);
	v = json_object_get(n, "features");
	if (v && !json_is_array(v))
		return errinfo_set(err, "features",
				   "%s'features' must be an array of text",
				   where);
	json_t *f;
	json_array_foreach (v, k, f)
		if (!json_is_string(f))
			return errinfo_set(
				err, "features",
				"%s'features' must be an array of text", where);
	return 0;
}

/* A campaign does not end before it began (both checked as date-times
 * by the schema already). */
static int check_times(json_t *c, struct errinfo *err)
{
	const char *created =
		json_string_value(json_object_get(c, "created_at"));
	const char *finished =
		json_string_value(json_object_get(c, "finished_at"));
	struct datetime a, b;

	if (!finished || datetime_parse(created, &a) ||
	    datetime_parse(finished, &b) || datetime_cmp(&b, &a) >= 0)
		return 0;
	return errinfo_set(err, "finished_at",
			   "'finished_at' (%.40s) is before 'created_at' "
			   "(%.40s): a campaign ends after it begins",
			   finished, created);
}

/* Each node named, once: a node's deliveries and its run are found by
 * its name. */
static int check_node_names(json_t *nodes, struct errinfo *err)
{
	json_t *seen = json_object(), *n;
	char field[ERRINFO_FIELD_LEN];
	size_t i;
	int rc = 0;

	if (!seen)
		return errinfo_set(err, NULL, "out of memory"), -ENOMEM;
	json_array_foreach (nodes, i, n) {
		const char *name =
			json_string_value(json_object_get(n, "node"));
		snprintf(field, sizeof(field), "nodes[%zu].node", i);
		if (!*name)
			rc = errinfo_set(err, field,
					 "node %zu has an empty name", i);
		else if (json_object_get(seen, name))
			rc = errinfo_set(
				err, field,
				"node '%.80s' is listed twice (as "
				"node %" JSON_INTEGER_FORMAT
				" and node %zu): each node once",
				name,
				json_integer_value(json_object_get(seen, name)),
				i);
		else if (json_object_set_new(seen, name,
					     json_integer((json_int_t)i)))
			rc = (errinfo_set(err, NULL, "out of memory"), -ENOMEM);
		if (rc)
			break;
	}
	json_decref(seen);
	return rc;
}

int campaigns_check(json_t *c, struct errinfo *err)
{
	static const char *const keys[] = {
		"id",	  "engine",	"cluster",     "experiment",
		"params", "created_at", "finished_at", "dir",
		"nodes",  "state",	"error",       NULL};
	const char *id, *engine;
	json_t *nodes, *n;
	size_t i;

	/* the contract GET /api/openapi.json publishes; below, what it cannot
	 * say */
	if (jsonschema_check("Campaign", c, err))
		return -EINVAL;
	if (!json_is_object(c))
		return errinfo_set(err, NULL,
				   "a campaign must be a JSON object");
	if (known_keys(c, keys, err, "") || text_or_null(c, "id", 1, err, "") ||
	    text_or_null(c, "engine", 1, err, "") ||
	    text_or_null(c, "cluster", 0, err, "") ||
	    text_or_null(c, "experiment", 1, err, "") ||
	    text_or_null(c, "created_at", 1, err, "") ||
	    text_or_null(c, "finished_at", 0, err, "") ||
	    text_or_null(c, "dir", 0, err, "") ||
	    text_or_null(c, "state", 0, err, "") ||
	    text_or_null(c, "error", 0, err, ""))
		return -EINVAL;
	if (json_is_string(json_object_get(c, "state")) &&
	    !campaigns_state_known(
		    json_string_value(json_object_get(c, "state"))))
		return errinfo_set(
			err, "state",
			"campaign state '%.40s' is not one of "
			"running, done, failed, cancelled",
			json_string_value(json_object_get(c, "state")));
	id = json_string_value(json_object_get(c, "id"));
	if (!*id || strlen(id) > 64 ||
	    strspn(id,
		   "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") !=
		    strlen(id))
		return errinfo_set(
			err, "id",
			"campaign id '%.70s' must be 1 to 64 letters, digits, '.', '_' or '-'",
			id);
	/* /api/campaigns/start and /plan are routes of their own */
	if (!strcmp(id, "start") || !strcmp(id, "plan"))
		return errinfo_set(err, "id",
				   "campaign id '%s' is a name the API's paths "
				   "use (/api/campaigns/%s): choose another",
				   id, id);
	engine = json_string_value(json_object_get(c, "engine"));
	if (strcmp(engine, "slurm") && strcmp(engine, "clush"))
		return errinfo_set(err, "engine",
				   "engine '%.40s' is not one of slurm, clush",
				   engine);
	if (!json_is_object(json_object_get(c, "params")))
		return errinfo_set(err, "params", "'params' must be an object");
	nodes = json_object_get(c, "nodes");
	if (!json_is_array(nodes))
		return errinfo_set(err, "nodes", "'nodes' must be an array");
	json_array_foreach (nodes, i, n) {
		json_t *run = json_object_get(n, "run_id");
		if (check_node(n, i, err))
			return -EINVAL;
		if (run && !json_is_null(run) &&
		    (!json_is_integer(run) || json_integer_value(run) < 1))
			return errinfo_set(
				err, "run_id",
				"node %zu: 'run_id' must be a positive whole number or null",
				i);
		if (json_object_get(n, "exclusive") &&
		    !json_is_boolean(json_object_get(n, "exclusive")))
			return errinfo_set(
				err, "exclusive",
				"node %zu: 'exclusive' must be true or false",
				i);
	}
	if (check_node_names(nodes, err) || check_times(c, err))
		return -EINVAL;
	return campaign_params_check(
		json_string_value(json_object_get(c, "experiment")),
		json_object_get(c, "params"), err);
}
