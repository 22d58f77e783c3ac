/* http_request.h - a request as the handlers see it: the route table's types, and reading its head */
#ifndef NUMALAB_HTTP_REQUEST_H
#define NUMALAB_HTTP_REQUEST_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>
#include <microhttpd.h>

#include "display_name.h"

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

#define HTTP_SESSION_LEN 33		     /* 32 hex digits and the NUL */
#define HTTP_NAME_LEN (DISPLAY_NAME_MAX + 1) /* a display name and its NUL */

struct http_request {
	struct http_server *srv;
	struct MHD_Connection *conn;
	const char *method; /* HEAD is routed as GET; this keeps the original */
	const char *path;   /* decoded, without the query */
	char *raw_uri;	    /* as the client sent it; NULL under /api/ */
	size_t raw_len;	    /* its length */
	char *body;	    /* NUL-terminated, body_len bytes */
	size_t body_len;
	const char *capture[HTTP_MAX_CAPTURES]; /* the {x} segments */
	char *capture_buf; /* capture_small, or malloc'd when they are longer */
	char capture_small[32];
	int started;
	int too_big;
	size_t query_args; /* when too many to keep: how many it had, else 0 */
	int nul_escaped;   /* its URI holds %00: decoded, it would end there */
	/* where libmicrohttpd read the URI (NULL: not known); its version
	 * follows it, one byte on, unless a NUL cut the URI short */
	const char *raw_at;
	unsigned int status; /* of the answer queued, 0 before */
	int bearer;	     /* it carried the server's token */
	size_t body_max;     /* of the route it will go to */
	/* the route it goes to (captures set), NULL when none takes it */
	const struct http_route *route;
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
	/* the query arguments it reads, comma-separated; NULL: none (a GET
	 * also takes access_token). Any other, or one given twice, is a 400. */
	const char *query;
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
