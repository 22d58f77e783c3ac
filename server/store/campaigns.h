/* campaigns.h - a fleet campaign's record stored whole (campaign_check.h
 * says what one is; campaign_read.h reads them, campaign_nodes.h follows
 * their nodes) */
#ifndef NUMALAB_CAMPAIGNS_H
#define NUMALAB_CAMPAIGNS_H

#include <jansson.h>

#include "errinfo.h"
#include "store.h"

/*
 * Stores c (checked first), replacing a campaign of the same id: its
 * fields and its nodes become c's, but a delivered run is never lost: a
 * node that has a run keeps it (c gives that run_id or null) and keeps its
 * state unless c gives it an end (done, failed, cancelled); a cancel asked
 * for stays asked. 0; -EINVAL; -EEXIST (c gives such a node another run,
 * or leaves it out); -ESTALE (the database file is gone: nothing would be
 * kept), -ENOMEM or -EIO; err set.
 */
int campaigns_record(struct store *st, json_t *c, struct errinfo *err);

#endif
