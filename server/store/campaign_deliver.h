/* campaign_deliver.h - one node of a campaign delivered into the store, its run stored once */
#ifndef NUMALAB_CAMPAIGN_DELIVER_H
#define NUMALAB_CAMPAIGN_DELIVER_H

#include <stdint.h>

#include <jansson.h>

#include "campaign_nodes.h"
#include "errinfo.h"
#include "store.h"

/*
 * Records what a coordinator says of node (u) and, when run is not NULL
 * and the node has no run yet, stores run as its run (client: the address
 * it came from, or NULL). Every delivery is checked whole, a node's first
 * and those sent again: run as POST /api/runs/import checks one, of the
 * campaign's experiment and params, given only with an end (done, failed,
 * cancelled; done only for a run that is done); the node only moves
 * forward (check_move in the .c). A node that has a run keeps it: a
 * delivery sent again stores nothing (*stored 0) and names that run in
 * *run_id (0: none). 0; -ENOENT (unknown campaign), -ESRCH (unknown
 * node), -EINVAL (a body or run that breaks the contract), -EEXIST (a
 * move the node's state forbids), -ESTALE or -EIO; err says which.
 */
int campaign_deliver_node(struct store *st, const char *id, const char *node,
			  const struct campaign_node_update *u, json_t *run,
			  const char *client, int64_t *run_id, int *stored,
			  struct errinfo *err);

#endif
