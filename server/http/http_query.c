/* http_query.c - a request's query arguments against those its route reads */
#include "http_query.h"

#include <stdio.h>
#include <string.h>

#include "http_response.h"

/* The most names a route reads (access_token is one more). */
#define QUERY_NAMES_MAX 8

struct query_seen {
	const char *names[QUERY_NAMES_MAX + 1];
	int count[QUERY_NAMES_MAX + 1];
	int n;
	const char *bad; /* the first argument not taken */
	int repeated;	 /* bad was given twice, not unknown */
};

static enum MHD_Result see_arg(void *cls, enum MHD_ValueKind kind,
			       const char *key, const char *value)
{
	struct query_seen *q = cls;

	(void)kind;
	(void)value;
	for (int i = 0; i < q->n; i++)
		if (!strcmp(q->names[i], key)) {
			if (++q->count[i] == 1)
				return MHD_YES;
			q->repeated = 1;
			break;
		}
	q->bad = key;
	return MHD_NO;
}

/* The route's names (and access_token for a read) into q; 0, or -1 when
 * the table lists more than QUERY_NAMES_MAX. */
static int query_names(struct query_seen *q, const struct http_route *r,
		       char *buf, size_t len)
{
	char *save = NULL;

	snprintf(buf, len, "%s", r->query ? r->query : "");
	for (char *t = strtok_r(buf, ",", &save); t;
	     t = strtok_r(NULL, ",", &save)) {
		if (q->n == QUERY_NAMES_MAX)
			return -1;
		q->names[q->n++] = t;
	}
	if (strcmp(r->method, "GET") == 0)
		q->names[q->n++] = "access_token";
	return 0;
}

int http_query_check(struct http_request *rq, const struct http_route *r,
		     enum MHD_Result *ret)
{
	struct query_seen q = {.n = 0};
	char buf[160], taken[200] = "";
	size_t at = 0;

	if (query_names(&q, r, buf, sizeof(buf))) {
		*ret = http_error(rq, MHD_HTTP_INTERNAL_SERVER_ERROR, NULL,
				  "route '%s' lists too many query arguments",
				  r->pattern);
		return -1;
	}
	MHD_get_connection_values(rq->conn, MHD_GET_ARGUMENT_KIND, see_arg, &q);
	if (!q.bad)
		return 0;
	if (q.repeated) {
		*ret = http_error(rq, MHD_HTTP_BAD_REQUEST, q.bad,
				  "query argument '%.64s' given more than once",
				  q.bad);
		return -1;
	}
	for (int i = 0; i < q.n && at < sizeof(taken); i++)
		at += (size_t)snprintf(taken + at, sizeof(taken) - at, "%s%s",
				       i ? ", " : "", q.names[i]);
	*ret = http_error(rq, MHD_HTTP_BAD_REQUEST, q.bad,
			  "unknown query argument '%.64s' (%s %s takes %s)",
			  q.bad, r->method, r->pattern, q.n ? taken : "none");
	return -1;
}
