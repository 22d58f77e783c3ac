/* opts.c - a command's argv read against its table of options */
#include "opts.h"

#include <string.h>

/* The row a matches, with *eq pointing at its "=value" when it has one. */
static const struct opt *find(const struct opts *o, const char *a,
			      const char **eq)
{
	*eq = NULL;
	for (const struct opt *r = o->table; r->name; r++) {
		size_t n = strlen(r->name);
		if (!strcmp(a, r->name) || (r->alias && !strcmp(a, r->alias)))
			return r;
		if (r->value && (o->flags & OPTS_EQUALS) &&
		    !strncmp(a, r->name, n) && a[n] == '=') {
			*eq = a + n + 1;
			return r;
		}
	}
	return NULL;
}

int opts_next(struct opts *o)
{
	const struct opt *r;
	const char *eq;

	o->value = NULL;
	if (o->i >= o->argc)
		return OPTS_END;
	o->arg = o->argv[o->i++];
	r = find(o, o->arg, &eq);
	if (!r) {
		int dash = (o->flags & OPTS_DASH)
				   ? o->arg[0] == '-'
				   : o->arg[0] == '-' && o->arg[1] == '-';
		return dash ? OPTS_UNKNOWN : OPTS_ARG;
	}
	if (!r->value)
		return r->id;
	if (eq)
		o->value = eq;
	else if (o->i < o->argc)
		o->value = o->argv[o->i++];
	else
		return OPTS_NO_VALUE;
	return r->id;
}
