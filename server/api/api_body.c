/* api_body.c - a small JSON body's fields checked by name and kind, each refusal naming its field */
#include "api_body.h"

#include <errno.h>
#include <string.h>

#include "strbuf.h"

static const struct api_field *field_of(const struct api_field *fields,
					const char *name)
{
	for (; fields->name; fields++)
		if (!strcmp(fields->name, name))
			return fields;
	return NULL;
}

static const char *kind_of(json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT:
		return "an object";
	case JSON_ARRAY:
		return "a list";
	case JSON_STRING:
		return "a string";
	case JSON_INTEGER:
		return "a whole number";
	case JSON_REAL:
		return "a number with a fraction";
	case JSON_TRUE:
	case JSON_FALSE:
		return "true or false";
	default:
		return "null";
	}
}

static int fits(const struct api_field *f, json_t *v)
{
	if (json_is_null(v))
		return (f->flags & API_NULLABLE) != 0;
	switch (f->kind) {
	case API_STRING:
		return json_is_string(v);
	case API_WHOLE:
		return json_is_integer(v);
	case API_NUMBER:
		return json_is_number(v);
	}
	return 0;
}

int api_body_check(json_t *body, const struct api_field *fields,
		   struct errinfo *err)
{
	const char *key;
	json_t *v;

	if (!json_is_object(body))
		return errinfo_set(err, NULL,
				   "the body must be a JSON object, not %s",
				   kind_of(body));
	json_object_foreach (body, key, v) {
		const struct api_field *f = field_of(fields, key);
		if (!f) {
			struct strbuf names = STRBUF_INIT;
			for (const struct api_field *g = fields; g->name; g++)
				strbuf_addf(&names, "%s%s",
					    names.len ? ", " : "", g->name);
			errinfo_set(err, key,
				    "unknown field '%.64s' (allowed: %s)", key,
				    names.oom ? "?" : strbuf_str(&names));
			strbuf_release(&names);
			return -EINVAL;
		}
		if (!fits(f, v))
			return errinfo_set(err, key, "'%s' must be %s, not %s",
					   key, f->what, kind_of(v));
	}
	for (; fields->name; fields++)
		if ((fields->flags & API_REQUIRED) &&
		    !json_object_get(body, fields->name))
			return errinfo_set(err, fields->name,
					   "missing field '%s' (%s)",
					   fields->name, fields->what);
	return 0;
}
