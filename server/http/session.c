/* session.c - the signed-in browsers: a bounded table of random session ids, the key each page proves, role, name, client and expiry */
#define _GNU_SOURCE
#include "session.h"
#include "clock.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

struct session {
	char id[HTTP_SESSION_LEN]; /* "" when the slot is free */
	/* what the page keeps and sends beside the cookie: a cookie that
	 * reached another server on this host (cookies ignore ports) is
	 * not enough without it */
	char key[HTTP_SESSION_LEN];
	unsigned char client[16]; /* trust_client_key of who signed in */
	int role;
	char name[HTTP_NAME_LEN];
	unsigned long long seq; /* the order of sign-ins: the oldest goes */
	time_t expires;		/* CLOCK_MONOTONIC seconds */
};

struct sessions {
	pthread_mutex_t mu;
	int lifetime_s;
	int per_client;
	unsigned long long seq;
	struct session slot[SESSION_MAX];
};

/* Equal ids, in time that does not depend on where they differ. */
static int id_equal(const char *a, const char *b)
{
	unsigned char diff = 0;

	for (size_t i = 0; i < HTTP_SESSION_LEN - 1; i++)
		diff |= (unsigned char)(a[i] ^ b[i]);
	return diff == 0;
}

/* Whether id has the form of one (so that id_equal reads no further). */
static int id_valid(const char *id)
{
	return strlen(id) == HTTP_SESSION_LEN - 1 &&
	       strspn(id, "0123456789abcdef") == HTTP_SESSION_LEN - 1;
}

struct sessions *sessions_new(int lifetime_s, int per_client)
{
	struct sessions *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	pthread_mutex_init(&s->mu, NULL);
	s->lifetime_s = lifetime_s;
	s->per_client = per_client > 0 ? per_client : SESSION_CLIENT_MAX;
	return s;
}

void sessions_free(struct sessions *s)
{
	if (!s)
		return;
	pthread_mutex_destroy(&s->mu);
	explicit_bzero(s->slot, sizeof(s->slot));
	free(s);
}

int sessions_lifetime(const struct sessions *s)
{
	return s->lifetime_s;
}

int http_random_hex(char *out, size_t n)
{
	unsigned char buf[64];
	size_t got = 0;

	if (n > sizeof(buf))
		return -EIO;
	while (got < n) {
		ssize_t r = getrandom(buf + got, n - got, 0);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -EIO;
		got += (size_t)r;
	}
	for (size_t i = 0; i < n; i++)
		snprintf(out + 2 * i, 3, "%02x", buf[i]);
	explicit_bzero(buf, sizeof(buf));
	return 0;
}

/*
 * The slot a new session takes (s->mu held), or NULL when every one is a
 * live teacher's. A student's sign-in from a client holding its bound
 * takes that client's own oldest student session, so one address cannot
 * push the rest of the class out.
 */
static struct session *free_slot(struct sessions *s, int role,
				 const unsigned char client[16], time_t now)
{
	struct session *oldest = NULL, *own = NULL, *empty = NULL;
	int mine = 0;

	for (size_t i = 0; i < SESSION_MAX; i++) {
		struct session *e = &s->slot[i];
		if (!e->id[0] || e->expires <= now) {
			if (!empty)
				empty = e;
			continue;
		}
		if (e->role == HTTP_ROLE_TEACHER)
			continue;
		if (!oldest || e->seq < oldest->seq)
			oldest = e;
		if (!memcmp(e->client, client, 16)) {
			mine++;
			if (!own || e->seq < own->seq)
				own = e;
		}
	}
	if (role != HTTP_ROLE_TEACHER && mine >= s->per_client)
		return own;
	return empty ? empty : oldest;
}

int sessions_create(struct sessions *s, int role, const char *name,
		    const unsigned char client[16], char id[HTTP_SESSION_LEN],
		    char key[HTTP_SESSION_LEN])
{
	struct session *e;
	time_t now = (time_t)clock_now();

	if (http_random_hex(id, (HTTP_SESSION_LEN - 1) / 2) ||
	    http_random_hex(key, (HTTP_SESSION_LEN - 1) / 2))
		return -EIO;
	pthread_mutex_lock(&s->mu);
	e = free_slot(s, role, client, now);
	if (e) {
		memcpy(e->id, id, HTTP_SESSION_LEN);
		memcpy(e->key, key, HTTP_SESSION_LEN);
		memcpy(e->client, client, 16);
		e->role = role;
		snprintf(e->name, sizeof(e->name), "%s", name);
		e->seq = ++s->seq;
		e->expires = now + s->lifetime_s;
	}
	pthread_mutex_unlock(&s->mu);
	return e ? 0 : -ENOSPC;
}

/* The session of id (s->mu held), or NULL. Every slot is compared, so the
 * time taken does not tell which one matched. */
static struct session *find(struct sessions *s, const char *id)
{
	struct session *hit = NULL;

	if (!id_valid(id))
		return NULL;
	for (size_t i = 0; i < SESSION_MAX; i++)
		if (s->slot[i].id[0] && id_equal(s->slot[i].id, id))
			hit = &s->slot[i];
	return hit;
}

/* The live session of id and key (s->mu held), or NULL; an expired one
 * is forgotten on the way. */
static struct session *find_keyed(struct sessions *s, const char *id,
				  const char *key)
{
	struct session *e = find(s, id);

	if (e && e->expires <= (time_t)clock_now()) {
		memset(e, 0, sizeof(*e));
		return NULL;
	}
	if (!e || !key || !id_valid(key) || !id_equal(e->key, key))
		return NULL;
	return e;
}

int sessions_lookup(struct sessions *s, const char *id, const char *key,
		    char name[HTTP_NAME_LEN])
{
	struct session *e;
	int role = HTTP_ROLE_NONE;

	name[0] = '\0';
	pthread_mutex_lock(&s->mu);
	e = find_keyed(s, id, key);
	if (e) {
		role = e->role;
		memcpy(name, e->name, HTTP_NAME_LEN);
	}
	pthread_mutex_unlock(&s->mu);
	return role;
}

int sessions_rename(struct sessions *s, const char *id, const char *key,
		    const char *name)
{
	struct session *e;

	pthread_mutex_lock(&s->mu);
	e = find_keyed(s, id, key);
	if (e)
		snprintf(e->name, sizeof(e->name), "%s", name);
	pthread_mutex_unlock(&s->mu);
	return e ? 0 : -ENOENT;
}

static int by_seq(const void *a, const void *b)
{
	const struct session *x = *(const struct session *const *)a;
	const struct session *y = *(const struct session *const *)b;

	return (x->seq > y->seq) - (x->seq < y->seq);
}

size_t sessions_names(struct sessions *s, int role,
		      char (*names)[HTTP_NAME_LEN], size_t max, size_t *got)
{
	static const struct session *live[SESSION_MAX];
	size_t n = 0;
	time_t now = (time_t)clock_now();

	*got = 0;
	pthread_mutex_lock(&s->mu);
	for (size_t i = 0; i < SESSION_MAX; i++) {
		const struct session *e = &s->slot[i];
		if (e->id[0] && e->expires > now && e->role == role)
			live[n++] = e;
	}
	qsort(live, n, sizeof(live[0]), by_seq);
	for (size_t i = 0; i < n && *got < max; i++)
		if (live[i]->name[0])
			memcpy(names[(*got)++], live[i]->name, HTTP_NAME_LEN);
	pthread_mutex_unlock(&s->mu);
	return n;
}

void sessions_delete(struct sessions *s, const char *id)
{
	struct session *e;

	pthread_mutex_lock(&s->mu);
	e = find(s, id);
	if (e)
		memset(e, 0, sizeof(*e));
	pthread_mutex_unlock(&s->mu);
}
