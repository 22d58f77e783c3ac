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

/*
 * err's message about a value of an enum or set param ("unknown mode
 * 'node' (allowed: ...)"), with the nearest choice put before the list:
 * "unknown mode 'node': did you mean 'nodes'? (allowed: ...)".
 */
static void choice_error(const struct param *const *tables, size_t ntables,
			 const struct errinfo *err, char *buf, size_t len)
{
	const char *q = strchr(err->msg, '\''),
		   *e = q ? strchr(q + 1, '\'') : NULL;
	char word[128];
	struct suggest s;
	const char *best = NULL;

	snprintf(buf, len, "%s", err->msg);
	if (!e || (size_t)(e - q) >= sizeof(word))
		return;
	snprintf(word, sizeof(word), "%.*s", (int)(e - q - 1), q + 1);
	suggest_init(&s, word);
	for (size_t t = 0; t < ntables; t++)
		for (const struct param *p = tables[t]; p && p->name; p++)
			if (p->choices && !strcmp(p->name, err->field))
				for (int i = 0; p->choices[i].name; i++)
					suggest_consider(&s,
							 p->choices[i].name);
	best = suggest_best(&s);
	if (best)
		snprintf(buf, len, "%.*s: did you mean '%s'?%s",
			 (int)(e + 1 - err->msg), err->msg, best, e + 1);
}

void names_param_error(const struct experiment *e, const struct errinfo *err,
		       char *buf, size_t len)
{
	const struct param *tables[] = {
		e->params, e->uses_placement ? placement_params : NULL,
		common_params};
	struct suggest s;
	const char *best;

	if (!err->field[0]) {
		snprintf(buf, len, "%s", err->msg);
		return;
	}
	/* only a choice the param lacks is a typo: "variants 'cas' is
	 * listed twice" names a choice it has, and is said as it is */
	if (!strncmp(err->msg, "unknown ", 8) &&
	    strncmp(err->msg, "unknown parameter ", 18)) {
		choice_error(tables, sizeof(tables) / sizeof(tables[0]), err,
			     buf, len);
		return;
	}
	if (strncmp(err->msg, "unknown parameter ", 18)) {
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

void names_unknown_command(FILE *f, const char *name, const char *const *names)
{
	struct suggest s;
	const char *best;

	suggest_init(&s, name);
	for (int i = 0; names[i]; i++)
		suggest_consider(&s, names[i]);
	best = suggest_best(&s);
	say(f, "numalab: unknown command '%s'", name);
	if (best)
		say(f, ": did you mean '%s'?", best);
	say(f, " (commands:");
	for (int i = 0; names[i]; i++)
		say(f, "%s %s", i ? "," : "", names[i]);
	say(f, ")\n");
}
