/* guesses.h - the class's guesses kept with a run: one block per run, apart from its measurement */
#ifndef NUMALAB_GUESSES_H
#define NUMALAB_GUESSES_H

#include <stdint.h>

#include <jansson.h>

#include "errinfo.h"
#include "store.h"

/* The most guesses one question (and so one run) keeps. */
#define GUESSES_MAX 1024
/* A guess is a finite number with 0 < value < GUESS_VALUE_MAX. */
#define GUESS_VALUE_MAX 1e9

/*
 * A run's class block (the ClassBlock schema of openapi.json):
 *   {"lesson", "question", "unit", "revealed", "teacher_guess": n|null,
 *    "guesses": [{"name": s|null, "value": n}]}
 * No session id is kept: a browser's id is not the run's to export.
 */

/* Stores block as run id's, replacing the one it had. 0, -ESTALE (the
 * database file is gone), -ENOMEM or -EIO, err set. */
int guesses_put(struct store *st, int64_t id, json_t *block,
		struct errinfo *err);

/* Run id's block, or NULL: errno ENOENT when it has none, else EIO or
 * ENOMEM. */
json_t *guesses_get(struct store *st, int64_t id);

#endif
