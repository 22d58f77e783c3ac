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

int import_store(struct store *st, json_t *doc, const char *client, int64_t *id,
		 struct errinfo *err)
{
	const struct runlog_event **ptrs = NULL;
	struct runlog_event *ev = NULL;
	char now[40];
	char *params = NULL, *request = NULL, *machine = NULL, *summary = NULL;
	const char *status = text_of(doc, "status");
	json_t *req = json_object_get(doc, "request"), *imported,
	       *events = NULL;
	json_t *e, *today, *own = json_copy(doc);
	const char *headline;
	size_t n = 0, i;
	int rc = -EIO;

	store_timestamp(now, sizeof(now));
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
		return -ENOMEM;
	}
	headline = json_string_value(json_object_get(today, "headline"));
	imported = own ? provenance(own, now, client, today) : NULL;
	/* NULL imported: out of memory, said below */
	if (imported && headline &&
	    json_object_set_new(own, "headline", json_string(headline))) {
		json_decref(imported);
		imported = NULL;
	}
	doc = own;
	events = imported ? events_from_doc(doc, imported) : NULL;
	json_decref(imported);
	json_decref(today);
	if (!events) {
		errinfo_set(err, NULL,
			    "out of memory rebuilding the run's events");
		goto out;
	}
	/* each numbered and serialised as the store keeps them */
	ev = calloc(json_array_size(events), sizeof(*ev));
	ptrs = calloc(json_array_size(events), sizeof(*ptrs));
	if (!ev || !ptrs) {
		errinfo_set(err, NULL,
			    "out of memory rebuilding the run's events");
		goto out;
	}
	json_array_foreach (events, i, e) {
		if (json_object_set_new(e, "seq",
					json_integer((json_int_t)i + 1))) {
			errinfo_set(
				err, NULL,
				"out of memory rebuilding the run's events");
			goto out;
		}
		ev[i].seq = (int64_t)i + 1;
		snprintf(ev[i].type, sizeof(ev[i].type), "%s",
			 json_string_value(json_object_get(e, "type")));
		ev[i].json = json_dumps(e, JSON_COMPACT);
		if (!ev[i].json) {
			errinfo_set(
				err, NULL,
				"out of memory rebuilding the run's events");
			goto out;
		}
		ev[i].len = strlen(ev[i].json);
		ptrs[i] = &ev[i];
		n = i + 1;
	}
	params = json_dumps(json_object_get(doc, "params"), JSON_COMPACT);
	/* null for a run that never started: no machine measured it */
	machine = json_dumps(json_object_get(doc, "machine"),
			     JSON_COMPACT | JSON_ENCODE_ANY);
	summary = json_is_object(json_object_get(doc, "summary"))
			  ? json_dumps(json_object_get(doc, "summary"),
				       JSON_COMPACT)
			  : NULL;
	/* `numalab run --json` has no request: the one that would have made it
	 */
	if (req && !json_is_null(req))
		request = json_dumps(req, JSON_COMPACT | JSON_ENCODE_ANY);
	else {
		req = json_pack("{s:O, s:O}", "experiment",
				json_object_get(doc, "experiment"), "params",
				json_object_get(doc, "params"));
		request = req ? json_dumps(req, JSON_COMPACT) : NULL;
		json_decref(req);
	}
	if (!params || !machine || !request ||
	    (!summary && json_is_object(json_object_get(doc, "summary")))) {
		errinfo_set(err, NULL, "out of memory");
		goto out;
	}
	rc = store_create_run(st, text_of(doc, "experiment"), params, request,
			      text_of(doc, "created_at") ?: now, id, err);
	if (rc)
		goto out;
	rc = store_run_started(st, *id, text_of(doc, "started_at"), err);
	if (!rc)
		rc = store_run_machine(st, *id, machine, err);
	if (!rc)
		rc = store_append_events(st, *id, ptrs, (int)n, err);
	if (!rc)
		rc = store_run_finished(st, *id, status,
					text_of(doc, "finished_at"),
					text_of(doc, "error"),
					text_of(doc, "headline"), summary, err);
	/* the class's guesses come back beside the run, as they left */
	if (!rc && json_is_object(json_object_get(doc, "class")))
		rc = guesses_put(st, *id, json_object_get(doc, "class"), err);
	if (rc)
		/* never leave a half-imported run looking like one that will
		 * run */
		store_run_finished(st, *id, "failed", now,
				   "the import could not be stored", NULL, NULL,
				   NULL);
out:
	for (size_t k = 0; k < n; k++)
		free(ev[k].json);
	free(ev);
	free(ptrs);
	json_decref(events);
	free(params);
	free(request);
	free(machine);
	free(summary);
	json_decref(own);
	return rc;
}
