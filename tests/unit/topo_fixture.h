/* topo_fixture.h - unit tests' topologies: an hwloc synthetic description or a saved XML file */
#ifndef NUMALAB_TOPO_FIXTURE_H
#define NUMALAB_TOPO_FIXTURE_H

#include <stdio.h>
#include <stdlib.h>

#include "topo.h"

#ifndef TEST_DATA
#define TEST_DATA "tests/data"
#endif

/*
 * The captured shapes smoke runs go over, each a path of its own under
 * SMOKE_SHAPES: small enough (cpus 0 and 1 at most) that a run pinned to
 * its cpus runs here, and each one taking a different path through the
 * experiments (one L3 over both cpus, an L3 per core, one cpu).
 */
static const char *const smoke_shapes[] = {TEST_DATA "/shared_l3.xml",
					   TEST_DATA "/l3_per_core.xml",
					   TEST_DATA "/one_cpu.xml", NULL};

/*
 * The topology of a captured shape, or NULL (said on stderr) when it
 * cannot be read or its cpus are not all allowed here: a run pinned to a
 * cpu this process may not use would fail for a reason of this machine.
 */
static inline struct topo *smoke_shape(const char *file)
{
	struct topo *here = topo_load(), *t;

	setenv("HWLOC_XMLFILE", file, 1);
	t = topo_load();
	unsetenv("HWLOC_XMLFILE");
	if (!t || !here) {
		fprintf(stderr, "cannot read the topology %s\n",
			t ? "of this machine" : file);
		topo_free(here);
		topo_free(t);
		return NULL;
	}
	for (int i = 0; i < t->npus; i++) {
		const struct topo_pu *p = topo_pu_by_os(here, t->pu[i].os);
		if (!p || !p->allowed) {
			printf("SKIP the shape %s here: its cpu %d is not one this process may use\n",
			       file, t->pu[i].os);
			topo_free(t);
			t = NULL;
			break;
		}
	}
	topo_free(here);
	return t;
}

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
