/* campaign_runs.c - the runs a campaign's record names: each one the store has, none taken from its node */
#include "campaign_runs.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <sqlite3.h>

/* The experiment of run id into exp (len bytes): 0, -ENOENT none, -EIO. */
static int run_experiment(sqlite3 *db, json_int_t id, char *exp, size_t len)
{
	sqlite3_stmt *s;
	int rc;

	if (sqlite3_prepare_v2(db, "SELECT experiment FROM runs WHERE id=?", -1,
			       &s, NULL) != SQLITE_OK)
		return -EIO;
	sqlite3_bind_int64(s, 1, (sqlite3_int64)id);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW)
		snprintf(exp, len, "%s",
			 (const char *)sqlite3_column_text(s, 0));
	sqlite3_finalize(s);
	return rc == SQLITE_ROW ? 0 : rc == SQLITE_DONE ? -ENOENT : -EIO;
}

/* Node i (name, its run_id run) against the store; taken: run ids the
 * nodes before it named. */
static int check_one(sqlite3 *db, json_t *c, size_t i, const char *name,
		     json_t *run, json_t *have, json_t *taken,
		     struct errinfo *err)
{
	const char *want = json_string_value(json_object_get(c, "experiment"));
	json_t *old = json_array_get(json_object_get(have, name), 0);
	char field[ERRINFO_FIELD_LEN], key[32], exp[80];
	json_int_t id = json_integer_value(run);
	int rc;

	snprintf(field, sizeof(field), "nodes[%zu].run_id", i);
	if (old && (!json_is_integer(run) || json_integer_value(old) == id))
		return 0;
	if (old)
		return errinfo_set(err, field,
				   "node '%.80s' has run %" JSON_INTEGER_FORMAT
				   " already: a delivered run stays its "
				   "node's (give its run_id, or null)",
				   name, json_integer_value(old)),
		       -EEXIST;
	if (!json_is_integer(run))
		return 0;
	snprintf(key, sizeof(key), "%" JSON_INTEGER_FORMAT, id);
	if (json_object_get(taken, key))
		return errinfo_set(
			err, field,
			"run %s is node '%.80s''s already: a run "
			"is one node's",
			key, json_string_value(json_object_get(taken, key)));
	rc = run_experiment(db, id, exp, sizeof(exp));
	if (rc == -ENOENT)
		return errinfo_set(err, field, "no run has id %s", key);
	if (rc)
		return errinfo_set(err, NULL, "cannot read run %s", key), -EIO;
	if (strcmp(exp, want))
		return errinfo_set(err, field,
				   "run %s is of '%.60s', the campaign of "
				   "'%.60s'",
				   key, exp, want);
	return json_object_set_new(taken, key, json_string(name))
		       ? (errinfo_set(err, NULL, "out of memory"), -ENOMEM)
		       : 0;
}

int campaign_runs_check(sqlite3 *db, json_t *c, json_t *have,
			struct errinfo *err)
{
	json_t *taken = json_object(), *nodes = json_object_get(c, "nodes");
	/* have as the caller keeps it: it stores the runs by it next */
	json_t *left = json_copy(have), *n, *v;
	const char *name;
	size_t i;
	int rc = taken && left ? 0 : -ENOMEM;

	/* the runs the store has linked already are theirs */
	json_object_foreach (have, name, v) {
		char key[32];
		snprintf(key, sizeof(key), "%" JSON_INTEGER_FORMAT,
			 json_integer_value(json_array_get(v, 0)));
		if (!rc && json_object_set_new(taken, key, json_string(name)))
			rc = -ENOMEM;
	}
	json_array_foreach (nodes, i, n) {
		name = json_string_value(json_object_get(n, "node"));
		if (!rc)
			rc = check_one(db, c, i, name,
				       json_object_get(n, "run_id"), have,
				       taken, err);
		/* what is left is a node the record leaves out */
		if (!rc)
			json_object_del(left, name);
	}
	if (!rc && json_object_size(left)) {
		void *first = json_object_iter(left);
		name = json_object_iter_key(first);
		v = json_object_iter_value(first);
		errinfo_set(err, "nodes",
			    "node '%.80s' has run %" JSON_INTEGER_FORMAT
			    ": a record that leaves it out would lose "
			    "it (list every node the campaign has run)",
			    name, json_integer_value(json_array_get(v, 0)));
		rc = -EEXIST;
	}
	if (rc == -ENOMEM)
		errinfo_set(err, NULL, "out of memory");
	json_decref(taken);
	json_decref(left);
	return rc;
}
