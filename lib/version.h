/* version.h - the build's version, as git described the tree it came from */
#ifndef NUMALAB_VERSION_H
#define NUMALAB_VERSION_H

/* "662f0a1", "662f0a1-dirty", or "unknown" outside a git tree */
const char *numalab_version(void);

#endif
