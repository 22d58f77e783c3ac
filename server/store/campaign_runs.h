/* campaign_runs.h - the runs a campaign's record names: each one the store has, none taken from its node */
#ifndef NUMALAB_CAMPAIGN_RUNS_H
#define NUMALAB_CAMPAIGN_RUNS_H

#include <jansson.h>

#include "errinfo.h"

struct sqlite3;

/*
 * Checks the run_id of each of c's nodes (a campaign checked whole by
 * campaigns_check) against db, inside the caller's lock. have: what the
 * store already holds of c, {node: [run_id, state]} for each node with a
 * run. A node's run_id is a run of the store and of c's experiment, no
 * other node's; a node that has a run keeps it: the record gives it that
 * run_id or none, and does not leave the node out. 0; -EINVAL (a run_id
 * no run of the experiment has, or two nodes with one run) or -EEXIST (a
 * delivered run taken from its node) with err naming the field; -EIO.
 */
int campaign_runs_check(struct sqlite3 *db, json_t *c, json_t *have,
			struct errinfo *err);

#endif
