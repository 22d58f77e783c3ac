/* http_blob.h - an answer's bytes kept once: shared by every request, with its ETag and a gzip copy */
#ifndef NUMALAB_HTTP_BLOB_H
#define NUMALAB_HTTP_BLOB_H

#include <stddef.h>

#include "http.h"

/*
 * Bytes that never change once kept (an ended run's document, the
 * experiments' schema), with a strong ETag made from them. Reference
 * counted: a response being sent holds a reference, so a cache may drop
 * its own at any time without a copy being made for each request. The
 * gzip copy is made the first time a client asks for it, then kept.
 */
struct http_blob;

/* Takes bytes (malloc'd, len bytes; freed on failure). NULL on ENOMEM. */
struct http_blob *http_blob_new(char *bytes, size_t len,
				const char *content_type);
/* A copy of len bytes at bytes. NULL on ENOMEM. */
struct http_blob *http_blob_copy(const char *bytes, size_t len,
				 const char *content_type);
struct http_blob *http_blob_ref(struct http_blob *b);
void http_blob_unref(struct http_blob *b);
/* The bytes kept (the gzip copy included once made). */
size_t http_blob_size(const struct http_blob *b);
const char *http_blob_etag(const struct http_blob *b);

/*
 * Answers rq with b: 304 when its If-None-Match names b's ETag (or "*"),
 * else 200 with the bytes, gzip-encoded when the client accepts gzip and
 * the copy is smaller. Every answer carries the ETag, `Vary:
 * Accept-Encoding` and `Cache-Control: private, no-cache` (a browser may
 * keep it, and asks again with the ETag).
 */
enum MHD_Result http_blob_respond(struct http_request *rq, struct http_blob *b);

#endif
