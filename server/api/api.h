/* api.h - the REST handlers and their route table */
#ifndef NUMALAB_API_H
#define NUMALAB_API_H

#include "http.h"
#include "runner.h"
#include "store.h"
#include "topo.h"

struct api;

/*
 * The handlers' context; a run whose estimate exceeds max_run_seconds is
 * refused before it is queued. NULL on ENOMEM.
 */
struct api *api_new(const struct topo *t, struct store *st, struct runner *r,
		    int max_run_seconds);
void api_free(struct api *a);

/* numalab serve --fleet: POST /api/campaigns/start starts campaigns with fs
 * (which must outlive the API); until then it answers 404. */
struct fleet_start;
void api_set_fleet(struct api *a, const struct fleet_start *fs);

/* Every route of /api, NULL-method-terminated; ctx is a struct api. */
extern const struct http_route api_routes[];

#endif
