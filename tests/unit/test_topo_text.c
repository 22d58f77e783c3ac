/* test_topo_text.c - the drawn topology of `numalab topology` on synthetic and captured machines: width, packages, nodes, nesting, L#/P#, folding */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "strbuf.h"
#include "topo.h"
#include "topo_fixture.h"
#include "topo_text.h"

#define TEST_DATA "tests/data"
#define SMALL_SMT "pack:2 numa:1 l3:1 core:4 pu:2"
#define FOUR_NODES "pack:2 numa:2 l3:1 core:4 pu:2"
#define TWO_SOCKET_1024 "pack:2 numa:2 l3:4 l2:16 core:2 pu:2"
#define NODES_64 "pack:8 numa:8 l3:1 core:8 pu:2"
#define ONE_PU "pack:1 core:1 pu:1"

/* Draws t; checks every line's width and that each package and node box is
 * there. */
static char *draw(struct topo *t)
{
	struct strbuf sb = STRBUF_INIT;
	char name[64];
	char *s;

	strbuf_init(&sb);
	topo_text(t, &sb);
	assert_false(sb.oom);
	s = strbuf_detach(&sb);
	assert_non_null(s);
	for (const char *l = s; *l;) {
		const char *nl = strchr(l, '\n');
		assert_non_null(nl);
		if (nl - l > TOPO_TEXT_WIDTH)
			fail_msg("line of %d columns: %.*s", (int)(nl - l),
				 (int)(nl - l), l);
		l = nl + 1;
	}
	for (int p = 0; p < t->npackages; p++) {
		snprintf(name, sizeof(name), "+- Package %d -", p);
		assert_non_null(strstr(s, name));
	}
	for (int n = 0; n < t->nnodes; n++) {
		snprintf(name, sizeof(name), "NUMA node %d: ", t->node[n].os);
		assert_non_null(strstr(s, name));
	}
	return s;
}

static int count(const char *s, const char *what)
{
	int n = 0;

	for (const char *p = strstr(s, what); p; p = strstr(p + 1, what))
		n++;
	return n;
}

static void test_two_sockets_smt(void **state)
{
	struct topo *t = synthetic(SMALL_SMT);
	char *s = draw(t);

	(void)state;
	/* four cores a row, each with its two PUs, nothing folded */
	/* lstopo's two numbers, and the line that says which is which */
	assert_non_null(strstr(s, "PU L#0 P#0"));
	assert_non_null(strstr(s, "PU L#15 P#15"));
	assert_non_null(strstr(s, "L# is hwloc's logical index, P# the OS's"));
	assert_null(strstr(s, "more"));
	/* one L3 a package, as wide as its four cores */
	assert_int_equal(count(s, "+- L3 (16 MiB) -"), 2);
	/* nested as lstopo draws it: the shared L3 above its cores */
	/* nested as lstopo nests them: the cache's box holds the cores' */
	assert_true(strstr(s, "+- L3 (16 MiB) -") < strstr(s, "+- Core 0 -"));
	assert_true(strstr(s, "+- Core 0 -") < strstr(s, "PU L#0 P#0"));
	assert_non_null(strstr(s, "| | | +- Core 0 -"));
	assert_non_null(strstr(s, "all 16 PUs allowed"));
	free(s);
	topo_free(t);
}

static void test_four_nodes(void **state)
{
	struct topo *t = synthetic(FOUR_NODES);
	char *s = draw(t);

	(void)state;
	assert_int_equal(t->nnodes, 4);
	assert_int_equal(count(s, "NUMA node "), 4);
	assert_null(strstr(s, "more"));
	free(s);
	topo_free(t);
}

static void test_1024_pus_fold(void **state)
{
	struct topo *t = synthetic(TWO_SOCKET_1024);
	char *s = draw(t);

	(void)state;
	assert_int_equal(t->npus, 1024);
	/* 16 L2s an L3, 4 L3s a node: the first L2, "... 14 more", the last */
	assert_int_equal(count(s, "... 14 more"), 16);
	assert_int_equal(count(s, "more"), 16);
	assert_non_null(strstr(s, "PU L#0 P#0"));
	assert_non_null(strstr(s, "PU L#1023 P#1023"));
	free(s);
	topo_free(t);
}

static void test_64_nodes(void **state)
{
	struct topo *t = synthetic(NODES_64);
	char *s = draw(t);

	(void)state;
	assert_int_equal(t->nnodes, 64);
	assert_int_equal(count(s, "NUMA node "), 64);
	free(s);
	topo_free(t);
}

static void test_one_pu(void **state)
{
	struct topo *t = synthetic(ONE_PU);
	char *s = draw(t);

	(void)state;
	assert_non_null(strstr(s, "+- Package 0 -"));
	assert_non_null(strstr(s, "PU L#0 P#0"));
	free(s);
	topo_free(t);
}

static void test_xml_two_socket(void **state)
{
	struct topo *t = xml(TEST_DATA "/two_socket_smt.xml");
	char *s = draw(t);

	(void)state;
	assert_true(t->npackages >= 2);
	assert_non_null(strstr(s, "+- L3 (32 MiB) -"));
	free(s);
	topo_free(t);
}

/* The allowed PUs carry a '*' when the process may not use them all. */
static void test_allowed_marked(void **state)
{
	struct topo *t = synthetic(SMALL_SMT);
	char *s;

	(void)state;
	for (int i = 0; i < t->npus; i++)
		t->pu[i].allowed = t->pu[i].os < 4;
	t->nallowed = 4;
	snprintf(t->allowed_text, sizeof(t->allowed_text), "0-3");
	s = draw(t);
	assert_non_null(strstr(s, "* = allowed: 4 of 16 PUs (0-3)"));
	assert_non_null(strstr(s, "PU L#0 P#0*"));
	assert_non_null(strstr(s, "PU L#3 P#3*"));
	assert_non_null(strstr(s, "PU L#4 P#4 "));
	assert_null(strstr(s, "P#4*"));
	free(s);
	topo_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_two_sockets_smt),
		cmocka_unit_test(test_four_nodes),
		cmocka_unit_test(test_1024_pus_fold),
		cmocka_unit_test(test_64_nodes),
		cmocka_unit_test(test_one_pu),
		cmocka_unit_test(test_xml_two_socket),
		cmocka_unit_test(test_allowed_marked),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
