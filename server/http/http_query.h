/* http_query.h - a request's query arguments against those its route reads */
#ifndef NUMALAB_HTTP_QUERY_H
#define NUMALAB_HTTP_QUERY_H

#include "http_request.h"

/*
 * The request's query against what route r reads (r->query): 0, or -1
 * with a 400 naming the argument queued in *ret (one r does not read, so
 * a misspelt ?limt= is not answered as if no limit were given, or one
 * given twice, so ?limit=5&limit=6 is not read as 5).
 */
int http_query_check(struct http_request *rq, const struct http_route *r,
		     enum MHD_Result *ret);

#endif
