/* jsonfast.c - the plain JSON the server's own programs write, parsed without jansson's lexer */
#include "jsonfast.h"

#include <errno.h>
#include <stdint.h>
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
#define NUMCACHE 4 /* the last reals read, kept for the rest of the text */
/* An object's names a check compares (a longer object is left to a parse). */
#define CHECK_MEMBERS 32

/* A real read, and its value: the tree holds it (a reference); the same
 * text again is that value again, one more reference. Nothing changes a
 * parsed number in place (no json_real_set anywhere). */
struct numseen {
	const char *at; /* in the text being read */
	size_t len;
	json_t *value;
};

struct cursor {
	const char *p, *end;
	unsigned int depth, max_depth; /* containers open, and the bound */
	size_t values, max_values;     /* values begun, and the bound */
	struct numseen num[NUMCACHE];
	int numnext;
	/* a check: values are walked, not made (each is json_null(), which
	 * nothing frees); has_seq: the top object names "seq" */
	int check, has_seq;
};

static json_t *value(struct cursor *c);

static void skip_ws(struct cursor *c)
{
	const char *p = c->p;

	while (p < c->end &&
	       (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
		p++;
	c->p = p;
}

/* A string's bytes, after its opening quote; NULL unless plain. (The
 * cursor's place is kept in a local while it walks: a line is mostly
 * strings and numbers.) */
const char *jsonfast_plain(const char **at, const char *end, size_t *len)
{
	const char *s = *at, *p = s;

	for (; p < end; p++) {
		unsigned char ch = (unsigned char)*p;
		if (ch == '"') {
			*len = (size_t)(p - s);
			*at = p + 1;
			return s;
		}
		if (ch < 0x20 || ch >= 0x7f || ch == '\\')
			return NULL;
	}
	return NULL;
}

static const char *plain_string(struct cursor *c, size_t *len)
{
	return jsonfast_plain(&c->p, c->end, len);
}

/* Past the digits at c->p. */
static void skip_digits(struct cursor *c)
{
	const char *p = c->p;

	while (p < c->end && *p >= '0' && *p <= '9')
		p++;
	c->p = p;
}

static int is_digit(char ch)
{
	return ch >= '0' && ch <= '9';
}

/* The exact powers of ten a double holds (5^22 < 2^53). */
static const double pow10_exact[] = {
	1e0,  1e1,  1e2,  1e3,	1e4,  1e5,  1e6,  1e7,	1e8,  1e9,  1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/*
 * The double nearest the decimal m * 10^e10 when one IEEE operation gives
 * it exactly rounded (Clinger's fast path: m and 10^|e10| both exact in a
 * double, so the one product or quotient is rounded once, as strtod
 * rounds); 0 when it does not, and strtod decides.
 */
static int fast_real(uint64_t m, int e10, double *d)
{
	if (m > (UINT64_C(1) << 53) || e10 < -22 || e10 > 22)
		return 0;
	*d = e10 < 0 ? (double)m / pow10_exact[-e10]
		     : (double)m * pow10_exact[e10];
	return 1;
}

/* The real read from the same text earlier in this one (a sample
 * repeats its value in its stats), one more reference; else NULL. */
static json_t *real_seen(const struct cursor *c, const char *s, size_t n)
{
	for (int i = 0; i < NUMCACHE; i++)
		if (c->num[i].len == n && !memcmp(c->num[i].at, s, n))
			return json_incref(c->num[i].value);
	return NULL;
}

/* A real of the value d, read from s (n bytes), kept for the rest of the
 * text; NULL when memory ran out. */
static json_t *real_kept(struct cursor *c, const char *s, size_t n, double d)
{
	json_t *v;

	if (c->check)
		return json_null();
	v = json_real(d);

	if (v) {
		c->num[c->numnext] = (struct numseen){s, n, v};
		c->numnext = (c->numnext + 1) % NUMCACHE;
	}
	return v;
}

/* A real's text given to strtod: 0, or -1 (out of range, not a number). */
static int slow_real(const char *s, size_t n, double *d)
{
	char tmp[64], *stop;

	if (n >= sizeof(tmp))
		return -1;
	memcpy(tmp, s, n);
	tmp[n] = '\0';
	errno = 0;
	*d = strtod(tmp, &stop);
	return errno || *stop ? -1 : 0;
}

/*
 * The significant digits of a number's text [s, end) (its sign, point
 * and exponent left out) as an integer, and how many of them there were:
 * 0 when more than 19 (then strtod or strtoll reads it). *nfrac: how many
 * of them came after the point.
 */
static int mantissa(const char *s, const char *end, uint64_t *m, int *nfrac)
{
	int nsig = 0, frac = 0;
	uint64_t v = 0;

	for (; s < end; s++) {
		if (*s == '.') {
			frac = 1;
			continue;
		}
		if (!is_digit(*s))
			break;
		*nfrac += frac;
		if (!v && *s == '0')
			continue;
		if (++nsig > 19)
			return 0;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	*m = v;
	return nsig ? nsig : 1;
}

/* A number's exponent (after its 'e'), or INT32_MAX when it has more than
 * four digits. */
static int exponent(const char *s, const char *end)
{
	int neg = 0, e = 0, n = 0;

	if (*s == '+' || *s == '-')
		neg = *s++ == '-';
	for (; s < end; s++)
		if (++n <= 4)
			e = e * 10 + (*s - '0');
	return n > 4 ? INT32_MAX : neg ? -e : e;
}

/* Whether the real of these digits (up to its exponent) times 10^ex lies
 * well within a double's normal range: 10^-290 to 10^290. */
static int far_inside(const char *s, const char *end, int ex)
{
	const char *p = s;
	int lead = 0; /* digits before the point, less leading zeros */

	while (p < end && *p == '0')
		p++;
	for (; p < end && is_digit(*p); p++)
		lead++;
	/* 0.000...: its zeros after the point count down */
	if (!lead && p < end && *p == '.')
		for (p++; p < end && *p == '0'; p++)
			lead--;
	return lead + ex < 290 && lead + ex > -290;
}

/* A number as JSON's grammar has it: an integer, or a real when it has a
 * fraction or an exponent (as jansson decides). Most are read here; a
 * long or far out one goes to strtoll/strtod as before. */
static json_t *number(struct cursor *c)
{
	const char *s = c->p, *digits, *e = NULL;
	char tmp[64], *stop;
	int real = 0, neg = 0, nfrac = 0, ex;
	uint64_t m;
	size_t n;
	double d;

	if (c->p < c->end && *c->p == '-') {
		neg = 1;
		c->p++;
	}
	digits = c->p;
	if (c->p >= c->end || !is_digit(*c->p))
		return NULL;
	if (*c->p == '0') {
		c->p++;
		if (c->p < c->end && is_digit(*c->p))
			return NULL;
	} else {
		skip_digits(c);
	}
	if (c->p < c->end && *c->p == '.') {
		real = 1;
		c->p++;
		if (c->p >= c->end || !is_digit(*c->p))
			return NULL;
		skip_digits(c);
	}
	if (c->p < c->end && (*c->p == 'e' || *c->p == 'E')) {
		real = 1;
		e = ++c->p;
		if (c->p < c->end && (*c->p == '+' || *c->p == '-'))
			c->p++;
		if (c->p >= c->end || !is_digit(*c->p))
			return NULL;
		skip_digits(c);
	}
	n = (size_t)(c->p - s);
	if (!real) {
		/* 18 digits or fewer: within a long long */
		if (mantissa(digits, c->p, &m, &nfrac) && c->p - digits <= 18)
			return c->check ? json_null()
					: json_integer(neg ? -(json_int_t)m
							   : (json_int_t)m);
	} else {
		json_t *v = real_seen(c, s, n);

		if (v)
			return v;
		ex = e ? exponent(e, c->p) : 0;
		/* a check: a real whose magnitude is far inside a double's
		 * range is one, whatever its digits; no need to round it */
		if (c->check && ex != INT32_MAX &&
		    far_inside(digits, e ? e - 1 : c->p, ex))
			return json_null();
		if (mantissa(digits, e ? e - 1 : c->p, &m, &nfrac) &&
		    ex != INT32_MAX) {
			if (!m)
				return real_kept(c, s, n, neg ? -0.0 : 0.0);
			if (fast_real(m, ex - nfrac, &d))
				return real_kept(c, s, n, neg ? -d : d);
		}
		return slow_real(s, n, &d) ? NULL : real_kept(c, s, n, d);
	}
	if (n >= sizeof(tmp))
		return NULL;
	memcpy(tmp, s, n);
	tmp[n] = '\0';
	errno = 0;
	long long v = strtoll(tmp, &stop, 10);
	if (errno || *stop)
		return NULL;
	return c->check ? json_null() : json_integer((json_int_t)v);
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
		size_t klen, size;
		json_t *v;

		if (c->p >= c->end || *c->p != '"')
			break;
		c->p++;
		key = plain_string(c, &klen);
		if (!key)
			break;
		skip_ws(c);
		if (c->p >= c->end || *c->p != ':')
			break;
		c->p++;
		v = value(c);
		/* a name seen before replaces its member: the size tells */
		size = json_object_size(o);
		if (!v || json_object_setn_new_nocheck(o, key, klen, v) ||
		    json_object_size(o) == size)
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

/* An object walked: its names compared (a repeat is refused, as jansson
 * refuses it), its values checked. */
static json_t *object_check(struct cursor *c)
{
	struct {
		const char *key;
		size_t len;
	} seen[CHECK_MEMBERS];
	int nseen = 0, top = c->depth == 0, end;

	c->p++; /* { */
	c->depth++;
	if (closes(c, '}'))
		return json_null();
	for (;;) {
		const char *key;
		size_t klen;

		if (c->p >= c->end || *c->p != '"')
			return NULL;
		c->p++;
		key = plain_string(c, &klen);
		if (!key || nseen == CHECK_MEMBERS)
			return NULL;
		for (int i = 0; i < nseen; i++)
			if (seen[i].len == klen &&
			    !memcmp(seen[i].key, key, klen))
				return NULL;
		seen[nseen].key = key;
		seen[nseen++].len = klen;
		if (top && klen == 3 && !memcmp(key, "seq", 3))
			c->has_seq = 1;
		skip_ws(c);
		if (c->p >= c->end || *c->p != ':')
			return NULL;
		c->p++;
		if (!value(c))
			return NULL;
		end = after_item(c, '}');
		if (end)
			return end > 0 ? json_null() : NULL;
		skip_ws(c);
	}
}

static json_t *array_check(struct cursor *c)
{
	int end;

	c->p++; /* [ */
	c->depth++;
	if (closes(c, ']'))
		return json_null();
	for (;;) {
		if (!value(c))
			return NULL;
		end = after_item(c, ']');
		if (end)
			return end > 0 ? json_null() : NULL;
	}
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
		if (c->depth >= c->max_depth)
			return NULL;
		return c->check ? object_check(c) : object(c);
	case '[':
		if (c->depth >= c->max_depth)
			return NULL;
		return c->check ? array_check(c) : array(c);
	case '"':
		c->p++;
		s = plain_string(c, &n);
		if (!s)
			return NULL;
		return c->check ? json_null() : json_stringn_nocheck(s, n);
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
	struct cursor c = {.p = buf,
			   .end = buf + len,
			   .max_depth = max_depth,
			   .max_values = max_values};
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

int jsonfast_check_within(const char *buf, size_t len, unsigned int max_depth,
			  size_t max_values, int *has_seq)
{
	struct cursor c = {.p = buf,
			   .end = buf + len,
			   .max_depth = max_depth,
			   .max_values = max_values,
			   .check = 1};

	*has_seq = 0;
	skip_ws(&c);
	if (c.p >= c.end || *c.p != '{' || !value(&c))
		return 0;
	skip_ws(&c);
	*has_seq = c.has_seq;
	return c.p == c.end;
}

int jsonfast_real(const char *s, size_t n, double *d)
{
	const char *end = s + n, *p = s, *e = NULL, *digits;
	int neg = 0, nfrac = 0, ex;
	uint64_t m;

	if (p < end && *p == '-') {
		neg = 1;
		p++;
	}
	digits = p;
	for (; p < end; p++)
		if (*p == 'e' || *p == 'E') {
			e = p + 1;
			break;
		}
	ex = e && e < end ? exponent(e, end) : 0;
	if (!e || e < end) {
		if (mantissa(digits, e ? e - 1 : end, &m, &nfrac) &&
		    ex != INT32_MAX) {
			if (!m) {
				*d = neg ? -0.0 : 0.0;
				return 0;
			}
			if (fast_real(m, ex - nfrac, d)) {
				if (neg)
					*d = -*d;
				return 0;
			}
		}
	}
	return slow_real(s, n, d);
}
