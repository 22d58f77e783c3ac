/* doctext.c - the text of a run document's event arrays: the run log's own text of each event, so that the document is not serialised item by item again (rundoc_dumps) nor its items copied */
#include "doctext.h"

#include <stdlib.h>
#include <string.h>

#include "jsonlimit.h"

/* The document's arrays of worker events, as events_fold names them. */
enum { A_PLACEMENT, A_SAMPLES, A_CELLS, A_NOTES, A_MARKS, A_N };

static const char *const keys[A_N] = {"placement", "samples", "cells", "notes",
				      "marks"};

/* An item: "{" and the event's text from off (past its seq and type). */
struct item {
	const struct runlog_event *e;
	size_t off;
};

/* A summary event: where its key's text ("K", quotes and all) is, and its
 * entry's members (from "value" to the line's closing brace). */
struct sumitem {
	const struct runlog_event *e;
	size_t key_at, key_len, entry_at;
	int bounds; /* the entry has "lo" and "hi" */
};

struct doctext {
	int refs;	    /* atomic */
	struct runlog *log; /* holds the events' text */
	struct {
		struct item *v;
		size_t n, cap;
		int broken; /* an item came without its text */
	} a[A_N];
	/* the summary events, each as its line has its key and entry */
	struct {
		struct sumitem *v;
		size_t n, cap;
		int broken; /* one came otherwise than summary_entry writes */
	} sum;
	/* members of the document and their compact dumps (doctext_keep) */
	struct {
		json_t *v;
		char *text;
		size_t len;
	} kept[DOCTEXT_KEPT_MAX];
	int nkept;
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

struct doctext *doctext_new(struct runlog *log)
{
	struct doctext *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->refs = 1;
	t->log = runlog_ref(log);
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
		free(t->a[i].v);
	free(t->sum.v);
	for (int i = 0; i < t->nkept; i++) {
		json_decref(t->kept[i].v);
		free(t->kept[i].text);
	}
	runlog_unref(t->log);
	free(t);
}

void doctext_keep(struct doctext *t, json_t *v, const char *text, size_t len)
{
	char *copy;

	if (!t || !v || !text || t->nkept == DOCTEXT_KEPT_MAX ||
	    !(copy = malloc(len + 1)))
		return;
	memcpy(copy, text, len);
	copy[len] = '\0';
	t->kept[t->nkept].v = json_incref(v);
	t->kept[t->nkept].text = copy;
	t->kept[t->nkept].len = len;
	t->nkept++;
}

const char *doctext_kept(const struct doctext *t, const json_t *v, size_t *len)
{
	for (int i = t ? t->nkept - 1 : -1; i >= 0; i--)
		if (t->kept[i].v == v) {
			*len = t->kept[i].len;
			return t->kept[i].text;
		}
	return NULL;
}

/* Past s's prefix p at *at: 1, else 0. */
static int skip(const char *s, size_t len, size_t *at, const char *p)
{
	size_t k = strlen(p);

	if (*at + k > len || memcmp(s + *at, p, k))
		return 0;
	*at += k;
	return 1;
}

/*
 * Where the item's members start in e's text: past {"seq":N, (the log put
 * it first, before the worker's line) and "type":"NAME", (the line's own
 * first member); 0 when the text is not so.
 */
static size_t item_start(const struct runlog_event *e, const char *name)
{
	size_t at = 0;

	if (!skip(e->json, e->len, &at, "{\"seq\":"))
		return 0;
	while (at < e->len && e->json[at] >= '0' && e->json[at] <= '9')
		at++;
	if (!skip(e->json, e->len, &at, ",\"type\":\"") ||
	    !skip(e->json, e->len, &at, name) ||
	    !skip(e->json, e->len, &at, "\",") || at >= e->len ||
	    e->json[e->len - 1] != '}')
		return 0;
	return at;
}

/* Past a JSON string at *at (quotes and escapes): 1, else 0. */
static int skip_string(const char *s, size_t len, size_t *at)
{
	size_t i = *at;

	if (i >= len || s[i] != '"')
		return 0;
	for (i++; i < len && s[i] != '"'; i++)
		if (s[i] == '\\')
			i++;
	if (i >= len)
		return 0;
	*at = i + 1;
	return 1;
}

/* Past a number's characters at *at: 1, else 0 (none there). */
static int skip_number(const char *s, size_t len, size_t *at)
{
	size_t i = *at;

	while (i < len && strchr("-+.0123456789eE", s[i]) && s[i])
		i++;
	if (i == *at)
		return 0;
	*at = i;
	return 1;
}

/*
 * A summary event's line, as summary_entry (events.c) makes its entry:
 * after its "key", exactly a number "value", a string or null "unit",
 * and optionally a number "lo" and a number "hi", nothing else. Else 0.
 */
static int sum_parse(const struct runlog_event *e, struct sumitem *it)
{
	const char *s = e->json;
	size_t len = e->len, at = item_start(e, "summary");

	it->e = e;
	if (!at || !skip(s, len, &at, "\"key\":"))
		return 0;
	it->key_at = at;
	if (!skip_string(s, len, &at))
		return 0;
	it->key_len = at - it->key_at;
	if (!skip(s, len, &at, ","))
		return 0;
	it->entry_at = at;
	if (!skip(s, len, &at, "\"value\":") || !skip_number(s, len, &at) ||
	    !skip(s, len, &at, ",\"unit\":") ||
	    !(skip(s, len, &at, "null") || skip_string(s, len, &at)))
		return 0;
	it->bounds = skip(s, len, &at, ",\"lo\":");
	if (it->bounds &&
	    (!skip_number(s, len, &at) || !skip(s, len, &at, ",\"hi\":") ||
	     !skip_number(s, len, &at)))
		return 0;
	return at == len - 1 && s[at] == '}';
}

void doctext_add_summary(struct doctext *t, const struct runlog_event *e,
			 int canonical)
{
	struct sumitem it;

	if (!t || t->sum.broken)
		return;
	if (t->sum.n == t->sum.cap) {
		size_t cap = t->sum.cap ? 2 * t->sum.cap : 16;
		struct sumitem *v = realloc(t->sum.v, cap * sizeof(*v));
		if (v) {
			t->sum.v = v;
			t->sum.cap = cap;
		}
	}
	if (!canonical || !e || t->sum.n == t->sum.cap || !sum_parse(e, &it)) {
		t->sum.broken = 1;
		return;
	}
	t->sum.v[t->sum.n++] = it;
}

int doctext_write_summary(const struct doctext *t, json_t *summary,
			  struct strbuf *out)
{
	const char *key;
	json_t *v;
	size_t i = 0;

	/* as many events as keys: each key came once, in the order kept */
	if (!t || t->sum.broken || !json_is_object(summary) ||
	    json_object_size(summary) != t->sum.n)
		return 0;
	json_object_foreach (summary, key, v) {
		const struct sumitem *it = &t->sum.v[i++];
		size_t klen = strlen(key);

		if (it->key_len != klen + 2 ||
		    memcmp(it->e->json + it->key_at + 1, key, klen) ||
		    json_object_size(v) != (it->bounds ? 4u : 2u))
			return 0;
	}
	strbuf_addch(out, '{');
	for (i = 0; i < t->sum.n; i++) {
		const struct sumitem *it = &t->sum.v[i];

		if (i)
			strbuf_addch(out, ',');
		strbuf_add(out, it->e->json + it->key_at, it->key_len);
		strbuf_add(out, ":{", 2);
		strbuf_add(out, it->e->json + it->entry_at,
			   it->e->len - it->entry_at);
	}
	strbuf_addch(out, '}');
	return !out->oom;
}

int doctext_keeps(const struct doctext *t, enum event_type type)
{
	int k = array_of(type);

	return t && k >= 0 && !t->a[k].broken;
}

int doctext_try_add(struct doctext *t, enum event_type type,
		    const struct runlog_event *e, int canonical)
{
	int k = array_of(type);
	size_t off;

	if (!doctext_keeps(t, type))
		return -1;
	/* the item is the line less its leading "type" member: jansson keeps
	 * an object's members in the order they came */
	off = canonical && e ? item_start(e, event_kinds[type].name) : 0;
	if (!off)
		return -1;
	if (t->a[k].n == t->a[k].cap) {
		size_t cap = t->a[k].cap ? 2 * t->a[k].cap : 64;
		struct item *v = realloc(t->a[k].v, cap * sizeof(*v));
		if (!v)
			return -1;
		t->a[k].v = v;
		t->a[k].cap = cap;
	}
	t->a[k].v[t->a[k].n++] = (struct item){e, off};
	return 0;
}

void doctext_break(struct doctext *t, enum event_type type)
{
	int k = array_of(type);

	if (!t || k < 0)
		return;
	t->a[k].broken = 1;
	free(t->a[k].v);
	t->a[k].v = NULL;
	t->a[k].n = t->a[k].cap = 0;
}

void doctext_add(struct doctext *t, enum event_type type,
		 const struct runlog_event *e, int canonical)
{
	if (type == EV_SUMMARY)
		doctext_add_summary(t, e, canonical);
	if (array_of(type) >= 0 && doctext_try_add(t, type, e, canonical))
		doctext_break(t, type);
}

const char *doctext_item(const void *ctx, const char *array, size_t i,
			 size_t *len)
{
	const struct doctext *t = ctx;

	for (int k = 0; t && k < A_N; k++) {
		const struct item *it;

		if (strcmp(array, keys[k]))
			continue;
		if (t->a[k].broken || i >= t->a[k].n)
			return NULL;
		it = &t->a[k].v[i];
		*len = it->e->len - it->off;
		return it->e->json + it->off;
	}
	return NULL;
}

json_t *doctext_filled(const struct doctext *t, enum event_type type,
		       json_t *arr)
{
	static const struct jsonlimit stored = {.depth =
							JSONLIMIT_DEPTH_STORED};
	int k = array_of(type);
	json_t *out = json_array(), *v;
	struct strbuf sb = STRBUF_INIT;
	size_t i;

	if (!out || k < 0 || !json_is_array(arr))
		goto fail;
	json_array_foreach (arr, i, v) {
		if (!json_is_null(v)) {
			if (json_array_append(out, v))
				goto fail;
			continue;
		}
		/* a placeholder: its item is kept as text */
		if (!t || t->a[k].broken || i >= t->a[k].n)
			goto fail;
		const struct item *it = &t->a[k].v[i];
		strbuf_reset(&sb);
		strbuf_addch(&sb, '{');
		strbuf_add(&sb, it->e->json + it->off, it->e->len - it->off);
		if (sb.oom)
			goto fail;
		v = jsonlimit_load(sb.buf, sb.len, 0, &stored, NULL, NULL, 0);
		if (!v || json_array_append_new(out, v))
			goto fail;
	}
	strbuf_release(&sb);
	return out;
fail:
	strbuf_release(&sb);
	json_decref(out);
	return NULL;
}

/* The document's arrays of worker events, and their events' types. */
static const enum event_type array_types[A_N] = {EV_PLACEMENT, EV_SAMPLE,
						 EV_CELL, EV_NOTE, EV_MARK};

static int has_unread(json_t *arr)
{
	json_t *v;
	size_t i;

	json_array_foreach (arr, i, v)
		if (json_is_null(v))
			return 1;
	return 0;
}

int doctext_has_unread(json_t *doc)
{
	for (int k = 0; k < A_N; k++)
		if (has_unread(json_object_get(doc, keys[k])))
			return 1;
	return 0;
}

json_t *doctext_values(const struct doctext *t, json_t *doc)
{
	json_t *out;

	if (!doctext_has_unread(doc))
		return json_incref(doc);
	out = json_copy(doc);
	for (int k = 0; out && k < A_N; k++) {
		json_t *arr = json_object_get(doc, keys[k]), *filled;

		if (!has_unread(arr))
			continue;
		filled = doctext_filled(t, array_types[k], arr);
		if (!filled || json_object_set_new(out, keys[k], filled)) {
			json_decref(out);
			out = NULL;
		}
	}
	return out;
}

int doctext_write(const struct doctext *t, const char *name, size_t n,
		  struct strbuf *out)
{
	for (int k = 0; t && k < A_N; k++) {
		if (strcmp(name, keys[k]))
			continue;
		if (t->a[k].broken || t->a[k].n != n)
			return 0;
		strbuf_addch(out, '[');
		for (size_t i = 0; i < n; i++) {
			const struct item *it = &t->a[k].v[i];
			strbuf_add(out, i ? ",{" : "{", i ? 2 : 1);
			strbuf_add(out, it->e->json + it->off,
				   it->e->len - it->off);
		}
		strbuf_addch(out, ']');
		return 1;
	}
	return 0;
}
