/* jsondump.c - jansson's compact dump, byte for byte, at a fraction of its cost */
#include "jsondump.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The bytes of a UTF-8 sequence that starts with u, as jansson's
 * utf8_check_first counts them; 0: no sequence starts so. */
static size_t seq_len(unsigned char u)
{
	if (u < 0x80)
		return 1;
	if (u >= 0xC2 && u <= 0xDF)
		return 2;
	if (u >= 0xE0 && u <= 0xEF)
		return 3;
	if (u >= 0xF0 && u <= 0xF4)
		return 4;
	return 0;
}

/* The n-byte sequence at s is one code point as jansson's utf8_check_full
 * takes it: continuation bytes, in range, no surrogate, not overlong. */
static int seq_ok(const unsigned char *s, size_t n)
{
	int32_t v = s[0] & (n == 2 ? 0x1F : n == 3 ? 0x0F : 0x07);

	for (size_t i = 1; i < n; i++) {
		if (s[i] < 0x80 || s[i] > 0xBF)
			return 0;
		v = (v << 6) + (s[i] & 0x3F);
	}
	if (v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
		return 0;
	return !((n == 2 && v < 0x80) || (n == 3 && v < 0x800) ||
		 (n == 4 && v < 0x10000));
}

/* jansson's dump_string without flags: \\, \" and control characters
 * escaped (\b \f \n \r \t by name, the rest as \u00XX), the rest as it is. */
static int put_string(const char *str, size_t len, struct strbuf *sb)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0, run = 0;

	strbuf_addch(sb, '"');
	while (i < len) {
		unsigned char c = s[i];
		const char *esc = NULL;
		char seq[8];
		size_t n;

		if (c >= 0x20 && c != '"' && c != '\\' && c < 0x80) {
			i++;
			continue;
		}
		if (c >= 0x80) {
			n = seq_len(c);
			if (!n || n > len - i || !seq_ok(s + i, n))
				return -1;
			i += n;
			continue;
		}
		strbuf_add(sb, str + run, i - run);
		switch (c) {
		case '\\':
			esc = "\\\\";
			break;
		case '"':
			esc = "\\\"";
			break;
		case '\b':
			esc = "\\b";
			break;
		case '\f':
			esc = "\\f";
			break;
		case '\n':
			esc = "\\n";
			break;
		case '\r':
			esc = "\\r";
			break;
		case '\t':
			esc = "\\t";
			break;
		default:
			snprintf(seq, sizeof(seq), "\\u%04X", (unsigned int)c);
			esc = seq;
		}
		strbuf_addstr(sb, esc);
		run = ++i;
	}
	strbuf_add(sb, str + run, len - run);
	strbuf_addch(sb, '"');
	return 0;
}

/* jansson's jsonp_dtostr at its default precision: "%.17g", a ".0" when
 * that reads as a whole number, the exponent without "+" or leading 0s. */
static int put_real(double v, struct strbuf *sb)
{
	char b[100];
	int n = snprintf(b, sizeof(b), "%.17g", v);
	char *e, *start, *end;

	if (n < 0 || (size_t)n >= sizeof(b))
		return -1;
	if (!strchr(b, '.') && !strchr(b, 'e')) {
		if ((size_t)n + 3 >= sizeof(b))
			return -1;
		memcpy(b + n, ".0", 3);
		n += 2;
	}
	e = strchr(b, 'e');
	if (e) {
		start = e + 1;
		end = start + 1;
		if (*start == '-')
			start++;
		while (*end == '0')
			end++;
		if (end != start) {
			memmove(start, end, (size_t)n - (size_t)(end - b) + 1);
			n -= (int)(end - start);
		}
	}
	strbuf_add(sb, b, (size_t)n);
	return 0;
}

static int put(const json_t *v, struct strbuf *sb, int depth)
{
	char num[32];
	void *it;
	size_t i;
	int first = 1;

	if (depth > JSONDUMP_MAX_DEPTH)
		return -1;
	switch (json_typeof(v)) {
	case JSON_NULL:
		strbuf_add(sb, "null", 4);
		return 0;
	case JSON_TRUE:
		strbuf_add(sb, "true", 4);
		return 0;
	case JSON_FALSE:
		strbuf_add(sb, "false", 5);
		return 0;
	case JSON_INTEGER:
		strbuf_add(
			sb, num,
			strbuf_int_text(num, (long long)json_integer_value(v)));
		return 0;
	case JSON_REAL:
		return put_real(json_real_value(v), sb);
	case JSON_STRING:
		return put_string(json_string_value(v), json_string_length(v),
				  sb);
	case JSON_ARRAY:
		strbuf_addch(sb, '[');
		for (i = 0; i < json_array_size(v); i++) {
			if (i)
				strbuf_addch(sb, ',');
			if (put(json_array_get(v, i), sb, depth + 1))
				return -1;
		}
		strbuf_addch(sb, ']');
		return 0;
	case JSON_OBJECT:
		strbuf_addch(sb, '{');
		/* in the order jansson's dump takes them */
		for (it = json_object_iter((json_t *)v); it;
		     it = json_object_iter_next((json_t *)v, it)) {
			if (!first)
				strbuf_addch(sb, ',');
			first = 0;
			if (put_string(json_object_iter_key(it),
				       json_object_iter_key_len(it), sb))
				return -1;
			strbuf_addch(sb, ':');
			if (put(json_object_iter_value(it), sb, depth + 1))
				return -1;
		}
		strbuf_addch(sb, '}');
		return 0;
	}
	return -1;
}

int jsondump_string(const char *s, size_t len, struct strbuf *sb)
{
	return put_string(s, len, sb) || sb->oom ? -1 : 0;
}

int jsondump(const json_t *v, struct strbuf *sb)
{
	if (!v || put(v, sb, 0))
		return -1;
	return sb->oom ? -1 : 0;
}

char *jsondump_text(const json_t *v, size_t *len)
{
	struct strbuf sb = STRBUF_INIT;
	char *s;

	strbuf_init(&sb);
	if (jsondump(v, &sb)) {
		strbuf_release(&sb);
		/* what jansson makes of it (a string that is not UTF-8: NULL)
		 */
		s = v ? json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY) : NULL;
		if (s && len)
			*len = strlen(s);
		return s;
	}
	if (len)
		*len = sb.len;
	return strbuf_detach(&sb);
}
