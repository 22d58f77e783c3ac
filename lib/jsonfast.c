/* jsonfast.c - the plain JSON the server's own programs write, parsed without jansson's lexer */
#include "jsonfast.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/*
 * The worker writes each event as one line of compact JSON: ASCII names
 * and strings without escapes, numbers, objects and arrays. jansson's
 * lexer reads such a line a character at a time through a stream; this
 * reads it in place and builds the same values. Anything else (an
 * escape, a byte outside printable ASCII in a string, a token jansson
 * would refuse, a repeated name, a number out of range, memory running
 * out, nesting or values past the caller's bounds) gives NULL, and the
 * caller asks jansson, which parses it or says exactly what is wrong.
 */
struct cursor {
	const char *p, *end;
	unsigned int depth, max_depth; /* containers open, and the bound */
	size_t values, max_values;     /* values begun, and the bound */
};

static json_t *value(struct cursor *c);

static void skip_ws(struct cursor *c)
{
	while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' ||
				 *c->p == '\n' || *c->p == '\r'))
		c->p++;
}

/* A string's bytes, after its opening quote; NULL unless plain. */
static const char *plain_string(struct cursor *c, size_t *len)
{
	const char *s = c->p;

	while (c->p < c->end) {
		unsigned char ch = (unsigned char)*c->p;
		if (ch == '"') {
			*len = (size_t)(c->p - s);
			c->p++;
			return s;
		}
		if (ch < 0x20 || ch >= 0x7f || ch == '\\')
			return NULL;
		c->p++;
	}
	return NULL;
}

static int is_digit(char ch)
{
	return ch >= '0' && ch <= '9';
}

/* A number as JSON's grammar has it: an integer, or a real when it has a
 * fraction or an exponent (as jansson decides). */
static json_t *number(struct cursor *c)
{
	const char *s = c->p;
	char tmp[64], *stop;
	int real = 0;
	size_t n;

	if (c->p < c->end && *c->p == '-')
		c->p++;
	if (c->p >= c->end || !is_digit(*c->p))
		return NULL;
	if (*c->p == '0') {
		c->p++;
		if (c->p < c->end && is_digit(*c->p))
			return NULL;
	} else {
		while (c->p < c->end && is_digit(*c->p))
			c->p++;
	}
	if (c->p < c->end && *c->p == '.') {
		real = 1;
		c->p++;
		if (c->p >= c->end || !is_digit(*c->p))
			return NULL;
		while (c->p < c->end && is_digit(*c->p))
			c->p++;
	}
	if (c->p < c->end && (*c->p == 'e' || *c->p == 'E')) {
		real = 1;
		c->p++;
		if (c->p < c->end && (*c->p == '+' || *c->p == '-'))
			c->p++;
		if (c->p >= c->end || !is_digit(*c->p))
			return NULL;
		while (c->p < c->end && is_digit(*c->p))
			c->p++;
	}
	n = (size_t)(c->p - s);
	if (n >= sizeof(tmp))
		return NULL;
	memcpy(tmp, s, n);
	tmp[n] = '\0';
	errno = 0;
	if (!real) {
		long long v = strtoll(tmp, &stop, 10);
		if (errno || *stop)
			return NULL;
		return json_integer((json_int_t)v);
	}
	double d = strtod(tmp, &stop);
	if (errno || *stop)
		return NULL;
	return json_real(d);
}

static json_t *literal(struct cursor *c, const char *word, json_t *v)
{
	size_t n = strlen(word);

	if ((size_t)(c->end - c->p) < n || memcmp(c->p, word, n))
		return NULL;
	c->p += n;
	return v;
}

/* Steps past what ends a container (close) when it comes next, leaving
 * the container's depth: 1. 0 when it does not. */
static int closes(struct cursor *c, char close)
{
	skip_ws(c);
	if (c->p >= c->end || *c->p != close)
		return 0;
	c->p++;
	c->depth--;
	return 1;
}

/* After a member or an element: 1 when close ended the container, 0 past
 * the comma before the next one, -1 for anything else. */
static int after_item(struct cursor *c, char close)
{
	if (closes(c, close))
		return 1;
	if (c->p >= c->end || *c->p != ',')
		return -1;
	c->p++;
	return 0;
}

static json_t *object(struct cursor *c)
{
	json_t *o = json_object();
	int end;

	c->p++; /* { */
	c->depth++;
	if (closes(c, '}'))
		return o;
	while (o) {
		const char *key;
		size_t klen;
		json_t *v;

		if (c->p >= c->end || *c->p != '"')
			break;
		c->p++;
		key = plain_string(c, &klen);
		if (!key || json_object_getn(o, key, klen))
			break;
		skip_ws(c);
		if (c->p >= c->end || *c->p != ':')
			break;
		c->p++;
		v = value(c);
		if (!v || json_object_setn_new_nocheck(o, key, klen, v))
			break;
		end = after_item(c, '}');
		if (end > 0)
			return o;
		if (end < 0)
			break;
		skip_ws(c);
	}
	json_decref(o);
	return NULL;
}

static json_t *array(struct cursor *c)
{
	json_t *a = json_array();
	int end;

	c->p++; /* [ */
	c->depth++;
	if (closes(c, ']'))
		return a;
	while (a) {
		json_t *v = value(c);

		if (!v || json_array_append_new(a, v))
			break;
		end = after_item(c, ']');
		if (end > 0)
			return a;
		if (end < 0)
			break;
	}
	json_decref(a);
	return NULL;
}

static json_t *value(struct cursor *c)
{
	const char *s;
	size_t n;

	skip_ws(c);
	/* counted as jsonlimit's scan counts them: every value, containers
	 * too, and no deeper than max_depth containers */
	if (c->p >= c->end || ++c->values > c->max_values)
		return NULL;
	switch (*c->p) {
	case '{':
		return c->depth < c->max_depth ? object(c) : NULL;
	case '[':
		return c->depth < c->max_depth ? array(c) : NULL;
	case '"':
		c->p++;
		s = plain_string(c, &n);
		return s ? json_stringn_nocheck(s, n) : NULL;
	case 't':
		return literal(c, "true", json_true());
	case 'f':
		return literal(c, "false", json_false());
	case 'n':
		return literal(c, "null", json_null());
	default:
		return number(c);
	}
}

json_t *jsonfast_load_within(const char *buf, size_t len,
			     unsigned int max_depth, size_t max_values)
{
	struct cursor c = {buf, buf + len, 0, max_depth, 0, max_values};
	json_t *v;

	skip_ws(&c);
	/* jansson without JSON_DECODE_ANY takes an object or an array */
	if (c.p >= c.end || (*c.p != '{' && *c.p != '['))
		return NULL;
	v = value(&c);
	skip_ws(&c);
	if (v && c.p != c.end) {
		json_decref(v);
		return NULL;
	}
	return v;
}
