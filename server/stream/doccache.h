/* doccache.h - ended runs' documents, serialised once, served from memory */
#ifndef NUMALAB_DOCCACHE_H
#define NUMALAB_DOCCACHE_H

#include <stddef.h>
#include <stdint.h>

#include "http_blob.h"

/*
 * A run that has ended never changes again (runs are not deleted, and an
 * interrupted one is marked so before the server listens), so its JSON is
 * built from the store once and kept as a blob (http_blob.h: its ETag, and
 * a gzip copy once asked for). Bounded by the bytes of the documents; the
 * oldest entry goes first (a reader still sending it keeps its reference).
 * Safe from any thread.
 */
struct doccache;

/* budget: bytes of documents kept in all. NULL on ENOMEM. */
struct doccache *doccache_new(size_t budget);
void doccache_free(struct doccache *c);

/* Run id's document (a reference the caller gives back with
 * http_blob_unref), or NULL when it is not kept. */
struct http_blob *doccache_get(struct doccache *c, int64_t id);
/* Keeps json (malloc'd, len bytes; the cache owns it from here, and frees
 * it on failure) as run id's document, and returns it as doccache_get
 * would. NULL with errno: ENOMEM, or E2BIG for a document larger than the
 * whole budget. */
struct http_blob *doccache_put(struct doccache *c, int64_t id, char *json,
			       size_t len);

#endif
