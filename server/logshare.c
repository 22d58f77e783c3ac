/* logshare.c - one in-memory copy of a stored run's events, shared by all who read it */
#include "logshare.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

#define SLOTS 64 /* stored runs read at once; past that a reader gets its own copy */

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
	runlog_close(log);
	if (free_slot >= 0) {
		slots[free_slot] = log;
		runlog_on_free(log, forget, NULL);
	}
out:
	pthread_mutex_unlock(&mu);
	return log;
}
