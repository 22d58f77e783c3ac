/* doccache.c - ended runs' documents, serialised once, served from memory */
#include "doccache.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

struct entry {
	int64_t id;
	char *json;
	size_t len;
	struct entry *next; /* newer */
};

struct doccache {
	pthread_mutex_t mu;
	struct entry *oldest, *newest;
	size_t bytes, budget;
};

struct doccache *doccache_new(size_t budget)
{
	struct doccache *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	pthread_mutex_init(&c->mu, NULL);
	c->budget = budget;
	return c;
}

void doccache_free(struct doccache *c)
{
	if (!c)
		return;
	while (c->oldest) {
		struct entry *e = c->oldest;

		c->oldest = e->next;
		free(e->json);
		free(e);
	}
	pthread_mutex_destroy(&c->mu);
	free(c);
}

static struct entry *find(struct doccache *c, int64_t id)
{
	for (struct entry *e = c->oldest; e; e = e->next)
		if (e->id == id)
			return e;
	return NULL;
}

struct MHD_Response *doccache_response(struct doccache *c, int64_t id)
{
	struct MHD_Response *resp = NULL;
	struct entry *e;

	pthread_mutex_lock(&c->mu);
	e = find(c, id);
	/* copied while held: an entry may be evicted once the lock is let go */
	if (e)
		resp = MHD_create_response_from_buffer(e->len, e->json,
						       MHD_RESPMEM_MUST_COPY);
	pthread_mutex_unlock(&c->mu);
	return resp;
}

int doccache_put(struct doccache *c, int64_t id, char *json, size_t len)
{
	struct entry *e;

	if (len > c->budget) {
		free(json);
		return -E2BIG;
	}
	e = calloc(1, sizeof(*e));
	if (!e) {
		free(json);
		return -ENOMEM;
	}
	e->json = json;
	e->len = len;
	e->id = id;
	pthread_mutex_lock(&c->mu);
	if (find(c, id)) { /* two readers built it at once: one copy is kept */
		pthread_mutex_unlock(&c->mu);
		free(e->json);
		free(e);
		return 0;
	}
	while (c->oldest && c->bytes + len > c->budget) {
		struct entry *old = c->oldest;

		c->oldest = old->next;
		if (!c->oldest)
			c->newest = NULL;
		c->bytes -= old->len;
		free(old->json);
		free(old);
	}
	if (c->newest)
		c->newest->next = e;
	else
		c->oldest = e;
	c->newest = e;
	c->bytes += len;
	pthread_mutex_unlock(&c->mu);
	return 0;
}
