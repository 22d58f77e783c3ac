/* auth.c - who a request comes from (bearer token, access_token, session cookie and its key), what its route needs, and signing in and out */
#define _GNU_SOURCE
#include "auth.h"
#include "http_internal.h"
#include "http_response.h"
#include "ratelimit.h"
#include "session.h"
#include "strbuf.h"
#include "trust.h"

#include <arpa/inet.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>

/* wrong tokens and codes are counted on one line a minute at most */
#define FAIL_LOG_EVERY_S 60

/* Wrong join codes the server takes from all addresses together in one
 * window: past them the code is made anew and joining by code pauses until
 * the window ends, so at most JOIN_WRONG_MAX codes a minute are ever tried
 * whatever the number of addresses (docs/guide/security.md: the odds). */
#define JOIN_WRONG_MAX 20
#define JOIN_WINDOW_S 60

/* What a student's sign-in may not do, in every 403 that refuses it. */
#define CLASS_LIMITS                                                           \
	"the class link may read the experiments, the runs and their live "    \
	"streams and the classroom's question, and send predictions; it "      \
	"may not start, cancel, delete or import runs, start or post "         \
	"campaigns, or run checks"

static const char *http_role_name(int role)
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

/*
 * A wrong token or code from the client of rq: counted against its
 * address and its /64, and said on stderr at most once a minute as counts
 * (no address, no token: nothing a log reader could use).
 */
static void note_failure(struct http_request *rq)
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
			"numalab: auth: %lu wrong token(s) or join code(s) "
			"since the last such line, %lu refused unread for "
			"coming too fast (an address gets 10 wrong tries at "
			"once, then one a second; one line a minute at most)\n",
			srv->fail_count, srv->fail_slowed);
		srv->fail_count = srv->fail_slowed = 0;
		srv->fail_since = now;
	}
	pthread_mutex_unlock(&srv->fail_mu);
}

/*
 * Whether the client of rq has sent so many wrong tokens lately that its
 * next is not even read: then the 429 is queued in *ret. Guessing a token
 * goes at a few tries a second per address (and per /64) at most.
 */
static int too_many_failures(struct http_request *rq, enum MHD_Result *ret)
{
	struct http_server *srv = rq->srv;
	unsigned char addr[16], net[16];
	struct MHD_Response *resp;
	char after[16];
	int retry = 1;

	http_client_key(rq, addr, 0);
	http_client_key(rq, net, 1);
	if (ratelimit_peek(srv->fail_addr, addr, &retry) &&
	    ratelimit_peek(srv->fail_net, net, &retry))
		return 0;
	pthread_mutex_lock(&srv->fail_mu);
	srv->fail_slowed++;
	pthread_mutex_unlock(&srv->fail_mu);
	resp = http_error_response(NULL,
				   "too many wrong tokens or join codes from "
				   "this address: try again in %d s",
				   retry);
	snprintf(after, sizeof(after), "%d", retry);
	if (resp)
		MHD_add_response_header(resp, "Retry-After", after);
	*ret = http_respond(rq, MHD_HTTP_TOO_MANY_REQUESTS, resp);
	return 1;
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

/* The session cookie of this server (its name carries the port). */
static const char *session_cookie(struct http_request *rq)
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
	const char *id = session_cookie(rq);

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
	if (given && too_many_failures(rq, ret))
		return -1;
	if (given) {
		rq->role = token_role(srv, given);
		if (rq->role == HTTP_ROLE_NONE)
			note_failure(rq);
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
	const char *pub = rq->srv->public_url;
	int secure =
		rq->srv->cfg.tls_cert || (pub && !strncmp(pub, "https:", 6));

	snprintf(buf, len,
		 "%s=%s; Path=/; Max-Age=%d; HttpOnly; SameSite=Strict%s",
		 rq->srv->cookie_name, id, max_age, secure ? "; Secure" : "");
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

/*
 * Whether the client of rq may sign in once more (its address and its /64
 * each have a bucket of sign-ins); otherwise the 429 is queued in *ret.
 */
static int too_many_sign_ins(struct http_request *rq, enum MHD_Result *ret)
{
	struct http_server *srv = rq->srv;
	unsigned char addr[16], net[16];
	struct MHD_Response *resp;
	char after[16];
	int retry = 1;

	http_client_key(rq, addr, 0);
	http_client_key(rq, net, 1);
	/* the lab machine itself (and a reverse proxy on it, which brings
	 * the whole class from one address): bounded by sessions per
	 * address, not slowed */
	if (loopback_client(rq))
		return 0;
	if (ratelimit_peek(srv->signin_addr, addr, &retry) &&
	    ratelimit_peek(srv->signin_net, net, &retry)) {
		ratelimit_take(srv->signin_addr, addr, NULL);
		ratelimit_take(srv->signin_net, net, NULL);
		return 0;
	}
	resp = http_error_response(NULL,
				   "too many sign-ins from this address: try "
				   "again in %d s",
				   retry);
	snprintf(after, sizeof(after), "%d", retry);
	if (resp)
		MHD_add_response_header(resp, "Retry-After", after);
	*ret = http_respond(rq, MHD_HTTP_TOO_MANY_REQUESTS, resp);
	return 1;
}

/* A new session of role and name for the client of rq: its cookie and the
 * page's key in the answer. */
static enum MHD_Result open_session(struct http_request *rq, int role,
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
	const char *before = session_cookie(rq);
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
					    http_role_name(role), "name", name,
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

/* 0 when rq may try to sign in now; otherwise the answer is queued. */
static int sign_in_refused(struct http_request *rq, enum MHD_Result *ret)
{
	if (!rq->srv->token) {
		*ret = http_error(rq, MHD_HTTP_CONFLICT, NULL,
				  "this server has no token: there is nothing "
				  "to sign in to (every browser may do "
				  "everything)");
		return 1;
	}
	return too_many_failures(rq, ret) || too_many_sign_ins(rq, ret);
}

enum MHD_Result http_sign_in(struct http_request *rq, const char *token,
			     const char *name)
{
	enum MHD_Result ret;
	int role;

	if (sign_in_refused(rq, &ret))
		return ret;
	role = token_role(rq->srv, token);
	if (role == HTTP_ROLE_NONE) {
		note_failure(rq);
		return http_error(rq, MHD_HTTP_UNAUTHORIZED, "token",
				  "wrong token: give the one in the teacher's "
				  "or the class's link");
	}
	return open_session(rq, role, name);
}

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
	if (token_equal(code, srv->join_code))
		got = 1;
	else if (srv->join_prev[0] && token_equal(code, srv->join_prev))
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
	struct MHD_Response *resp;
	enum MHD_Result ret;
	char after[16];
	int got, wait = 1;

	if (sign_in_refused(rq, &ret))
		return ret;
	if (!srv->join_code)
		return http_error(rq, MHD_HTTP_CONFLICT, "code",
				  "this server has no class to join (it was "
				  "started without a token)");
	if (strlen(code) != HTTP_JOIN_CODE_LEN ||
	    strspn(code, "0123456789") != HTTP_JOIN_CODE_LEN) {
		note_failure(rq);
		return http_error(rq, MHD_HTTP_BAD_REQUEST, "code",
				  "a join code is %d digits, as the projector "
				  "shows it",
				  HTTP_JOIN_CODE_LEN);
	}
	got = join_check(srv, code, &wait);
	if (got == -2) {
		resp = http_error_response(
			"code",
			"too many wrong join codes on this server: joining by "
			"code is paused for %d s and the projector shows a new "
			"code (the class link or its QR code still signs in)",
			wait);
		snprintf(after, sizeof(after), "%d", wait);
		if (resp)
			MHD_add_response_header(resp, "Retry-After", after);
		return http_respond(rq, MHD_HTTP_TOO_MANY_REQUESTS, resp);
	}
	if (got != 1)
		note_failure(rq);
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
	return open_session(rq, HTTP_ROLE_CLASS, name);
}

enum MHD_Result http_rename(struct http_request *rq, const char *name)
{
	if (!rq->session[0] ||
	    sessions_rename(rq->srv->sessions, rq->session,
			    http_header(rq, HTTP_KEY_HEADER), name))
		return http_error(rq, MHD_HTTP_UNAUTHORIZED, NULL,
				  "sign in first: a name goes with a browser's "
				  "sign-in");
	snprintf(rq->name, sizeof(rq->name), "%s", name);
	return http_whoami(rq);
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

/* Whether a Host header's name (its port aside) is an address literal. */
static int address_host(const char *host)
{
	char name[64];
	unsigned char a[16];
	size_t n = host[0] == '[' ? 0 : strcspn(host, ":");

	if (host[0] == '[')
		return 1;
	if (n >= sizeof(name))
		return 0;
	memcpy(name, host, n);
	name[n] = '\0';
	return inet_pton(AF_INET, name, a) == 1;
}

/*
 * The class's sign-in link, for the teacher's projector to show: on
 * --public-url when there is one; else on the address the teacher's
 * browser named (the Host check let it through), or on the first
 * address a phone reaches when the teacher is on loopback or named the
 * machine (a name is often not resolvable from a phone). NULL when there
 * is no class token (or no memory).
 */
static char *class_link(struct http_request *rq)
{
	struct http_server *srv = rq->srv;
	const char *host = http_header(rq, "Host");
	struct strbuf sb = STRBUF_INIT;

	if (!srv->class_token || !host || !*host)
		return NULL;
	if (srv->public_url) {
		strbuf_addstr(&sb, srv->public_url);
	} else {
		strbuf_addstr(&sb, srv->cfg.tls_cert ? "https://" : "http://");
		if ((loopback_host(host) || !address_host(host)) &&
		    srv->link_host && !loopback_host(srv->link_host)) {
			int v6 = strchr(srv->link_host, ':') != NULL;
			strbuf_addf(&sb, "%s%s%s:%d", v6 ? "[" : "",
				    srv->link_host, v6 ? "]" : "", srv->port);
		} else {
			strbuf_addstr(&sb, host);
		}
	}
	strbuf_addf(&sb, "/?token=%s", srv->class_token);
	return strbuf_detach(&sb);
}

/* The page a phone types the join code into, on the same host as the
 * class link (without a token). */
static char *join_link(const char *class_link)
{
	const char *q = strstr(class_link, "/?token=");
	struct strbuf sb = STRBUF_INIT;

	strbuf_add(&sb, class_link,
		   q ? (size_t)(q - class_link) : strlen(class_link));
	strbuf_addstr(&sb, "/join");
	return strbuf_detach(&sb);
}

json_t *http_join_info(struct http_request *rq)
{
	char code[HTTP_JOIN_CODE_LEN + 1], *link, *join;
	json_t *doc = NULL;

	if (rq->role != HTTP_ROLE_TEACHER || !rq->srv->token ||
	    !http_join_code(rq, code))
		return NULL;
	link = class_link(rq);
	join = link ? join_link(link) : NULL;
	if (join)
		doc = json_pack("{s:s, s:s}", "link", join, "code", code);
	if (link)
		explicit_bzero(link, strlen(link));
	free(link);
	free(join);
	return doc;
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
			char *join = join_link(link);
			json_object_set_new(doc, "class_link",
					    json_string(link));
			char code[HTTP_JOIN_CODE_LEN + 1];
			if (join && http_join_code(rq, code)) {
				json_object_set_new(doc, "join_link",
						    json_string(join));
				json_object_set_new(doc, "join_code",
						    json_string(code));
			}
			free(join);
			explicit_bzero(link, strlen(link));
		}
		free(link);
	}
	return http_json(rq, MHD_HTTP_OK, doc);
}

json_t *http_lobby(struct http_request *rq)
{
	static char names[SESSION_MAX][HTTP_NAME_LEN];
	static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
	json_t *list = json_array();
	size_t got, n;

	if (!list)
		return NULL;
	pthread_mutex_lock(&mu);
	n = sessions_names(rq->srv->sessions, HTTP_ROLE_CLASS, names,
			   SESSION_MAX, &got);
	for (size_t i = 0; i < got; i++)
		json_array_append_new(list, json_string(names[i]));
	pthread_mutex_unlock(&mu);
	return json_pack("{s:I, s:o}", "signed_in", (json_int_t)n, "names",
			 list);
}

int http_client_sessions_max(struct http_request *rq)
{
	int n = rq->srv->cfg.max_client_sessions;

	return n > 0 ? n : SESSION_CLIENT_MAX;
}
