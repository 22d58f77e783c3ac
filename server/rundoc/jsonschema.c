/* jsonschema.c - a JSON value checked against a schema of the API's own OpenAPI document */
#include "jsonschema.h"

#include <errno.h>
#include <pthread.h>
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsonlimit.h"
#include "jsonschema_keywords.h"
#include "openapi.h"

/*
 * The schemas are read from the same bytes GET /api/openapi.json sends,
 * so what is published and what is enforced cannot differ. The subset
 * of JSON Schema (OpenAPI 3.0) the document uses is the keyword table
 * below; jsonschema_selfcheck (a unit test) refuses a document that uses
 * any other, so a new keyword cannot be published and silently ignored.
 */

#define MAX_PATTERNS 16

struct pattern {
	json_t *source; /* the "pattern" string of the document */
	regex_t re;
};

/* loaded once it has worked: a failure (out of memory) is tried again by
 * the next check, never kept for the server's life */
static pthread_mutex_t load_mu = PTHREAD_MUTEX_INITIALIZER;
static int load_done;
static json_t *api;	/* the whole document, kept once loaded */
static json_t *schemas; /* its components.schemas */
static struct pattern patterns[MAX_PATTERNS];
static int npatterns;
static int load_failed; /* -ENOMEM, -EINVAL (a pattern regcomp refuses) */

static int validate(struct vctx *c, json_t *schema, json_t *v);

/* v checked against schema with the path pushed (to old): popped after. */
static int validate_at(struct vctx *c, size_t old, json_t *schema, json_t *v)
{
	int rc = validate(c, schema, v);

	vctx_pop(c, old);
	return rc;
}

/* ---- loading the document once ---- */

static void collect_patterns(json_t *node)
{
	const char *key;
	json_t *v;
	size_t i;

	if (json_is_array(node)) {
		json_array_foreach (node, i, v)
			collect_patterns(v);
		return;
	}
	if (!json_is_object(node))
		return;
	json_object_foreach (node, key, v) {
		if (!strcmp(key, "pattern") && json_is_string(v)) {
			if (npatterns == MAX_PATTERNS ||
			    regcomp(&patterns[npatterns].re,
				    json_string_value(v),
				    REG_EXTENDED | REG_NOSUB)) {
				load_failed = -EINVAL;
				continue;
			}
			patterns[npatterns++].source = v;
		} else {
			collect_patterns(v);
		}
	}
}

/* The API document nests deeper than a client's body may */
static const struct jsonlimit doc_limit = {.depth = JSONLIMIT_DEPTH_STORED};

/* Called with load_mu held; 0, or -errno with nothing kept. */
static int load(void)
{
	json_error_t jerr;

	load_failed = 0;
	/* the embedded document, parsed as everything is: within bounds */
	api = jsonlimit_load(openapi_json, openapi_json_len, 0, &doc_limit,
			     &jerr, NULL, 0);
	schemas =
		json_object_get(json_object_get(api, "components"), "schemas");
	if (!json_is_object(schemas))
		load_failed = -ENOMEM;
	else
		collect_patterns(api);
	if (load_failed) {
		for (int i = 0; i < npatterns; i++)
			regfree(&patterns[i].re);
		npatterns = 0;
		json_decref(api);
		api = schemas = NULL;
	}
	return load_failed;
}

static int loaded(void)
{
	int rc = 0;

	pthread_mutex_lock(&load_mu);
	if (!load_done) {
		rc = load();
		load_done = !rc;
	}
	pthread_mutex_unlock(&load_mu);
	return rc;
}

/* ---- the keywords ---- */

static int kw_ref(struct vctx *c, json_t *s, json_t *kw, json_t *v)
{
	const char *ref = json_string_value(kw);
	const char *prefix = "#/components/schemas/";
	json_t *target;

	(void)s;
	if (!ref || strncmp(ref, prefix, strlen(prefix)))
		return vctx_fail(c, "the API document has an unknown $ref");
	target = json_object_get(schemas, ref + strlen(prefix));
	if (!target)
		return vctx_fail(c, "the API document has no schema '%.60s'",
				 ref);
	return validate(c, target, v);
}

static int kw_all_of(struct vctx *c, json_t *s, json_t *kw, json_t *v)
{
	json_t *sub;
	size_t i;

	(void)s;
	json_array_foreach (kw, i, sub)
		if (validate(c, sub, v))
			return -EINVAL;
	return 0;
}

/* How many of the schemas v matches; the errors of a failed try are dropped. */
static size_t matches(struct vctx *c, json_t *kw, json_t *v)
{
	struct errinfo keep = *c->err;
	size_t n = 0, i;
	json_t *sub;

	json_array_foreach (kw, i, sub)
		if (!validate(c, sub, v))
			n++;
	*c->err = keep;
	return n;
}

static int kw_any_of(struct vctx *c, json_t *s, json_t *kw, json_t *v)
{
	char who[PATH_LEN + 8];

	json_t *sub, *only = NULL;
	size_t i, typed = 0;

	(void)s;
	if (matches(c, kw, v))
		return 0;
	/* one form of v's type: what that form refuses says more (a text
	 * longer than the form's maxLength) than that none of them took it */
	json_array_foreach (kw, i, sub) {
		const char *type =
			json_string_value(json_object_get(sub, "type"));
		if (type && jskw_is_type(type, v)) {
			only = sub;
			typed++;
		}
	}
	if (typed == 1 && validate(c, only, v))
		return -EINVAL;
	return vctx_fail(c, "%s is none of the forms allowed there",
			 vctx_subject(c, who, sizeof(who)));
}

static int kw_one_of(struct vctx *c, json_t *s, json_t *kw, json_t *v)
{
	char who[PATH_LEN + 8];
	size_t n = matches(c, kw, v);

	(void)s;
	if (n == 1)
		return 0;
	return vctx_fail(c, "%s is %s of the forms allowed there",
			 vctx_subject(c, who, sizeof(who)),
			 n ? "more than one" : "none");
}

static int kw_pattern(struct vctx *c, json_t *s, json_t *kw, json_t *v)
{
	char who[PATH_LEN + 8];

	(void)s;
	if (!json_is_string(v))
		return 0;
	for (int i = 0; i < npatterns; i++) {
		if (patterns[i].source != kw)
			continue;
		/* text with a NUL in it is no text a pattern describes */
		if (strlen(json_string_value(v)) == json_string_length(v) &&
		    !regexec(&patterns[i].re, json_string_value(v), 0, NULL, 0))
			return 0;
		break;
	}
	return vctx_fail(c, "%s ('%.60s') must match %.80s",
			 vctx_subject(c, who, sizeof(who)),
			 json_string_value(v), json_string_value(kw));
}

static int kw_properties(struct vctx *c, json_t *s, json_t *kw, json_t *v)
{
	const char *key;
	json_t *sub;

	(void)s;
	if (!json_is_object(v))
		return 0;
	json_object_foreach (kw, key, sub) {
		json_t *x = json_object_get(v, key);
		if (!x)
			continue;
		int rc = validate_at(c, vctx_key(c, key), sub, x);
		if (rc)
			return rc;
	}
	return 0;
}

/* The fields properties does not name: refused, or each checked against kw. */
static int kw_additional(struct vctx *c, json_t *s, json_t *kw, json_t *v)
{
	json_t *props = json_object_get(s, "properties"), *x;
	const char *key;

	if (!json_is_object(v) || json_is_true(kw))
		return 0;
	json_object_foreach (v, key, x) {
		if (json_object_get(props, key))
			continue;
		int rc = json_is_false(kw)
				 ? vctx_fail_field(c, "unknown field", key)
				 : validate_at(c, vctx_key(c, key), kw, x);
		if (rc)
			return rc;
	}
	return 0;
}

static int kw_items(struct vctx *c, json_t *s, json_t *kw, json_t *v)
{
	json_t *x;
	size_t i;

	(void)s;
	if (!json_is_array(v))
		return 0;
	json_array_foreach (v, i, x) {
		int rc = validate_at(c, vctx_index(c, i), kw, x);
		if (rc)
			return rc;
	}
	return 0;
}

/*
 * Every keyword the document may use, in the order they are checked: a
 * value's type and bounds before its members (an array over its maxItems
 * is refused before its items are walked), unknown fields before missing
 * ones. check NULL: an annotation, or read by another keyword.
 */
static const struct keyword {
	const char *name;
	int (*check)(struct vctx *c, json_t *schema, json_t *kw, json_t *v);
} keywords[] = {
	{"$ref", kw_ref},
	{"allOf", kw_all_of},
	{"anyOf", kw_any_of},
	{"oneOf", kw_one_of},
	{"type", jskw_type},
	{"enum", jskw_enum},
	{"format", jskw_format},
	{"minimum", jskw_minimum},
	{"maximum", jskw_maximum},
	{"exclusiveMinimum", NULL}, /* read by minimum */
	{"exclusiveMaximum", NULL}, /* read by maximum */
	{"minLength", jskw_min_length},
	{"maxLength", jskw_max_length},
	{"pattern", kw_pattern},
	{"minItems", jskw_min_items},
	{"maxItems", jskw_max_items},
	{"maxProperties", jskw_max_properties},
	{"additionalProperties", kw_additional},
	{"required", jskw_required},
	{"properties", kw_properties},
	{"items", kw_items},
	{"nullable", NULL},
	{"description", NULL},
	{"example", NULL},
	{"default", NULL},
	{"title", NULL},
};
#define NKEYWORDS (sizeof(keywords) / sizeof(keywords[0]))

/*
 * The schema's own keywords (a handful) put in the table's order: cheaper
 * than looking each of the table's up in every schema, per value.
 */
static int run_keywords(struct vctx *c, json_t *schema, json_t *v)
{
	json_t *kws[NKEYWORDS] = {NULL};
	const char *key;
	json_t *kw;

	json_object_foreach (schema, key, kw)
		for (size_t k = 0; k < NKEYWORDS; k++)
			if (keywords[k].check &&
			    key[0] == keywords[k].name[0] &&
			    !strcmp(key, keywords[k].name)) {
				kws[k] = kw;
				break;
			}
	for (size_t k = 0; k < NKEYWORDS; k++)
		if (kws[k] && keywords[k].check(c, schema, kws[k], v))
			return -EINVAL;
	return 0;
}

static int validate(struct vctx *c, json_t *schema, json_t *v)
{
	int rc = 0;

	if (json_is_true(schema) || !json_is_object(schema))
		return 0;
	if (++c->depth > JSONSCHEMA_MAX_DEPTH) {
		rc = vctx_fail(c, "the value is nested too deeply to check");
		goto out;
	}
	/* OpenAPI 3.0: nullable widens the type (and an enum) to null */
	if (json_is_null(v) &&
	    json_is_true(json_object_get(schema, "nullable")))
		goto out;
	rc = run_keywords(c, schema, v);
out:
	c->depth--;
	return rc ? -EINVAL : 0;
}

int jsonschema_check(const char *name, json_t *v, struct errinfo *err)
{
	struct vctx *c;
	json_t *schema;
	int rc = loaded();

	errinfo_clear(err);
	if (rc)
		return errinfo_set(err, NULL,
				   "the API document cannot be read"),
		       rc;
	schema = json_object_get(schemas, name);
	if (!schema)
		return errinfo_set(err, NULL, "the API document has no '%s'",
				   name),
		       -ENOENT;
	/* the path buffer is a few hundred bytes: kept off a thread's stack */
	c = calloc(1, sizeof(*c));
	if (!c)
		return errinfo_set(err, NULL, "out of memory"), -ENOMEM;
	c->err = err;
	rc = validate(c, schema, v);
	free(c);
	return rc;
}

/* ---- the document checked against the table ---- */

static int walk(json_t *schema, char *where, size_t len, size_t at,
		struct errinfo *err);

static int walk_member(json_t *schema, const char *name, char *where,
		       size_t len, size_t at, struct errinfo *err)
{
	snprintf(where + at, len - at, "/%s", name);
	return walk(schema, where, len, strlen(where), err);
}

static int walk(json_t *schema, char *where, size_t len, size_t at,
		struct errinfo *err)
{
	const char *key;
	json_t *v, *sub;
	size_t i;

	if (json_is_boolean(schema))
		return 0;
	if (!json_is_object(schema))
		return errinfo_set(err, where, "a schema must be an object");
	json_object_foreach (schema, key, v) {
		size_t k = 0;
		while (k < NKEYWORDS && strcmp(keywords[k].name, key))
			k++;
		if (k == NKEYWORDS)
			return errinfo_set(err, where,
					   "unknown schema keyword '%s'", key);
		if (!strcmp(key, "properties")) {
			json_object_foreach (v, key, sub) {
				char name[96];
				snprintf(name, sizeof(name), "properties/%s",
					 key);
				if (walk_member(sub, name, where, len, at, err))
					return -EINVAL;
			}
		} else if (!strcmp(key, "items") ||
			   !strcmp(key, "additionalProperties")) {
			if (walk_member(v, key, where, len, at, err))
				return -EINVAL;
		} else if (!strcmp(key, "allOf") || !strcmp(key, "anyOf") ||
			   !strcmp(key, "oneOf")) {
			json_array_foreach (v, i, sub) {
				char name[32];
				snprintf(name, sizeof(name), "%s/%zu", key, i);
				if (walk_member(sub, name, where, len, at, err))
					return -EINVAL;
			}
		}
	}
	where[at] = '\0';
	return 0;
}

/* Every "schema" member under node (parameters, bodies, responses, headers). */
static int walk_operations(json_t *node, char *where, size_t len, size_t at,
			   struct errinfo *err)
{
	const char *key;
	json_t *v;
	size_t i;

	if (json_is_array(node)) {
		json_array_foreach (node, i, v) {
			snprintf(where + at, len - at, "/%zu", i);
			if (walk_operations(v, where, len, strlen(where), err))
				return -EINVAL;
		}
		return 0;
	}
	json_object_foreach (node, key, v) {
		snprintf(where + at, len - at, "/%s", key);
		if (!strcmp(key, "schema")) {
			if (walk(v, where, len, strlen(where), err))
				return -EINVAL;
		} else if (json_is_object(v) || json_is_array(v)) {
			if (walk_operations(v, where, len, strlen(where), err))
				return -EINVAL;
		}
	}
	return 0;
}

int jsonschema_selfcheck(struct errinfo *err)
{
	char where[256];
	const char *name;
	json_t *s;

	errinfo_clear(err);
	if (loaded())
		return errinfo_set(err, NULL,
				   "the API document cannot be read, or a "
				   "pattern in it is no POSIX extended regex");
	json_object_foreach (schemas, name, s) {
		snprintf(where, sizeof(where), "#/components/schemas/%s", name);
		if (walk(s, where, sizeof(where), strlen(where), err))
			return -EINVAL;
	}
	snprintf(where, sizeof(where), "#/paths");
	return walk_operations(json_object_get(api, "paths"), where,
			       sizeof(where), strlen(where), err);
}
