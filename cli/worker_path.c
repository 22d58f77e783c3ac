/* worker_path.c - which program numalab serve starts for each run: numalab-worker, found from the binary's own path */
#include "worker_path.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "say.h"
#include "selfpath.h"

/* The worker, or -1 said: not executable. */
static int worker_usable(const char *path)
{
	if (!access(path, X_OK))
		return 0;
	say(stderr, "numalab serve: cannot execute worker '%s': %s\n", path,
	    strerror(errno));
	return -1;
}

int worker_path(const char *given, char *buf, size_t len, int *ours)
{
	char found[PATH_MAX];
	int have = selfpath_worker(found, sizeof(found)) == 0;

	if (!given && !have) {
		char self[PATH_MAX];
		ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

		self[n > 0 ? n : 0] = '\0';
		say(stderr,
		    "numalab serve: cannot find " SELFPATH_WORKER
		    ", the program that runs each run: neither beside '%s' "
		    "nor in ../lib/numalab/ from there (build it with `make`, "
		    "install numalab again, or give --worker PATH)\n",
		    self);
		return -1;
	}
	if (worker_usable(given ? given : found))
		return -1;
	snprintf(buf, len, "%s", given ? given : found);
	*ours = !given || selfpath_is_self(given) ||
		(have && selfpath_same_file(given, found));
	return 0;
}
