/* campaign_live.h - each running campaign's event log, for the page to follow as its nodes finish */
#ifndef NUMALAB_CAMPAIGN_LIVE_H
#define NUMALAB_CAMPAIGN_LIVE_H

#include <jansson.h>

#include "runlog.h"

/* Campaigns followed at once; past this the oldest one's log ends (its
 * readers fetch it again and get a fresh one). */
#define CAMPAIGN_LIVE_MAX 64

/*
 * Says what changed in campaign id: summary is GET /api/campaigns/{id}
 * with a page of at most one node ({id, state, total, counts, error,
 * finished_at}), node the node that changed (NULL: the whole record).
 * Appends a "campaign" event to its log; a campaign that ended closes
 * its log and is forgotten. Never fails the caller: a log without
 * memory is a page that refetches later.
 */
void campaign_live_note(const char *id, json_t *summary, json_t *node);

/*
 * A reference to campaign id's log, made from summary when there is none
 * (closed at once when it has ended); NULL on ENOMEM.
 */
struct runlog *campaign_live_log(const char *id, json_t *summary);

/* Forgets every log (the server stops). */
void campaign_live_clear(void);

#endif
