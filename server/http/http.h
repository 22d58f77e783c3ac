/* http.h - the HTTP server: route table, bodies, errors, auth, static files */
#ifndef NUMALAB_HTTP_H
#define NUMALAB_HTTP_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>
#include <microhttpd.h>

#define HTTP_BODY_MAX (64 * 1024)
#define HTTP_MAX_CAPTURES 4
#define HTTP_MAX_CONNS 16384
#define HTTP_MAX_CLIENT_CONNS 2048

struct http_server;

/*
 * Who a request comes from, least to most: the roles a route may ask for
 * (struct http_route .role). A bearer token or the teacher's sign-in is
 * HTTP_ROLE_TEACHER; the class link's sign-in HTTP_ROLE_CLASS.
 */
enum http_role {
	HTTP_ROLE_NONE = 0, /* not signed in */
	HTTP_ROLE_CLASS,  /* a student: reads what the teacher shows, guesses */
	HTTP_ROLE_TEACHER /* everything the server's token allows */
};

/* a route's .role: anyone, signed in or not, even on a server with a token
 * (signing in, signing out, asking who one is) */
#define HTTP_ROUTE_OPEN (-1)
/* the cookie a signed-in browser carries: this name, then _PORT, so two
 * servers on one host keep their sign-ins apart */
#define HTTP_SESSION_COOKIE "numalab_session"
/* what the page sends beside the cookie on every request: the key the
 * sign-in's answer gave it (a cookie reaches every port of the host, the
 * key stays in the page's own storage) */
#define HTTP_KEY_HEADER "X-Numalab-Key"
#define HTTP_JOIN_CODE_LEN 6		 /* digits of the class's join code */
#define HTTP_SESSION_SECONDS (12 * 3600) /* default lifetime of a sign-in */

#define HTTP_SESSION_LEN 33 /* 32 hex digits and the NUL */
#define HTTP_NAME_LEN 49    /* a display name: 48 bytes of UTF-8 at most */

struct http_request {
	struct http_server *srv;
	struct MHD_Connection *conn;
	const char *method; /* HEAD is routed as GET; this keeps the original */
	const char *path;   /* decoded, without the query */
	char *raw_uri;	    /* as the client sent it */
	char *body;	    /* NUL-terminated, body_len bytes */
	size_t body_len;
	const char *capture[HTTP_MAX_CAPTURES]; /* the {x} segments */
	char *capture_buf;
	int started;
	int too_big;
	size_t query_args; /* when too many to keep: how many it had, else 0 */
	unsigned int status; /* of the answer queued, 0 before */
	int bearer;	     /* it carried the server's token */
	size_t body_max;     /* of the route it will go to */
	size_t dropped; /* body bytes past the limit, read and thrown away */
	int role;	/* enum http_role, set before the handler runs */
	/* the signed-in browser's session id ("" for a bearer token or none)
	 * and the display name it gave ("" when none) */
	char session[HTTP_SESSION_LEN];
	char name[HTTP_NAME_LEN];
	/* it came with a session cookie that signed nothing in (no key, a
	 * wrong one, or expired): its 401 says so */
	int cookie_only;
};

/* Returns what MHD_queue_response returned (MHD_YES / MHD_NO). */
typedef enum MHD_Result (*http_handler)(struct http_request *rq, void *ctx);

/* One row of the route table; patterns name captures as {x}. */
struct http_route {
	const char *method;
	const char *pattern;
	http_handler handler;
	size_t body_max; /* 0: HTTP_BODY_MAX; above it, the client's quota
			    counts */
	/* the least enum http_role the route needs; 0: as the server's token
	 * rules say today (GETs public with public_read, else the token) */
	int role;
};

struct http_config {
	const char *host; /* numeric address to bind */
	int port;	  /* 0: any free port */
	const char *web_dir;
	const char *token;	 /* NULL: no token */
	const char *class_token; /* the class link's: signs a student in */
	/* the address the projector's QR code uses when the teacher's page
	 * was opened on loopback or by a name (the first address a phone
	 * reaches), or NULL */
	const char *link_host;
	/* --public-url (scheme://host[:port]): the class link is built on it,
	 * its origin is this server's own, and the cookie is Secure when it
	 * is https; NULL when none */
	const char *public_url;
	/* the class's join code (HTTP_JOIN_CODE_LEN digits), NULL: none */
	const char *join_code;
	int max_client_sessions; /* students' sessions an address holds; 0:
				    the default */
	int session_seconds;	 /* a sign-in's lifetime; 0: the default */
	int public_read;	 /* GETs need no token */
	const char *cors;	 /* allowed Origin, "*", or NULL */
	unsigned int max_conns;	 /* 0: HTTP_MAX_CONNS */
	unsigned int max_client_conns;	  /* from one address; 0:
					     HTTP_MAX_CLIENT_CONNS */
	const char *const *allowed_hosts; /* names besides loopback ones */
	/* routes with a body_max above HTTP_BODY_MAX (import): each client may
	 * send this many requests and bytes an hour; 0: no limit */
	unsigned int quota_count;
	size_t quota_bytes;
	/* PEM text of the certificate (chain) and its key (http_tls.h): HTTPS
	 * when set */
	const char *tls_cert;
	const char *tls_key;
};

/*
 * Starts the daemon: a few threads, each an epoll loop over its share of
 * the connections (a slow or idle one costs memory, not a thread). routes is
 * NULL-method-terminated; ctx goes to every handler. NULL with err set.
 */
struct http_server *http_start(const struct http_config *cfg,
			       const struct http_route *routes, void *ctx,
			       char *err, size_t errlen);
/* The port it listens on. */
int http_port(struct http_server *srv);
/* Stops accepting, closes every connection, joins the threads (after
 * stream_stop). */
void http_stop(struct http_server *srv);

/* Queues resp with the common headers (CSP, nosniff, CORS) and frees it. */
enum MHD_Result http_respond(struct http_request *rq, unsigned int status,
			     struct MHD_Response *resp);
/*
 * An answer built once and queued for many requests (libmicrohttpd counts
 * its users): http_shareable adds the common headers but CORS (which
 * depend on the request; those of the server, as rq's, are the same for
 * every request) and Cache-Control; http_respond_shared queues it
 * and leaves it to its owner. Only for a request http_needs_cors says no.
 */
void http_shareable(struct http_request *rq, struct MHD_Response *resp,
		    const char *cache_control);
enum MHD_Result http_respond_shared(struct http_request *rq,
				    unsigned int status,
				    struct MHD_Response *resp);
/* Whether an answer to rq carries CORS headers of its own. */
int http_needs_cors(struct http_request *rq);
/*
 * Queues resp with only nosniff and Connection: close, and frees it: for a
 * request whose head left too little of the connection's memory for the
 * common headers.
 */
enum MHD_Result http_respond_bare(struct http_request *rq, unsigned int status,
				  struct MHD_Response *resp);
/* doc as the text of every JSON answer: compact, with a trailing newline.
 * Malloc'd, *len bytes (the NUL not counted); NULL on ENOMEM. */
char *http_json_text(const json_t *doc, size_t *len);
/* A response of doc as JSON, for handlers that add headers; steals doc. */
struct MHD_Response *http_json_response(json_t *doc);
/* A JSON body; steals doc. */
enum MHD_Result http_json(struct http_request *rq, unsigned int status,
			  json_t *doc);
/* {"error": msg, "field": field}; field may be NULL. */
enum MHD_Result http_error(struct http_request *rq, unsigned int status,
			   const char *field, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* A response of a JSON error, for handlers that add headers first. */
struct MHD_Response *http_error_response(const char *field, const char *fmt,
					 ...)
	__attribute__((format(printf, 2, 3)));

/*
 * The request's body as one JSON document, parsed within the limits of
 * jsonlimit.h (JSONLIMIT_DEPTH levels, JSONLIMIT_VALUES values, no member
 * twice) before anything recurses over it. NULL when it is not, the 400
 * that says why (naming the top-level member where a limit was passed)
 * queued in *ret.
 */
json_t *http_body_json(struct http_request *rq, enum MHD_Result *ret);

/*
 * POST /api/session: signs the browser in with token, the teacher's or the
 * class's, and display name (checked by the caller). Queues 200 with the
 * session cookie (HttpOnly, SameSite=Strict, Secure under HTTPS) and
 * {"role", "name", "expires_in"}; 401 and no cookie for another token; 503
 * when the session table holds only teachers.
 */
enum MHD_Result http_sign_in(struct http_request *rq, const char *token,
			     const char *name);
/* POST /api/session {"code"}: the class's join code instead of a link's
 * token; answered as http_sign_in. */
enum MHD_Result http_join(struct http_request *rq, const char *code,
			  const char *name);
/* PATCH /api/session {"name"}: the signed-in browser's name. */
enum MHD_Result http_rename(struct http_request *rq, const char *name);
/* DELETE /api/session: forgets the request's session and clears the
 * cookie; 200 {"role": "none"} signed in or not. */
enum MHD_Result http_sign_out(struct http_request *rq);
/* GET /api/session: {"role", "name", "sign_in"} (sign_in: whether this
 * server asks for a token at all), and for the teacher only "class_link",
 * the class's sign-in link with its token (for the projector's QR code). */
enum MHD_Result http_whoami(struct http_request *rq);
/* The projector's lobby: {"signed_in": students signed in now, "names":
 * their display names, in the order they joined (the unnamed left out)},
 * or NULL on ENOMEM. */
json_t *http_lobby(struct http_request *rq);
/* n random bytes (64 at most) from getrandom(2) as hex into out (2n + 1
 * bytes). 0, or -EIO. */
int http_random_hex(char *out, size_t n);
/* "none", "class", "teacher". */
const char *http_role_name(int role);

/* A request header, or a query argument; NULL if absent. */
const char *http_header(struct http_request *rq, const char *name);
const char *http_query(struct http_request *rq, const char *name);
/*
 * The key the client is counted under into key: its /64 when net (an IPv4
 * address is its own), else its whole address (trust_client_key).
 */
void http_client_key(struct http_request *rq, unsigned char key[16], int net);
/* The client's numeric address ("127.0.0.1", "::1") into buf; "" if unknown. */
const char *http_client_address(struct http_request *rq, char *buf, size_t len);

#endif
