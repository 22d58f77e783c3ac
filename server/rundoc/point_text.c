/* point_text.c - a sample's point read from the text the runner keeps of it, without a tree */
#include "point_text.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "jsonfast.h"

/*
 * The runner keeps a sample as the worker's line once a walk found it
 * plain JSON (jsonfast's check: strings of printable ASCII without
 * escapes, no repeated names). This reads such a text in place: only
 * the members a description weighs, every other value stepped over.
 * Anything else it meets (an escape, a byte it does not expect) gives -1
 * and the caller parses the item.
 */
#define SEEN 4 /* the last reals read, by their text */

struct seen {
	const char *at;
	size_t len;
	double value;
};

struct walk {
	const char *p, *end;
	struct seen seen[SEEN];
	int next;
};

static void ws(struct walk *w)
{
	while (w->p < w->end && (*w->p == ' ' || *w->p == '\t' ||
				 *w->p == '\n' || *w->p == '\r'))
		w->p++;
}

/* Past c (after white space): 1, else 0. */
static int eat(struct walk *w, char c)
{
	ws(w);
	if (w->p < w->end && *w->p == c) {
		w->p++;
		return 1;
	}
	return 0;
}

/* A plain string at w (its opening quote): its bytes; NULL if not plain. */
static const char *plain(struct walk *w, size_t *n)
{
	return eat(w, '"') ? jsonfast_plain(&w->p, w->end, n) : NULL;
}

/* What ends a number or a literal. */
static int ends_value(char c)
{
	return c == ',' || c == ']' || c == '}' || c == ':' || c == ' ' ||
	       c == '\t' || c == '\r' || c == '\n';
}

/* Steps over one value; -1 when it is not one this reads. */
static int skip(struct walk *w)
{
	int depth = 0;
	size_t n;

	ws(w);
	do {
		if (w->p >= w->end)
			return -1;
		switch (*w->p) {
		case '{':
		case '[':
			depth++;
			w->p++;
			break;
		case '}':
		case ']':
			if (--depth < 0)
				return -1;
			w->p++;
			break;
		case '"':
			if (!plain(w, &n))
				return -1;
			break;
		case ',':
		case ':':
			if (!depth)
				return -1;
			w->p++;
			break;
		default:
			/* a number or a literal: up to what ends it */
			while (w->p < w->end && !ends_value(*w->p))
				w->p++;
			break;
		}
		ws(w);
	} while (depth);
	return 0;
}

/* A number's value when the value at w is one: 1 (integer: *integer set),
 * 0 when it is another kind of value (stepped over), -1 on anything
 * else. A real read before from the same text (a sample repeats its
 * value in its stats) is not read again. */
static int number(struct walk *w, double *d, long long *integer, int *is_int)
{
	const char *s;
	char tmp[32], *stop;
	size_t n;

	ws(w);
	s = w->p;
	if (w->p >= w->end || !(*w->p == '-' || (*w->p >= '0' && *w->p <= '9')))
		return skip(w) ? -1 : 0;
	*is_int = 1;
	for (; w->p < w->end; w->p++) {
		char c = *w->p;
		if (c == '.' || c == 'e' || c == 'E')
			*is_int = 0;
		else if (!(c >= '0' && c <= '9') && c != '-' && c != '+')
			break;
	}
	n = (size_t)(w->p - s);
	if (!*is_int) {
		for (int i = 0; i < SEEN; i++)
			if (w->seen[i].len == n &&
			    !memcmp(w->seen[i].at, s, n)) {
				*d = w->seen[i].value;
				return 1;
			}
		if (jsonfast_real(s, n, d))
			return -1;
		w->seen[w->next] = (struct seen){s, n, *d};
		w->next = (w->next + 1) % SEEN;
		return 1;
	}
	if (n >= sizeof(tmp))
		return -1;
	memcpy(tmp, s, n);
	tmp[n] = '\0';
	errno = 0;
	*integer = strtoll(tmp, &stop, 10);
	*d = (double)*integer;
	return errno || *stop ? -1 : 1;
}

/* A string value copied into ps: 1, 0 when the value is not a string
 * (stepped over), -1 on anything else. */
static int string(struct walk *w, struct point_store *ps, const char **out)
{
	const char *s;
	size_t n;

	ws(w);
	if (w->p >= w->end || *w->p != '"')
		return skip(w) ? -1 : 0;
	s = plain(w, &n);
	if (!s || ps->slen + n + 1 > ps->scap)
		return -1;
	memcpy(ps->strings + ps->slen, s, n);
	ps->strings[ps->slen + n] = '\0';
	*out = ps->strings + ps->slen;
	ps->slen += n + 1;
	return 1;
}

/* The next member's name (after '{' or the ',' before it): 1; 0 at the
 * object's end; -1 on anything else. */
static int member(struct walk *w, const char **name, size_t *n, int first)
{
	ws(w);
	if (eat(w, '}'))
		return 0;
	if (!first && !eat(w, ','))
		return -1;
	*name = plain(w, n);
	return *name && eat(w, ':') ? 1 : -1;
}

/* name (n bytes) is the literal lit: its length known when compiled, so
 * the compare is a few instructions, not a call */
#define IS(name, n, lit)                                                       \
	((n) == sizeof(lit) - 1 && !memcmp((name), (lit), sizeof(lit) - 1))

/* The stats members a description reads (as reals), in struct stats' order. */
static const char *const stat_names[] = {"ci_lo", "ci_hi", "min", "max"};
#define NSTATS (sizeof(stat_names) / sizeof(stat_names[0]))

struct stats {
	double v[NSTATS];
	int has[NSTATS];
	int n;
};

/* The stats object's members (w just past its '{'): 0 or -1. */
static int stats(struct walk *w, struct stats *st)
{
	const char *name;
	size_t n, k;
	int rc, is_int;
	long long iv;
	double d;

	for (int first = 1; (rc = member(w, &name, &n, first)) > 0; first = 0) {
		for (k = 0; k < NSTATS; k++)
			if (!strncmp(name, stat_names[k], n) &&
			    !stat_names[k][n])
				break;
		if (k < NSTATS) {
			rc = number(w, &st->v[k], &iv, &is_int);
			st->has[k] = rc > 0;
		} else if (IS(name, n, "n")) {
			rc = number(w, &d, &iv, &is_int);
			if (rc > 0 && is_int && iv >= INT_MIN && iv <= INT_MAX)
				st->n = (int)iv;
		} else {
			rc = skip(w);
		}
		if (rc < 0)
			return -1;
	}
	return rc;
}

/* The extra object's numbers into ps (w just past its '{'): 0 or -1. */
static int extras(struct walk *w, struct result_point *p,
		  struct point_store *ps)
{
	const char *name;
	size_t n;
	int rc, is_int;
	long long iv;
	double d;

	for (int first = 1; (rc = member(w, &name, &n, first)) > 0; first = 0) {
		rc = number(w, &d, &iv, &is_int);
		if (rc < 0 || ps->slen + n + 1 > ps->scap)
			return -1;
		if (!rc)
			continue;
		if (ps->nx >= ps->xcap)
			return -1;
		memcpy(ps->strings + ps->slen, name, n);
		ps->strings[ps->slen + n] = '\0';
		ps->keys[ps->nx] = ps->strings + ps->slen;
		ps->vals[ps->nx++] = d;
		ps->slen += n + 1;
		p->nextra++;
	}
	return rc;
}

/* One member of the point (its name read): 0 or -1. */
static int point_member(struct walk *w, const char *name, size_t n,
			struct result_point *p, struct stats *st,
			struct point_store *ps, int *has_x, int *has_y)
{
	long long iv;
	int is_int;

	if (IS(name, n, "chart"))
		return string(w, ps, &p->chart) < 0 ? -1 : 0;
	if (IS(name, n, "series"))
		return string(w, ps, &p->series) < 0 ? -1 : 0;
	if (IS(name, n, "x_label"))
		return string(w, ps, &p->x_label) < 0 ? -1 : 0;
	if (IS(name, n, "unit"))
		return string(w, ps, &p->unit) < 0 ? -1 : 0;
	if (IS(name, n, "x"))
		return (*has_x = number(w, &p->x, &iv, &is_int)) < 0 ? -1 : 0;
	if (IS(name, n, "y"))
		return (*has_y = number(w, &p->y, &iv, &is_int)) < 0 ? -1 : 0;
	if (IS(name, n, "stats")) {
		ws(w);
		if (w->p < w->end && *w->p == '{') {
			w->p++;
			return stats(w, st);
		}
		return skip(w);
	}
	if (IS(name, n, "extra")) {
		ws(w);
		if (w->p < w->end && *w->p == '{') {
			w->p++;
			p->extra_keys = ps->keys + ps->nx;
			p->extra_vals = ps->vals + ps->nx;
			return extras(w, p, ps);
		}
		return skip(w);
	}
	return skip(w);
}

int point_from_text(const char *s, size_t len, struct result_point *p,
		    struct point_store *ps)
{
	struct walk w = {.p = s, .end = s + len};
	struct stats st = {.n = 1};
	size_t slen = ps->slen, nx = ps->nx;
	const char *name;
	size_t n;
	int rc, has_x = 0, has_y = 0;

	memset(p, 0, sizeof(*p));
	p->extra_keys = ps->keys + ps->nx;
	p->extra_vals = ps->vals + ps->nx;
	/* the members after the type: the first comes without a comma */
	for (int first = 1; (rc = member(&w, &name, &n, first)) > 0; first = 0)
		if (point_member(&w, name, n, p, &st, ps, &has_x, &has_y))
			break;
	ws(&w);
	if (rc || w.p != w.end) {
		ps->slen = slen;
		ps->nx = nx;
		return -1;
	}
	if (!p->chart)
		p->chart = "";
	if (!p->series)
		p->series = "";
	if (has_x <= 0)
		p->x = NAN;
	if (has_y <= 0)
		p->y = NAN;
	p->ci_lo = st.has[0] ? st.v[0] : p->y;
	p->ci_hi = st.has[1] ? st.v[1] : p->y;
	p->min = st.has[2] ? st.v[2] : p->y;
	p->max = st.has[3] ? st.v[3] : p->y;
	p->n = st.n;
	return 0;
}

size_t point_text_members(const char *s, size_t len)
{
	const char *end = s + len;
	size_t n = 0;

	while ((s = memchr(s, ':', (size_t)(end - s)))) {
		n++;
		s++;
	}
	return n;
}

int point_store_init(struct point_store *ps, size_t string_bytes, size_t extras)
{
	memset(ps, 0, sizeof(*ps));
	ps->strings = malloc(string_bytes + 1);
	ps->keys = calloc(extras + 1, sizeof(*ps->keys));
	ps->vals = calloc(extras + 1, sizeof(*ps->vals));
	if (!ps->strings || !ps->keys || !ps->vals) {
		point_store_free(ps);
		return -ENOMEM;
	}
	ps->scap = string_bytes + 1;
	ps->xcap = extras + 1;
	return 0;
}

void point_store_free(struct point_store *ps)
{
	free(ps->strings);
	free(ps->keys);
	free(ps->vals);
	memset(ps, 0, sizeof(*ps));
}
