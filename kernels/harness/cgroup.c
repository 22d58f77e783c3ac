/* cgroup.c - this process's cpuset as its cgroup (v2, else v1) gives it */
#include "cgroup.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* Whether the comma-separated list csv names word (csv is cut up). */
static int lists(char *csv, const char *word)
{
	for (char *w = strtok(csv, ","); w; w = strtok(NULL, ","))
		if (!strcmp(w, word))
			return 1;
	return 0;
}

/*
 * Hands each line of path to take, which may fill a and b (len bytes each,
 * "" until it does). A file that cannot be read leaves them "".
 */
static void scan_lines(const char *path,
		       void (*take)(char *line, char *a, char *b, size_t len),
		       char *a, char *b, size_t len)
{
	char line[2048];
	FILE *f = fopen(path, "r");

	a[0] = b[0] = '\0';
	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		take(line, a, b, len);
	fclose(f);
}

/* A line of /proc/self/cgroup: the v2 path into v2, the v1 cpuset path into
 * v1. */
static void take_cgroup(char *line, char *v2, char *v1, size_t len)
{
	char *ctl = strchr(line, ':'), *path;

	if (!ctl || !(path = strchr(ctl + 1, ':')))
		return;
	*path++ = '\0';
	ctl++;
	path[strcspn(path, "\n")] = '\0';
	if (!strncmp(line, "0:", 2) && !*ctl)
		snprintf(v2, len, "%s", path);
	if (lists(ctl, "cpuset"))
		snprintf(v1, len, "%s", path);
}

/* A line of /proc/self/mountinfo: the first mount point of cgroup2 into m2,
 * of the v1 hierarchy holding cpuset into m1. */
static void take_mount(char *line, char *m2, char *m1, size_t len)
{
	char root[512], point[512], fstype[64], opts[512];
	char *tail = strstr(line, " - ");

	if (!tail ||
	    sscanf(line, "%*s %*s %*s %511s %511s", root, point) != 2 ||
	    sscanf(tail + 3, "%63s %*s %511s", fstype, opts) != 2 ||
	    strcmp(root, "/"))
		return;
	if (!strcmp(fstype, "cgroup2") && !m2[0])
		snprintf(m2, len, "%s", point);
	if (!strcmp(fstype, "cgroup") && !m1[0] && lists(opts, "cpuset"))
		snprintf(m1, len, "%s", point);
}

/* Where this process's cgroups live: the v2 path and the v1 cpuset path, "" if
 * none. */
static void cgroup_paths(char *v2, char *v1, size_t len)
{
	scan_lines("/proc/self/cgroup", take_cgroup, v2, v1, len);
}

/* The mount points of cgroup2 and of the v1 hierarchy holding cpuset, "" if
 * none. */
static void cgroup_mounts(char *m2, char *m1, size_t len)
{
	scan_lines("/proc/self/mountinfo", take_mount, m2, m1, len);
}

/* The first line of path into buf; 0, or -errno. */
static int read_first_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	int rc = 0;

	if (!f)
		return -errno;
	if (!fgets(buf, (int)len, f))
		rc = -EIO;
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return rc;
}

void cgroup_cpuset(char *cpus, char *cpus_from, char *mems, char *mems_from,
		   size_t len)
{
	char v2[512], v1[512], m2[512], m1[512], dir[1100], path[1200];

	cpus[0] = mems[0] = cpus_from[0] = mems_from[0] = '\0';
	cgroup_paths(v2, v1, sizeof(v2));
	cgroup_mounts(m2, m1, sizeof(m2));
	if (m2[0] && v2[0]) {
		snprintf(dir, sizeof(dir), "%s%s", m2,
			 strcmp(v2, "/") ? v2 : "");
		for (;;) {
			snprintf(path, sizeof(path), "%s/cpuset.cpus.effective",
				 dir);
			if (!read_first_line(path, cpus, len)) {
				snprintf(cpus_from, len,
					 "cgroup cpuset.cpus.effective");
				snprintf(path, sizeof(path),
					 "%s/cpuset.mems.effective", dir);
				if (!read_first_line(path, mems, len))
					snprintf(
						mems_from, len,
						"cgroup cpuset.mems.effective");
				return;
			}
			char *slash = strrchr(dir, '/');
			if (!slash || (size_t)(slash - dir) < strlen(m2))
				break;
			*slash = '\0';
		}
	}
	if (m1[0] && v1[0]) {
		snprintf(dir, sizeof(dir), "%s%s", m1,
			 strcmp(v1, "/") ? v1 : "");
		snprintf(path, sizeof(path), "%s/cpuset.effective_cpus", dir);
		if (!read_first_line(path, cpus, len))
			snprintf(cpus_from, len,
				 "cgroup v1 cpuset.effective_cpus");
		snprintf(path, sizeof(path), "%s/cpuset.effective_mems", dir);
		if (!read_first_line(path, mems, len))
			snprintf(mems_from, len,
				 "cgroup v1 cpuset.effective_mems");
	}
}
