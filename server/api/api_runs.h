/* api_runs.h - /api/runs: start, read, list, cancel, export and import runs */
#ifndef NUMALAB_API_RUNS_H
#define NUMALAB_API_RUNS_H

#include <stdint.h>

#include "http.h"

/* The handlers of /api/runs; ctx is a struct api (api_routes says which
 * route each serves). */
/* POST /api/runs: 202 {"id", "status", "events", "url"}, 400, 429, 503. */
enum MHD_Result api_post_run(struct http_request *rq, void *ctx);
/* GET /api/runs/{id}: the run document; 404. */
enum MHD_Result api_get_run(struct http_request *rq, void *ctx);
/* GET /api/runs?limit&offset&experiment&machine: a page of runs. */
enum MHD_Result api_list_runs(struct http_request *rq, void *ctx);
/* DELETE /api/runs/{id}: cancels a queued or running run; 404, 409. */
enum MHD_Result api_delete_run(struct http_request *rq, void *ctx);
/* GET /api/runs/{id}/export.csv: the run as CSV, an attachment. */
enum MHD_Result api_get_export(struct http_request *rq, void *ctx);
/* POST /api/runs/import: 201 {"id", "url", "imported"} or 400 with why. */
enum MHD_Result api_post_import(struct http_request *rq, void *ctx);

#endif
