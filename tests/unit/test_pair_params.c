/* test_pair_params.c - core_to_core's pairs and remote_bandwidth's cells params: machine defaults, typed fields, errors */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "experiment.h"
#include "pair_plan.h"
#include "params_lookup.h"
#include "registry.h"
#include "topo.h"
#include "topo_fixture.h"

/* The struct the core_to_core table fills, as its rows name it. */
struct c2c_fields {
	struct int_list cpus;
	struct pairs_request pairs;
	int64_t samples, round_trips;
};

/* Parses argv for exp on t: 0 and the text of name in out, or the error. */
static int parse(const char *exp, const struct topo *t, int argc, char **argv,
		 const char *name, char *out, size_t len, void *fields,
		 struct errinfo *err)
{
	const struct experiment *e = experiment_find(exp);
	struct param_values *pv = calloc(1, sizeof(*pv));
	struct common_params common;
	void *own = calloc(1, e->params_size);
	int rc;

	assert_non_null(pv);
	assert_non_null(own);
	rc = experiment_parse(e, t, argc, argv, pv, own, &common, err);
	if (!rc) {
		snprintf(out, len, "%s", params_str(pv, name));
		if (fields)
			memcpy(fields, own, e->params_size);
	}
	free(own);
	free(pv);
	return rc;
}

static void test_pairs_default_by_machine(void **state)
{
	struct topo *big = synthetic("pack:2 numa:2 l3:4 l2:16 core:2 pu:2");
	struct topo *small = synthetic("pack:2 numa:1 l3:1 core:4 pu:2");
	struct topo *edge = synthetic("pack:1 numa:1 l3:1 core:8 pu:2");
	struct c2c_fields f;
	struct errinfo err;
	char text[64];

	(void)state;
	assert_int_equal(sizeof(f),
			 experiment_find("core_to_core")->params_size);
	assert_int_equal(parse("core_to_core", big, 0, NULL, "pairs", text,
			       sizeof(text), &f, &err),
			 0);
	assert_string_equal(text, "by_relation");
	assert_int_equal(f.pairs.mode, PAIRS_BY_RELATION);
	assert_int_equal(parse("core_to_core", small, 0, NULL, "pairs", text,
			       sizeof(text), &f, &err),
			 0);
	assert_string_equal(text, "all");
	assert_int_equal(f.pairs.mode, PAIRS_ALL);
	/* 16 cpus: still every pair */
	assert_int_equal(parse("core_to_core", edge, 0, NULL, "pairs", text,
			       sizeof(text), &f, &err),
			 0);
	assert_string_equal(text, "all");
	topo_free(big);
	topo_free(small);
	topo_free(edge);
}

static void test_pairs_values(void **state)
{
	struct topo *t = synthetic("pack:2 numa:1 l3:1 core:4 pu:2");
	struct c2c_fields f;
	struct errinfo err;
	char text[64];
	char *sample[] = {"pairs=sample:007"}, *rel[] = {"pairs=by_relation"};
	char *zero[] = {"pairs=sample:0"}, *bad[] = {"pairs=most"};

	(void)state;
	assert_int_equal(parse("core_to_core", t, 1, sample, "pairs", text,
			       sizeof(text), &f, &err),
			 0);
	/* recorded in its normal form, typed in the struct */
	assert_string_equal(text, "sample:7");
	assert_int_equal(f.pairs.mode, PAIRS_SAMPLE);
	assert_int_equal(f.pairs.sample, 7);
	assert_int_equal(parse("core_to_core", t, 1, rel, "pairs", text,
			       sizeof(text), &f, &err),
			 0);
	assert_int_equal(f.pairs.mode, PAIRS_BY_RELATION);
	assert_int_equal(parse("core_to_core", t, 1, zero, "pairs", text,
			       sizeof(text), NULL, &err),
			 -EINVAL);
	assert_string_equal(err.field, "pairs");
	assert_string_equal(
		err.msg,
		"'sample:0' is not a pair count: sample:N takes a whole number N from 1 to 2147483647");
	assert_int_equal(parse("core_to_core", t, 1, bad, "pairs", text,
			       sizeof(text), NULL, &err),
			 -EINVAL);
	assert_string_equal(err.field, "pairs");
	assert_string_equal(
		err.msg,
		"unknown pairs 'most' (allowed: all, by_relation, sample:N)");
	topo_free(t);
}

/* A stored run reads back its recorded value, whatever machine reads it. */
static void test_pairs_recorded(void **state)
{
	const struct experiment *e = experiment_find("core_to_core");
	struct param_values *pv = calloc(1, sizeof(*pv));
	struct common_params common;
	struct c2c_fields f;
	struct errinfo err;
	char *argv[] = {"pairs=sample:12"};

	(void)state;
	assert_int_equal(
		experiment_parse_recorded(e, 1, argv, pv, &f, &common, &err),
		0);
	assert_int_equal(f.pairs.mode, PAIRS_SAMPLE);
	assert_int_equal(f.pairs.sample, 12);
	/* no machine: the table's own default */
	assert_int_equal(
		experiment_parse_recorded(e, 0, NULL, pv, &f, &common, &err),
		0);
	assert_string_equal(params_str(pv, "pairs"), "by_relation");
	free(pv);
}

static void test_cells_default_by_machine(void **state)
{
	struct topo *n64 = synthetic("pack:8 numa:8 l3:1 core:8 pu:2");
	struct topo *n8 = synthetic("pack:2 numa:4 l3:1 core:2 pu:1");
	struct errinfo err;
	char text[64], *full[] = {"cells=full"}, *bad[] = {"cells=some"};

	(void)state;
	/* synthetic nodes have no memory of their own: give each 1 GiB free */
	for (int i = 0; i < 64 && i < n64->nnodes; i++)
		n64->node[i].mem_total = n64->node[i].mem_free = 1u << 30;
	for (int i = 0; i < 8 && i < n8->nnodes; i++)
		n8->node[i].mem_total = n8->node[i].mem_free = 1u << 30;
	assert_int_equal(n64->nnodes, 64);
	assert_int_equal(n8->nnodes, 8);
	assert_int_equal(parse("remote_bandwidth", n64, 0, NULL, "cells", text,
			       sizeof(text), NULL, &err),
			 0);
	assert_string_equal(text, "by_distance");
	assert_int_equal(parse("remote_bandwidth", n64, 1, full, "cells", text,
			       sizeof(text), NULL, &err),
			 0);
	assert_string_equal(text, "full");
	assert_int_equal(parse("remote_bandwidth", n8, 0, NULL, "cells", text,
			       sizeof(text), NULL, &err),
			 0);
	assert_string_equal(text, "full");
	assert_int_equal(parse("remote_bandwidth", n8, 1, bad, "cells", text,
			       sizeof(text), NULL, &err),
			 -EINVAL);
	assert_string_equal(err.field, "cells");
	assert_string_equal(
		err.msg, "unknown cells 'some' (allowed: full, by_distance)");
	topo_free(n64);
	topo_free(n8);
}

static int upper_text(const char *text, void *field, char *norm, size_t len,
		      struct errinfo *err)
{
	(void)err;
	snprintf(field, 8, "%.7s", text);
	snprintf(norm, len, "%s", text);
	return 0;
}

struct text_fields {
	char word[8];
};

static const struct param text_rows[] = {
	{.name = "word",
	 .type = PARAM_TEXT,
	 .def = "x",
	 .help = "a word",
	 .offset = offsetof(struct text_fields, word),
	 .parse = upper_text,
	 .field_size = 8},
	{0}};
static const struct chart one_chart[] = {{.id = "c", .kind = CHART_LINE}, {0}};

/* A text row needs its parser and a field that fits; others may not have one.
 */
static void test_text_rows_validated(void **state)
{
	struct param rows[2];
	struct experiment e = {.name = "t",
			       .params = rows,
			       .params_size = sizeof(struct text_fields),
			       .charts = one_chart,
			       .smoke = "word=y"};
	struct errinfo err;

	(void)state;
	memcpy(rows, text_rows, sizeof(rows));
	assert_int_equal(experiment_validate(&e, &err), 0);
	rows[0].parse = NULL;
	assert_int_equal(experiment_validate(&e, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "needs a parse hook"));
	rows[0].parse = upper_text;
	rows[0].field_size = 64;
	assert_int_equal(experiment_validate(&e, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "does not fit"));
	rows[0].type = PARAM_INT;
	rows[0].field_size = 8;
	rows[0].def = "1";
	assert_int_equal(experiment_validate(&e, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "is not text"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pairs_default_by_machine),
		cmocka_unit_test(test_pairs_values),
		cmocka_unit_test(test_pairs_recorded),
		cmocka_unit_test(test_cells_default_by_machine),
		cmocka_unit_test(test_text_rows_validated),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
