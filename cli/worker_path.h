/* worker_path.h - which program numalab serve starts for each run */
#ifndef NUMALAB_WORKER_PATH_H
#define NUMALAB_WORKER_PATH_H

#include <stddef.h>

/*
 * The worker's path into buf: given (--worker PATH) when not NULL, else
 * numalab-worker beside the running binary's real path (a build tree),
 * else in ../lib/numalab/ from there (an install prefix, moved whole or
 * not). *ours is 1 when the worker is numalab's own (numalab-worker or
 * numalab itself: its lines are jansson's compact text). Returns 0, or
 * -1 with the reason said on stderr (missing, not executable).
 */
int worker_path(const char *given, char *buf, size_t len, int *ours);

#endif
