/* version.c - the one object that holds the build's version */
#include "version.h"

/*
 * The Makefile defines NUMALAB_VERSION for this file alone and rebuilds it
 * when the version changes: a version compiled into every file that names
 * it would stay what it was when each was last compiled (a run recorded
 * with a version two commits old).
 */
#ifndef NUMALAB_VERSION
#define NUMALAB_VERSION "unknown"
#endif

const char *numalab_version(void)
{
	return NUMALAB_VERSION;
}
