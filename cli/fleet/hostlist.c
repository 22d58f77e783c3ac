/* hostlist.c - Slurm's host-list syntax (n[1-8],lab[01-30]) expanded to names */
#include "hostlist.h"

#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "strbuf.h"

#define NAME_MAX_LEN 255

/*
 * The names this call has added, hashed (open addressing, indices into
 * out->v), so that dropping a duplicate costs O(1), not a scan of every
 * name so far: n[1-65536] is linear.
 */
struct seen {
	size_t *slot; /* index in out->v + 1; 0: empty */
	size_t cap;   /* a power of two, kept over twice the names */
};

static uint64_t hash(const char *s)
{
	uint64_t h = 1469598103934665603ull; /* FNV-1a */

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

static size_t *seen_slot(struct seen *t, const struct strvec *out,
			 const char *name)
{
	size_t i = (size_t)hash(name) & (t->cap - 1);

	while (t->slot[i] && strcmp(out->v[t->slot[i] - 1], name))
		i = (i + 1) & (t->cap - 1);
	return &t->slot[i];
}

static int seen_grow(struct seen *t, const struct strvec *out, size_t from)
{
	struct seen bigger = {NULL, t->cap ? t->cap * 2 : 64};

	bigger.slot = calloc(bigger.cap, sizeof(*bigger.slot));
	if (!bigger.slot)
		return -ENOMEM;
	for (size_t i = from; i < out->n; i++)
		*seen_slot(&bigger, out, out->v[i]) = i + 1;
	free(t->slot);
	*t = bigger;
	return 0;
}

/* The end of the item starting at s: the first ',' outside brackets. */
static const char *item_end(const char *s)
{
	int depth = 0;

	for (; *s; s++) {
		if (*s == '[')
			depth++;
		else if (*s == ']')
			depth--;
		else if (*s == ',' && depth == 0)
			break;
	}
	return s;
}

static int parse_bound(const char **p, const char *end, unsigned long *v,
		       int *width)
{
	const char *s = *p;
	char *stop;

	if (s >= end || !isdigit((unsigned char)*s))
		return -1;
	*width = 0;
	while (s + *width < end && isdigit((unsigned char)s[*width]))
		(*width)++;
	if (*width > 9)
		return -1;
	*v = strtoul(s, &stop, 10);
	*p = s + *width;
	return 0;
}

struct expand {
	struct strvec *out;
	size_t first; /* where this call's names start, for duplicates */
	struct seen seen;
	size_t made; /* names made, repeats included: the work done */
	struct errinfo *err;
	const char *item; /* for messages */
	int item_len;
};

/* Expands the item's text from s to end after prefix. */
static int expand(struct expand *x, struct strbuf *prefix, const char *s,
		  const char *end)
{
	const char *open = memchr(s, '[', (size_t)(end - s));
	const char *close, *r;
	size_t keep = prefix->len;
	int rc = 0;

	if (!open) {
		strbuf_add(prefix, s, (size_t)(end - s));
		if (memchr(s, ']', (size_t)(end - s)))
			rc = errinfo_set(x->err, "nodes",
					 "unbalanced ']' in '%.*s'",
					 x->item_len, x->item);
		else if (prefix->len > NAME_MAX_LEN)
			rc = errinfo_set(
				x->err, "nodes",
				"a name in '%.*s' is longer than %d characters",
				x->item_len, x->item, NAME_MAX_LEN);
		else if (x->out->n - x->first >= HOSTLIST_MAX ||
			 ++x->made > HOSTLIST_MAX)
			rc = errinfo_set(x->err, "nodes",
					 "'%.*s' names more than %d hosts",
					 x->item_len, x->item, HOSTLIST_MAX);
		else if (2 * (x->out->n - x->first + 1) > x->seen.cap &&
			 seen_grow(&x->seen, x->out, x->first))
			rc = -ENOMEM;
		else {
			size_t *slot =
				seen_slot(&x->seen, x->out, strbuf_str(prefix));
			if (!*slot) {
				strvec_push(x->out, strbuf_str(prefix));
				if (x->out->oom)
					rc = -ENOMEM;
				else
					*slot = x->out->n;
			}
		}
		strbuf_trim_end(prefix, prefix->len - keep);
		return rc;
	}
	close = memchr(open, ']', (size_t)(end - open));
	if (!close || memchr(open + 1, '[', (size_t)(close - open - 1)))
		return errinfo_set(x->err, "nodes", "unbalanced '[' in '%.*s'",
				   x->item_len, x->item);
	if (memchr(s, ']', (size_t)(open - s)))
		return errinfo_set(x->err, "nodes", "unbalanced ']' in '%.*s'",
				   x->item_len, x->item);
	if (close == open + 1)
		return errinfo_set(x->err, "nodes",
				   "'%.*s' has a range that is not numbers "
				   "(allowed: [1-8], [01-30], [1,3,5-7])",
				   x->item_len, x->item);
	strbuf_add(prefix, s, (size_t)(open - s));
	for (r = open + 1; r < close && !rc;) {
		const char *lo_text = r;
		unsigned long lo = 0, hi = 0;
		int wlo = 0, whi = 0, width;

		if (parse_bound(&r, close, &lo, &wlo) ||
		    (r < close && *r == '-' &&
		     (r++, parse_bound(&r, close, &hi, &whi))) ||
		    (r < close && *r != ',')) {
			rc = errinfo_set(
				x->err, "nodes",
				"'%.*s' has a range that is not numbers "
				"(allowed: [1-8], [01-30], [1,3,5-7])",
				x->item_len, x->item);
			break;
		}
		if (r == lo_text + wlo)
			hi = lo;
		if (r < close)
			r++;
		if (hi < lo) {
			rc = errinfo_set(
				x->err, "nodes",
				"range '%lu-%lu' in '%.*s' goes backwards", lo,
				hi, x->item_len, x->item);
			break;
		}
		if (hi - lo >= HOSTLIST_MAX) {
			rc = errinfo_set(x->err, "nodes",
					 "'%.*s' names more than %d hosts",
					 x->item_len, x->item, HOSTLIST_MAX);
			break;
		}
		/* "01-30" pads to two digits; "1-30" does not pad */
		width = lo_text[0] == '0' ? wlo : 0;
		for (unsigned long v = lo; v <= hi && !rc; v++) {
			size_t k = prefix->len;
			strbuf_addf(prefix, "%0*lu", width, v);
			rc = expand(x, prefix, close + 1, end);
			strbuf_trim_end(prefix, prefix->len - k);
		}
	}
	strbuf_trim_end(prefix, prefix->len - keep);
	return rc;
}

int hostlist_expand(const char *text, struct strvec *out, struct errinfo *err)
{
	struct strbuf prefix = STRBUF_INIT;
	const char *s = text, *e;
	struct expand x = {out, out->n, {NULL, 0}, 0, err, NULL, 0};
	int rc = 0;

	errinfo_clear(err);
	if (!text || !*text)
		return errinfo_set(
			err, "nodes",
			"empty host list (give names such as 'n[1-8]' or 'lab01,lab02')");
	for (; !rc; s = e + 1) {
		e = item_end(s);
		x.item = s;
		x.item_len = (int)(e - s);
		if (e == s)
			rc = errinfo_set(err, "nodes",
					 "empty name in host list '%s'", text);
		else {
			for (const char *c = s; c < e && !rc; c++)
				if (isspace((unsigned char)*c) || *c == '/')
					rc = errinfo_set(
						err, "nodes",
						"'%.*s' is not a host name (no spaces or '/')",
						x.item_len, x.item);
			if (!rc)
				rc = expand(&x, &prefix, s, e);
		}
		if (!*e)
			break;
	}
	strbuf_release(&prefix);
	free(x.seen.slot);
	return rc;
}
