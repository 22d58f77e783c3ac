/* auth.c - who a request comes from (bearer token, access_token, session cookie and its key) and what its route needs */
#include "auth.h"
#include "auth_limits.h"
#include "http_internal.h"
#include "http_response.h"
#include "session.h"
#include "trust.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

/* What a student's sign-in may not do, in every 403 that refuses it. */
#define CLASS_LIMITS                                                           \
	"the class link may read the experiments, the runs and their live "    \
	"streams and the classroom's question, and send predictions; it "      \
	"may not start, cancel, delete or import runs, start or post "         \
	"campaigns, or run checks"

const char *auth_role_name(int role)
{
	return role == HTTP_ROLE_TEACHER ? "teacher"
	       : role == HTTP_ROLE_CLASS ? "class"
					 : "none";
}

int auth_token_equal(const char *given, const char *token)
{
	size_t lg = strlen(given), lt = strlen(token);
	unsigned char diff = lg != lt;

	for (size_t i = 0; i < lt; i++)
		diff |= (unsigned char)(given[lg ? i % lg : 0] ^ token[i]);
	return diff == 0;
}

int auth_token_role(struct http_server *srv, const char *given)
{
	int teacher = auth_token_equal(given, srv->token);
	int student =
		srv->class_token && auth_token_equal(given, srv->class_token);

	return teacher	 ? HTTP_ROLE_TEACHER
	       : student ? HTTP_ROLE_CLASS
			 : HTTP_ROLE_NONE;
}

/* The token the request names: its Authorization header, or for a read
 * its access_token (EventSource cannot send headers). */
static const char *given_token(struct http_request *rq, int write)
{
	const char *auth = http_header(rq, "Authorization");

	if (auth && !strncasecmp(auth, "Bearer ", 7)) {
		auth += 7;
		while (*auth == ' ')
			auth++;
		return auth;
	}
	return write ? NULL : http_query(rq, "access_token");
}

const char *auth_session_cookie(struct http_request *rq)
{
	return MHD_lookup_connection_value(rq->conn, MHD_COOKIE_KIND,
					   rq->srv->cookie_name);
}

/* rq->role, session and name from the session cookie and the key the
 * page sends with it; 0, or -1 when the cookie comes from another site's
 * page (the 403 queued in *ret). */
static int cookie_role(struct http_request *rq, enum MHD_Result *ret)
{
	struct http_server *srv = rq->srv;
	const char *id = auth_session_cookie(rq);

	if (!id)
		return 0;
	rq->role = sessions_lookup(srv->sessions, id,
				   http_header(rq, HTTP_KEY_HEADER), rq->name);
	if (rq->role == HTTP_ROLE_NONE) {
		rq->cookie_only = 1;
		return 0;
	}
	if (!trust_same_origin(srv->trust, rq->conn)) {
		rq->role = HTTP_ROLE_NONE;
		rq->name[0] = '\0';
		*ret = http_error(rq, MHD_HTTP_FORBIDDEN, NULL,
				  "cross-origin request from '%.100s' refused "
				  "(a signed-in browser is answered only on "
				  "this server's own pages)",
				  http_header(rq, "Origin")
					  ? http_header(rq, "Origin")
					  : http_header(rq, "Sec-Fetch-Site"));
		return -1;
	}
	snprintf(rq->session, sizeof(rq->session), "%s", id);
	return 0;
}

/* The role route r needs of this request (HTTP_ROUTE_OPEN: none at all). */
static int role_needed(struct http_request *rq, const struct http_route *r,
		       int write)
{
	int need = r->role;

	if (need == 0) /* the token's rules as before roles */
		need = HTTP_ROLE_TEACHER;
	if (need == HTTP_ROLE_CLASS && !write && rq->srv->cfg.public_read)
		need = HTTP_ROLE_NONE;
	if (need == HTTP_ROLE_TEACHER && r->role == 0 && !write &&
	    rq->srv->cfg.public_read)
		need = HTTP_ROLE_NONE;
	return need;
}

static enum MHD_Result refuse(struct http_request *rq, const char *given,
			      int need)
{
	struct MHD_Response *resp;

	if (rq->role != HTTP_ROLE_NONE)
		return http_error(rq, MHD_HTTP_FORBIDDEN, NULL,
				  "%s %s needs the teacher's sign-in: %s",
				  rq->method, rq->path, CLASS_LIMITS);
	resp = http_error_response(
		NULL,
		given ? "wrong bearer token"
		: rq->cookie_only
			? "sign in again: this browser's session cookie came "
			  "without the key its page keeps (" HTTP_KEY_HEADER
			  "), or the session ended; a cookie alone is not "
			  "enough"
		: need == HTTP_ROLE_CLASS
			? "sign in first: open the class's or the teacher's "
			  "link, or send Authorization: Bearer TOKEN"
			: "sign in first with the teacher's link, or send "
			  "Authorization: Bearer TOKEN (this server needs a "
			  "bearer token)");
	if (resp)
		MHD_add_response_header(resp, "WWW-Authenticate",
					"Bearer realm=\"numalab\"");
	return http_respond(rq, MHD_HTTP_UNAUTHORIZED, resp);
}

int auth_admit(struct http_request *rq, const struct http_route *r,
	       enum MHD_Result *ret)
{
	struct http_server *srv = rq->srv;
	int write = strcmp(r->method, "GET") != 0;
	const char *given;
	int need;

	rq->role = HTTP_ROLE_NONE;
	rq->cookie_only = 0;
	rq->session[0] = rq->name[0] = '\0';
	if (!srv->token) { /* no token: anyone may do anything, as before */
		rq->role = HTTP_ROLE_TEACHER;
		return 0;
	}
	given = given_token(rq, write);
	if (given && auth_too_many_failures(rq, ret))
		return -1;
	if (given) {
		rq->role = auth_token_role(srv, given);
		if (rq->role == HTTP_ROLE_NONE)
			auth_note_failure(rq);
		/* the lab's own scripts and fleet: not counted in quotas */
		rq->bearer = rq->role == HTTP_ROLE_TEACHER;
	} else if (cookie_role(rq, ret)) {
		return -1;
	}
	if (r->role == HTTP_ROUTE_OPEN)
		return 0;
	need = role_needed(rq, r, write);
	if (rq->role >= need)
		return 0;
	*ret = refuse(rq, given, need);
	return -1;
}
