/* campaign_notes.c - a campaign's change told to those who follow it */
#include "campaign_notes.h"

#include "campaign_live.h"
#include "campaign_read.h"

/* What the page and a coordinator follow: state, counts, no nodes. */
json_t *campaign_summary(struct store *st, const char *id)
{
	json_t *c = campaigns_get(st, id, 0, 1);

	if (c)
		json_object_del(c, "nodes");
	return c;
}

void campaign_note(struct store *st, const char *id, json_t *node)
{
	json_t *s = campaign_summary(st, id);

	campaign_live_note(id, s, node);
	json_decref(s);
}

void api_campaigns_recorded(struct store *st, const char *id)
{
	campaign_note(st, id, NULL);
}
