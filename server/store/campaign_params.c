/* campaign_params.c - a campaign's params as its experiment takes them */
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
	/* about 4 KiB: never on a server thread's stack */
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
