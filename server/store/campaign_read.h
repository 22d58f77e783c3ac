/* campaign_read.h - the list of campaigns, and one campaign a page of nodes at a time */
#ifndef NUMALAB_CAMPAIGN_READ_H
#define NUMALAB_CAMPAIGN_READ_H

#include <stdint.h>

#include <jansson.h>

#include "store.h"

/* Newest first: [{id, engine, cluster, experiment, created_at, finished_at,
 * nodes, done, failed}]; NULL on EIO or ENOMEM. */
json_t *campaigns_list(struct store *st);

/* Nodes one GET of a campaign gives when not told, and at most. */
#define CAMPAIGN_PAGE_DEFAULT 100
#define CAMPAIGN_PAGE_MAX 1000

/*
 * One campaign with a page of its nodes (limit of them from offset, in
 * their order), each with its run ({id, status, headline, summary,
 * machine, params}) when it has one; "total" nodes and "counts" by
 * state say what the other pages hold, so that reading a campaign of
 * any size costs one page. NULL with errno ENOENT when there is none,
 * EIO or ENOMEM.
 */
json_t *campaigns_get(struct store *st, const char *id, int64_t offset,
		      int64_t limit);

#endif
