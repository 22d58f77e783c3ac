/* doccache.h - ended runs' documents, serialised once, served from memory */
#ifndef NUMALAB_DOCCACHE_H
#define NUMALAB_DOCCACHE_H

#include <stddef.h>
#include <stdint.h>

#include <microhttpd.h>

/*
 * A run that has ended never changes again (runs are not deleted, and an
 * interrupted one is marked so before the server listens), so its JSON is
 * built from the store once. Bounded by bytes; the oldest entry goes
 * first. Safe from any thread.
 */
struct doccache;

/* budget: bytes of documents kept in all. NULL on ENOMEM. */
struct doccache *doccache_new(size_t budget);
void doccache_free(struct doccache *c);

/* A response with run id's document, or NULL when it is not kept. */
struct MHD_Response *doccache_response(struct doccache *c, int64_t id);
/* Keeps json (malloc'd, len bytes; the cache owns it from here, and frees
 * it on failure) as run id's document. 0 or -errno; -E2BIG for a document
 * larger than the whole budget. */
int doccache_put(struct doccache *c, int64_t id, char *json, size_t len);

#endif
