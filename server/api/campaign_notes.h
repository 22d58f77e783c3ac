/* campaign_notes.h - a campaign's change told to those who follow it */
#ifndef NUMALAB_CAMPAIGN_NOTES_H
#define NUMALAB_CAMPAIGN_NOTES_H

#include <jansson.h>

#include "store.h"

/* What the page and a coordinator follow: state, counts, no nodes; NULL
 * when there is no such campaign. */
json_t *campaign_summary(struct store *st, const char *id);
/* Tells id's followers its summary now, and node (may be NULL) beside it. */
void campaign_note(struct store *st, const char *id, json_t *node);
/* Tells the campaign's followers that its record changed. */
void api_campaigns_recorded(struct store *st, const char *id);

#endif
