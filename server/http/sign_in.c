/* sign_in.c - a browser signs in with a token and out again: its session, its cookie */
#define _GNU_SOURCE
#include "sign_in.h"
#include "auth.h"
#include "auth_limits.h"
#include "http_internal.h"
#include "http_response.h"
#include "session.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* The Set-Cookie value of id living max_age seconds ("" and 0: cleared). */
static void cookie_text(struct http_request *rq, const char *id, int max_age,
			char *buf, size_t len)
{
	const char *pub = rq->srv->public_url;
	int secure =
		rq->srv->cfg.tls_cert || (pub && !strncmp(pub, "https:", 6));

	snprintf(buf, len,
		 "%s=%s; Path=/; Max-Age=%d; HttpOnly; SameSite=Strict%s",
		 rq->srv->cookie_name, id, max_age, secure ? "; Secure" : "");
}

enum MHD_Result auth_open_session(struct http_request *rq, int role,
				  const char *name)
{
	struct http_server *srv = rq->srv;
	char id[HTTP_SESSION_LEN], key[HTTP_SESSION_LEN], cookie[192];
	unsigned char client[16];
	struct MHD_Response *resp;
	enum MHD_Result ret;
	int rc;

	/* a browser signs in again (the teacher's link after the class's):
	 * its session before is forgotten, not left to expire */
	const char *before = auth_session_cookie(rq);
	if (before)
		sessions_delete(srv->sessions, before);
	http_client_key(rq, client, 1);
	rc = sessions_create(srv->sessions, role, name, client, id, key);
	if (rc)
		return http_error(
			rq, MHD_HTTP_SERVICE_UNAVAILABLE, NULL,
			rc == -ENOSPC ? "%d teachers are signed in: no room "
					"for another until one signs out"
				      : "cannot make a session id (%d): "
					"getrandom failed",
			SESSION_MAX);
	int life = sessions_lifetime(srv->sessions);
	resp = http_json_response(json_pack("{s:s, s:s, s:i, s:s}", "role",
					    auth_role_name(role), "name", name,
					    "expires_in", life, "key", key));
	explicit_bzero(key, sizeof(key));
	if (!resp) {
		explicit_bzero(id, sizeof(id));
		return MHD_NO;
	}
	cookie_text(rq, id, life, cookie, sizeof(cookie));
	MHD_add_response_header(resp, MHD_HTTP_HEADER_SET_COOKIE, cookie);
	ret = http_respond(rq, MHD_HTTP_OK, resp);
	explicit_bzero(cookie, sizeof(cookie));
	explicit_bzero(id, sizeof(id));
	return ret;
}

int auth_sign_in_refused(struct http_request *rq, enum MHD_Result *ret)
{
	if (!rq->srv->token) {
		*ret = http_error(rq, MHD_HTTP_CONFLICT, NULL,
				  "this server has no token: there is nothing "
				  "to sign in to (every browser may do "
				  "everything)");
		return 1;
	}
	return auth_too_many_failures(rq, ret) ||
	       auth_too_many_sign_ins(rq, ret);
}

enum MHD_Result http_sign_in(struct http_request *rq, const char *token,
			     const char *name)
{
	enum MHD_Result ret;
	int role;

	if (auth_sign_in_refused(rq, &ret))
		return ret;
	role = auth_token_role(rq->srv, token);
	if (role == HTTP_ROLE_NONE) {
		auth_note_failure(rq);
		return http_error(rq, MHD_HTTP_UNAUTHORIZED, "token",
				  "wrong token: give the one in the teacher's "
				  "or the class's link");
	}
	return auth_open_session(rq, role, name);
}

enum MHD_Result http_sign_out(struct http_request *rq)
{
	struct MHD_Response *resp;
	char cookie[192];

	/* only with its key: a cookie that reached a neighbour's server on
	 * this host cannot sign the teacher out either */
	if (rq->session[0])
		sessions_delete(rq->srv->sessions, rq->session);
	resp = http_json_response(json_pack("{s:s}", "role", "none"));
	if (!resp)
		return MHD_NO;
	cookie_text(rq, "", 0, cookie, sizeof(cookie));
	MHD_add_response_header(resp, MHD_HTTP_HEADER_SET_COOKIE, cookie);
	return http_respond(rq, MHD_HTTP_OK, resp);
}
