/* ratelimit.h - token buckets per client: so many tries at once, then one every so often */
#ifndef NUMALAB_RATELIMIT_H
#define NUMALAB_RATELIMIT_H

struct ratelimit;

/*
 * Buckets for up to `slots` clients (16-byte keys, trust_client_key's),
 * each holding `burst` tries and refilled by one every `every_ms`. With
 * the slots near its hash taken a newcomer takes the fullest bucket: a full one
 * is what a newcomer would get anyway, so no client empties its own by
 * crowding. NULL on ENOMEM.
 */
struct ratelimit *ratelimit_new(unsigned int slots, unsigned int burst,
				unsigned int every_ms);
void ratelimit_free(struct ratelimit *r);

/*
 * Takes one try of key's bucket. 1 when there was one; 0 when empty, with
 * the whole seconds until the next into *retry_s (at least 1).
 */
int ratelimit_take(struct ratelimit *r, const unsigned char key[16],
		   int *retry_s);

/* Whether key's bucket holds a try now, without taking it (*retry_s as
 * ratelimit_take's). */
int ratelimit_peek(struct ratelimit *r, const unsigned char key[16],
		   int *retry_s);

#endif
