/* api_check.h - POST /api/runs/check: a request's precheck notes and estimate, before it runs */
#ifndef NUMALAB_API_CHECK_H
#define NUMALAB_API_CHECK_H

#include "api.h"

/*
 * Parses the body as POST /api/runs does ({"experiment", "params"}) and
 * answers 200 {"experiment", "notes": [{"level", "text"}], "estimate_s",
 * "estimate_bytes"}: what the experiment's precheck says this machine
 * and the resolved placement can show (notes of level info, warn,
 * cannot), without queueing anything. Bad input: 400 {"error","field"}.
 * ctx is a struct api.
 */
enum MHD_Result api_post_check(struct http_request *rq, void *ctx);

#endif
