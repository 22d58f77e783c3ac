/* topo_source.c - hwloc's topology of this machine, or of the one HWLOC_SYNTHETIC or HWLOC_XMLFILE names, refused with the reason when it cannot be used */
#include "topo_source.h"

#include <errno.h>
#include <hwloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

const char *topo_source_var(const char **value)
{
	static const char *const vars[] = {"HWLOC_SYNTHETIC", "HWLOC_XMLFILE"};

	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
		const char *v = getenv(vars[i]);
		if (v && *v) {
			*value = v;
			return vars[i];
		}
	}
	*value = NULL;
	return NULL;
}

/*
 * Hands hwloc the topology the environment names, itself: hwloc's own
 * reading of HWLOC_XMLFILE and HWLOC_SYNTHETIC drops a file it cannot
 * use without a word and loads this machine instead, and a run planned
 * on that would be planned on the wrong machine. 0, or -errno with
 * why naming the variable, its value and why.
 */
static int set_source(hwloc_topology_t hw, const char *var, const char *val,
		      char *why, size_t len)
{
	int synthetic = !strcmp(var, "HWLOC_SYNTHETIC");
	int rc;

	errno = 0;
	rc = synthetic ? hwloc_topology_set_synthetic(hw, val)
		       : hwloc_topology_set_xml(hw, val);
	if (!rc)
		return 0;
	rc = errno ? errno : EINVAL;
	if (synthetic)
		snprintf(why, len,
			 "%s=%s: not a synthetic topology hwloc can read "
			 "(such as \"pack:2 numa:1 core:2 pu:2\")",
			 var, val);
	else
		snprintf(why, len, "%s=%s: %s", var, val, strerror(rc));
	return -rc;
}

/* Why hwloc could not load the file var names: it read it, and it is
 * no topology (hwloc says no more than EINVAL). */
static void say_unloadable(const char *var, const char *val, char *why,
			   size_t len)
{
	struct stat st;

	if (!strcmp(var, "HWLOC_XMLFILE") && !stat(val, &st) &&
	    S_ISDIR(st.st_mode))
		snprintf(why, len, "%s=%s: %s", var, val, strerror(EISDIR));
	else
		snprintf(why, len,
			 "%s=%s: hwloc cannot load it as a topology (%s)", var,
			 val,
			 strcmp(var, "HWLOC_XMLFILE")
				 ? "a synthetic description it cannot build"
				 : "not an XML file hwloc wrote, as "
				   "`lstopo file.xml` does");
}

/*
 * The whole machine, cpus and nodes outside this process's cpuset too:
 * they exist, and a request for one must hear that it is outside the
 * cpuset, not that the machine lacks it. Which of them this process may
 * use is marked later (allowed, mem_allowed).
 */
void *topo_source_load(char *why, size_t len, int here)
{
	hwloc_topology_t hw;
	const char *val, *var = here ? NULL : topo_source_var(&val);
	char *kept[2] = {NULL, NULL};
	static const char *const vars[] = {"HWLOC_SYNTHETIC", "HWLOC_XMLFILE"};
	int rc;

	if (hwloc_topology_init(&hw))
		return NULL;
	rc = var ? set_source(hw, var, val, why, len) : 0;
	if (!rc && (hwloc_topology_set_flags(
			    hw, HWLOC_TOPOLOGY_FLAG_INCLUDE_DISALLOWED) ||
		    /* memory-side caches are dropped unless asked for */
		    hwloc_topology_set_type_filter(hw, HWLOC_OBJ_MEMCACHE,
						   HWLOC_TYPE_FILTER_KEEP_ALL)))
		rc = -EIO;
	/* hwloc reads the two itself where no source was set: out of its
	 * sight while it loads this machine */
	for (int i = 0; here && i < 2; i++)
		if (getenv(vars[i]) && (kept[i] = strdup(getenv(vars[i]))))
			unsetenv(vars[i]);
	if (!rc && hwloc_topology_load(hw)) {
		rc = -EIO;
		if (var)
			say_unloadable(var, val, why, len);
	}
	for (int i = 0; i < 2; i++)
		if (kept[i]) {
			setenv(vars[i], kept[i], 1);
			free(kept[i]);
		}
	if (rc) {
		hwloc_topology_destroy(hw);
		errno = -rc;
		return NULL;
	}
	return hw;
}
