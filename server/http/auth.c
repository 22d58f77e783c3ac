/* auth.c - who a request comes from (bearer token, access_token, session cookie), what its route needs, and signing in and out */
#define _GNU_SOURCE
#include "http.h"
#include "http_internal.h"
#include "session.h"
#include "strbuf.h"
#include "trust.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

/* What a student's sign-in may not do, in every 403 that refuses it. */
#define CLASS_LIMITS                                                           \
	"the class link may read the experiments, the runs and their live "    \
	"streams and the classroom's question, and send predictions; it "      \
	"may not start, cancel, delete or import runs, start or post "         \
	"campaigns, or run checks"

const char *http_role_name(int role)
{
	return role == HTTP_ROLE_TEACHER ? "teacher"
	       : role == HTTP_ROLE_CLASS ? "class"
					 : "none";
}

/*
 * Compares a candidate with the token in time that depends only on the
 * token's length, so the answer's timing tells nothing of its contents.
 */
static int token_equal(const char *given, const char *token)
{
	size_t lg = strlen(given), lt = strlen(token);
	unsigned char diff = lg != lt;

	for (size_t i = 0; i < lt; i++)
		diff |= (unsigned char)(given[lg ? i % lg : 0] ^ token[i]);
	return diff == 0;
}

/* The role a token gives: the teacher's, the class's, or none. */
static int token_role(struct http_server *srv, const char *given)
{
	int teacher = token_equal(given, srv->token);
	int student = srv->class_token && token_equal(given, srv->class_token);

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

/* rq->role, session and name from the session cookie; 0, or -1 when the
 * cookie comes from another site's page (the 403 queued in *ret). */
static int cookie_role(struct http_request *rq, enum MHD_Result *ret)
{
	struct http_server *srv = rq->srv;
	const char *id = MHD_lookup_connection_value(rq->conn, MHD_COOKIE_KIND,
						     HTTP_SESSION_COOKIE);

	if (!id)
		return 0;
	rq->role = sessions_lookup(srv->sessions, id, rq->name);
	if (rq->role == HTTP_ROLE_NONE)
		return 0;
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
	rq->session[0] = rq->name[0] = '\0';
	if (!srv->token) { /* no token: anyone may do anything, as before */
		rq->role = HTTP_ROLE_TEACHER;
		return 0;
	}
	given = given_token(rq, write);
	if (given) {
		rq->role = token_role(srv, given);
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

/* The Set-Cookie value of id living max_age seconds ("" and 0: cleared). */
static void cookie_text(struct http_request *rq, const char *id, int max_age,
			char *buf, size_t len)
{
	snprintf(buf, len,
		 "%s=%s; Path=/; Max-Age=%d; HttpOnly; SameSite=Strict%s",
		 HTTP_SESSION_COOKIE, id, max_age,
		 rq->srv->cfg.tls_cert ? "; Secure" : "");
}

enum MHD_Result http_sign_in(struct http_request *rq, const char *token,
			     const char *name)
{
	struct http_server *srv = rq->srv;
	char id[HTTP_SESSION_LEN], cookie[160];
	struct MHD_Response *resp;
	enum MHD_Result ret;
	int role, rc;

	if (!srv->token)
		return http_error(rq, MHD_HTTP_CONFLICT, NULL,
				  "this server has no token: there is nothing "
				  "to sign in to (every browser may do "
				  "everything)");
	role = token_role(srv, token);
	if (role == HTTP_ROLE_NONE)
		return http_error(rq, MHD_HTTP_UNAUTHORIZED, "token",
				  "wrong token: give the one in the teacher's "
				  "or the class's link");
	/* a browser signs in again (the teacher's link after the class's):
	 * its session before is forgotten, not left to expire */
	const char *before = MHD_lookup_connection_value(
		rq->conn, MHD_COOKIE_KIND, HTTP_SESSION_COOKIE);
	if (before)
		sessions_delete(srv->sessions, before);
	rc = sessions_create(srv->sessions, role, name, id);
	if (rc)
		return http_error(
			rq, MHD_HTTP_SERVICE_UNAVAILABLE, NULL,
			rc == -ENOSPC ? "%d teachers are signed in: no room "
					"for another until one signs out"
				      : "cannot make a session id (%d): "
					"getrandom failed",
			SESSION_MAX);
	int life = sessions_lifetime(srv->sessions);
	resp = http_json_response(json_pack("{s:s, s:s, s:i}", "role",
					    http_role_name(role), "name", name,
					    "expires_in", life));
	if (!resp)
		return MHD_NO;
	cookie_text(rq, id, life, cookie, sizeof(cookie));
	MHD_add_response_header(resp, MHD_HTTP_HEADER_SET_COOKIE, cookie);
	ret = http_respond(rq, MHD_HTTP_OK, resp);
	explicit_bzero(cookie, sizeof(cookie));
	explicit_bzero(id, sizeof(id));
	return ret;
}

enum MHD_Result http_sign_out(struct http_request *rq)
{
	const char *id = MHD_lookup_connection_value(rq->conn, MHD_COOKIE_KIND,
						     HTTP_SESSION_COOKIE);
	struct MHD_Response *resp;
	char cookie[160];

	if (id && rq->srv->sessions)
		sessions_delete(rq->srv->sessions, id);
	resp = http_json_response(json_pack("{s:s}", "role", "none"));
	if (!resp)
		return MHD_NO;
	cookie_text(rq, "", 0, cookie, sizeof(cookie));
	MHD_add_response_header(resp, MHD_HTTP_HEADER_SET_COOKIE, cookie);
	return http_respond(rq, MHD_HTTP_OK, resp);
}

/* Whether a Host header's name (its port aside) is a loopback one. */
static int loopback_host(const char *host)
{
	char name[64];
	unsigned char a[16];
	size_t n;

	if (host[0] == '[') {
		n = strcspn(host + 1, "]");
		host++;
	} else {
		n = strcspn(host, ":");
	}
	if (n >= sizeof(name))
		return 0;
	memcpy(name, host, n);
	name[n] = '\0';
	if (n && name[n - 1] == '.')
		name[n - 1] = '\0';
	if (!strcasecmp(name, "localhost"))
		return 1;
	if (inet_pton(AF_INET, name, a) == 1)
		return a[0] == 127;
	return inet_pton(AF_INET6, name, a) == 1 &&
	       !memcmp(a, &in6addr_loopback, 16);
}

/*
 * The class's sign-in link, for the teacher's projector to show: on the
 * host the teacher's browser named (the Host check let it through), or on
 * the name the server printed when the teacher is on loopback and the
 * class is not. NULL when there is no class token (or no memory).
 */
static char *class_link(struct http_request *rq)
{
	struct http_server *srv = rq->srv;
	const char *host = http_header(rq, "Host");
	struct strbuf sb = STRBUF_INIT;

	if (!srv->class_token || !host || !*host)
		return NULL;
	strbuf_addstr(&sb, srv->cfg.tls_cert ? "https://" : "http://");
	if (loopback_host(host) && srv->link_host &&
	    !loopback_host(srv->link_host)) {
		int v6 = strchr(srv->link_host, ':') != NULL;
		strbuf_addf(&sb, "%s%s%s:%d", v6 ? "[" : "", srv->link_host,
			    v6 ? "]" : "", srv->port);
	} else {
		strbuf_addstr(&sb, host);
	}
	strbuf_addf(&sb, "/?token=%s", srv->class_token);
	return strbuf_detach(&sb);
}

enum MHD_Result http_whoami(struct http_request *rq)
{
	json_t *doc =
		json_pack("{s:s, s:s, s:b}", "role", http_role_name(rq->role),
			  "name", rq->name, "sign_in", rq->srv->token != NULL);
	/* the class's token goes to the teacher alone: a student's page
	 * never learns it, nor the teacher's */
	if (doc && rq->role == HTTP_ROLE_TEACHER && rq->srv->token) {
		char *link = class_link(rq);
		if (link) {
			json_object_set_new(doc, "class_link",
					    json_string(link));
			explicit_bzero(link, strlen(link));
		}
		free(link);
	}
	return http_json(rq, MHD_HTTP_OK, doc);
}
