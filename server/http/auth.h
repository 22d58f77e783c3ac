/* auth.h - who a request comes from: its token or its session cookie, for the sign-in files */
#ifndef NUMALAB_AUTH_H
#define NUMALAB_AUTH_H

#include "http_request.h"

struct http_server;

/* "teacher", "class" or "none": a role as the API names it. */
const char *auth_role_name(int role);

/*
 * Compares a candidate with the token in time that depends only on the
 * token's length, so the answer's timing tells nothing of its contents.
 */
int auth_token_equal(const char *given, const char *token);

/* The role a token gives: the teacher's, the class's, or none. */
int auth_token_role(struct http_server *srv, const char *given);

/* The session cookie of this server (its name carries the port). */
const char *auth_session_cookie(struct http_request *rq);

#endif
