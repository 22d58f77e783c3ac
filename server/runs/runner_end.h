/* runner_end.h - a run's end into its log and the store: the final event, written from the text the runner kept, and the row's end */
#ifndef NUMALAB_RUNNER_END_H
#define NUMALAB_RUNNER_END_H

#include <jansson.h>

#include "errinfo.h"
#include "runner_exec.h"

/*
 * The final event and the run row's end in one transaction (one commit a
 * run, not two); when that fails, each on its own as far as it goes.
 * Steals ev. The document keeps the summary's text for its readers. 0 or
 * -EIO.
 */
int runner_store_end(struct runner *r, struct run *run, json_t *ev,
		     const char *status, const char *now, const char *error,
		     const char *headline, json_t *summary,
		     struct errinfo *err);

#endif
