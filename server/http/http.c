/* http.c - libmicrohttpd daemon: connections, route table, bodies */
#define _GNU_SOURCE
#include "http.h"
#include "conns.h"
#include "http_internal.h"
#include "ratelimit.h"
#include "session.h"
#include "trust.h"
#include "utf8.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <malloc.h>
#include <netdb.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

/* Bodies past HTTP_BODY_MAX are read and dropped up to this, so the client
 * can read its 413; beyond it the connection is refused at once. */
#define HTTP_DRAIN_MAX (4 * 1024 * 1024)
/*
 * Each HTTP thread's stack. What recurses in a handler is jansson over a
 * document, once per level, and no document gets past lib/jsonlimit.h's
 * 32 levels (64 for the server's own records): a few KiB. The rest is
 * frames of fixed size, so this leaves room many times over.
 */
#define STACK_SIZE (512 * 1024)
/* a connection that sends nothing this long is closed (a suspended event
 * stream is not counted: it waits for the run, not for the client) */
#define IDLE_TIMEOUT_S 30u
#define POOL_MAX 4u
#define TRIM_PEAK 256u
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
/*
 * GnuTLS's choice of protocols and ciphers: TLS 1.2 and 1.3 only, with
 * AEAD ciphers and forward-secret key exchange (no CBC, no SHA-1 MACs, no
 * RSA key transport), so an old client is refused rather than served
 * weakly.
 */
#define TLS_PRIORITIES                                                         \
	"SECURE128:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2:-CIPHER-ALL:"           \
	"+AES-256-GCM:+AES-128-GCM:+CHACHA20-POLY1305:-MAC-ALL:+AEAD:"         \
	"-KX-ALL:+ECDHE-ECDSA:+ECDHE-RSA:+DHE-RSA:%SERVER_PRECEDENCE"
/* clients whose sign-ins and wrong tries are counted at once (each
 * table); past that the fullest bucket is taken for a newcomer */
#define RATE_SLOTS 4096u
/* libmicrohttpd's own messages printed a minute, at most */
#define MHD_LOG_PER_MINUTE 20u

/* Event-loop threads: a handler that parses a large import keeps one busy. */
static unsigned int pool_size(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n < 2			    ? 2u
	       : (unsigned int)n < POOL_MAX ? (unsigned int)n
					    : POOL_MAX;
}

/*
 * Matches path against pattern segment by segment; {x} takes any one
 * non-empty segment. On a match the captures are copied into rq.
 */
static int route_match(const char *pattern, const char *path,
		       struct http_request *rq)
{
	const char *cs[HTTP_MAX_CAPTURES];
	size_t cl[HTTP_MAX_CAPTURES];
	int nc = 0;
	const char *p = pattern, *u = path;

	while (*p && *u) {
		if (*p != '/' || *u != '/')
			return 0;
		p++;
		u++;
		size_t pl = strcspn(p, "/"), ul = strcspn(u, "/");
		if (pl > 2 && p[0] == '{' && p[pl - 1] == '}') {
			if (!ul || nc == HTTP_MAX_CAPTURES)
				return 0;
			cs[nc] = u;
			cl[nc++] = ul;
		} else if (pl != ul || strncmp(p, u, pl)) {
			return 0;
		}
		p += pl;
		u += ul;
	}
	if (*p || *u)
		return 0;
	free(rq->capture_buf);
	rq->capture_buf = NULL;
	if (nc) {
		size_t total = 0, off = 0;
		for (int i = 0; i < nc; i++)
			total += cl[i] + 1;
		rq->capture_buf = malloc(total);
		if (!rq->capture_buf)
			return 0;
		for (int i = 0; i < nc; i++) {
			memcpy(rq->capture_buf + off, cs[i], cl[i]);
			rq->capture_buf[off + cl[i]] = '\0';
			rq->capture[i] = rq->capture_buf + off;
			off += cl[i] + 1;
		}
	}
	return 1;
}

static void add_allow(char *allow, size_t len, const char *method)
{
	if (strstr(allow, method))
		return;
	size_t n = strlen(allow);
	snprintf(allow + n, len - n, "%s%s", n ? ", " : "", method);
	if (!strcmp(method, "GET"))
		add_allow(allow, len, "HEAD");
}

/* The methods the routes take on this path; empty if none match. */
static void allowed_methods(struct http_request *rq, char *allow, size_t len)
{
	allow[0] = '\0';
	for (const struct http_route *r = rq->srv->routes; r->method; r++)
		if (route_match(r->pattern, rq->path, rq))
			add_allow(allow, len, r->method);
	if (!allow[0] && !http_is_api(rq->path))
		add_allow(allow, len, "GET");
}

static enum MHD_Result options(struct http_request *rq)
{
	struct MHD_Response *resp;
	char allow[128];

	allowed_methods(rq, allow, sizeof(allow));
	if (!allow[0])
		return http_error(rq, MHD_HTTP_NOT_FOUND, NULL,
				  "unknown route '%.200s'", rq->path);
	add_allow(allow, sizeof(allow), "OPTIONS");
	resp = MHD_create_response_from_buffer(0, NULL, MHD_RESPMEM_PERSISTENT);
	if (!resp)
		return MHD_NO;
	MHD_add_response_header(resp, "Allow", allow);
	if (rq->srv->cors && http_header(rq, "Origin")) {
		MHD_add_response_header(resp, "Access-Control-Allow-Methods",
					allow);
		MHD_add_response_header(
			resp, "Access-Control-Allow-Headers",
			"Authorization, Content-Type, "
			"Last-Event-ID, Accept, " HTTP_KEY_HEADER);
		MHD_add_response_header(resp, "Access-Control-Max-Age", "600");
	}
	return http_respond(rq, MHD_HTTP_NO_CONTENT, resp);
}

/*
 * 0 when the client is within its quota (the request is counted); otherwise
 * the 429 was queued in *ret. A request with the server's token is the
 * lab's own (a script, the fleet): it is not counted.
 */
static int quota_refused(struct http_request *rq, enum MHD_Result *ret)
{
	const union MHD_ConnectionInfo *ci = MHD_get_connection_info(
		rq->conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	struct MHD_Response *resp;
	char msg[512], after[16];
	int retry;

	if (!trust_quota(rq->srv->trust, ci ? ci->client_addr : NULL,
			 rq->body_len, msg, sizeof(msg), &retry))
		return 0;
	resp = http_error_response(NULL, "%s", msg);
	snprintf(after, sizeof(after), "%d", retry);
	if (resp)
		MHD_add_response_header(resp, "Retry-After", after);
	*ret = http_respond(rq, MHD_HTTP_TOO_MANY_REQUESTS, resp);
	return 1;
}

static enum MHD_Result dispatch(struct http_request *rq)
{
	struct http_server *srv = rq->srv;
	const char *m = strcmp(rq->method, "HEAD") ? rq->method : "GET";
	struct MHD_Response *resp;
	enum MHD_Result ret;
	char allow[128];

	if (rq->too_big)
		return http_error(rq, MHD_HTTP_CONTENT_TOO_LARGE, NULL,
				  "request body is too large (at most %zu KiB)",
				  rq->body_max / 1024);
	if (!strcmp(rq->method, "OPTIONS"))
		return options(rq);
	for (const struct http_route *r = srv->routes; r->method; r++) {
		if (strcmp(r->method, m) ||
		    !route_match(r->pattern, rq->path, rq))
			continue;
		if (auth_admit(rq, r, &ret))
			return ret;
		if (r->body_max <= HTTP_BODY_MAX || rq->bearer)
			return r->handler(rq, srv->ctx);
		if (quota_refused(rq, &ret))
			return ret;
		ret = r->handler(rq, srv->ctx);
		/* what was refused (a malformed or invalid document) costs
		 * nothing: the quota protects the store, not the door */
		if (rq->status < 200 || rq->status >= 300) {
			const union MHD_ConnectionInfo *ci =
				MHD_get_connection_info(
					rq->conn,
					MHD_CONNECTION_INFO_CLIENT_ADDRESS);
			trust_quota_refund(srv->trust,
					   ci ? ci->client_addr : NULL,
					   rq->body_len);
		}
		return ret;
	}
	allowed_methods(rq, allow, sizeof(allow));
	if (allow[0] && (http_is_api(rq->path) || strcmp(m, "GET"))) {
		resp = http_error_response(NULL,
					   "method '%.20s' is not allowed on "
					   "'%.200s' (allowed: %s)",
					   rq->method, rq->path, allow);
		if (resp)
			MHD_add_response_header(resp, "Allow", allow);
		return http_respond(rq, MHD_HTTP_METHOD_NOT_ALLOWED, resp);
	}
	if (http_is_api(rq->path))
		return http_error(rq, MHD_HTTP_NOT_FOUND, NULL,
				  "unknown route '%.200s'", rq->path);
	return http_serve_static(rq);
}

static enum MHD_Result count_entry(void *cls, enum MHD_ValueKind kind,
				   const char *key, const char *value)
{
	size_t *cost = cls;

	*cost += HEAD_ENTRY_COST;
	if (kind == MHD_HEADER_KIND && value &&
	    !strcasecmp(key, MHD_HTTP_HEADER_COOKIE))
		*cost += (strlen(value) + 1 + 15) / 16 * 16;
	return MHD_YES;
}

/* What the request's head takes of its connection's pool (see CONN_MEMORY).
 */
static size_t head_cost(struct MHD_Connection *conn)
{
	const union MHD_ConnectionInfo *ci = MHD_get_connection_info(
		conn, MHD_CONNECTION_INFO_REQUEST_HEADER_SIZE);
	size_t cost = ci ? ci->header_size : 0;

	MHD_get_connection_values(
		conn, MHD_HEADER_KIND | MHD_COOKIE_KIND | MHD_GET_ARGUMENT_KIND,
		count_entry, &cost);
	return cost;
}

/*
 * 0 when the request's head can be read: it leaves room for the answer,
 * and its path is UTF-8 (a path is text; it goes into answers as JSON).
 * Otherwise the status, with why in msg.
 */
static unsigned int check_head(struct http_request *rq, char *msg, size_t len)
{
	size_t cost = head_cost(rq->conn);

	if (rq->query_args) {
		snprintf(msg, len,
			 "query too large: %zu arguments in a URI of %zu bytes "
			 "take more than the %u bytes a connection may give "
			 "the request head (%u for each argument)",
			 rq->query_args, rq->raw_uri ? strlen(rq->raw_uri) : 0,
			 (unsigned int)HEAD_MAX, HEAD_ENTRY_COST);
		return MHD_HTTP_URI_TOO_LONG;
	}
	if (cost > HEAD_MAX) {
		snprintf(msg, len,
			 "request head too large: it takes %zu bytes of the "
			 "%u a connection may give it (its bytes, %u for each "
			 "header, query argument and cookie, and the Cookie "
			 "header once more)",
			 cost, (unsigned int)HEAD_MAX, HEAD_ENTRY_COST);
		return MHD_HTTP_REQUEST_HEADER_FIELDS_TOO_LARGE;
	}
	if (utf8_valid_len(rq->path, strlen(rq->path)) != strlen(rq->path)) {
		snprintf(msg, len, "the path is not UTF-8");
		return MHD_HTTP_BAD_REQUEST;
	}
	return 0;
}

/*
 * Called with the request line's URI before libmicrohttpd cuts its query
 * into arguments, each a record in the pool. A query of more than the pool
 * holds would make libmicrohttpd 0.9.75 close the connection without an
 * answer (it queues its 431 and then reads on, ignoring that it did): such
 * a query is cut here, in the buffer libmicrohttpd is about to parse, and
 * the request gets 414 once its head is in.
 */
/* The connection's record in srv->conns (see on_connection). */
static struct conn_rec *rec_of(struct MHD_Connection *conn)
{
	const union MHD_ConnectionInfo *ci = MHD_get_connection_info(
		conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);

	return ci ? ci->socket_context : NULL;
}

static void *on_uri(void *cls, const char *uri, struct MHD_Connection *conn)
{
	struct http_request *rq = calloc(1, sizeof(*rq));
	char *q = strchr(uri, '?');
	size_t n = 0;

	conns_active(((struct http_server *)cls)->conns, rec_of(conn), 1);
	if (!rq)
		return NULL;
	rq->srv = cls;
	rq->raw_uri = strdup(uri);
	if (!q)
		return rq;
	for (const char *p = q; p; p = strchr(p + 1, '&'))
		n++;
	if (strlen(uri) + n * HEAD_ENTRY_COST > HEAD_MAX) {
		rq->query_args = n;
		q[1] = '\0';
	}
	return rq;
}

static void on_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
			 enum MHD_RequestTerminationCode toe)
{
	struct http_request *rq = *con_cls;
	struct http_server *srv = cls;

	(void)toe;
	/* answered: idle from now on, the newest idle of its client */
	conns_active(srv->conns, rec_of(conn), 0);
	if (!rq)
		return;
	free(rq->raw_uri);
	free(rq->body);
	free(rq->capture_buf);
	free(rq);
	*con_cls = NULL;
}

/* The route the request will go to, or NULL (a 404, 405 or a file). */
static const struct http_route *route_of(struct http_request *rq)
{
	for (const struct http_route *r = rq->srv->routes; r->method; r++)
		if (!strcmp(r->method, rq->method) &&
		    route_match(r->pattern, rq->path, rq))
			return r;
	return NULL;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn,
				  const char *url, const char *method,
				  const char *version, const char *upload,
				  size_t *upload_size, void **con_cls)
{
	struct http_request *rq = *con_cls;

	if (!rq) {
		rq = on_uri(cls, url, conn);
		if (!rq)
			return MHD_NO;
		*con_cls = rq;
	}
	if (!rq->started) {
		const struct http_route *route;
		const char *cl;
		char msg[512];
		unsigned int status;
		int close;
		rq->started = 1;
		rq->conn = conn;
		rq->method = method;
		rq->path = url;
		status = check_head(rq, msg, sizeof(msg));
		if (status)
			return http_respond_bare(
				rq, status,
				http_error_response(NULL, "%s", msg));
		route = route_of(rq);
		rq->body_max = route && route->body_max ? route->body_max
							: HTTP_BODY_MAX;
		status = trust_check_head(
			rq->srv->trust, conn,
			route && strcmp(route->method, "GET") != 0, version,
			msg, sizeof(msg), &close);
		if (status) {
			struct MHD_Response *resp =
				http_error_response(NULL, "%s", msg);
			if (resp && close)
				MHD_add_response_header(resp, "Connection",
							"close");
			return http_respond(rq, status, resp);
		}
		cl = MHD_lookup_connection_value(
			conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
		if (cl && strtoull(cl, NULL, 10) > HTTP_DRAIN_MAX &&
		    strtoull(cl, NULL, 10) > rq->body_max) {
			rq->too_big = 1;
			return dispatch(rq);
		}
		return MHD_YES;
	}
	if (*upload_size) {
		size_t n = *upload_size;
		*upload_size = 0;
		if (rq->too_big || rq->body_len + n > rq->body_max) {
			rq->too_big = 1;
			rq->dropped += n;
			/*
			 * MHD takes a response only before the body or after
			 * it: a chunked body without end gets the door instead
			 * (one with a Content-Length got its 413 up front).
			 */
			return rq->dropped > HTTP_DRAIN_MAX ? MHD_NO : MHD_YES;
		}
		char *b = realloc(rq->body, rq->body_len + n + 1);
		if (!b)
			return MHD_NO;
		memcpy(b + rq->body_len, upload, n);
		rq->body = b;
		rq->body_len += n;
		rq->body[rq->body_len] = '\0';
		return MHD_YES;
	}
	return dispatch(rq);
}

/*
 * One client's connections, and the total, are counted here (conns.h)
 * rather than with MHD_OPTION_PER_IP_CONNECTION_LIMIT: with a thread pool
 * libmicrohttpd counts them per thread, so a client would get the limit
 * once per thread; and at the total libmicrohttpd refuses everyone, where
 * conns makes room for a client that holds few.
 */
static enum MHD_Result on_accept(void *cls, const struct sockaddr *addr,
				 socklen_t len)
{
	struct http_server *srv = cls;

	(void)len;
	return conns_admit(srv->conns, addr) ? MHD_YES : MHD_NO;
}

static void on_connection(void *cls, struct MHD_Connection *conn,
			  void **socket_ctx,
			  enum MHD_ConnectionNotificationCode toe)
{
	struct http_server *srv = cls;
	const union MHD_ConnectionInfo *ci = MHD_get_connection_info(
		conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);

	if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
		const union MHD_ConnectionInfo *fd = MHD_get_connection_info(
			conn, MHD_CONNECTION_INFO_CONNECTION_FD);
		unsigned int n =
			__atomic_add_fetch(&srv->open, 1, __ATOMIC_RELAXED);
		if (n > __atomic_load_n(&srv->peak, __ATOMIC_RELAXED))
			__atomic_store_n(&srv->peak, n, __ATOMIC_RELAXED);
		if (ci && fd)
			*socket_ctx = conns_opened(srv->conns, ci->client_addr,
						   fd->connect_fd);
		return;
	}
	/* libmicrohttpd says so before it closes the socket: the fd a
	 * record holds is never another connection's */
	conns_closed(srv->conns, *socket_ctx);
	*socket_ctx = NULL;
	/* a crowd of connections gone: give their buffers' pages back */
	if (!__atomic_sub_fetch(&srv->open, 1, __ATOMIC_RELAXED) &&
	    __atomic_exchange_n(&srv->peak, 0, __ATOMIC_RELAXED) >= TRIM_PEAK)
		malloc_trim(0);
}

/*
 * Blanks what follows each `mark` in msg up to a separator. libmicrohttpd
 * names a request by its path (the query cut off) and never logs headers,
 * but a token must not reach a log even if that changes.
 */
static void redact(char *msg, const char *mark)
{
	for (char *p = strcasestr(msg, mark); p; p = strcasestr(p, mark)) {
		p += strlen(mark);
		size_t n = strcspn(p, "&;, '\"`\r\n");
		if (n)
			memset(p, '*', n < 3 ? n : 3);
		if (n > 3)
			memmove(p + 3, p + n, strlen(p + n) + 1);
	}
}

/* Whether one more of libmicrohttpd's messages may be printed now;
 * *dropped: how many were not since the last one printed. */
static int log_allowed(struct http_server *srv, unsigned int *dropped)
{
	time_t now = time(NULL);
	int ok;

	pthread_mutex_lock(&srv->log_mu);
	if (now - srv->log_since >= 60) {
		srv->log_since = now;
		srv->log_lines = 0;
	}
	ok = srv->log_lines < MHD_LOG_PER_MINUTE;
	if (ok) {
		srv->log_lines++;
		*dropped = srv->log_dropped;
		srv->log_dropped = 0;
	} else {
		srv->log_dropped++;
	}
	pthread_mutex_unlock(&srv->log_mu);
	return ok;
}

static void on_mhd_log(void *cls, const char *fmt, va_list ap)
{
	char msg[512];
	size_t n;
	unsigned int dropped = 0;

	if (!log_allowed(cls, &dropped))
		return;
	if (dropped)
		fprintf(stderr,
			"numalab: http: (%u more messages of libmicrohttpd "
			"not shown: %u a minute at most)\n",
			dropped, MHD_LOG_PER_MINUTE);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	redact(msg, "token=");
	redact(msg, "bearer ");
	n = strlen(msg);
	while (n && (msg[n - 1] == '\n' || msg[n - 1] == '.'))
		msg[--n] = '\0';
	fprintf(stderr, "numalab: http: %s\n", msg);
}

struct http_server *http_start(const struct http_config *cfg,
			       const struct http_route *routes, void *ctx,
			       char *err, size_t errlen)
{
	struct http_server *srv = calloc(1, sizeof(*srv));
	struct addrinfo hints = {.ai_flags = AI_PASSIVE | AI_NUMERICSERV,
				 .ai_socktype = SOCK_STREAM};
	struct addrinfo *ai = NULL;
	char port[16];
	unsigned int flags;
	int rc;
	struct MHD_OptionItem tls_opts[] = {
		{MHD_OPTION_HTTPS_MEM_CERT, 0, (void *)cfg->tls_cert},
		{MHD_OPTION_HTTPS_MEM_KEY, 0, (void *)cfg->tls_key},
		{MHD_OPTION_HTTPS_PRIORITIES, 0, (void *)TLS_PRIORITIES},
		{MHD_OPTION_END, 0, NULL}};

	if (!srv) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	pthread_mutex_init(&srv->log_mu, NULL);
	srv->cfg = *cfg;
	srv->routes = routes;
	srv->ctx = ctx;
	if (cfg->token)
		srv->token = strdup(cfg->token);
	if (cfg->cors)
		srv->cors = strdup(cfg->cors);
	if (cfg->class_token)
		srv->class_token = strdup(cfg->class_token);
	if (cfg->link_host)
		srv->link_host = strdup(cfg->link_host);
	if (cfg->public_url)
		srv->public_url = strdup(cfg->public_url);
	if (cfg->join_code)
		srv->join_code = strdup(cfg->join_code);
	pthread_mutex_init(&srv->fail_mu, NULL);
	srv->sessions =
		sessions_new(cfg->session_seconds > 0 ? cfg->session_seconds
						      : HTTP_SESSION_SECONDS,
			     cfg->max_client_sessions);
	/* sign-ins: 10 at once from an address, then one every 6 s; 40 at
	 * once from its /64, then one a second. Wrong tokens and codes: 10
	 * at once from an address, then one a second; 30 from a /64, then
	 * two a second. */
	srv->signin_addr = ratelimit_new(RATE_SLOTS, 10, 6000);
	srv->signin_net = ratelimit_new(RATE_SLOTS, 40, 1000);
	srv->fail_addr = ratelimit_new(RATE_SLOTS, 10, 1000);
	srv->fail_net = ratelimit_new(RATE_SLOTS, 30, 500);
	struct trust_config tc = {.listen_host = cfg->host,
				  .public_origin = cfg->public_url,
				  .tls = cfg->tls_cert != NULL,
				  .allowed_hosts = cfg->allowed_hosts,
				  .cors = cfg->cors,
				  .quota_count = cfg->quota_count,
				  .quota_bytes = cfg->quota_bytes,
				  .quota_window_s = 3600};
	struct conns_config cc = {
		.max_total = cfg->max_conns ? cfg->max_conns : HTTP_MAX_CONNS,
		.max_client = cfg->max_client_conns ? cfg->max_client_conns
						    : HTTP_MAX_CLIENT_CONNS};
	srv->trust = trust_new(&tc);
	srv->conns = conns_new(&cc);
	if (!srv->trust || !srv->conns || !srv->sessions || !srv->signin_addr ||
	    !srv->signin_net || !srv->fail_addr || !srv->fail_net ||
	    (cfg->public_url && !srv->public_url) ||
	    (cfg->join_code && !srv->join_code) ||
	    (cfg->class_token && !srv->class_token) ||
	    (cfg->link_host && !srv->link_host)) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	if (cfg->web_dir) {
		srv->web_real = realpath(cfg->web_dir, NULL);
		if (srv->web_real)
			srv->web_len = strlen(srv->web_real);
	}
	snprintf(port, sizeof(port), "%d", cfg->port);
	rc = getaddrinfo(cfg->host, port, &hints, &ai);
	if (rc) {
		snprintf(err, errlen, "cannot listen on '%s': %s", cfg->host,
			 gai_strerror(rc));
		goto fail;
	}
	/*
	 * epoll loops rather than a thread per connection: ten thousand slow
	 * or idle connections, or event streams (suspended between events),
	 * cost their sockets and buffers, and every other client is still
	 * read. Handlers never wait on a run, so a few threads suffice.
	 */
	flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL |
		MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ERROR_LOG;
	if (ai->ai_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	if (cfg->tls_cert) {
		if (MHD_is_feature_supported(MHD_FEATURE_TLS) != MHD_YES) {
			snprintf(err, errlen,
				 "this libmicrohttpd was built without TLS: it "
				 "cannot serve HTTPS");
			freeaddrinfo(ai);
			goto fail;
		}
		flags |= MHD_USE_TLS;
	}
	srv->d = MHD_start_daemon(
		flags, (uint16_t)cfg->port, on_accept, srv, on_request, srv,
		MHD_OPTION_EXTERNAL_LOGGER, on_mhd_log, srv,
		MHD_OPTION_SOCK_ADDR, ai->ai_addr, MHD_OPTION_THREAD_POOL_SIZE,
		pool_size(), MHD_OPTION_THREAD_STACK_SIZE, (size_t)STACK_SIZE,
		/* conns holds the total: this only bounds the connections
		 * closing to make room, and those let in by accepting threads
		 * at once */
		MHD_OPTION_CONNECTION_LIMIT,
		cc.max_total + CONNS_CLOSING_MAX + pool_size(),
		MHD_OPTION_NOTIFY_CONNECTION, on_connection, srv,
		MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)CONN_MEMORY,
		MHD_OPTION_CONNECTION_TIMEOUT, IDLE_TIMEOUT_S,
		MHD_OPTION_LISTEN_BACKLOG_SIZE, 4096u,
		MHD_OPTION_URI_LOG_CALLBACK, on_uri, srv,
		MHD_OPTION_NOTIFY_COMPLETED, on_completed, srv,
		MHD_OPTION_ARRAY, cfg->tls_cert ? tls_opts : tls_opts + 3,
		MHD_OPTION_END);
	freeaddrinfo(ai);
	if (!srv->d) {
		snprintf(err, errlen, "cannot listen on %s:%d: %s", cfg->host,
			 cfg->port,
			 errno ? strerror(errno) : "the daemon did not start");
		goto fail;
	}
	const union MHD_DaemonInfo *info =
		MHD_get_daemon_info(srv->d, MHD_DAEMON_INFO_BIND_PORT);
	srv->port = info ? info->port : cfg->port;
	snprintf(srv->cookie_name, sizeof(srv->cookie_name), "%s_%d",
		 HTTP_SESSION_COOKIE, srv->port);
	return srv;
fail:
	trust_free(srv->trust);
	conns_free(srv->conns);
	free(srv->token);
	free(srv->class_token);
	free(srv->link_host);
	free(srv->public_url);
	free(srv->join_code);
	ratelimit_free(srv->signin_addr);
	ratelimit_free(srv->signin_net);
	ratelimit_free(srv->fail_addr);
	ratelimit_free(srv->fail_net);
	pthread_mutex_destroy(&srv->fail_mu);
	sessions_free(srv->sessions);
	free(srv->cors);
	free(srv->web_real);
	pthread_mutex_destroy(&srv->log_mu);
	free(srv);
	return NULL;
}

int http_port(struct http_server *srv)
{
	return srv->port;
}

void http_stop(struct http_server *srv)
{
	if (!srv)
		return;
	if (srv->d)
		MHD_stop_daemon(srv->d);
	trust_free(srv->trust);
	conns_free(srv->conns);
	free(srv->token);
	free(srv->class_token);
	free(srv->link_host);
	free(srv->public_url);
	free(srv->join_code);
	ratelimit_free(srv->signin_addr);
	ratelimit_free(srv->signin_net);
	ratelimit_free(srv->fail_addr);
	ratelimit_free(srv->fail_net);
	pthread_mutex_destroy(&srv->fail_mu);
	sessions_free(srv->sessions);
	free(srv->cors);
	free(srv->web_real);
	pthread_mutex_destroy(&srv->log_mu);
	free(srv);
}
