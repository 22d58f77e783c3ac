/* fleet_setup.h - a campaign's request checked and its directory made, before any job */
#ifndef NUMALAB_FLEET_SETUP_H
#define NUMALAB_FLEET_SETUP_H

#include "experiment.h"
#include "fleet.h"

/*
 * Each of kv[0..nkv) ("k=v") names a parameter of e once, with a value
 * its row takes, that the run reads: 0, or 2 with the reason on stderr.
 */
int fleet_check_params(const struct experiment *e, char **kv, int nkv);

/*
 * The campaign's id (id, or the time and a random tag: it sorts by time
 * and is unique enough across login nodes) and its directory (dir, or
 * ./numalab-campaigns/ID), made (*made) or found empty. 0, or 2 with the
 * reason on stderr.
 */
int fleet_campaign_dir(struct fleet_campaign *c, const char *dir,
		       const char *id, int *made);

#endif
