/* viewers.c - how many event streams are being sent, under their limit, and the wait for the last */
#include "viewers.h"
#include "deadline.h"

#include <errno.h>
#include <pthread.h>
#include <time.h>

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER; /* one left */
static int active;
static int limit = VIEWERS_MAX_DEFAULT;

int viewers_enter(void)
{
	pthread_mutex_lock(&mu);
	int ok = active < limit;
	active += ok;
	pthread_mutex_unlock(&mu);
	return ok;
}

void viewers_leave(void)
{
	pthread_mutex_lock(&mu);
	active--;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&mu);
}

void viewers_set_limit(int n)
{
	pthread_mutex_lock(&mu);
	limit = n > 0 ? n : VIEWERS_MAX_DEFAULT;
	pthread_mutex_unlock(&mu);
}

int viewers_limit(void)
{
	pthread_mutex_lock(&mu);
	int n = limit;
	pthread_mutex_unlock(&mu);
	return n;
}

int viewers_active(void)
{
	pthread_mutex_lock(&mu);
	int n = active;
	pthread_mutex_unlock(&mu);
	return n;
}

void viewers_drain(int timeout_ms)
{
	struct timespec dl = deadline_in(CLOCK_REALTIME, timeout_ms);

	pthread_mutex_lock(&mu);
	while (active > 0)
		if (pthread_cond_timedwait(&cv, &mu, &dl) == ETIMEDOUT)
			break;
	pthread_mutex_unlock(&mu);
}
