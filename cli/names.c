/* names.c - experiment and parameter names on the command line */
#include "names.h"

#include <string.h>

#include "registry.h"
#include "say.h"
#include "suggest.h"

int names_width(void)
{
	int w = 0;

	for (int i = 0; experiments[i]; i++) {
		int n = (int)strlen(experiments[i]->name);
		w = n > w ? n : w;
	}
	return w;
}

void names_unknown_experiment(FILE *f, const char *cmd, const char *name)
{
	struct suggest s;
	const char *best;

	suggest_init(&s, name);
	for (int i = 0; experiments[i]; i++)
		suggest_consider(&s, experiments[i]->name);
	best = suggest_best(&s);
	if (best)
		say(f,
		    "%s: unknown experiment '%s': did you mean '%s'? (numalab list shows them)\n",
		    cmd, name, best);
	else
		say(f,
		    "%s: unknown experiment '%s' (numalab list shows them)\n",
		    cmd, name);
}

void names_param_error(const struct experiment *e, const struct errinfo *err,
		       char *buf, size_t len)
{
	const struct param *tables[] = {
		e->params, e->uses_placement ? placement_params : NULL,
		common_params};
	struct suggest s;
	const char *best;

	if (strncmp(err->msg, "unknown parameter ", 18) || !err->field[0]) {
		snprintf(buf, len, "%s", err->msg);
		return;
	}
	suggest_init(&s, err->field);
	for (size_t t = 0; t < sizeof(tables) / sizeof(tables[0]); t++)
		for (const struct param *p = tables[t]; p && p->name; p++)
			suggest_consider(&s, p->name);
	best = suggest_best(&s);
	if (best)
		snprintf(buf, len, "%s: did you mean '%s'?", err->msg, best);
	else
		snprintf(buf, len, "%s", err->msg);
}
