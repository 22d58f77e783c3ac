/* campaign_params.h - a campaign's params as its experiment takes them, and a node's run held to them */
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

/*
 * Whether run (a run document, checked already) is a run of the campaign:
 * its experiment, and each param the campaign gives with the same value
 * (both read by the param's row, so "64K" and "65536" agree). A param the
 * run does not record (one that does not apply to it) is not compared.
 * 0, or -EINVAL with err naming 'run.experiment' or 'run.params.NAME'.
 */
int campaign_run_matches(const char *experiment, json_t *params, json_t *run,
			 struct errinfo *err);

#endif
