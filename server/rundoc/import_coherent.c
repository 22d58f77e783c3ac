/* import_coherent.c - a run document that agrees with itself: its times, its status, its machine */
#include "import_coherent.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "datetime.h"

/* doc's time key, when it has one that reads (the schema checked its
 * form: one that does not read is not there to compare). */
static int time_of(json_t *doc, const char *key, struct datetime *t)
{
	const char *s = json_string_value(json_object_get(doc, key));

	return s && !datetime_parse(s, t);
}

/* The instants a run went through, in the order it went through them. */
static int check_times(json_t *doc, struct errinfo *err)
{
	static const char *const keys[] = {"created_at", "started_at",
					   "finished_at"};
	struct datetime t[3];
	int has[3];

	for (int i = 0; i < 3; i++)
		has[i] = time_of(doc, keys[i], &t[i]);
	for (int i = 0; i < 3; i++)
		for (int j = i + 1; j < 3; j++)
			if (has[i] && has[j] && datetime_cmp(&t[j], &t[i]) < 0)
				return errinfo_set(
					err, keys[j],
					"'%s' (%.40s) is before '%s' (%.40s): a "
					"run is created, started, then finished",
					keys[j],
					json_string_value(
						json_object_get(doc, keys[j])),
					keys[i],
					json_string_value(
						json_object_get(doc, keys[i])));
	return 0;
}

/* A distance for each pair of the machine's nodes: a row per node, each
 * row as long as there are nodes. */
static int check_distances(json_t *machine, struct errinfo *err)
{
	json_t *d = json_object_get(machine, "distances");
	json_t *nodes = json_object_get(machine, "nodes"), *row;
	char field[ERRINFO_FIELD_LEN];
	size_t n = json_array_size(d), i;

	if (!json_is_array(d))
		return 0;
	if (json_is_integer(nodes) && (size_t)json_integer_value(nodes) != n)
		return errinfo_set(
			err, "machine.distances",
			"'machine.distances' has %zu rows for %" JSON_INTEGER_FORMAT
			" nodes: a row per node",
			n, json_integer_value(nodes));
	json_array_foreach (d, i, row) {
		if (json_array_size(row) == n)
			continue;
		snprintf(field, sizeof(field), "machine.distances[%zu]", i);
		return errinfo_set(err, field,
				   "'%s' has %zu distances for %zu nodes: "
				   "one to each node (nodes x nodes)",
				   field, json_array_size(row), n);
	}
	return 0;
}

int import_check_coherent(json_t *doc, struct errinfo *err)
{
	const char *status = json_string_value(json_object_get(doc, "status"));
	const char *error = json_string_value(json_object_get(doc, "error"));

	if (check_times(doc, err))
		return -EINVAL;
	if (status && !strcmp(status, "done") && error && *error)
		return errinfo_set(
			err, "error",
			"a run whose status is done has no error "
			"(got '%.80s'): one that ended with an error "
			"is failed",
			error);
	return check_distances(json_object_get(doc, "machine"), err);
}
