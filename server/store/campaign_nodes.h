/* campaign_nodes.h - a campaign's nodes as they go, and the campaign's end */
#ifndef NUMALAB_CAMPAIGN_NODES_H
#define NUMALAB_CAMPAIGN_NODES_H

#include <stdint.h>

#include <jansson.h>

#include "errinfo.h"
#include "store.h"

/* What the store holds of one node, and what its campaign asks of runs. */
struct campaign_node_now {
	int64_t run_id;	     /* 0: none */
	char state[16];	     /* pending, running, done, failed, cancelled */
	char experiment[80]; /* the campaign's */
	json_t *params;	     /* the campaign's, {name: text}; the caller's */
};

/* Node of campaign id as it is now into *now: 0, -ENOENT (no such
 * campaign), -ESRCH (no such node), -ENOMEM or -EIO. */
int campaigns_node_now(struct store *st, const char *id, const char *node,
		       struct campaign_node_now *now);

/* What a coordinator says of one node as it goes. */
struct campaign_node_update {
	const char *state;  /* pending, running, done, failed, cancelled */
	const char *reason; /* NULL: none */
	const char *job_id; /* NULL: the one it had */
};

/*
 * Sets node's state and reason, and its run when it has none yet
 * (*run_id: the run to give it, 0 none; then the run it has). 0,
 * -ENOENT (unknown campaign), -ESRCH (unknown node), -ESTALE or -EIO,
 * err set.
 */
int campaigns_node_set(struct store *st, const char *id, const char *node,
		       const struct campaign_node_update *u, int64_t *run_id,
		       struct errinfo *err);

/*
 * Ends a running campaign as state (failed, cancelled) with error, and
 * its nodes still pending or running with it. 0; 1 when it was not
 * running (or is not there); -EIO with err set.
 */
int campaigns_end(struct store *st, const char *id, const char *state,
		  const char *error, struct errinfo *err);

/* Marks that a cancel was asked for (its coordinator reads it). 0, -ENOENT
 * or -EIO, err set. */
int campaigns_cancel(struct store *st, const char *id, struct errinfo *err);

#endif
