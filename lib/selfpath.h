/* selfpath.h - files found beside the running binary: a build tree or an install prefix */
#ifndef NUMALAB_SELFPATH_H
#define NUMALAB_SELFPATH_H

#include <stddef.h>

/*
 * The first of rels (NULL-terminated paths relative to the folder of the
 * running binary, "../share/numalab/web") that exists, as a path in buf.
 * The binary's folder is read from /proc/self/exe, so an install moved
 * as a whole (a DESTDIR staging tree, a package) still finds its files.
 * Returns 0, or -ENOENT (buf then holds "") when none exists.
 */
int selfpath_find(const char *const *rels, char *buf, size_t len);

/* the program the server starts for each run: `numalab run` alone */
#define SELFPATH_WORKER "numalab-worker"

/*
 * numalab-worker beside the running binary's real path (a build tree),
 * else in ../lib/numalab/ from there (an install prefix), as a path in
 * buf. Returns 0, or -ENOENT (buf then holds "").
 */
int selfpath_worker(char *buf, size_t len);

/* 1 when paths a and b name one file. */
int selfpath_same_file(const char *a, const char *b);

/* 1 when path names the running binary's own file (/proc/self/exe). */
int selfpath_is_self(const char *path);

#endif
