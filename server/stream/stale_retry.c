/* stale_retry.c - runs a full disk left unmarked, marked interrupted as soon as the store can write */
#include "stale_retry.h"
#include "logshare.h"
#include "units.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define RETRY_SECONDS 1

struct stale_retry {
	struct store *st;
	char why[256];
	int64_t upto;
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv; /* CLOCK_MONOTONIC */
	int stopping;
};

static void *retry_main(void *arg)
{
	struct stale_retry *r = arg;
	struct timespec until;
	struct errinfo err;
	int n = -ENOSPC;

	pthread_mutex_lock(&r->mu);
	while (!r->stopping && n == -ENOSPC) {
		clock_gettime(CLOCK_MONOTONIC, &until);
		until.tv_sec += RETRY_SECONDS;
		while (!r->stopping &&
		       pthread_cond_timedwait(&r->cv, &r->mu, &until) !=
			       ETIMEDOUT)
			;
		if (r->stopping)
			break;
		pthread_mutex_unlock(&r->mu);
		n = store_interrupt_stale(r->st, r->why, NULL, &r->upto, &err);
		if (n > 0)
			logshare_forget_all();
		if (n > 0)
			fprintf(stderr,
				"numalab serve: the store can write again: %d "
				"%s marked interrupted (%s)\n",
				n, units_plural(n, "run", "runs"), r->why);
		else if (n < 0 && n != -ENOSPC)
			fprintf(stderr, "numalab serve: %s\n", err.msg);
		pthread_mutex_lock(&r->mu);
	}
	pthread_mutex_unlock(&r->mu);
	return NULL;
}

struct stale_retry *stale_retry_start(struct store *st, const char *why,
				      int64_t upto)
{
	struct stale_retry *r = calloc(1, sizeof(*r));
	pthread_condattr_t ca;
	int rc;

	if (!r)
		return NULL;
	r->st = st;
	r->upto = upto;
	snprintf(r->why, sizeof(r->why), "%s", why);
	pthread_mutex_init(&r->mu, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&r->cv, &ca);
	pthread_condattr_destroy(&ca);
	rc = pthread_create(&r->thread, NULL, retry_main, r);
	if (rc) {
		pthread_cond_destroy(&r->cv);
		pthread_mutex_destroy(&r->mu);
		free(r);
		errno = rc;
		return NULL;
	}
	return r;
}

void stale_retry_stop(struct stale_retry *r)
{
	if (!r)
		return;
	pthread_mutex_lock(&r->mu);
	r->stopping = 1;
	pthread_cond_broadcast(&r->cv);
	pthread_mutex_unlock(&r->mu);
	pthread_join(r->thread, NULL);
	pthread_cond_destroy(&r->cv);
	pthread_mutex_destroy(&r->mu);
	free(r);
}
