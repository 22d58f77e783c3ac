/* campaign_params.h - a campaign's params as its experiment takes them */
#ifndef NUMALAB_CAMPAIGN_PARAMS_H
#define NUMALAB_CAMPAIGN_PARAMS_H

#include <jansson.h>

#include "errinfo.h"

/*
 * Whether experiment (a name) is one this server knows and params (an
 * object of name: text) name its params, each with a value its row takes.
 * What depends on a node's machine (threads past its cpus, a node it
 * lacks) is the node's to judge, as numalab fleet run judges it. 0, or
 * -EINVAL with err naming 'experiment' or 'params.NAME'.
 */
int campaign_params_check(const char *experiment, json_t *params,
			  struct errinfo *err);

#endif
