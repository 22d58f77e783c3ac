/* auth_limits.h - how fast one address may guess tokens and codes or sign in */
#ifndef NUMALAB_AUTH_LIMITS_H
#define NUMALAB_AUTH_LIMITS_H

#include "http_request.h"

/*
 * A wrong token or code from the client of rq: counted against its
 * address and its /64, and said on stderr at most once a minute as counts
 * (no address, no token: nothing a log reader could use).
 */
void auth_note_failure(struct http_request *rq);

/*
 * Whether the client of rq has sent so many wrong tokens lately that its
 * next is not even read: then the 429 is queued in *ret. Guessing a token
 * goes at a few tries a second per address (and per /64) at most.
 */
int auth_too_many_failures(struct http_request *rq, enum MHD_Result *ret);

/*
 * Whether the client of rq may not sign in once more (its address and its
 * /64 each have a bucket of sign-ins; the lab machine itself has none):
 * then the 429 is queued in *ret; else one sign-in is taken.
 */
int auth_too_many_sign_ins(struct http_request *rq, enum MHD_Result *ret);

/* Queues resp (NULL: out of memory) as a 429 with Retry-After: retry s. */
enum MHD_Result auth_retry_after(struct http_request *rq,
				 struct MHD_Response *resp, int retry);

#endif
