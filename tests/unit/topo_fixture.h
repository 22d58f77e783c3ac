/* topo_fixture.h - unit tests' topologies: an hwloc synthetic description or a saved XML file */
#ifndef NUMALAB_TOPO_FIXTURE_H
#define NUMALAB_TOPO_FIXTURE_H

#include <stdlib.h>

#include "topo.h"

/* cmocka.h (assert_non_null) comes first in every test */
static inline struct topo *topo_from_env(const char *var, const char *value)
{
	setenv(var, value, 1);
	struct topo *t = topo_load();
	unsetenv(var);
	assert_non_null(t);
	return t;
}

/* "pack:2 numa:1 l3:1 core:2 pu:2" */
static inline struct topo *synthetic(const char *desc)
{
	return topo_from_env("HWLOC_SYNTHETIC", desc);
}

static inline struct topo *xml(const char *file)
{
	return topo_from_env("HWLOC_XMLFILE", file);
}

#endif
