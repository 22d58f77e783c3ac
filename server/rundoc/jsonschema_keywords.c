/* jsonschema_keywords.c - the keywords that look at one value alone: type, enum, bounds, lengths, formats, counts */
#include "jsonschema_keywords.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "utf8.h"

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

int jskw_is_type(const char *type, json_t *v)
{
	return is_type(type, v);
}

int jskw_type(struct vctx *c, json_t *s, json_t *kw, json_t *v)
{
	const char *type = json_string_value(kw);
	char who[PATH_LEN + 8];

	if (!type || is_type(type, v))
		return 0;
	return vctx_fail(
		c, "%s must be %s%s", vctx_subject(c, who, sizeof(who)),
		type_words(type),
		json_is_true(json_object_get(s, "nullable")) ? " or null" : "");
}

int jskw_enum(struct vctx *c, json_t *s, json_t *kw, json_t *v)
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
		return vctx_fail(c, "%s is '%.60s' (allowed: %s)",
				 vctx_subject(c, who, sizeof(who)),
				 json_string_value(v), allowed);
	return vctx_fail(c, "%s must be one of: %s",
			 vctx_subject(c, who, sizeof(who)), allowed);
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
	else /* 1e9 as the document writes it, not 1e+09 */
		snprintf(buf, len, "%.15g", json_number_value(n));
}

/* OpenAPI 3.0's exclusiveMinimum / exclusiveMaximum: true beside the
 * bound keeps the bound itself out */
static int exclusive(json_t *s, const char *name)
{
	return json_is_true(json_object_get(s, name));
}

int jskw_minimum(struct vctx *c, json_t *s, json_t *kw, json_t *v)
{
	char who[PATH_LEN + 8], bound[32], value[32];
	int ex = exclusive(s, "exclusiveMinimum");

	if (!json_is_number(v) || !json_is_number(kw) ||
	    compare(v, kw) > (ex ? 0 : -1))
		return 0;
	number_text(kw, bound, sizeof(bound));
	number_text(v, value, sizeof(value));
	return vctx_fail(c,
			 ex ? "%s is %s (allowed: above %s)"
			    : "%s is %s (allowed: %s or more)",
			 vctx_subject(c, who, sizeof(who)), value, bound);
}

int jskw_maximum(struct vctx *c, json_t *s, json_t *kw, json_t *v)
{
	char who[PATH_LEN + 8], bound[32], value[32];
	int ex = exclusive(s, "exclusiveMaximum");

	if (!json_is_number(v) || !json_is_number(kw) ||
	    compare(v, kw) < (ex ? 0 : 1))
		return 0;
	number_text(kw, bound, sizeof(bound));
	number_text(v, value, sizeof(value));
	return vctx_fail(c,
			 ex ? "%s is %s (allowed: below %s)"
			    : "%s is %s (allowed: %s or less)",
			 vctx_subject(c, who, sizeof(who)), value, bound);
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

int jskw_min_length(struct vctx *c, json_t *s, json_t *kw, json_t *v)
{
	char who[PATH_LEN + 8];

	(void)s;
	if (!json_is_string(v) ||
	    (json_int_t)text_length(v) >= json_integer_value(kw))
		return 0;
	return vctx_fail(
		c,
		"%s must be at least %" JSON_INTEGER_FORMAT " characters long",
		vctx_subject(c, who, sizeof(who)), json_integer_value(kw));
}

int jskw_max_length(struct vctx *c, json_t *s, json_t *kw, json_t *v)
{
	char who[PATH_LEN + 8];

	(void)s;
	if (!json_is_string(v) ||
	    (json_int_t)text_length(v) <= json_integer_value(kw))
		return 0;
	return vctx_fail(c,
			 "%s is longer than %" JSON_INTEGER_FORMAT
			 " characters (allowed: at most %" JSON_INTEGER_FORMAT
			 ")",
			 vctx_subject(c, who, sizeof(who)),
			 json_integer_value(kw), json_integer_value(kw));
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

int jskw_format(struct vctx *c, json_t *s, json_t *kw, json_t *v)
{
	char who[PATH_LEN + 8];

	(void)s;
	/* formats other than these are annotations, as in JSON Schema */
	if (!json_is_string(v) || strcmp(json_string_value(kw), "date-time") ||
	    is_date_time(json_string_value(v)))
		return 0;
	return vctx_fail(c,
			 "%s ('%.40s') is not a date-time (RFC 3339, like "
			 "2026-12-03T12:00:00Z)",
			 vctx_subject(c, who, sizeof(who)),
			 json_string_value(v));
}

int jskw_min_items(struct vctx *c, json_t *s, json_t *kw, json_t *v)
{
	char who[PATH_LEN + 8];

	(void)s;
	if (!json_is_array(v) ||
	    (json_int_t)json_array_size(v) >= json_integer_value(kw))
		return 0;
	return vctx_fail(c, "%s needs at least %" JSON_INTEGER_FORMAT " items",
			 vctx_subject(c, who, sizeof(who)),
			 json_integer_value(kw));
}

int jskw_max_items(struct vctx *c, json_t *s, json_t *kw, json_t *v)
{
	char who[PATH_LEN + 8];

	(void)s;
	if (!json_is_array(v) ||
	    (json_int_t)json_array_size(v) <= json_integer_value(kw))
		return 0;
	return vctx_fail(
		c,
		"%s has %zu items (allowed: at most %" JSON_INTEGER_FORMAT ")",
		vctx_subject(c, who, sizeof(who)), json_array_size(v),
		json_integer_value(kw));
}

int jskw_max_properties(struct vctx *c, json_t *s, json_t *kw, json_t *v)
{
	char who[PATH_LEN + 8];

	(void)s;
	if (!json_is_object(v) ||
	    (json_int_t)json_object_size(v) <= json_integer_value(kw))
		return 0;
	return vctx_fail(
		c,
		"%s has %zu fields (allowed: at most %" JSON_INTEGER_FORMAT ")",
		vctx_subject(c, who, sizeof(who)), json_object_size(v),
		json_integer_value(kw));
}

int jskw_required(struct vctx *c, json_t *s, json_t *kw, json_t *v)
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
		return vctx_fail_field(c, "missing field", key);
	}
	return 0;
}
