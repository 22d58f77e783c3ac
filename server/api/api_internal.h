/* api_internal.h - the REST handlers' shared state, for the files of server/api that hold them */
#ifndef NUMALAB_API_INTERNAL_H
#define NUMALAB_API_INTERNAL_H

#include <stdint.h>

#include "http.h"
#include "runner.h"
#include "store.h"
#include "topo.h"

struct doccache;
struct fleet_start;
struct api_class;

struct api {
	const struct topo *topo;
	struct store *store;
	struct runner *runner;
	int max_run_seconds;
	/* the machine does not change: kept serialised, with their ETags */
	struct http_blob *experiments, *topology, *openapi;
	struct doccache *docs;
	const struct fleet_start
		*fleet;	       /* NULL: campaigns are not started here */
	struct api_class *cls; /* the classroom's question and guesses */
};

#endif
