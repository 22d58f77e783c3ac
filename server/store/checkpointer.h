/* checkpointer.h - the store's WAL checkpointed by a thread of its own */
#ifndef NUMALAB_CHECKPOINTER_H
#define NUMALAB_CHECKPOINTER_H

#include <stddef.h>

#include "errinfo.h"

/*
 * SQLite's automatic checkpoint runs inside the commit that crosses the
 * WAL's threshold, fsync and all: the runner would stop reading its
 * worker for milliseconds, and every point behind would reach the page
 * late. So the store turns it off, and this thread checkpoints (PASSIVE:
 * it never blocks a writer or a reader) on its own connection every
 * CHECKPOINT_MS, when poked (runs ending back to back share one: at most
 * one a CHECKPOINT_GAP_MS), and once more when it stops.
 */
struct checkpointer;

/* NULL with err set when the database cannot be opened a second time. */
struct checkpointer *checkpointer_start(const char *path, struct errinfo *err);
/* Asks for a checkpoint now (after a run ends), or once the gap since the
 * last one has passed. */
void checkpointer_poke(struct checkpointer *c);
void checkpointer_stop(struct checkpointer *c);

#endif
