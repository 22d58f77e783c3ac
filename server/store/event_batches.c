/* event_batches.c - a run's events as the store keeps them: a row a batch, an event's text a line */
#include "event_batches.h"
#include "store_internal.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "jsonlimit.h"
#include "strbuf.h"

/* what the server wrote itself: a client's document inside its envelopes */
static const struct jsonlimit stored = {.depth = JSONLIMIT_DEPTH_STORED};

/* One row: ev[0..n), consecutive, their texts joined in buf. */
static int insert_row(struct store *st, int64_t id,
		      const struct runlog_event *const *ev, int n,
		      struct strbuf *buf)
{
	sqlite3_stmt *s = store_kept(st, KEPT_INSERT_BATCH);
	int rc = 0;

	if (!s)
		return -EIO;
	strbuf_reset(buf);
	for (int i = 0; i < n; i++) {
		if (i)
			strbuf_addch(buf, '\n');
		strbuf_add(buf, ev[i]->json, ev[i]->len);
	}
	if (buf->oom) {
		store_kept_done(s);
		return -ENOMEM;
	}
	/* buf->len fits: a row is EVENT_BATCH_BYTES, or one event's text */
	sqlite3_bind_int64(s, 1, id);
	sqlite3_bind_int64(s, 2, ev[0]->seq);
	sqlite3_bind_int64(s, 3, ev[n - 1]->seq);
	sqlite3_bind_text(s, 4, buf->buf, (int)buf->len, SQLITE_STATIC);
	if (sqlite3_step(s) != SQLITE_DONE)
		rc = -EIO;
	store_kept_done(s);
	return rc;
}

/* Whether ev[i] starts a new row after ev[from..i), bytes long so far. */
static int new_row(const struct runlog_event *const *ev, int from, int i,
		   size_t bytes)
{
	return i > from && (ev[i]->seq != ev[i - 1]->seq + 1 ||
			    bytes + 1 + ev[i]->len > EVENT_BATCH_BYTES);
}

int event_batches_rows(const struct runlog_event *const *ev, int n)
{
	int rows = n > 0, from = 0;
	size_t bytes = 0;

	for (int i = 0; i < n; i++) {
		if (new_row(ev, from, i, bytes)) {
			rows++;
			from = i;
			bytes = 0;
		}
		bytes += (i > from) + ev[i]->len;
	}
	return rows;
}

int event_batches_insert(struct store *st, int64_t id,
			 const struct runlog_event *const *ev, int n)
{
	struct strbuf buf = STRBUF_INIT;
	int rc = 0, from = 0;
	size_t bytes = 0;

	for (int i = 0; i < n; i++)
		if (memchr(ev[i]->json, '\n', ev[i]->len))
			return -EINVAL;
	for (int i = 0; i < n && !rc; i++) {
		if (new_row(ev, from, i, bytes)) {
			rc = insert_row(st, id, ev + from, i - from, &buf);
			from = i;
			bytes = 0;
		}
		bytes += (i > from) + ev[i]->len;
	}
	if (!rc && n > from)
		rc = insert_row(st, id, ev + from, n - from, &buf);
	strbuf_release(&buf);
	return rc;
}

int event_batches_each(const char *data, size_t len, int64_t first,
		       int64_t last, int64_t after,
		       int (*fn)(void *arg, int64_t seq, const char *text,
				 size_t len),
		       void *arg)
{
	const char *p = data, *end = data + len;
	int64_t seq = first;

	if (!data || last < first)
		return -EIO;
	for (;;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *stop = nl ? nl : end;
		int rc;

		if (seq > last)
			return -EIO; /* more lines than the row says */
		if (seq > after) {
			rc = fn(arg, seq, p, (size_t)(stop - p));
			if (rc)
				return rc;
		}
		if (!nl)
			break;
		if (seq >= last)
			return -EIO; /* more lines than the row says */
		p = nl + 1;
		seq++;
	}
	return seq == last ? 0 : -EIO;
}

/* Past the literal lit at *at of s: 1, else 0. */
static int skip(const char *s, size_t len, size_t *at, const char *lit)
{
	size_t k = strlen(lit);

	if (*at + k > len || memcmp(s + *at, lit, k))
		return 0;
	*at += k;
	return 1;
}

int event_text_type(const char *text, size_t len, char *type, size_t size)
{
	size_t at = 0, from;
	json_t *ev;
	int ok;
	const char *t;

	/* {"seq":N,"type":"NAME", as the run log writes a worker's line */
	if (skip(text, len, &at, "{\"seq\":")) {
		while (at < len && text[at] >= '0' && text[at] <= '9')
			at++;
		if (skip(text, len, &at, ",\"type\":\"")) {
			from = at;
			while (at < len && text[at] != '"' &&
			       text[at] != '\\' &&
			       (unsigned char)text[at] >= 0x20)
				at++;
			if (at < len && text[at] == '"' && at > from) {
				size_t n =
					at - from < size ? at - from : size - 1;
				memcpy(type, text + from, n);
				type[n] = '\0';
				return 0;
			}
		}
	}
	ev = jsonlimit_load(text, len, 0, &stored, NULL, NULL, 0);
	t = json_string_value(json_object_get(ev, "type"));
	ok = t && *t;
	if (ok)
		snprintf(type, size, "%s", t);
	json_decref(ev);
	return ok ? 0 : -EIO;
}
