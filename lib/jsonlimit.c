/* jsonlimit.c - JSON parsed within bounds of nesting and count, checked before anything recurses */
#include "jsonlimit.h"
#include "jsonfast.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define DEPTH_MAX 64u
#define SOURCE "<limits>"

struct scan {
	unsigned int depth;
	uint64_t is_object; /* bit d-1: the container at depth d is an object */
	size_t values;
	int line, column;
	size_t key_at, key_len; /* the last member name of the top object */
};

static void name_field(const char *buf, const struct scan *s, char *field,
		       size_t fieldlen)
{
	size_t n = s->key_len;

	if (!field || !fieldlen)
		return;
	field[0] = '\0';
	if (!s->depth || !(s->is_object & 1) || !s->key_len)
		return;
	if (n >= fieldlen)
		n = fieldlen - 1;
	memcpy(field, buf + s->key_at, n);
	field[n] = '\0';
}

/* Refuses at pos: err says why (fmt, the limit given twice), field the
 * top-level member it stands in. Returns -1. */
static int refuse(json_error_t *err, const struct scan *s, size_t pos,
		  const char *buf, char *field, size_t fieldlen,
		  const char *fmt, unsigned long long what)
{
	name_field(buf, s, field, fieldlen);
	if (!err)
		return -1;
	memset(err, 0, sizeof(*err));
	err->line = s->line;
	err->column = s->column;
	err->position = (int)(pos < INT32_MAX ? pos : INT32_MAX);
	snprintf(err->source, sizeof(err->source), "%s", SOURCE);
	snprintf(err->text, sizeof(err->text), fmt, what, what);
	return -1;
}

/*
 * Outside strings every bracket of valid JSON is structural, and a string
 * ends at the first quote not escaped: tracking just that much gives the
 * depth jansson's parser will reach, and never less on text it refuses.
 * A value starts at a byte that follows '[', ',', ':' or nothing; a
 * string after '{' or ',' in an object is a member's name.
 */
static int scan(const char *buf, size_t len, unsigned int max_depth,
		size_t max_values, json_error_t *err, char *field,
		size_t fieldlen)
{
	struct scan s = {.line = 1};
	char prev = 0; /* the last significant byte outside strings */

	for (size_t i = 0; i < len; i++) {
		char c = buf[i];
		int in_object = s.depth && (s.is_object >> (s.depth - 1)) & 1;

		s.column++;
		if (c == '\n') {
			s.line++;
			s.column = 0;
			continue;
		}
		if (c == ' ' || c == '\t' || c == '\r')
			continue;
		if (c == ']' || c == '}') {
			if (s.depth)
				s.depth--;
			prev = c;
			continue;
		}
		if (c == ',' || c == ':') {
			prev = c;
			continue;
		}
		if (c == '"' && in_object && (prev == '{' || prev == ',')) {
			size_t at = i + 1;
			/* a member's name: not a value */
			for (i++; i < len && buf[i] != '"'; i++)
				if (buf[i] == '\\')
					i++;
			if (s.depth == 1) {
				s.key_at = at;
				s.key_len = (i < len ? i : len) - at;
			}
			s.column += (int)(i - at + 1);
			prev = '"';
			continue;
		}
		if (!prev || prev == '[' || prev == ',' || prev == ':') {
			if (++s.values > max_values) {
				return refuse(
					err, &s, i, buf, field, fieldlen,
					"JSON holds more than %llu values "
					"(allowed: at most %llu)",
					(unsigned long long)max_values);
			}
		}
		prev = c;
		if (c == '[' || c == '{') {
			if (s.depth >= max_depth) {
				return refuse(
					err, &s, i, buf, field, fieldlen,
					"JSON nested deeper than %llu levels "
					"(allowed: at most %llu)",
					(unsigned long long)max_depth);
			}
			if (c == '{')
				s.is_object |= (uint64_t)1 << s.depth;
			else
				s.is_object &= ~((uint64_t)1 << s.depth);
			s.depth++;
		} else if (c == '"') {
			size_t at = i;
			for (i++; i < len && buf[i] != '"'; i++)
				if (buf[i] == '\\')
					i++;
			s.column += (int)(i - at);
		}
	}
	return 0;
}

json_t *jsonlimit_load(const char *buf, size_t len, size_t flags,
		       const struct jsonlimit *lim, json_error_t *err,
		       char *field, size_t fieldlen)
{
	unsigned int depth = lim && lim->depth ? lim->depth : JSONLIMIT_DEPTH;
	size_t values = lim && lim->values ? lim->values : JSONLIMIT_VALUES;

	if (depth > DEPTH_MAX)
		depth = DEPTH_MAX;
	if (field && fieldlen)
		field[0] = '\0';
	if (!buf)
		buf = "";
	/* the server's own events mostly, within the bounds: no scan first;
	 * jansson's lexer only for the rest */
	if (!(flags & ~(size_t)(JSON_DECODE_ANY | JSON_ALLOW_NUL))) {
		json_t *v = jsonfast_load_within(buf, len, depth, values);
		if (v) {
			if (err) {
				memset(err, 0, sizeof(*err));
				err->line = err->column = -1;
				snprintf(err->source, sizeof(err->source),
					 "<buffer>");
			}
			return v;
		}
	}
	if (scan(buf, len, depth, values, err, field, fieldlen))
		return NULL;
	return json_loadb(buf, len, flags | JSON_REJECT_DUPLICATES, err);
}

json_t *jsonlimit_loads(const char *text, size_t flags,
			const struct jsonlimit *lim, json_error_t *err)
{
	if (!text) {
		if (err) {
			memset(err, 0, sizeof(*err));
			snprintf(err->text, sizeof(err->text), "no text");
		}
		return NULL;
	}
	return jsonlimit_load(text, strlen(text), flags, lim, err, NULL, 0);
}

int jsonlimit_passed(const json_error_t *err)
{
	return err && !strcmp(err->source, SOURCE);
}
