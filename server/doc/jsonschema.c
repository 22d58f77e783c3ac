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
#include "openapi.h"

/*
 * The schemas are read from the same bytes GET /api/openapi.json sends,
 * so what is published and what is enforced cannot differ. The subset
 * of JSON Schema (OpenAPI 3.0) the document uses is the keyword table
 * below; jsonschema_selfcheck (a unit test) refuses a document that uses
 * any other, so a new keyword cannot be published and silently ignored.
 */

#define PATH_LEN 160
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

struct vctx {
	struct errinfo *err;
	char path[PATH_LEN];
	size_t len;
	int depth;
};

static int validate(struct vctx *c, json_t *schema, json_t *v);

/* ---- the path of the value being checked: samples[3].stats.n ---- */

static size_t path_key(struct vctx *c, const char *key)
{
	size_t old = c->len;
	int n = snprintf(c->path + c->len, sizeof(c->path) - c->len, "%s%.40s",
			 c->len ? "." : "", key);

	if (n > 0)
		c->len += (size_t)n < sizeof(c->path) - c->len
				  ? (size_t)n
				  : sizeof(c->path) - c->len - 1;
	return old;
}

static size_t path_index(struct vctx *c, size_t i)
{
	size_t old = c->len;
	int n = snprintf(c->path + c->len, sizeof(c->path) - c->len, "[%zu]",
			 i);

	if (n > 0)
		c->len += (size_t)n < sizeof(c->path) - c->len
				  ? (size_t)n
				  : sizeof(c->path) - c->len - 1;
	return old;
}

static void path_pop(struct vctx *c, size_t old)
{
	c->len = old;
	c->path[old] = '\0';
}

/* "'samples[3].y'" or "the value" for the whole of it. */
static const char *subject(struct vctx *c, char *buf, size_t len)
{
	if (!c->len)
		snprintf(buf, len, "the document");
	else
		snprintf(buf, len, "'%s'", c->path);
	return buf;
}

__attribute__((format(printf, 2, 3))) static int fail(struct vctx *c,
						      const char *fmt, ...)
{
	char msg[ERRINFO_MSG_LEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* the field as long as errinfo keeps it: the start says where */
	return errinfo_set(c->err, c->len ? c->path : NULL, "%s", msg);
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

static const char *type_words(const char *type)
{
	static const char *const words[][2] = {
		{"object", "an object"},
		{"array", "an array"},
		{"string", "text"},
		{"number", "a number"},
		{"integer", "a whole number"},
		{"boolean", "true or false"},
	};

	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (!strcmp(type, words[i][0]))
			return words[i][1];
	return type;
}

static int is_type(const char *type, json_t *v)
{
	if (!strcmp(type, "object"))
		return json_is_object(v);
	if (!strcmp(type, "array"))
		return json_is_array(v);
	if (!strcmp(type, "string"))
		return json_is_string(v);
	if (!strcmp(type, "number"))
		return json_is_number(v);
	if (!strcmp(type, "integer"))
		return json_is_integer(v);
	if (!strcmp(type, "boolean"))
		return json_is_boolean(v);
	return 0;
}

static int kw_type(struct vctx *c, json_t *s, json_t *kw, json_t *v)
{
	const char *type = json_string_value(kw);
	char who[PATH_LEN + 8];

	if (!type || is_type(type, v))
		return 0;
	return fail(c, "%s must be %s%s", subject(c, who, sizeof(who)),
		    type_words(type),
		    json_is_true(json_object_get(s, "nullable")) ? " or null"
								 : "");
}

static int kw_ref(struct vctx *c, json_t *s, json_t *kw, json_t *v)
{
	const char *ref = json_string_value(kw);
	const char *prefix = "#/components/schemas/";
	json_t *target;

	(void)s;
	if (!ref || strncmp(ref, prefix, strlen(prefix)))
		return fail(c, "the API document has an unknown $ref");
	target = json_object_get(schemas, ref + strlen(prefix));
	if (!target)
		return fail(c, "the API document has no schema '%.60s'", ref);
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

	(void)s;
	if (matches(c, kw, v))
		return 0;
	return fail(c, "%s is none of the forms allowed there",
		    subject(c, who, sizeof(who)));
}

static int kw_one_of(struct vctx *c, json_t *s, json_t *kw, json_t *v)
{
	char who[PATH_LEN + 8];
	size_t n = matches(c, kw, v);

	(void)s;
	if (n == 1)
		return 0;
	return fail(c, "%s is %s of the forms allowed there",
		    subject(c, who, sizeof(who)), n ? "more than one" : "none");
}

static int kw_enum(struct vctx *c, json_t *s, json_t *kw, json_t *v)
{
	char who[PATH_LEN + 8], allowed[256] = "";
	size_t i, off = 0;
	json_t *e;

	(void)s;
	json_array_foreach (kw, i, e) {
		if (json_equal(e, v))
			return 0;
		if (json_is_string(e) && off < sizeof(allowed))
			off += (size_t)snprintf(
				allowed + off, sizeof(allowed) - off, "%s%s",
				i ? ", " : "", json_string_value(e));
	}
	if (json_is_string(v))
		return fail(c, "%s is '%.60s' (allowed: %s)",
			    subject(c, who, sizeof(who)), json_string_value(v),
			    allowed);
	return fail(c, "%s must be one of: %s", subject(c, who, sizeof(who)),
		    allowed);
}

/* -1, 0, 1 as a is below, at or above the bound b: exact for integers. */
static int compare(json_t *a, json_t *b)
{
	if (json_is_integer(a) && json_is_integer(b)) {
		json_int_t x = json_integer_value(a), y = json_integer_value(b);
		return (x > y) - (x < y);
	}
	double x = json_number_value(a), y = json_number_value(b);
	return (x > y) - (x < y);
}

static void number_text(json_t *n, char *buf, size_t len)
{
	if (json_is_integer(n))
		snprintf(buf, len, "%" JSON_INTEGER_FORMAT,
			 json_integer_value(n));
	else
		snprintf(buf, len, "%g", json_number_value(n));
}

static int kw_minimum(struct vctx *c, json_t *s, json_t *kw, json_t *v)
{
	char who[PATH_LEN + 8], bound[32], value[32];

	(void)s;
	if (!json_is_number(v) || !json_is_number(kw) || compare(v, kw) >= 0)
		return 0;
	number_text(kw, bound, sizeof(bound));
	number_text(v, value, sizeof(value));
	return fail(c, "%s is %s (allowed: %s or more)",
		    subject(c, who, sizeof(who)), value, bound);
}

static int kw_maximum(struct vctx *c, json_t *s, json_t *kw, json_t *v)
{
	char who[PATH_LEN + 8], bound[32], value[32];

	(void)s;
	if (!json_is_number(v) || !json_is_number(kw) || compare(v, kw) <= 0)
		return 0;
	number_text(kw, bound, sizeof(bound));
	number_text(v, value, sizeof(value));
	return fail(c, "%s is %s (allowed: %s or less)",
		    subject(c, who, sizeof(who)), value, bound);
}

/* Characters (code points) of UTF-8 text, as JSON Schema counts them. */
static size_t text_length(json_t *v)
{
	const unsigned char *p = (const unsigned char *)json_string_value(v);
	size_t n = 0, len = json_string_length(v);

	for (size_t i = 0; i < len; i++)
		n += (p[i] & 0xc0) != 0x80;
	return n;
}

static int kw_min_length(struct vctx *c, json_t *s, json_t *kw, json_t *v)
{
	char who[PATH_LEN + 8];

	(void)s;
	if (!json_is_string(v) ||
	    (json_int_t)text_length(v) >= json_integer_value(kw))
		return 0;
	return fail(c,
		    "%s must be at least %" JSON_INTEGER_FORMAT
		    " characters long",
		    subject(c, who, sizeof(who)), json_integer_value(kw));
}

static int kw_max_length(struct vctx *c, json_t *s, json_t *kw, json_t *v)
{
	char who[PATH_LEN + 8];

	(void)s;
	if (!json_is_string(v) ||
	    (json_int_t)text_length(v) <= json_integer_value(kw))
		return 0;
	return fail(c,
		    "%s is longer than %" JSON_INTEGER_FORMAT
		    " characters (allowed: at most %" JSON_INTEGER_FORMAT ")",
		    subject(c, who, sizeof(who)), json_integer_value(kw),
		    json_integer_value(kw));
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
	return fail(c, "%s ('%.60s') must match %.80s",
		    subject(c, who, sizeof(who)), json_string_value(v),
		    json_string_value(kw));
}

static int digits(const char *s, int n, int lo, int hi, int *out)
{
	int v = 0;

	for (int i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return 0;
		v = v * 10 + (s[i] - '0');
	}
	*out = v;
	return v >= lo && v <= hi;
}

/* RFC 3339 date-time: 2026-12-03T12:00:00Z, 2026-12-03T12:00:00.123+01:00 */
static int is_date_time(const char *s)
{
	static const int mdays[] = {31, 29, 31, 30, 31, 30,
				    31, 31, 30, 31, 30, 31};
	int y, mo, d, h, mi, se, oh, om;

	if (strlen(s) < 20 || !digits(s, 4, 0, 9999, &y) || s[4] != '-' ||
	    !digits(s + 5, 2, 1, 12, &mo) || s[7] != '-' ||
	    !digits(s + 8, 2, 1, mdays[mo - 1], &d) ||
	    (s[10] != 'T' && s[10] != 't') || !digits(s + 11, 2, 0, 23, &h) ||
	    s[13] != ':' || !digits(s + 14, 2, 0, 59, &mi) || s[16] != ':' ||
	    !digits(s + 17, 2, 0, 60, &se))
		return 0;
	if (mo == 2 && d == 29 && (y % 4 || (y % 100 == 0 && y % 400)))
		return 0;
	s += 19;
	if (*s == '.') {
		size_t n = strspn(++s, "0123456789");
		if (!n)
			return 0;
		s += n;
	}
	if ((*s == 'Z' || *s == 'z') && !s[1])
		return 1;
	return (*s == '+' || *s == '-') && digits(s + 1, 2, 0, 23, &oh) &&
	       s[3] == ':' && digits(s + 4, 2, 0, 59, &om) && !s[6];
}

static int kw_format(struct vctx *c, json_t *s, json_t *kw, json_t *v)
{
	char who[PATH_LEN + 8];

	(void)s;
	/* formats other than these are annotations, as in JSON Schema */
	if (!json_is_string(v) || strcmp(json_string_value(kw), "date-time") ||
	    is_date_time(json_string_value(v)))
		return 0;
	return fail(c,
		    "%s ('%.40s') is not a date-time (RFC 3339, like "
		    "2026-12-03T12:00:00Z)",
		    subject(c, who, sizeof(who)), json_string_value(v));
}

static int kw_min_items(struct vctx *c, json_t *s, json_t *kw, json_t *v)
{
	char who[PATH_LEN + 8];

	(void)s;
	if (!json_is_array(v) ||
	    (json_int_t)json_array_size(v) >= json_integer_value(kw))
		return 0;
	return fail(c, "%s needs at least %" JSON_INTEGER_FORMAT " items",
		    subject(c, who, sizeof(who)), json_integer_value(kw));
}

static int kw_max_items(struct vctx *c, json_t *s, json_t *kw, json_t *v)
{
	char who[PATH_LEN + 8];

	(void)s;
	if (!json_is_array(v) ||
	    (json_int_t)json_array_size(v) <= json_integer_value(kw))
		return 0;
	return fail(c,
		    "%s has %zu items (allowed: at most %" JSON_INTEGER_FORMAT
		    ")",
		    subject(c, who, sizeof(who)), json_array_size(v),
		    json_integer_value(kw));
}

static int kw_max_properties(struct vctx *c, json_t *s, json_t *kw, json_t *v)
{
	char who[PATH_LEN + 8];

	(void)s;
	if (!json_is_object(v) ||
	    (json_int_t)json_object_size(v) <= json_integer_value(kw))
		return 0;
	return fail(c,
		    "%s has %zu fields (allowed: at most %" JSON_INTEGER_FORMAT
		    ")",
		    subject(c, who, sizeof(who)), json_object_size(v),
		    json_integer_value(kw));
}

static int kw_required(struct vctx *c, json_t *s, json_t *kw, json_t *v)
{
	json_t *name;
	size_t i;

	(void)s;
	if (!json_is_object(v))
		return 0;
	json_array_foreach (kw, i, name) {
		const char *key = json_string_value(name);
		if (!key || json_object_get(v, key))
			continue;
		size_t old = path_key(c, key);
		int rc = fail(c, "missing field '%s'", c->path);
		path_pop(c, old);
		return rc;
	}
	return 0;
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
		size_t old = path_key(c, key);
		int rc = validate(c, sub, x);
		path_pop(c, old);
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
		size_t old = path_key(c, key);
		int rc = json_is_false(kw)
				 ? fail(c, "unknown field '%s'", c->path)
				 : validate(c, kw, x);
		path_pop(c, old);
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
		size_t old = path_index(c, i);
		int rc = validate(c, kw, x);
		path_pop(c, old);
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
	{"type", kw_type},
	{"enum", kw_enum},
	{"format", kw_format},
	{"minimum", kw_minimum},
	{"maximum", kw_maximum},
	{"minLength", kw_min_length},
	{"maxLength", kw_max_length},
	{"pattern", kw_pattern},
	{"minItems", kw_min_items},
	{"maxItems", kw_max_items},
	{"maxProperties", kw_max_properties},
	{"additionalProperties", kw_additional},
	{"required", kw_required},
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
		rc = fail(c, "the value is nested too deeply to check");
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
