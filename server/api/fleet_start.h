/* fleet_start.h - POST /api/campaigns/start: a campaign started from the page (numalab serve --fleet) */
#ifndef NUMALAB_FLEET_START_H
#define NUMALAB_FLEET_START_H

#include <jansson.h>

#include "errinfo.h"
#include "http.h"
#include "run_request.h"
#include "store.h"
#include "strvec.h"

/* What the server starts `numalab fleet run` with; NULL in the API: off. */
struct fleet_start {
	const char *engine; /* "slurm" or "clush" */
	char exe[4096];	    /* this numalab */
	char server[300];   /* where the campaign imports: this server */
	/* HTTPS: the server's own certificate file, for the campaign to
	 * trust, and the address to reach server's host at ("": itself) */
	char ca_file[4096];
	char connect_to[64];
	char dir[4096]; /* its files and log: numalab-campaigns beside the store
			 */
	const char *token; /* handed to the campaign as $NUMALAB_TOKEN */
};

/*
 * Campaigns started here that may run at once: each one is a process
 * that holds an engine (clush's ssh, Slurm's jobs) and delivers into
 * this server; past this a start is refused with 429.
 */
#define FLEET_START_MAX_RUNNING 4

/* 202 {"id", "url", "log"}: the campaign is recorded running at once,
 * `numalab fleet run` runs in the background and records each node here
 * as it finishes; a coordinator that ends without recording how (a
 * start the engine refused) leaves the campaign failed with its last
 * words. 400 naming the field; 404 when fs is NULL; 429 while
 * FLEET_START_MAX_RUNNING campaigns are running. */
enum MHD_Result fleet_start_post(struct http_request *rq,
				 const struct fleet_start *fs,
				 struct store *store);
/* Asks campaign id's coordinator, when this server started it, to cancel
 * (SIGTERM: it cancels its jobs and records the campaign cancelled). 1
 * when it was started here, 0 otherwise. */
int fleet_start_cancel(const struct fleet_start *fs, const char *id);
/* Where a campaign asked for runs: the request's nodes. */
struct fleet_where {
	const char *nodes, *constraint, *partition; /* NULL: not given */
	int all;
};

/*
 * A start's body (or a plan's) read into req and w: the experiment, its
 * params, its nodes. The body (to release), or NULL with *ret the answer
 * already queued: 404 when fs is NULL (campaigns are not started here),
 * 400 naming the field.
 */
json_t *fleet_start_body(struct http_request *rq, const struct fleet_start *fs,
			 struct run_request *req, struct fleet_where *w,
			 enum MHD_Result *ret);
/* `numalab fleet run EXPERIMENT k=v ... --engine E` and the nodes, into
 * argv: what a start and a plan both run. */
void fleet_start_argv(struct strvec *argv, const struct fleet_start *fs,
		      const struct run_request *req,
		      const struct fleet_where *w);

/* The store is about to close: reapers leave it alone from now on. */
void fleet_start_shutdown(void);

#endif
