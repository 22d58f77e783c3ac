/* schema.h - experiments, topology and the machine as JSON documents */
#ifndef NUMALAB_SCHEMA_H
#define NUMALAB_SCHEMA_H

#include <jansson.h>

#include "experiment.h"
#include "topo.h"

/* One experiment with its param table, charts and availability here. */
json_t *schema_experiment(const struct experiment *e, const struct topo *t);
/* Array of every registered experiment. */
json_t *schema_experiments(const struct topo *t);
/* Packages, nodes (memory, distances), cores, PUs, caches. */
json_t *schema_topology(const struct topo *t);
/* CPU model, topology summary, kernel, SMT, THP, governor, compiler... */
json_t *schema_machine(const struct topo *t);

/*
 * Turns an API "params" object into k=v strings for experiment_parse:
 * numbers become their integer text, arrays of numbers/strings are
 * joined with ','. Returns the count, or -EINVAL with err set (a value
 * that is not a string, integer or array of them; a non-integer number).
 * Each argv[i] must be freed by the caller.
 */
int schema_params_to_argv(json_t *params, char **argv, int cap,
			  struct errinfo *err);
/* The parsed values back as JSON: numbers for int/size, text otherwise. */
json_t *schema_params_json(const struct param_values *pv);

#endif
