/* ratelimit.c - token buckets per client: so many tries at once, then one every so often */
#define _GNU_SOURCE
#include "ratelimit.h"
#include "clock.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* slots a key may sit in, from its hash on */
#define PROBE 16u

struct bucket {
	unsigned char key[16];
	int used;
	double tries; /* at `at` */
	double at;    /* CLOCK_MONOTONIC seconds */
};

struct ratelimit {
	pthread_mutex_t mu;
	unsigned int n;
	double burst, every_s;
	struct bucket b[];
};

struct ratelimit *ratelimit_new(unsigned int slots, unsigned int burst,
				unsigned int every_ms)
{
	struct ratelimit *r;

	if (!slots || !burst || !every_ms)
		return NULL;
	r = calloc(1, sizeof(*r) + slots * sizeof(struct bucket));
	if (!r)
		return NULL;
	pthread_mutex_init(&r->mu, NULL);
	r->n = slots;
	r->burst = burst;
	r->every_s = every_ms / 1000.0;
	return r;
}

void ratelimit_free(struct ratelimit *r)
{
	if (!r)
		return;
	pthread_mutex_destroy(&r->mu);
	free(r);
}

/* What b holds at t. */
static double level(const struct ratelimit *r, const struct bucket *b, double t)
{
	double v = b->tries + (t - b->at) / r->every_s;

	return v > r->burst ? r->burst : v;
}

static unsigned int hash_of(const unsigned char key[16])
{
	uint32_t h = 2166136261u;

	for (int i = 0; i < 16; i++)
		h = (h ^ key[i]) * 16777619u;
	return h;
}

/* key's bucket, made when it has none (in its neighbourhood of PROBE
 * slots: a free one, else the fullest); mu held. */
static struct bucket *bucket_of(struct ratelimit *r,
				const unsigned char key[16], double t)
{
	unsigned int at = hash_of(key) % r->n;
	struct bucket *pick = NULL;

	for (unsigned int k = 0; k < PROBE && k < r->n; k++) {
		struct bucket *b = &r->b[(at + k) % r->n];
		if (b->used && !memcmp(b->key, key, 16))
			return b;
	}
	for (unsigned int k = 0; k < PROBE && k < r->n; k++) {
		struct bucket *b = &r->b[(at + k) % r->n];
		if (!b->used) {
			pick = b;
			break;
		}
		if (!pick || level(r, b, t) > level(r, pick, t))
			pick = b;
	}
	memcpy(pick->key, key, 16);
	pick->used = 1;
	pick->tries = r->burst;
	pick->at = t;
	return pick;
}

static int take(struct ratelimit *r, const unsigned char key[16], int *retry_s,
		int really)
{
	double t = clock_now(), v;
	struct bucket *b;
	int ok;

	pthread_mutex_lock(&r->mu);
	b = bucket_of(r, key, t);
	v = level(r, b, t);
	ok = v >= 1.0;
	if (ok && really)
		v -= 1.0;
	b->tries = v;
	b->at = t;
	if (!ok && retry_s) {
		int s = (int)((1.0 - v) * r->every_s + 0.999);
		*retry_s = s < 1 ? 1 : s;
	}
	pthread_mutex_unlock(&r->mu);
	return ok;
}

int ratelimit_take(struct ratelimit *r, const unsigned char key[16],
		   int *retry_s)
{
	return take(r, key, retry_s, 1);
}

int ratelimit_peek(struct ratelimit *r, const unsigned char key[16],
		   int *retry_s)
{
	return take(r, key, retry_s, 0);
}
