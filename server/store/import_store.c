/* import_store.c - storing a checked run document as a new run, with where it came from */
#include "import_store.h"
#include "guesses.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "describe_doc.h"
#include "events.h"

static const char *text_of(json_t *doc, const char *key)
{
	return json_string_value(json_object_get(doc, key));
}

/*
 * Where it came from: kept from the first import when a run travels on,
 * with the headline it arrived with ("as imported") and the verdict this
 * server's rules gave it; client (the address it was sent from) is this
 * hop's, so a forged one is overwritten.
 */
static json_t *provenance(json_t *doc, const char *now, const char *client,
			  json_t *today)
{
	json_t *prev = json_object_get(doc, "imported");
	json_t *m = json_object_get(doc, "machine");
	json_t *p;

	if (json_is_object(prev))
		p = json_deep_copy(prev);
	else
		p = json_pack("{s:O?, s:s?, s:s, s:s}", "original_id",
			      json_object_get(doc, "id"), "host",
			      text_of(m, "hostname"), "at", now, "source",
			      json_object_get(doc, "id")
				      ? "export"
				      : "numalab run --json");
	if (!p)
		return NULL;
	/* a mark short of a field is not where the run came from */
	if ((!json_object_get(p, "headline") &&
	     json_object_set(p, "headline",
			     json_object_get(doc, "headline")
				     ?: json_null())) ||
	    (client && json_object_set_new(p, "client", json_string(client))) ||
	    (today && json_object_set(p, "verdict", today))) {
		json_decref(p);
		return NULL;
	}
	return p;
}

/*
 * A copy of doc with today's headline, and its events rebuilt with where
 * it came from (*events). NULL with err set when memory ran out (errno
 * ENOMEM when even describing it did).
 */
static json_t *own_copy(json_t *doc, const char *now, const char *client,
			json_t **events, struct errinfo *err)
{
	json_t *own = json_copy(doc), *today, *imported;
	const char *headline;

	*events = NULL;
	/* jansson's shallow copy leaves out what it had no memory for */
	if (own && json_object_size(own) != json_object_size(doc)) {
		json_decref(own);
		own = NULL;
	}
	/* today's rules speak for the run; what it said on arrival is kept
	 * beside */
	errno = 0;
	today = own ? describe_doc_today(own, NULL) : NULL;
	if (!own || (!today && errno == ENOMEM)) {
		errinfo_set(err, NULL, "out of memory describing the run");
		json_decref(own);
		errno = ENOMEM;
		return NULL;
	}
	headline = json_string_value(json_object_get(today, "headline"));
	imported = provenance(own, now, client, today);
	/* NULL imported: out of memory, said below */
	if (imported && headline &&
	    json_object_set_new(own, "headline", json_string(headline))) {
		json_decref(imported);
		imported = NULL;
	}
	*events = imported ? events_from_doc(own, imported) : NULL;
	json_decref(imported);
	json_decref(today);
	if (!*events) {
		errinfo_set(err, NULL,
			    "out of memory rebuilding the run's events");
		json_decref(own);
		errno = EIO;
		return NULL;
	}
	return own;
}

/* The events as the store keeps them: numbered, serialised. */
struct stored_events {
	struct runlog_event *ev;
	const struct runlog_event **ptrs;
	size_t n;
};

static void stored_events_free(struct stored_events *se)
{
	for (size_t k = 0; k < se->n; k++)
		free(se->ev[k].json);
	free(se->ev);
	free(se->ptrs);
}

/* Each event numbered and serialised into se; 0, or -EIO (out of memory:
 * err set). */
static int serialise_events(json_t *events, struct stored_events *se,
			    struct errinfo *err)
{
	json_t *e;
	size_t i;

	se->ev = calloc(json_array_size(events), sizeof(*se->ev));
	se->ptrs = calloc(json_array_size(events), sizeof(*se->ptrs));
	if (!se->ev || !se->ptrs)
		goto nomem;
	json_array_foreach (events, i, e) {
		struct runlog_event *ev = &se->ev[i];
		if (json_object_set_new(e, "seq",
					json_integer((json_int_t)i + 1)))
			goto nomem;
		ev->seq = (int64_t)i + 1;
		snprintf(ev->type, sizeof(ev->type), "%s",
			 json_string_value(json_object_get(e, "type")));
		ev->json = json_dumps(e, JSON_COMPACT);
		if (!ev->json)
			goto nomem;
		ev->len = strlen(ev->json);
		se->ptrs[i] = ev;
		se->n = i + 1;
	}
	return 0;
nomem:
	errinfo_set(err, NULL, "out of memory rebuilding the run's events");
	return -EIO;
}

/* The run's columns as the store keeps them (JSON texts). */
struct run_texts {
	char *params, *request, *machine, *summary;
};

static void run_texts_free(struct run_texts *rt)
{
	free(rt->params);
	free(rt->request);
	free(rt->machine);
	free(rt->summary);
}

/* 0, or -EIO (out of memory: err set). */
static int run_texts(json_t *doc, struct run_texts *rt, struct errinfo *err)
{
	json_t *req = json_object_get(doc, "request");
	json_t *summary = json_object_get(doc, "summary");

	rt->params = json_dumps(json_object_get(doc, "params"), JSON_COMPACT);
	/* null for a run that never started: no machine measured it */
	rt->machine = json_dumps(json_object_get(doc, "machine"),
				 JSON_COMPACT | JSON_ENCODE_ANY);
	rt->summary = json_is_object(summary)
			      ? json_dumps(summary, JSON_COMPACT)
			      : NULL;
	/* `numalab run --json` has no request: the one that would have made it
	 */
	if (req && !json_is_null(req))
		rt->request = json_dumps(req, JSON_COMPACT | JSON_ENCODE_ANY);
	else {
		req = json_pack("{s:O, s:O}", "experiment",
				json_object_get(doc, "experiment"), "params",
				json_object_get(doc, "params"));
		rt->request = req ? json_dumps(req, JSON_COMPACT) : NULL;
		json_decref(req);
	}
	if (!rt->params || !rt->machine || !rt->request ||
	    (!rt->summary && json_is_object(summary))) {
		errinfo_set(err, NULL, "out of memory");
		return -EIO;
	}
	return 0;
}

/* Stores doc as run *id, its events and its class's guesses. */
static int store_doc(struct store *st, json_t *doc, const char *now,
		     const struct run_texts *rt, const struct stored_events *se,
		     int64_t *id, struct errinfo *err)
{
	int rc = store_create_run(st, text_of(doc, "experiment"), rt->params,
				  rt->request,
				  text_of(doc, "created_at") ?: now, id, err);

	if (rc)
		return rc;
	rc = store_run_started(st, *id, text_of(doc, "started_at"), err);
	if (!rc)
		rc = store_run_machine(st, *id, rt->machine, err);
	if (!rc)
		rc = store_append_events(st, *id, se->ptrs, (int)se->n, err);
	/* the run list marks it by its imported event */
	for (size_t k = 0; !rc && k < se->n; k++)
		if (!strcmp(se->ev[k].type, "imported"))
			rc = store_run_imported(st, *id, se->ev[k].json, err);
	if (!rc)
		rc = store_run_finished(
			st, *id, text_of(doc, "status"),
			text_of(doc, "finished_at"), text_of(doc, "error"),
			text_of(doc, "headline"), rt->summary, err);
	/* the class's guesses come back beside the run, as they left */
	if (!rc && json_is_object(json_object_get(doc, "class")))
		rc = guesses_put(st, *id, json_object_get(doc, "class"), err);
	if (rc)
		/* never leave a half-imported run looking like one that will
		 * run */
		store_run_finished(st, *id, "failed", now,
				   "the import could not be stored", NULL, NULL,
				   NULL);
	return rc;
}

int import_store(struct store *st, json_t *doc, const char *client, int64_t *id,
		 struct errinfo *err)
{
	struct stored_events se = {0};
	struct run_texts rt = {0};
	json_t *own, *events;
	char now[40];
	int rc;

	store_timestamp(now, sizeof(now));
	own = own_copy(doc, now, client, &events, err);
	if (!own)
		return errno == ENOMEM ? -ENOMEM : -EIO;
	rc = serialise_events(events, &se, err);
	if (!rc)
		rc = run_texts(own, &rt, err);
	if (!rc)
		rc = store_doc(st, own, now, &rt, &se, id, err);
	stored_events_free(&se);
	run_texts_free(&rt);
	json_decref(events);
	json_decref(own);
	return rc;
}
