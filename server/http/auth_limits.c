/* auth_limits.c - how fast one address may guess tokens and codes or sign in */
#include "auth_limits.h"
#include "http_internal.h"
#include "http_response.h"
#include "ratelimit.h"
#include "units.h"

#include <arpa/inet.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/* wrong tokens and codes are counted on one line a minute at most */
#define FAIL_LOG_EVERY_S 60

void auth_note_failure(struct http_request *rq)
{
	struct http_server *srv = rq->srv;
	unsigned char addr[16], net[16];
	time_t now = time(NULL);

	http_client_key(rq, addr, 0);
	http_client_key(rq, net, 1);
	ratelimit_take(srv->fail_addr, addr, NULL);
	ratelimit_take(srv->fail_net, net, NULL);
	pthread_mutex_lock(&srv->fail_mu);
	srv->fail_count++;
	if (now - srv->fail_since >= FAIL_LOG_EVERY_S) {
		fprintf(stderr,
			"numalab: auth: %lu wrong %s since the last such "
			"line, %lu refused unread for coming too fast (an "
			"address gets 10 wrong tries at once, then one a "
			"second; one line a minute at most)\n",
			srv->fail_count,
			units_plural((long)srv->fail_count,
				     "token or join code",
				     "tokens or join codes"),
			srv->fail_slowed);
		srv->fail_count = srv->fail_slowed = 0;
		srv->fail_since = now;
	}
	pthread_mutex_unlock(&srv->fail_mu);
}

enum MHD_Result auth_retry_after(struct http_request *rq,
				 struct MHD_Response *resp, int retry)
{
	char after[16];

	snprintf(after, sizeof(after), "%d", retry);
	if (resp)
		MHD_add_response_header(resp, "Retry-After", after);
	return http_respond(rq, MHD_HTTP_TOO_MANY_REQUESTS, resp);
}

/*
 * Whether the client of rq is past either bucket, its address's (by_addr)
 * or its /64's (by_net): then "too many WHAT from this address" is queued
 * in *ret as a 429 with Retry-After, and 1 returned. take: a client within
 * both takes one from each.
 */
static int over_limit(struct http_request *rq, struct ratelimit *by_addr,
		      struct ratelimit *by_net, int take, const char *what,
		      enum MHD_Result *ret)
{
	unsigned char addr[16], net[16];
	int retry = 1;

	http_client_key(rq, addr, 0);
	http_client_key(rq, net, 1);
	if (ratelimit_peek(by_addr, addr, &retry) &&
	    ratelimit_peek(by_net, net, &retry)) {
		if (take) {
			ratelimit_take(by_addr, addr, NULL);
			ratelimit_take(by_net, net, NULL);
		}
		return 0;
	}
	*ret = auth_retry_after(
		rq,
		http_error_response(NULL,
				    "too many %s from this address: try "
				    "again in %d s",
				    what, retry),
		retry);
	return 1;
}

int auth_too_many_failures(struct http_request *rq, enum MHD_Result *ret)
{
	struct http_server *srv = rq->srv;

	if (!over_limit(rq, srv->fail_addr, srv->fail_net, 0,
			"wrong tokens or join codes", ret))
		return 0;
	pthread_mutex_lock(&srv->fail_mu);
	srv->fail_slowed++;
	pthread_mutex_unlock(&srv->fail_mu);
	return 1;
}

/* Whether the client of rq is the lab machine itself: 127.0.0.1 or ::1
 * (where a reverse proxy on it connects from), not the rest of 127/8. */
static int loopback_client(struct http_request *rq)
{
	unsigned char a[16];
	static const unsigned char v4[16] = {0, 0, 0,	 0,    0,   0, 0, 0,
					     0, 0, 0xff, 0xff, 127, 0, 0, 1};

	http_client_key(rq, a, 0);
	return !memcmp(a, v4, 16) || !memcmp(a, &in6addr_loopback, 16);
}

int auth_too_many_sign_ins(struct http_request *rq, enum MHD_Result *ret)
{
	struct http_server *srv = rq->srv;

	/* the lab machine itself (and a reverse proxy on it, which brings
	 * the whole class from one address): bounded by sessions per
	 * address, not slowed */
	if (loopback_client(rq))
		return 0;
	return over_limit(rq, srv->signin_addr, srv->signin_net, 1, "sign-ins",
			  ret);
}
