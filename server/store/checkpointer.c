/* checkpointer.c - the store's WAL checkpointed by a thread of its own */
#include "checkpointer.h"
#include "deadline.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sqlite3.h>

#define CHECKPOINT_MS 2000
/*
 * A poke checkpoints at once, unless the last checkpoint was nearer than
 * this: runs ending back to back then share one (its syncs cost the
 * server about half a millisecond of CPU, a run's fixed cost as large
 * as its parse and its rows together), taken this long after the last.
 */
#define CHECKPOINT_GAP_MS 1000

struct checkpointer {
	sqlite3 *db;
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int stopping, poked;
	int failing;	      /* the last checkpoint failed, and said so */
	struct timespec next; /* a poke checkpoints from then on */
};

static int timespec_before(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec < b->tv_sec ||
	       (a->tv_sec == b->tv_sec && a->tv_nsec < b->tv_nsec);
}

static void checkpoint(struct checkpointer *c)
{
	int rc = sqlite3_wal_checkpoint_v2(
		c->db, NULL, SQLITE_CHECKPOINT_PASSIVE, NULL, NULL);

	/* busy: a writer holds the lock, the next round catches up */
	if (rc == SQLITE_OK || rc == SQLITE_BUSY || rc == SQLITE_LOCKED) {
		c->failing = 0;
		return;
	}
	/* said once, not every round: the WAL keeps the data meanwhile */
	if (!c->failing)
		fprintf(stderr,
			"numalab: store checkpoint: %s (the runs stay in the "
			"WAL until it succeeds)\n",
			sqlite3_errmsg(c->db));
	c->failing = 1;
}

/* Waits on c's cv until dl or stopping, and more when stop says so. */
static void wait_until(struct checkpointer *c, const struct timespec *dl,
		       int stop_on_poke)
{
	while (!c->stopping && !(stop_on_poke && c->poked) &&
	       pthread_cond_timedwait(&c->cv, &c->mu, dl) != ETIMEDOUT)
		;
}

static void *checkpointer_main(void *arg)
{
	struct checkpointer *c = arg;

	pthread_mutex_lock(&c->mu);
	while (!c->stopping) {
		struct timespec dl = deadline_in(CLOCK_REALTIME, CHECKPOINT_MS);
		struct timespec gap;

		wait_until(c, &dl, 1);
		/* poked: once the gap since the last checkpoint has passed */
		gap = deadline_in(CLOCK_REALTIME, 0);
		if (c->poked && timespec_before(&gap, &c->next))
			wait_until(c, &c->next, 0);
		c->poked = 0;
		pthread_mutex_unlock(&c->mu);
		checkpoint(c);
		pthread_mutex_lock(&c->mu);
		c->next = deadline_in(CLOCK_REALTIME, CHECKPOINT_GAP_MS);
	}
	pthread_mutex_unlock(&c->mu);
	return NULL;
}

struct checkpointer *checkpointer_start(const char *path, struct errinfo *err)
{
	struct checkpointer *c = calloc(1, sizeof(*c));
	int rc;

	if (!c) {
		errinfo_set(err, NULL, "out of memory");
		return NULL;
	}
	rc = sqlite3_open_v2(path, &c->db,
			     SQLITE_OPEN_READWRITE | SQLITE_OPEN_URI |
				     SQLITE_OPEN_NOMUTEX,
			     NULL);
	/* a connection checkpoints only once it has read the file and so
	 * knows it is in WAL mode: until then every checkpoint is a no-op */
	if (rc == SQLITE_OK)
		rc = sqlite3_exec(c->db, "PRAGMA journal_mode=WAL", NULL, NULL,
				  NULL);
	if (rc != SQLITE_OK) {
		errinfo_set(err, NULL,
			    "cannot open database '%s' to checkpoint it: %s",
			    path,
			    c->db ? sqlite3_errmsg(c->db) : sqlite3_errstr(rc));
		goto fail;
	}
	sqlite3_busy_timeout(c->db, 100);
	pthread_mutex_init(&c->mu, NULL);
	pthread_cond_init(&c->cv, NULL);
	rc = pthread_create(&c->thread, NULL, checkpointer_main, c);
	if (rc) {
		errinfo_set(err, NULL, "cannot start the checkpoint thread: %s",
			    strerror(rc));
		pthread_cond_destroy(&c->cv);
		pthread_mutex_destroy(&c->mu);
		goto fail;
	}
	return c;
fail:
	sqlite3_close(c->db);
	free(c);
	return NULL;
}

void checkpointer_poke(struct checkpointer *c)
{
	if (!c)
		return;
	pthread_mutex_lock(&c->mu);
	c->poked = 1;
	pthread_cond_signal(&c->cv);
	pthread_mutex_unlock(&c->mu);
}

void checkpointer_stop(struct checkpointer *c)
{
	if (!c)
		return;
	pthread_mutex_lock(&c->mu);
	c->stopping = 1;
	pthread_cond_signal(&c->cv);
	pthread_mutex_unlock(&c->mu);
	pthread_join(c->thread, NULL);
	checkpoint(c); /* the last writes in, before the file is closed */
	sqlite3_close(c->db);
	pthread_cond_destroy(&c->cv);
	pthread_mutex_destroy(&c->mu);
	free(c);
}
