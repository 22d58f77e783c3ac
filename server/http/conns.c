/* conns.c - connections per client: the per-address limit, the total, and room for a newcomer */
#define _GNU_SOURCE
#include "conns.h"
#include "clock.h"
#include "trust.h"
#include "units.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#define BUCKETS 4096
#define LOG_EVERY_S 60

/* One client (an address, an IPv6 /64) and its connections, the most
 * recently active first. */
struct client {
	unsigned char key[16];
	unsigned int n;	      /* open, closing ones included */
	unsigned int closing; /* shut down by us, not yet closed */
	struct conn_rec *head, *tail;
	struct client *next; /* in its bucket */
};

struct conn_rec {
	struct client *cl;
	int fd;
	int closing;
	int busy;     /* in a request (an event stream too): not idle */
	double since; /* clock_now of its last request's start or end */
	struct conn_rec *prev, *next;
};

struct conns {
	unsigned int max_total, max_client;
	pthread_mutex_t mu;
	unsigned int open, closing;
	struct client *buckets[BUCKETS];
	/* since the last log line */
	unsigned long refused_client, refused_full, closed;
	double logged; /* clock_now */
	int ever_logged;
};

struct conns *conns_new(const struct conns_config *cfg)
{
	struct conns *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->max_total = cfg->max_total;
	c->max_client = cfg->max_client;
	pthread_mutex_init(&c->mu, NULL);
	return c;
}

void conns_free(struct conns *c)
{
	if (!c)
		return;
	for (int i = 0; i < BUCKETS; i++)
		for (struct client *cl = c->buckets[i], *next; cl; cl = next) {
			next = cl->next;
			for (struct conn_rec *r = cl->head, *rn; r; r = rn) {
				rn = r->next;
				free(r);
			}
			free(cl);
		}
	pthread_mutex_destroy(&c->mu);
	free(c);
}

static unsigned int bucket_of(const unsigned char key[16])
{
	uint32_t h = 2166136261u;

	for (int i = 0; i < 16; i++)
		h = (h ^ key[i]) * 16777619u;
	return h % BUCKETS;
}

/* Called with mu held. */
static struct client **find(struct conns *c, const unsigned char key[16])
{
	struct client **p = &c->buckets[bucket_of(key)];

	while (*p && memcmp((*p)->key, key, 16))
		p = &(*p)->next;
	return p;
}

/* What a client holds that is not on its way out. */
static unsigned int held(const struct client *cl)
{
	return cl ? cl->n - cl->closing : 0;
}

/* The oldest idle connection of cl that is not on its way out, or NULL. */
static struct conn_rec *oldest_idle(const struct client *cl)
{
	struct conn_rec *r = cl->tail;

	while (r && (r->closing || r->busy))
		r = r->prev;
	return r;
}

/*
 * The connection to close for a newcomer holding `mine`: of the clients
 * holding more than it, those holding the most, the oldest idle
 * connection among theirs; NULL when none holds more with one idle.
 * Called with mu held; a scan, but only when the server is full.
 */
static struct conn_rec *victim_for(struct conns *c, unsigned int mine)
{
	struct conn_rec *best = NULL;
	unsigned int best_held = 0;

	for (int i = 0; i < BUCKETS; i++)
		for (struct client *cl = c->buckets[i]; cl; cl = cl->next) {
			unsigned int h = held(cl);
			struct conn_rec *r;
			if (h <= mine || h < best_held)
				continue;
			r = oldest_idle(cl);
			if (!r)
				continue;
			if (!best || h > best_held || r->since < best->since) {
				best = r;
				best_held = h;
			}
		}
	return best;
}

/* Counts, then at most once a minute says what the limits did (counts
 * only: no address, no URL, nothing a token could be in). */
static void note(struct conns *c, unsigned long *counter)
{
	double now = clock_now();

	++*counter;
	if (c->ever_logged && now - c->logged < LOG_EVERY_S)
		return;
	fprintf(stderr,
		"numalab: http: connection limits: %lu refused from clients "
		"at their limit of %u, %lu refused with the server full at %u, "
		"%lu idle %s of the busiest clients closed to make room "
		"(counts since the last such line; one a minute at most)\n",
		c->refused_client, c->max_client, c->refused_full, c->max_total,
		c->closed,
		units_plural((long)c->closed, "connection", "connections"));
	c->refused_client = c->refused_full = c->closed = 0;
	c->logged = now;
	c->ever_logged = 1;
}

int conns_admit(struct conns *c, const struct sockaddr *addr)
{
	unsigned char key[16];
	struct client *cl, *big;
	struct conn_rec *victim;
	int ok = 0;

	trust_client_key(addr, key);
	pthread_mutex_lock(&c->mu);
	cl = *find(c, key);
	if (c->max_client && held(cl) >= c->max_client) {
		note(c, &c->refused_client);
		goto out;
	}
	if (c->open - c->closing < c->max_total) {
		ok = 1;
		goto out;
	}
	/* full: room is made only at the expense of a client that holds
	 * more than the newcomer, its oldest idle connection, and only so
	 * many at a time; so a new address is served however many hold one
	 * each */
	if (c->closing >= CONNS_CLOSING_MAX) {
		note(c, &c->refused_full);
		goto out;
	}
	victim = victim_for(c, held(cl));
	if (!victim) {
		note(c, &c->refused_full);
		goto out;
	}
	big = victim->cl;
	/* its loop sees the end of the stream and closes it; the record
	 * (and so the fd) stays ours until conns_closed */
	shutdown(victim->fd, SHUT_RDWR);
	victim->closing = 1;
	big->closing++;
	c->closing++;
	note(c, &c->closed);
	ok = 1;
out:
	pthread_mutex_unlock(&c->mu);
	return ok;
}

/* r out of its client's list; called with mu held. */
static void unlink_rec(struct conn_rec *r)
{
	struct client *cl = r->cl;

	if (r->prev)
		r->prev->next = r->next;
	else
		cl->head = r->next;
	if (r->next)
		r->next->prev = r->prev;
	else
		cl->tail = r->prev;
	r->prev = r->next = NULL;
}

/* r first in its client's list (the most recently active); mu held. */
static void push_front(struct conn_rec *r)
{
	struct client *cl = r->cl;

	r->next = cl->head;
	if (cl->head)
		cl->head->prev = r;
	cl->head = r;
	if (!cl->tail)
		cl->tail = r;
}

struct conn_rec *conns_opened(struct conns *c, const struct sockaddr *addr,
			      int fd)
{
	unsigned char key[16];
	struct client **p, *cl;
	struct conn_rec *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	trust_client_key(addr, key);
	pthread_mutex_lock(&c->mu);
	p = find(c, key);
	cl = *p;
	if (!cl) {
		cl = calloc(1, sizeof(*cl));
		if (!cl) {
			pthread_mutex_unlock(&c->mu);
			free(r);
			return NULL;
		}
		memcpy(cl->key, key, 16);
		*p = cl;
	}
	r->cl = cl;
	r->fd = fd;
	r->since = clock_now();
	push_front(r);
	cl->n++;
	c->open++;
	pthread_mutex_unlock(&c->mu);
	return r;
}

void conns_active(struct conns *c, struct conn_rec *r, int busy)
{
	if (!r)
		return;
	pthread_mutex_lock(&c->mu);
	r->busy = busy;
	r->since = clock_now();
	unlink_rec(r);
	push_front(r);
	pthread_mutex_unlock(&c->mu);
}

void conns_closed(struct conns *c, struct conn_rec *r)
{
	struct client *cl;

	if (!r)
		return;
	pthread_mutex_lock(&c->mu);
	cl = r->cl;
	unlink_rec(r);
	if (r->closing) {
		cl->closing--;
		c->closing--;
	}
	cl->n--;
	c->open--;
	if (!cl->n) {
		struct client **p = find(c, cl->key);
		*p = cl->next;
		free(cl);
	}
	pthread_mutex_unlock(&c->mu);
	free(r);
}
