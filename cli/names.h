/* names.h - experiment and parameter names on the command line: aligned, and guessed on a typo */
#ifndef NUMALAB_NAMES_H
#define NUMALAB_NAMES_H

#include <stddef.h>
#include <stdio.h>

#include "errinfo.h"
#include "experiment.h"

/* The columns the longest experiment name takes. */
int names_width(void);

/*
 * Says on f that name is no experiment, as cmd ("numalab run"), with the
 * nearest experiment's name when it looks like a typo of one:
 * "numalab run: unknown experiment 'false_shring': did you mean
 * 'false_sharing'? (numalab list shows them)".
 */
void names_unknown_experiment(FILE *f, const char *cmd, const char *name);

/*
 * err's message, with the nearest of e's params (its own, placement's,
 * the common ones) appended when err names an unknown parameter:
 * "unknown parameter 'thread': did you mean 'threads'?"; for an unknown
 * value of an enum or set, its nearest choice: "unknown mode 'node': did
 * you mean 'nodes'? (allowed: nodes, sizes, loaded)".
 */
void names_param_error(const struct experiment *e, const struct errinfo *err,
		       char *buf, size_t len);

/*
 * Says on f that name is no command of numalab, with the nearest one when
 * it looks like a typo: "numalab: unknown command 'serv': did you mean
 * 'serve'? (commands: serve, run, ...)". names: NULL-terminated.
 */
void names_unknown_command(FILE *f, const char *name, const char *const *names);

#endif
