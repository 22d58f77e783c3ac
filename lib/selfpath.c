/* selfpath.c - files found beside the running binary: a build tree or an install prefix */
#define _GNU_SOURCE
#include "selfpath.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int selfpath_find(const char *const *rels, char *buf, size_t len)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	char *slash;

	if (len)
		buf[0] = '\0';
	if (n <= 0)
		return -ENOENT;
	exe[n] = '\0';
	slash = strrchr(exe, '/');
	if (!slash)
		return -ENOENT;
	*slash = '\0';
	for (; *rels; rels++) {
		int w = snprintf(buf, len, "%s/%s", exe, *rels);
		if (w > 0 && (size_t)w < len && access(buf, R_OK) == 0)
			return 0;
	}
	if (len)
		buf[0] = '\0';
	return -ENOENT;
}

int selfpath_worker(char *buf, size_t len)
{
	static const char *const rels[] = {
		SELFPATH_WORKER, "../lib/numalab/" SELFPATH_WORKER, NULL};

	return selfpath_find(rels, buf, len);
}

int selfpath_same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	return !stat(a, &sa) && !stat(b, &sb) && sa.st_dev == sb.st_dev &&
	       sa.st_ino == sb.st_ino;
}

int selfpath_is_self(const char *path)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n <= 0)
		return 0;
	self[n] = '\0';
	return selfpath_same_file(self, path);
}
