/* schema.h - experiments, their params and the topology as JSON documents (and, through run_request.h, reading a request) */
#ifndef NUMALAB_SCHEMA_H
#define NUMALAB_SCHEMA_H

#include <jansson.h>

#include "errinfo.h"
#include "experiment.h"
#include "run_request.h"
#include "strvec.h"
#include "topo.h"

/* One experiment with its param table, charts and availability here. */
json_t *schema_experiment(const struct experiment *e, const struct topo *t);
/* Array of every registered experiment. */
json_t *schema_experiments(const struct topo *t);
/* Packages, nodes (memory, distances), cores, PUs, caches. */
json_t *schema_topology(const struct topo *t);
/*
 * Node i's (index in t->node) distances to every node, in the order of
 * nodes: null where the topology gives none, which is unknown, not 0.
 */
json_t *schema_distances(const struct topo *t, int i);

/* The parsed values of experiment e that a run of them reads back as
 * JSON (numbers for int/size, text otherwise): a param another's value
 * makes unread, or one e never reads, is left out, so that the params
 * recorded can be asked for again as they are. */
json_t *schema_params_json(const struct experiment *e,
			   const struct param_values *pv);

#endif
