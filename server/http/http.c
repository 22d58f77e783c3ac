/* http.c - libmicrohttpd's request callbacks: the route table, heads, bodies */
#define _GNU_SOURCE
#include "http.h"
#include "conns.h"
#include "http_internal.h"
#include "http_query.h"
#include "ratelimit.h"
#include "session.h"
#include "trust.h"
#include "utf8.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
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

/* The length of the segment at s: up to the next '/' or the end. */
static size_t segment(const char *s)
{
	const char *e = s;

	while (*e && *e != '/')
		e++;
	return (size_t)(e - s);
}

/* Whether pattern segment p is a capture, {x}. */
static int is_capture(const char *p)
{
	size_t pl;

	if (*p != '{')
		return 0;
	pl = segment(p);
	return pl > 2 && p[pl - 1] == '}';
}

static void free_captures(struct http_request *rq)
{
	if (rq->capture_buf != rq->capture_small)
		free(rq->capture_buf);
	rq->capture_buf = NULL;
}

/*
 * Matches path against pattern segment by segment; {x} takes any one
 * non-empty segment. On a match the captures are copied into rq. Every
 * request runs this over the route table, so a literal segment is
 * compared as it is walked: most routes fail on their first byte past
 * "/api/".
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
		if (is_capture(p)) {
			size_t ul = segment(u);
			if (!ul || nc == HTTP_MAX_CAPTURES)
				return 0;
			cs[nc] = u;
			cl[nc++] = ul;
			p += segment(p);
			u += ul;
			continue;
		}
		for (; *p && *p != '/'; p++, u++)
			if (*u != *p)
				return 0;
		if (*u && *u != '/')
			return 0;
	}
	if (*p || *u)
		return 0;
	free_captures(rq);
	if (nc) {
		size_t total = 0, off = 0;
		for (int i = 0; i < nc; i++)
			total += cl[i] + 1;
		rq->capture_buf = total <= sizeof(rq->capture_small)
					  ? rq->capture_small
					  : malloc(total);
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

/*
 * Whether a route names this path with no capture: then only such routes
 * take it, so GET /api/runs/check is a 405 (the path is POST's), not a
 * run named "check".
 */
static int path_is_literal(const struct http_route *routes, const char *path)
{
	for (const struct http_route *r = routes; r->method; r++)
		if (!strchr(r->pattern, '{') && !strcmp(r->pattern, path))
			return 1;
	return 0;
}

/* Whether route r may take rq's path (captures copied into rq). */
static int route_takes(const struct http_route *r, struct http_request *rq,
		       int literal)
{
	return !(literal && strchr(r->pattern, '{')) &&
	       route_match(r->pattern, rq->path, rq);
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
	int literal = path_is_literal(rq->srv->routes, rq->path);

	allow[0] = '\0';
	for (const struct http_route *r = rq->srv->routes; r->method; r++)
		if (route_takes(r, rq, literal))
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
	char after[16];
	struct errinfo err;
	int retry;

	if (!trust_quota(rq->srv->trust, ci ? ci->client_addr : NULL,
			 rq->body_len, &err, &retry))
		return 0;
	resp = http_error_response(NULL, "%s", err.msg);
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
	if (rq->route) {
		const struct http_route *r = rq->route;

		if (auth_admit(rq, r, &ret) || http_query_check(rq, r, &ret))
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
 * Otherwise the status, with why in err.
 */
static unsigned int check_head(struct http_request *rq, struct errinfo *err)
{
	size_t cost = head_cost(rq->conn);

	if (rq->query_args) {
		errinfo_set(
			err, NULL,
			"query too large: %zu arguments in a URI of %zu bytes "
			"take more than the %u bytes a connection may give "
			"the request head (%u for each argument)",
			rq->query_args, rq->raw_len, (unsigned int)HEAD_MAX,
			HEAD_ENTRY_COST);
		return MHD_HTTP_URI_TOO_LONG;
	}
	if (rq->nul_escaped) {
		errinfo_set(err, NULL,
			    "the URI holds a NUL byte (%%00 or a raw one): a "
			    "path or a query value cannot hold one");
		return MHD_HTTP_BAD_REQUEST;
	}
	if (cost > HEAD_MAX) {
		errinfo_set(
			err, NULL,
			"request head too large: it takes %zu bytes of the "
			"%u a connection may give it (its bytes, %u for each "
			"header, query argument and cookie, and the Cookie "
			"header once more)",
			cost, (unsigned int)HEAD_MAX, HEAD_ENTRY_COST);
		return MHD_HTTP_REQUEST_HEADER_FIELDS_TOO_LARGE;
	}
	if (utf8_valid_len(rq->path, strlen(rq->path)) != strlen(rq->path)) {
		errinfo_set(err, NULL, "the path is not UTF-8");
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

void *http_on_uri(void *cls, const char *uri, struct MHD_Connection *conn)
{
	struct http_request *rq = calloc(1, sizeof(*rq));
	char *q = strchr(uri, '?');
	size_t n = 0;

	conns_active(((struct http_server *)cls)->conns, rec_of(conn), 1);
	if (!rq)
		return NULL;
	rq->srv = cls;
	rq->raw_len = strlen(uri);
	/* libmicrohttpd decodes it to a C string, cut short at the NUL: the
	 * run named "1%00x" would be run 1, a limit "5%00x" 5 */
	rq->nul_escaped = strstr(uri, "%00") != NULL;
	rq->raw_at = uri;
	/* only files are served by it: an API path is not copied */
	rq->raw_uri = strncmp(uri, "/api/", 5) ? strdup(uri) : NULL;
	if (!q)
		return rq;
	for (const char *p = q; p; p = strchr(p + 1, '&'))
		n++;
	if (rq->raw_len + n * HEAD_ENTRY_COST > HEAD_MAX) {
		rq->query_args = n;
		q[1] = '\0';
	}
	return rq;
}

void http_on_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
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
	free_captures(rq);
	free(rq);
	*con_cls = NULL;
}

/* The route a request of method m goes to, or NULL (a 404, 405 or a
 * file); its captures are in rq. */
static const struct http_route *route_of(struct http_request *rq, const char *m)
{
	int literal = path_is_literal(rq->srv->routes, rq->path);

	for (const struct http_route *r = rq->srv->routes; r->method; r++)
		if (r->method[0] == m[0] && !strcmp(r->method, m) &&
		    route_takes(r, rq, literal))
			return r;
	return NULL;
}

enum MHD_Result http_on_request(void *cls, struct MHD_Connection *conn,
				const char *url, const char *method,
				const char *version, const char *upload,
				size_t *upload_size, void **con_cls)
{
	struct http_request *rq = *con_cls;

	if (!rq) {
		rq = http_on_uri(cls, url, conn);
		if (!rq)
			return MHD_NO;
		rq->raw_at = NULL; /* the decoded path, not what was read */
		*con_cls = rq;
	}
	if (!rq->started) {
		const struct http_route *route;
		const char *cl;
		struct errinfo err;
		unsigned int status;
		int close;
		rq->started = 1;
		rq->conn = conn;
		rq->method = method;
		rq->path = url;
		/* a NUL sent as a byte: libmicrohttpd ends the URI there, and
		 * the rest up to the version is never seen */
		if (rq->raw_at && version && *version &&
		    version != rq->raw_at + rq->raw_len + 1)
			rq->nul_escaped = 1;
		status = check_head(rq, &err);
		if (status)
			return http_respond_bare(
				rq, status,
				http_error_response(NULL, "%s", err.msg));
		/* found once: dispatch takes it (HEAD is routed as GET) */
		rq->route =
			route_of(rq, strcmp(method, "HEAD") ? method : "GET");
		route = rq->route && !strcmp(rq->route->method, method)
				? rq->route
				: NULL;
		rq->body_max = route && route->body_max ? route->body_max
							: HTTP_BODY_MAX;
		status = trust_check_head(
			rq->srv->trust, conn,
			route && strcmp(route->method, "GET") != 0, version,
			&err, &close);
		if (status) {
			struct MHD_Response *resp =
				http_error_response(NULL, "%s", err.msg);
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
