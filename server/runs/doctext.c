/* doctext.c - the text of a run document's event arrays, kept as the worker wrote it, so that the document is not serialised item by item again (rundoc_dumps) */
#include "doctext.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strbuf.h"

/* The document's arrays of worker events, as events_fold names them. */
enum { A_PLACEMENT, A_SAMPLES, A_CELLS, A_NOTES, A_MARKS, A_N };

static const char *const keys[A_N] = {"placement", "samples", "cells", "notes",
				      "marks"};

struct doctext {
	int refs; /* atomic */
	struct {
		struct strbuf text; /* the items, comma-separated */
		size_t n;
		int broken; /* an item came without its text */
	} a[A_N];
};

static int array_of(enum event_type type)
{
	switch (type) {
	case EV_PLACEMENT:
		return A_PLACEMENT;
	case EV_SAMPLE:
		return A_SAMPLES;
	case EV_CELL:
		return A_CELLS;
	case EV_NOTE:
		return A_NOTES;
	case EV_MARK:
		return A_MARKS;
	default:
		return -1;
	}
}

struct doctext *doctext_new(void)
{
	struct doctext *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->refs = 1;
	for (int i = 0; i < A_N; i++)
		strbuf_init(&t->a[i].text);
	return t;
}

struct doctext *doctext_ref(struct doctext *t)
{
	if (t)
		__atomic_add_fetch(&t->refs, 1, __ATOMIC_RELAXED);
	return t;
}

void doctext_unref(struct doctext *t)
{
	if (!t || __atomic_sub_fetch(&t->refs, 1, __ATOMIC_ACQ_REL))
		return;
	for (int i = 0; i < A_N; i++)
		strbuf_release(&t->a[i].text);
	free(t);
}

void doctext_add(struct doctext *t, enum event_type type, const char *line,
		 size_t len, int canonical)
{
	int k = array_of(type);
	char head[32];
	size_t n;

	if (!t || k < 0 || t->a[k].broken)
		return;
	/* the item is the line less its leading "type" member: jansson keeps
	 * an object's members in the order they came */
	n = (size_t)snprintf(head, sizeof(head), "{\"type\":\"%s\",",
			     event_kinds[type].name);
	if (!canonical || len <= n || memcmp(line, head, n) ||
	    line[len - 1] != '}') {
		t->a[k].broken = 1;
		strbuf_release(&t->a[k].text);
		return;
	}
	if (t->a[k].n)
		strbuf_addch(&t->a[k].text, ',');
	strbuf_addch(&t->a[k].text, '{');
	strbuf_add(&t->a[k].text, line + n, len - n);
	t->a[k].n++;
}

const char *doctext_items(const struct doctext *t, const char *name,
			  size_t *len, size_t *n)
{
	for (int k = 0; t && k < A_N; k++)
		if (!strcmp(name, keys[k])) {
			if (t->a[k].broken || t->a[k].text.oom)
				return NULL;
			*len = t->a[k].text.len;
			*n = t->a[k].n;
			return t->a[k].text.buf;
		}
	return NULL;
}
