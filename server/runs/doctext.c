/* doctext.c - the text of a run document's event arrays, kept as the worker wrote it, so that the document is not serialised item by item again (rundoc_dumps) */
#include "doctext.h"

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
	/* the document's summary, and its compact dump, once the run ended */
	json_t *summary;
	char *summary_text;
	size_t summary_len;
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
	json_decref(t->summary);
	free(t->summary_text);
	free(t);
}

void doctext_keep_summary(struct doctext *t, json_t *summary, const char *text,
			  size_t len)
{
	char *copy;

	if (!t || t->summary || !summary || !(copy = malloc(len + 1)))
		return;
	memcpy(copy, text, len);
	copy[len] = '\0';
	t->summary = json_incref(summary);
	t->summary_text = copy;
	t->summary_len = len;
}

const char *doctext_summary(const struct doctext *t, const json_t *summary,
			    size_t *len)
{
	if (!t || !t->summary || t->summary != summary)
		return NULL;
	*len = t->summary_len;
	return t->summary_text;
}

/* Whether line starts with {"type":"NAME", for the type's name. */
static size_t typed_head(const char *line, size_t len, const char *name)
{
	static const char open[] = "{\"type\":\"";
	size_t o = sizeof(open) - 1, k = strlen(name);

	if (len <= o + k + 2 || memcmp(line, open, o) ||
	    memcmp(line + o, name, k) || memcmp(line + o + k, "\",", 2))
		return 0;
	return o + k + 2;
}

void doctext_add(struct doctext *t, enum event_type type, const char *line,
		 size_t len, int canonical)
{
	int k = array_of(type);
	size_t n;

	if (!t || k < 0 || t->a[k].broken)
		return;
	/* the item is the line less its leading "type" member: jansson keeps
	 * an object's members in the order they came */
	n = canonical ? typed_head(line, len, event_kinds[type].name) : 0;
	if (!n || line[len - 1] != '}') {
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
