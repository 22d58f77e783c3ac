/* join_code.c - the class's join code: made, changed, and typed on a phone to sign in */
#include "join_code.h"
#include "auth.h"
#include "auth_limits.h"
#include "http_internal.h"
#include "http_response.h"
#include "session.h"
#include "sign_in.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/* Wrong join codes the server takes from all addresses together in one
 * window: past them the code is made anew and joining by code pauses until
 * the window ends, so at most JOIN_WRONG_MAX codes a minute are ever tried
 * whatever the number of addresses (docs/guide/security.md: the odds). */
#define JOIN_WRONG_MAX 20
#define JOIN_WINDOW_S 60

int http_join_code_make(char code[HTTP_JOIN_CODE_LEN + 1])
{
	char hex[2 * 16 + 1];
	int got = 0;

	/* bytes of 250 and more are dropped: each digit equally likely */
	while (got < HTTP_JOIN_CODE_LEN) {
		if (http_random_hex(hex, 16))
			return -EIO;
		for (int i = 0; i < 16 && got < HTTP_JOIN_CODE_LEN; i++) {
			unsigned int byte;
			sscanf(hex + 2 * i, "%2x", &byte);
			if (byte < 250)
				code[got++] = (char)('0' + byte % 10);
		}
	}
	code[HTTP_JOIN_CODE_LEN] = '\0';
	return 0;
}

/* A new join code in place of the current one; srv->fail_mu held. The old
 * one is kept only to tell a phone it expired. */
static void join_rotate_locked(struct http_server *srv)
{
	char fresh[HTTP_JOIN_CODE_LEN + 1];

	if (!srv->join_code)
		return;
	/* no randomness left: the code is refused outright (never kept) */
	if (http_join_code_make(fresh))
		memset(fresh, 'x', HTTP_JOIN_CODE_LEN);
	fresh[HTTP_JOIN_CODE_LEN] = '\0';
	memcpy(srv->join_prev, srv->join_code, sizeof(srv->join_prev));
	memcpy(srv->join_code, fresh, sizeof(fresh));
}

void http_join_rotate(struct http_request *rq)
{
	pthread_mutex_lock(&rq->srv->fail_mu);
	join_rotate_locked(rq->srv);
	pthread_mutex_unlock(&rq->srv->fail_mu);
}

int http_join_code(struct http_request *rq, char code[HTTP_JOIN_CODE_LEN + 1])
{
	struct http_server *srv = rq->srv;

	if (!srv->join_code)
		return 0;
	pthread_mutex_lock(&srv->fail_mu);
	memcpy(code, srv->join_code, HTTP_JOIN_CODE_LEN + 1);
	pthread_mutex_unlock(&srv->fail_mu);
	return 1;
}

/* How a typed code compares, under srv->fail_mu: 1 the current code, 0
 * wrong, -1 the code before the last change, -2 joining by code paused
 * (*wait: seconds left). A wrong or expired code spends the server-wide
 * budget; the one that spends the last makes a new code and pauses. */
static int join_check(struct http_server *srv, const char *code, int *wait)
{
	time_t now = time(NULL);
	int got;

	pthread_mutex_lock(&srv->fail_mu);
	if (now < srv->join_paused_until) {
		*wait = (int)(srv->join_paused_until - now);
		pthread_mutex_unlock(&srv->fail_mu);
		return -2;
	}
	if (now - srv->join_window >= JOIN_WINDOW_S) {
		srv->join_window = now;
		srv->join_wrong = 0;
	}
	if (auth_token_equal(code, srv->join_code))
		got = 1;
	else if (srv->join_prev[0] && auth_token_equal(code, srv->join_prev))
		got = -1;
	else
		got = 0;
	if (got != 1 && ++srv->join_wrong >= JOIN_WRONG_MAX) {
		join_rotate_locked(srv);
		srv->join_prev[0] = '\0';
		srv->join_paused_until = srv->join_window + JOIN_WINDOW_S;
	}
	pthread_mutex_unlock(&srv->fail_mu);
	return got;
}

enum MHD_Result http_join(struct http_request *rq, const char *code,
			  const char *name)
{
	struct http_server *srv = rq->srv;
	enum MHD_Result ret;
	int got, wait = 1;

	if (auth_sign_in_refused(rq, &ret))
		return ret;
	if (!srv->join_code)
		return http_error(rq, MHD_HTTP_CONFLICT, "code",
				  "this server has no class to join (it was "
				  "started without a token)");
	if (strlen(code) != HTTP_JOIN_CODE_LEN ||
	    strspn(code, "0123456789") != HTTP_JOIN_CODE_LEN) {
		auth_note_failure(rq);
		return http_error(rq, MHD_HTTP_BAD_REQUEST, "code",
				  "a join code is %d digits, as the projector "
				  "shows it",
				  HTTP_JOIN_CODE_LEN);
	}
	got = join_check(srv, code, &wait);
	if (got == -2) {
		return auth_retry_after(
			rq,
			http_error_response(
				"code",
				"too many wrong join codes on this server: "
				"joining by code is paused for %d s and the "
				"projector shows a new code (the class link or "
				"its QR code still signs in)",
				wait),
			wait);
	}
	if (got != 1)
		auth_note_failure(rq);
	if (got == -1)
		return http_error(rq, MHD_HTTP_UNAUTHORIZED, "code",
				  "this join code has expired (the class was "
				  "opened anew): give the %d digits the "
				  "projector shows now",
				  HTTP_JOIN_CODE_LEN);
	if (got == 0)
		return http_error(rq, MHD_HTTP_UNAUTHORIZED, "code",
				  "wrong join code: give the %d digits the "
				  "projector shows",
				  HTTP_JOIN_CODE_LEN);
	return auth_open_session(rq, HTTP_ROLE_CLASS, name);
}
