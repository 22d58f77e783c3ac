/* http_internal.h - what the files of the HTTP layer share: the server's own state */
#ifndef NUMALAB_HTTP_INTERNAL_H
#define NUMALAB_HTTP_INTERNAL_H

#include <pthread.h>
#include <stddef.h>
#include <time.h>

#include "http_request.h"

struct conns;
struct trust;

struct http_server {
	struct MHD_Daemon *d;
	struct http_config cfg;
	char *token, *cors;
	char *class_token;    /* NULL: no class link */
	char *link_host;      /* cfg.link_host's copy, or NULL */
	char *public_url;     /* cfg.public_url's copy, or NULL */
	char *join_code;      /* cfg.join_code's copy, or NULL */
	char cookie_name[48]; /* HTTP_SESSION_COOKIE "_" port */
	/* sign-ins a client may make (its address, its /64), and wrong
	 * tokens or codes it may send, before it is told to wait */
	struct ratelimit *signin_addr, *signin_net, *fail_addr, *fail_net;
	pthread_mutex_t fail_mu; /* the wrong tries' log line */
	time_t fail_since;
	unsigned long fail_count, fail_slowed;
	/* the join code's server-wide budget (fail_mu): join_wrong wrong
	 * codes from all addresses since join_window; past the budget the code
	 * is made anew and joining by code pauses until join_paused_until.
	 * join_prev: the code before the last change ("" none), told apart
	 * from a wrong one only to say it has expired */
	unsigned long join_wrong;
	time_t join_window, join_paused_until;
	char join_prev[HTTP_JOIN_CODE_LEN + 1];
	struct sessions *sessions; /* the signed-in browsers (session.h) */
	struct trust *trust;
	struct conns *conns; /* per client, and room for a newcomer */
	char *web_real; /* realpath of the web folder, NULL if there is none */
	size_t web_len;
	const struct http_route *routes;
	void *ctx;
	int port;
	unsigned int open, peak; /* connections; atomic */
	/* libmicrohttpd's messages: a few a minute, the rest counted (a client
	 * can make it say something at will: a TLS handshake gone wrong) */
	pthread_mutex_t log_mu;
	time_t log_since;
	unsigned int log_lines, log_dropped;
};

/*
 * Who the request comes from (rq->role, session, name) by its bearer
 * token, its access_token (reads) or its session cookie, and whether that
 * is enough for route r. 0 when it may go on; otherwise the 401 or 403
 * was queued in *ret (auth.c).
 */
int auth_admit(struct http_request *rq, const struct http_route *r,
	       enum MHD_Result *ret);

/* Whether path is under /api (answers there are never cached, errors JSON). */
int http_is_api(const char *path);

/* Serves a file of the web folder (http_static.c), a JSON 4xx when it may not
 * or is not there. */
enum MHD_Result http_serve_static(struct http_request *rq);

/*
 * A connection's buffers (libmicrohttpd's memory pool): what a request
 * needs, then a small buffer, never more. The request head is kept there,
 * and libmicrohttpd adds a 56-byte record (64 with its alignment) for each
 * header, query argument and cookie, and a copy of the Cookie header to cut
 * it into cookies; the answer's head is built in what is left, and an event
 * stream's chunks are written there too. libmicrohttpd zeroes the part of
 * its read buffer a head did not use, so the whole pool is resident while
 * the connection lives: it is most of what a viewer of a run costs. 10,000
 * event-stream subscribers hold ~163 MB with 12 KiB here, ~122 MB with
 * 8 KiB, ~80 MB with 4 KiB (tests/load/test_fanout.py prints it); a head
 * of 3 KiB is two or three times what a browser sends numalab.
 */
#define CONN_MEMORY (4 * 1024)
#define HEAD_ENTRY_COST 64u
/* A head that leaves less than this in the pool gets 431: the largest head
 * of an answer of ours fits in it with room to spare. */
#define ANSWER_ROOM 1024u
#define HEAD_MAX (CONN_MEMORY - ANSWER_ROOM)

/* libmicrohttpd's callbacks for a request (http.c). */
void *http_on_uri(void *cls, const char *uri, struct MHD_Connection *conn);
void http_on_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
		       enum MHD_RequestTerminationCode toe);
enum MHD_Result http_on_request(void *cls, struct MHD_Connection *conn,
				const char *url, const char *method,
				const char *version, const char *upload_data,
				size_t *upload_size, void **con_cls);

#endif
