/* params_lookup.h - a parsed value by name, for the tests that check the
 * parser: the program reads its typed structs instead (params_get) */
#ifndef NUMALAB_PARAMS_LOOKUP_H
#define NUMALAB_PARAMS_LOOKUP_H

#include <string.h>

#include "params.h"

static inline int64_t params_int(const struct param_values *pv,
				 const char *name)
{
	const struct param_value *v = params_get(pv, name);
	return v ? v->i : 0;
}

/* ENUM: the chosen text. */
static inline const char *params_str(const struct param_values *pv,
				     const char *name)
{
	const struct param_value *v = params_get(pv, name);
	return v ? v->text : "";
}

/* SET: whether choice is one of its members. */
static inline int params_has(const struct param_values *pv, const char *name,
			     const char *choice)
{
	const struct param_value *v = params_get(pv, name);

	if (!v)
		return 0;
	for (int i = 0; i < v->n; i++)
		if (!strcmp(v->p->choices[v->list[i]].name, choice))
			return 1;
	return 0;
}

#endif
