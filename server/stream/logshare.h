/* logshare.h - one in-memory copy of a stored run's events, shared by all who read it */
#ifndef NUMALAB_LOGSHARE_H
#define NUMALAB_LOGSHARE_H

#include <stdint.h>

#include "runlog.h"
#include "store.h"

/*
 * The closed log of every event the store holds for run id, loaded once
 * and shared while anyone holds it: a thousand subscribers of a stored
 * run cost one copy. A new reference, or NULL with errno.
 */
struct runlog *logshare_stored(struct store *st, int64_t id);

/*
 * Stored runs' events changed behind the shared copies (a stale run marked
 * interrupted late): readers from now on load them again; those who hold a
 * copy keep it.
 */
void logshare_forget_all(void);

#endif
