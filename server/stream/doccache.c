/* doccache.c - ended runs' documents, serialised once, served from memory */
#include "doccache.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

struct entry {
	int64_t id;
	struct http_blob *blob;
	size_t len;
	struct entry *next;  /* newer */
	struct entry *hnext; /* in its bucket */
};

/* buckets to start with; doubled when the entries outnumber them */
#define BUCKETS_MIN 64

struct doccache {
	pthread_mutex_t mu;
	struct entry *oldest, *newest;
	size_t bytes, budget;
	/* the entries by id: every GET of a run looks one up */
	struct entry **bucket;
	size_t nbuckets, n;
};

static size_t slot(const struct doccache *c, int64_t id)
{
	uint64_t h = (uint64_t)id * 0x9e3779b97f4a7c15ull;

	return (size_t)(h >> 32) & (c->nbuckets - 1);
}

struct doccache *doccache_new(size_t budget)
{
	struct doccache *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->nbuckets = BUCKETS_MIN;
	c->bucket = calloc(c->nbuckets, sizeof(*c->bucket));
	if (!c->bucket) {
		free(c);
		return NULL;
	}
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
		http_blob_unref(e->blob);
		free(e);
	}
	pthread_mutex_destroy(&c->mu);
	free(c->bucket);
	free(c);
}

/* Called with mu held. */
static struct entry *find(struct doccache *c, int64_t id)
{
	for (struct entry *e = c->bucket[slot(c, id)]; e; e = e->hnext)
		if (e->id == id)
			return e;
	return NULL;
}

/* Twice the buckets, when the entries outnumber them (a failed allocation
 * leaves the chains longer, not wrong). Called with mu held. */
static void grow(struct doccache *c)
{
	size_t old = c->nbuckets;
	struct entry **was = c->bucket, **now;

	if (c->n <= old || !(now = calloc(2 * old, sizeof(*now))))
		return;
	c->bucket = now;
	c->nbuckets = 2 * old;
	for (size_t i = 0; i < old; i++)
		while (was[i]) {
			struct entry *e = was[i];
			size_t k = slot(c, e->id);

			was[i] = e->hnext;
			e->hnext = now[k];
			now[k] = e;
		}
	free(was);
}

/* Takes e out of its bucket. Called with mu held. */
static void unhash(struct doccache *c, struct entry *e)
{
	struct entry **p = &c->bucket[slot(c, e->id)];

	while (*p != e)
		p = &(*p)->hnext;
	*p = e->hnext;
	c->n--;
}

struct http_blob *doccache_get(struct doccache *c, int64_t id)
{
	struct http_blob *b = NULL;
	struct entry *e;

	pthread_mutex_lock(&c->mu);
	e = find(c, id);
	if (e)
		b = http_blob_ref(e->blob);
	pthread_mutex_unlock(&c->mu);
	return b;
}

struct http_blob *doccache_put(struct doccache *c, int64_t id, char *json,
			       size_t len)
{
	struct http_blob *b;
	struct entry *e, *had;
	char *fit;

	if (len > c->budget) {
		free(json);
		errno = E2BIG;
		return NULL;
	}
	/* the bytes alone: a document is written into a buffer that grows
	 * by doubling, up to twice its length, and the budget counts len */
	fit = realloc(json, len ? len : 1);
	if (fit)
		json = fit;
	b = http_blob_new(json, len, "application/json");
	e = b ? calloc(1, sizeof(*e)) : NULL;
	if (!e) {
		http_blob_unref(b);
		errno = ENOMEM;
		return NULL;
	}
	e->blob = b;
	e->len = len;
	e->id = id;
	pthread_mutex_lock(&c->mu);
	had = find(c, id);
	if (had) { /* two readers built it at once: one copy is kept */
		struct http_blob *kept = http_blob_ref(had->blob);

		pthread_mutex_unlock(&c->mu);
		http_blob_unref(b);
		free(e);
		return kept;
	}
	while (c->oldest && c->bytes + len > c->budget) {
		struct entry *old = c->oldest;

		c->oldest = old->next;
		if (!c->oldest)
			c->newest = NULL;
		c->bytes -= old->len;
		unhash(c, old);
		http_blob_unref(old->blob);
		free(old);
	}
	if (c->newest)
		c->newest->next = e;
	else
		c->oldest = e;
	c->newest = e;
	c->bytes += len;
	e->hnext = c->bucket[slot(c, id)];
	c->bucket[slot(c, id)] = e;
	c->n++;
	grow(c);
	http_blob_ref(b);
	pthread_mutex_unlock(&c->mu);
	return b;
}
