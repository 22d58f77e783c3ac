/* schema.h - experiments, their params and the topology as JSON documents */
#ifndef NUMALAB_SCHEMA_H
#define NUMALAB_SCHEMA_H

#include <jansson.h>

#include "errinfo.h"
#include "experiment.h"
#include "strvec.h"
#include "topo.h"

/* The longest "k=v" text one API param may become. */
#define SCHEMA_ARG_MAX 1024

/* One experiment with its param table, charts and availability here. */
json_t *schema_experiment(const struct experiment *e, const struct topo *t);
/* Array of every registered experiment. */
json_t *schema_experiments(const struct topo *t);
/* Packages, nodes (memory, distances), cores, PUs, caches. */
json_t *schema_topology(const struct topo *t);

/*
 * Appends an API "params" object to argv as k=v strings for
 * experiment_parse: numbers become their integer text, arrays of
 * numbers/strings are joined with ','. Returns the count (at most cap),
 * or -EINVAL with err set (a value that is not a string, integer or array
 * of them; a non-integer number; more than cap of them) or -ENOMEM.
 */
int schema_params_to_argv(json_t *params, struct strvec *argv, int cap,
			  struct errinfo *err);
/* The parsed values back as JSON: numbers for int/size, text otherwise. */
json_t *schema_params_json(const struct param_values *pv);

#endif
