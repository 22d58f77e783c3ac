/* api_check.h - POST /api/runs/check: a request's precheck notes and estimate, before it runs */
#ifndef NUMALAB_API_CHECK_H
#define NUMALAB_API_CHECK_H

#include "http.h"
#include "topo.h"

/*
 * Parses the body as POST /api/runs does ({"experiment", "params"}) and
 * answers 200 {"experiment", "notes": [{"level", "text"}], "estimate_s",
 * "estimate_bytes"}: what the experiment's precheck says this machine
 * and the resolved placement can show (notes of level info, warn,
 * cannot), without queueing anything. Bad input: 400 {"error","field"}.
 * t is this machine, as the server read it. A run POST /api/runs would
 * refuse (over max_run_seconds, 0: none, or the free memory) gets a
 * cannot note saying why, as it is checked there.
 */
enum MHD_Result api_check_run(struct http_request *rq, const struct topo *t,
			      int max_run_seconds);

#endif
