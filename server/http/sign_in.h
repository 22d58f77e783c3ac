/* sign_in.h - a browser signs in and out: its session, its cookie */
#ifndef NUMALAB_SIGN_IN_H
#define NUMALAB_SIGN_IN_H

#include "http_request.h"

/*
 * POST /api/session: signs the browser in with token, the teacher's or the
 * class's, and display name (checked by the caller). Queues 200 with the
 * session cookie (HttpOnly, SameSite=Strict, Secure under HTTPS) and
 * {"role", "name", "expires_in"}; 401 and no cookie for another token; 503
 * when the session table holds only teachers.
 */
enum MHD_Result http_sign_in(struct http_request *rq, const char *token,
			     const char *name);
/* DELETE /api/session: forgets the request's session and clears the
 * cookie; 200 {"role": "none"} signed in or not. */
enum MHD_Result http_sign_out(struct http_request *rq);
/* 0 when rq may try to sign in now (a token, a join code); otherwise the
 * answer (409 no token, 429 too many) is queued in *ret. */
int auth_sign_in_refused(struct http_request *rq, enum MHD_Result *ret);

/* A new session of role and name for the client of rq: its cookie and the
 * page's key in the answer (503 when there is no room for it). */
enum MHD_Result auth_open_session(struct http_request *rq, int role,
				  const char *name);

#endif
