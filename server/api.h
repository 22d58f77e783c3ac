/* api.h - the REST handlers and their route table */
#ifndef NUMALAB_API_H
#define NUMALAB_API_H

#include "http.h"
#include "runner.h"
#include "store.h"
#include "topo.h"

struct api;

/* The handlers' context. NULL on ENOMEM. */
struct api *api_new(const struct topo *t, struct store *st, struct runner *r);
void api_free(struct api *a);

/* Every route of /api, NULL-method-terminated; ctx is a struct api. */
extern const struct http_route api_routes[];

#endif
