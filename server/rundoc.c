/* rundoc.c - folding a run's events into the run document (docs/events.md) */
#include "rundoc.h"

#include <errno.h>
#include <string.h>

json_t *rundoc_new(void)
{
	return json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "params",
			 json_object(), "placement", json_array(), "samples",
			 json_array(), "cells", json_array(), "notes",
			 json_array(), "summary", json_object(), "machine",
			 json_object());
}

/* A copy of ev without its "type" (and server-side "seq"). */
static json_t *strip(json_t *ev)
{
	json_t *c = json_deep_copy(ev);

	json_object_del(c, "type");
	json_object_del(c, "seq");
	return c;
}

static void append(json_t *doc, const char *key, json_t *item)
{
	json_t *a = json_object_get(doc, key);

	if (!json_is_array(a)) {
		a = json_array();
		json_object_set_new(doc, key, a);
	}
	json_array_append_new(a, item);
}

static void copy_field(json_t *doc, json_t *ev, const char *from,
		       const char *to)
{
	json_t *v = json_object_get(ev, from);

	if (v)
		json_object_set(doc, to, v);
}

int rundoc_apply(json_t *doc, json_t *ev)
{
	const char *type;

	if (!json_is_object(doc) || !json_is_object(ev))
		return -EINVAL;
	type = json_string_value(json_object_get(ev, "type"));
	if (!type)
		return -EINVAL;
	if (!strcmp(type, "start")) {
		copy_field(doc, ev, "experiment", "experiment");
		copy_field(doc, ev, "params", "params");
		copy_field(doc, ev, "machine", "machine");
		copy_field(doc, ev, "version", "version");
	} else if (!strcmp(type, "placement")) {
		append(doc, "placement", strip(ev));
	} else if (!strcmp(type, "sample")) {
		append(doc, "samples", strip(ev));
	} else if (!strcmp(type, "cell")) {
		append(doc, "cells", strip(ev));
	} else if (!strcmp(type, "note")) {
		append(doc, "notes", strip(ev));
	} else if (!strcmp(type, "progress")) {
		json_object_set_new(doc, "progress", strip(ev));
	} else if (!strcmp(type, "summary")) {
		json_t *s = json_object_get(doc, "summary");
		const char *key = json_string_value(json_object_get(ev, "key"));
		if (!key)
			return -EINVAL;
		if (!json_is_object(s)) {
			s = json_object();
			json_object_set_new(doc, "summary", s);
		}
		json_object_set_new(
			s, key,
			json_pack("{s:O?, s:O?}", "value",
				  json_object_get(ev, "value"), "unit",
				  json_object_get(ev, "unit")));
	} else if (!strcmp(type, "imported")) {
		json_object_set_new(doc, "imported", strip(ev));
	} else if (!strcmp(type, "headline")) {
		copy_field(doc, ev, "text", "headline");
	} else if (!strcmp(type, "status") || !strcmp(type, "end") ||
		   rundoc_status_final(type)) {
		copy_field(doc, ev, "status", "status");
		copy_field(doc, ev, "error", "error");
	}
	return 0;
}

int rundoc_status_final(const char *status)
{
	static const char *const final[] = {"done", "failed", "cancelled",
					    "interrupted"};

	for (size_t i = 0; status && i < sizeof(final) / sizeof(final[0]); i++)
		if (!strcmp(status, final[i]))
			return 1;
	return 0;
}
