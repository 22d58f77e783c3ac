/* http_response.h - answering a request: JSON bodies, errors, the common headers */
#ifndef NUMALAB_HTTP_RESPONSE_H
#define NUMALAB_HTTP_RESPONSE_H

#include "http_request.h"

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
/* The same of text already written as http_json_text writes it (len
 * bytes, malloc'd: stolen; NULL answers NULL). */
struct MHD_Response *http_json_text_response(char *text, size_t len);
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
 * For a request that takes nothing: 0 when its body is empty (or blank)
 * or {}; otherwise -1 with the 400 queued in *ret, naming the first field
 * sent where there is one (a body is never ignored in silence).
 */
int http_body_none(struct http_request *rq, enum MHD_Result *ret);

#endif
