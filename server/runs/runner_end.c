/* runner_end.c - a run's end into its log and the store: the final event, written from the text the runner kept, and the row's end */
#include "runner_end.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "jsondump.h"
#include "strbuf.h"

/* The length of the JSON object at s, through its closing brace; 0 when
 * s holds no whole one. */
static size_t object_len(const char *s)
{
	int depth = 0, in_string = 0;

	for (const char *p = s; *p; p++) {
		if (in_string) {
			if (*p == '\\' && p[1])
				p++;
			else if (*p == '"')
				in_string = 0;
		} else if (*p == '"') {
			in_string = 1;
		} else if (*p == '{' || *p == '[') {
			depth++;
		} else if ((*p == '}' || *p == ']') && --depth == 0) {
			return (size_t)(p - s) + 1;
		}
	}
	return 0;
}

/*
 * The compact dump of the final event's summary, as its text has it (it
 * is the member after "type" and "status", whose values are a status's
 * name): the summary is not formatted twice. Malloc'd; NULL on ENOMEM.
 */
static char *final_summary(const struct runlog_event *e, json_t *summary,
			   size_t *len)
{
	static const char key[] = ",\"summary\":{";
	const char *at = e ? strstr(e->json, key) : NULL;
	char *sum;

	*len = at ? object_len(at + sizeof(key) - 2) : 0;
	if (!*len) {
		sum = jsondump_text(summary, NULL);
		*len = sum ? strlen(sum) : 0;
		return sum;
	}
	sum = malloc(*len + 1);
	if (sum) {
		memcpy(sum, at + sizeof(key) - 2, *len);
		sum[*len] = '\0';
	}
	return sum;
}

/*
 * The final event (events_final: type, status, summary, error, headline)
 * as jansson's compact dump writes it, its summary from the summary
 * events' own text (doctext_write_summary); NULL when that text does not
 * make it (the log serialises the event then). Malloc'd.
 */
static char *final_text(const struct run *run, const char *status,
			const char *error, const char *headline,
			json_t *summary, size_t *len)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_init(&sb);
	strbuf_addstr(&sb, "{\"type\":");
	if (jsondump_string(status, strlen(status), &sb))
		goto fail;
	strbuf_addstr(&sb, ",\"status\":");
	if (jsondump_string(status, strlen(status), &sb))
		goto fail;
	strbuf_addstr(&sb, ",\"summary\":");
	if (json_object_size(summary)
		    ? !run->doc ||
			      summary != json_object_get(run->doc, "summary") ||
			      !doctext_write_summary(run->text, summary, &sb)
		    : jsondump(summary, &sb))
		goto fail;
	if (error) {
		strbuf_addstr(&sb, ",\"error\":");
		if (jsondump_string(error, strlen(error), &sb))
			goto fail;
	}
	if (headline) {
		strbuf_addstr(&sb, ",\"headline\":");
		if (jsondump_string(headline, strlen(headline), &sb))
			goto fail;
	}
	strbuf_addch(&sb, '}');
	if (sb.oom)
		goto fail;
	*len = sb.len;
	return strbuf_detach(&sb);
fail:
	strbuf_release(&sb);
	return NULL;
}

/* as runner_end.h says */
int runner_store_end(struct runner *r, struct run *run, json_t *ev,
		     const char *status, const char *now, const char *error,
		     const char *headline, json_t *summary, struct errinfo *err)
{
	size_t tlen = 0;
	char *text =
		ev ? final_text(run, status, error, headline, summary, &tlen)
		   : NULL;
	const struct runlog_event *e =
		runlog_append_held(run->log, ev, text, tlen);
	int rc = -EIO, rc2;
	size_t len;
	char *sum = final_summary(e, summary, &len);

	if (sum && run->doc && summary == json_object_get(run->doc, "summary"))
		doctext_keep(run->text, summary, sum, len);
	if (e)
		runner_fold(run, ev);
	json_decref(ev);
	if (!store_atomic_begin(r->store, err)) {
		/* the events the journal kept, the end and the row: together */
		rc = store_live_end(r->store, run->id, err);
		if (!rc)
			rc = e ? store_append_events(r->store, run->id, &e, 1,
						     err)
			       : -EIO;
		if (!rc)
			rc = store_run_finished(r->store, run->id, status, now,
						error, headline, sum, err);
		rc = store_atomic_end(r->store, !rc, err) ? -EIO : rc;
	}
	if (!rc)
		goto out;
	/* nothing of it kept: the journal's, the event, then the row, each
	 * alone (what the journal keeps the next start folds in) */
	store_live_end(r->store, run->id, err);
	rc = e ? store_append_events(r->store, run->id, &e, 1, err) : -EIO;
	rc2 = store_run_finished(r->store, run->id, status, now, error,
				 headline, sum, err);
	/* the row's write failed (a full disk, where it fails at all): the
	 * WAL's own room, once checkpointed, holds the row that says how the
	 * run ended (its events wait in the journal for the next start); a
	 * start would otherwise find the run left running and not know why.
	 * On any other failure the checkpoint only costs a moment */
	if (rc2 && !store_make_room(r->store))
		rc2 = store_run_finished(r->store, run->id, status, now, error,
					 headline, sum, err);
	rc = rc ? rc : rc2;
out:
	/* the row as it is now, for runner_row; readers look once the run is
	 * finished (mu) */
	run->end_stored = !rc;
	run->end_error_null = !error;
	free(sum);
	free(text);
	return rc;
}
