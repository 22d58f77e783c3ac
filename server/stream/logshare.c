/* logshare.c - one in-memory copy of a stored run's events, shared by all who read it */
#include "logshare.h"
#include "events.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define SLOTS                                                                  \
	64 /* stored runs read at once; past that a reader gets its own copy   \
	    */

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static struct runlog *slots[SLOTS];

/* The last reader left: the slot is free again (the log is not yet freed). */
static void forget(struct runlog *log, void *arg)
{
	(void)arg;
	pthread_mutex_lock(&mu);
	for (int i = 0; i < SLOTS; i++)
		if (slots[i] == log)
			slots[i] = NULL;
	pthread_mutex_unlock(&mu);
}

/*
 * A run whose row says it ended but whose last event the store could not
 * keep (the disk filled between the two writes): its readers still get an
 * end, made from the row, so no stream of an ended run waits forever. It
 * is numbered above the events the store lost (RUNLOG_UNSTORED_MAX), so a
 * reader who saw them and resumes from the last still gets it.
 */
static void end_from_row(struct store *st, int64_t id, struct runlog *log)
{
	const struct runlog_event *last =
		runlog_next(log, runlog_last_seq(log) - 1);
	json_t *row, *ev;
	const char *status;

	if (last && event_status_final(last->type))
		return;
	row = store_get_run(st, id);
	status = json_string_value(json_object_get(row, "status"));
	if (status && event_status_final(status)) {
		json_t *sum = json_object_get(row, "summary");
		json_t *empty = json_object();
		ev = events_final(
			status,
			json_string_value(json_object_get(row, "error")),
			json_is_object(sum) ? sum : empty,
			json_string_value(json_object_get(row, "headline")));
		json_decref(empty);
		int64_t seq = runlog_last_seq(log) + RUNLOG_UNSTORED_MAX + 1;
		char *text = NULL;
		if (ev) {
			json_object_set_new(ev, "seq", json_integer(seq));
			text = json_dumps(ev, JSON_COMPACT);
		}
		if (text)
			runlog_append_raw(log, seq, status, text, strlen(text));
		free(text);
		json_decref(ev);
	}
	json_decref(row);
}

struct runlog *logshare_stored(struct store *st, int64_t id)
{
	struct runlog *log = NULL;
	int free_slot = -1, rc;

	/* held while loading, so that readers who come meanwhile share it */
	pthread_mutex_lock(&mu);
	for (int i = 0; i < SLOTS && !log; i++) {
		if (slots[i] && runlog_run_id(slots[i]) == id)
			log = runlog_ref_live(slots[i]);
		else if (!slots[i] && free_slot < 0)
			free_slot = i;
	}
	if (log)
		goto out;
	log = runlog_new(id);
	if (!log) {
		errno = ENOMEM;
		goto out;
	}
	rc = store_load_events(st, id, 0, log);
	if (rc) {
		runlog_unref(log);
		log = NULL;
		errno = -rc;
		goto out;
	}
	end_from_row(st, id, log);
	runlog_close(log);
	if (free_slot >= 0) {
		slots[free_slot] = log;
		runlog_on_free(log, forget, NULL);
	}
out:
	pthread_mutex_unlock(&mu);
	return log;
}

void logshare_forget_all(void)
{
	pthread_mutex_lock(&mu);
	for (int i = 0; i < SLOTS; i++)
		slots[i] = NULL;
	pthread_mutex_unlock(&mu);
}
