/* import_coherent.c - a run document that agrees with itself: its times, its status */
#include "import_coherent.h"

#include <errno.h>
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
	return 0;
}
