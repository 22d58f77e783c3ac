/* api_body.h - a small JSON body's fields checked by name and kind, each refusal naming its field */
#ifndef NUMALAB_API_BODY_H
#define NUMALAB_API_BODY_H

#include <jansson.h>

#include "errinfo.h"

/* What a field may hold (one, or a number where NUMBER). */
enum api_kind { API_STRING, API_WHOLE, API_NUMBER };

struct api_field {
	const char *name;
	enum api_kind kind;
	unsigned flags;	  /* API_REQUIRED, API_NULLABLE */
	const char *what; /* what the value is, for the refusal: "a run id" */
};
#define API_REQUIRED 1u
#define API_NULLABLE 2u

/*
 * body against fields (ended by a NULL name): an object, with no field
 * but those, each required one there, each of its kind. 0, or -EINVAL
 * with err naming the field ("unknown field 'x' (allowed: run,
 * teacher_guess)", "'run' must be a run id, not a string").
 */
int api_body_check(json_t *body, const struct api_field *fields,
		   struct errinfo *err);

#endif
