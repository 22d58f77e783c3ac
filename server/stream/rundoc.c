/* rundoc.c - a run as the API serves it: its events and its document */
#include "rundoc.h"
#include "describe_doc.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "events.h"
#include "guesses.h"
#include "http_response.h"
#include "jsondump.h"
#include "jsonlimit.h"
#include "logshare.h"
#include "strbuf.h"

/* what the server wrote itself: a client's document inside its envelopes */
static const struct jsonlimit stored = {.depth = JSONLIMIT_DEPTH_STORED};

struct runlog *rundoc_events(struct store *store, struct runner *runner,
			     int64_t id, int64_t after, struct run_state *st,
			     int *in_memory)
{
	struct runlog *log = NULL;

	(void)after; /* a stored run's events are shared whole */
	*in_memory = !runner_lookup(runner, id, st, &log);
	if (log)
		return log;
	return logshare_stored(store, id);
}

static int is_empty(json_t *v)
{
	return !v || json_is_null(v) ||
	       (json_is_object(v) && json_object_size(v) == 0);
}

static void set_str(json_t *doc, const char *key, const char *v)
{
	json_object_set_new(doc, key, v && *v ? json_string(v) : json_null());
}

/* The run row's fields over the folded events. */
static void merge_row(json_t *doc, json_t *row)
{
	static const char *const fields[] = {
		"id",	      "experiment",  "status", "created_at",
		"started_at", "finished_at", "error",  "request"};
	/* a run that never started has no start event: the row has them */
	static const char *const fallback[] = {"params", "machine", "summary",
					       "headline"};

	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		json_object_set(doc, fields[i],
				json_object_get(row, fields[i]));
	for (size_t i = 0; i < sizeof(fallback) / sizeof(fallback[0]); i++)
		if (is_empty(json_object_get(doc, fallback[i])))
			json_object_set(doc, fallback[i],
					json_object_get(row, fallback[i]));
	if (!json_object_get(doc, "headline"))
		json_object_set_new(doc, "headline", json_null());
	/* a run with no values yet has an empty summary, as the schema says;
	 * its machine stays null until one measured it */
	if (!json_is_object(json_object_get(doc, "summary")))
		json_object_set_new(doc, "summary", json_object());
}

/*
 * The events folded: the runner's own fold of a finished run it holds
 * (no event parsed again, *text the text of its arrays), else the log's
 * events parsed and folded. *closed: the end event is in and the runner
 * has written the row.
 */
static json_t *fold_events(struct store *store, struct runner *runner,
			   int64_t id, struct run_state *st, int *mem,
			   int *closed, struct doctext **text)
{
	json_t *doc = runner_doc(runner, id, text);
	struct runlog *log;
	const struct runlog_event *e;
	int64_t seq = 0;

	if (doc) {
		*mem = !runner_lookup(runner, id, st, NULL);
		*closed = 1;
		if (*mem)
			return doc;
		json_decref(doc); /* pruned meanwhile: the store has it */
		doctext_unref(*text);
		*text = NULL;
	}
	log = rundoc_events(store, runner, id, 0, st, mem);
	doc = events_doc_new();
	if (!log || !doc) {
		json_decref(doc);
		runlog_unref(log);
		errno = EIO;
		return NULL;
	}
	*closed = runlog_closed(log);
	while ((e = runlog_next(log, seq))) {
		json_t *ev = jsonlimit_load(e->json, e->len, 0, &stored, NULL,
					    NULL, 0);
		/* a document short of an event would be served, and cached */
		int rc = ev ? events_fold(doc, ev, 0) : 0;
		json_decref(ev);
		if (rc == -ENOMEM) {
			json_decref(doc);
			runlog_unref(log);
			errno = ENOMEM;
			return NULL;
		}
		seq = e->seq;
	}
	runlog_unref(log);
	return doc;
}

/* The class's guesses into doc: 0, or -1 with errno EIO. */
static int add_guesses(struct store *store, int64_t id, json_t *doc)
{
	json_t *cls = guesses_get(store, id);

	if (!cls && errno != ENOENT) {
		errno = EIO;
		return -1;
	}
	if (cls)
		json_object_set_new(doc, "class", cls);
	return 0;
}

/* describe_doc_today of doc, its placeholders (doctext.h) read in t. */
static json_t *describe_today(json_t *doc, const struct doctext *t)
{
	const struct doc_text dt = {.item = doctext_item, .ctx = t};

	return describe_doc_today_text(doc, t ? &dt : NULL, NULL);
}

json_t *rundoc_build(struct store *store, struct runner *runner, int64_t id,
		     int guessed, int *ended, struct doctext **text)
{
	struct run_state st;
	struct doctext *t = NULL;
	json_t *row, *doc;
	int mem = 0, closed = 0;
	/* a finished run of this server's: its row as the runner gave it */
	int held;

	*ended = 0;
	if (text)
		*text = NULL;
	row = runner_row(runner, id);
	held = row != NULL;
	if (!row)
		row = store_get_run(store, id);
	if (!row)
		return NULL;
	doc = fold_events(store, runner, id, &st, &mem, &closed, &t);
	if (!doc) {
		json_decref(row);
		return NULL;
	}
	/* a reader of values (not of text) gets every sample as a value */
	if (!text && doctext_has_unread(doc)) {
		json_t *full = doctext_values(t, doc);
		json_decref(doc);
		doc = full;
		if (!doc) {
			json_decref(row);
			doctext_unref(t);
			errno = ENOMEM;
			return NULL;
		}
	}
	merge_row(doc, row);
	if (mem) {
		/* newer than the row when the store failed mid-run */
		set_str(doc, "status", st.status);
		if (st.started_at[0])
			set_str(doc, "started_at", st.started_at);
		if (st.finished_at[0])
			set_str(doc, "finished_at", st.finished_at);
		if (st.error[0])
			set_str(doc, "error", st.error);
	}
	*ended = closed && event_status_final(json_string_value(
				   json_object_get(doc, "status")));
	/* an ended run, stored or imported, as today's rules read it */
	json_object_set_new(doc, "verdict_today",
			    (*ended ? describe_today(doc, t) : NULL)
				    ?: json_null());
	json_decref(row);
	/* the class's guesses, kept beside the run, never in its events: a
	 * run of this server's has them only if its class guessed on it */
	if ((!held || guessed) && add_guesses(store, id, doc)) {
		json_decref(doc);
		doctext_unref(t);
		return NULL;
	}
	if (text)
		*text = t;
	else
		doctext_unref(t);
	return doc;
}

/* A name jansson writes as it is, between quotes. */
static int plain(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == '"' || *s == '\\' ||
		    (unsigned char)*s >= 0x7f)
			return 0;
	return 1;
}

/* doc as jansson writes it, any placeholder (doctext.h) filled in first
 * from t: a sample is never written as null. NULL when it cannot be. */
static char *values_text(const json_t *doc, const struct doctext *t,
			 size_t *len)
{
	json_t *full = doctext_values(t, (json_t *)doc);
	char *s = full ? http_json_text(full, len) : NULL;

	json_decref(full);
	return s;
}

/* Whether the array holds a placeholder. */
static int holds_null(const json_t *a)
{
	json_t *v;
	size_t i;

	json_array_foreach ((json_t *)a, i, v)
		if (json_is_null(v))
			return 1;
	return 0;
}

char *rundoc_dumps(const json_t *doc, const struct doctext *t, size_t *len)
{
	struct strbuf sb = STRBUF_INIT;
	const char *name;
	json_t *v;
	int first = 1;

	if (!t || !json_is_object(doc))
		return values_text(doc, t, len);
	strbuf_init(&sb);
	strbuf_addch(&sb, '{');
	/* the order json_dumps writes them in */
	json_object_foreach ((json_t *)doc, name, v) {
		size_t tlen = 0;
		const char *text;

		if (!plain(name)) {
			strbuf_release(&sb);
			return values_text(doc, t, len);
		}
		if (!first)
			strbuf_addch(&sb, ',');
		strbuf_addch(&sb, '"');
		strbuf_addstr(&sb, name);
		strbuf_add(&sb, "\":", 2);
		first = 0;
		/* an array as the run's log has its items */
		if (json_is_array(v) &&
		    doctext_write(t, name, json_array_size(v), &sb))
			continue;
		/* a member written once already (the summary, the machine) */
		text = doctext_kept(t, v, &tlen);
		if (text) {
			strbuf_add(&sb, text, tlen);
			continue;
		}
		/* json_dumps's bytes, without its costs (an array of
		 * placeholders its text does not give: filled in) */
		if ((json_is_array(v) && holds_null(v)) || jsondump(v, &sb)) {
			strbuf_release(&sb);
			return values_text(doc, t, len);
		}
	}
	strbuf_add(&sb, "}\n", 2);
	if (sb.oom) {
		strbuf_release(&sb);
		return NULL;
	}
	*len = sb.len;
	return strbuf_detach(&sb);
}
