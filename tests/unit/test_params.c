/* test_params.c - param table parsing and validation */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "experiment.h"
#include "params.h"
#include "params_lookup.h"
#include "registry.h"

enum colour { GREEN = 3, RED = 5, BLUE = 7 };
/* values out of table order: a choice's value, not its position, is what is
 * stored */
static const struct param_choice colours[] = {
	{"red", RED}, {"green", GREEN}, {"blue", BLUE}, {0}};

struct test_params {
	int64_t n, size;
	struct int_list threads;
	int colour;
	unsigned set;
	struct int_list cpus;
};

static const struct param table[] = {
	{.name = "n",
	 .type = PARAM_INT,
	 .def = "5",
	 .min = 1,
	 .max = 100,
	 .offset = offsetof(struct test_params, n)},
	{.name = "size",
	 .type = PARAM_SIZE,
	 .def = "64K",
	 .min = 4096,
	 .max = 1LL << 32,
	 .offset = offsetof(struct test_params, size)},
	{.name = "threads",
	 .type = PARAM_SWEEP,
	 .def = "1-4",
	 .min = 1,
	 .max = 64,
	 .offset = offsetof(struct test_params, threads)},
	{.name = "colour",
	 .type = PARAM_ENUM,
	 .def = "red",
	 .choices = colours,
	 .offset = offsetof(struct test_params, colour)},
	{.name = "set",
	 .type = PARAM_SET,
	 .def = "all",
	 .choices = colours,
	 .offset = offsetof(struct test_params, set)},
	{.name = "cpus",
	 .type = PARAM_CPULIST,
	 .def = "",
	 .min = 0,
	 .max = 1023,
	 .offset = offsetof(struct test_params, cpus)},
	{0}};

static int parse(int argc, char **argv, struct param_values *pv,
		 struct errinfo *err)
{
	const struct param *t[] = {table};
	return params_parse(t, 1, argc, argv, pv, err);
}

static void test_defaults(void **state)
{
	struct param_values *pv = calloc(1, sizeof(*pv));
	struct errinfo err;
	(void)state;
	assert_int_equal(parse(0, NULL, pv, &err), 0);
	assert_int_equal(params_int(pv, "n"), 5);
	assert_int_equal(params_int(pv, "size"), 65536);
	assert_string_equal(params_str(pv, "size"), "64K");
	assert_int_equal(params_get(pv, "threads")->n, 4);
	assert_string_equal(params_str(pv, "colour"), "red");
	assert_int_equal(params_get(pv, "set")->n, 3);
	assert_int_equal(params_get(pv, "cpus")->n, 0);
	free(pv);
}

static void expect_error(const char *arg, const char *field, const char *needle)
{
	struct param_values *pv = calloc(1, sizeof(*pv));
	struct errinfo err;
	char *argv[] = {(char *)arg};
	assert_int_equal(parse(1, argv, pv, &err), -22);
	assert_string_equal(err.field, field);
	if (!strstr(err.msg, needle))
		fail_msg("message '%s' lacks '%s'", err.msg, needle);
	free(pv);
}

static void test_errors(void **state)
{
	(void)state;
	expect_error("strid=4", "strid", "unknown parameter 'strid'");
	expect_error("n=0", "n", "allowed 1-100");
	expect_error("n=101", "n", "out of range");
	expect_error("n=-3", "n", "not a whole number");
	expect_error("n=2.5", "n", "not a whole number");
	expect_error("n=", "n", "not a whole number");
	expect_error("n=99999999999999999999", "n", "out of range");
	expect_error("size=1e400", "size", "not a size");
	expect_error("size=12Q", "size", "not a size");
	expect_error("size=1K", "size", "allowed 4K-4G");
	expect_error("threads=4-1", "threads", "reversed range");
	expect_error("threads=1,1", "threads", "listed twice");
	expect_error("threads=0", "threads", "out of range");
	expect_error("colour=pink", "colour", "allowed: red, green, blue");
	expect_error("set=red,red", "set", "listed twice");
	expect_error("set=", "set", "at least one");
	expect_error("cpus=2-1", "cpus", "reversed range");
	expect_error("cpus=a", "cpus", "not a list of integers");
}

static void test_lists(void **state)
{
	struct param_values *pv = calloc(1, sizeof(*pv));
	struct errinfo err;
	char *argv[] = {"threads=8,1-3,16-20:2", "set=blue,red", "size=2M",
			"cpus=3,0-1"};
	(void)state;
	assert_int_equal(parse(4, argv, pv, &err), 0);
	const struct param_value *t = params_get(pv, "threads");
	assert_int_equal(t->n, 7);
	assert_int_equal(t->list[0], 1);
	assert_int_equal(t->list[3], 8);
	assert_int_equal(t->list[6], 20);
	assert_string_equal(t->text, "1-3,8,16,18,20");
	/* sets keep the table's order */
	assert_string_equal(params_str(pv, "set"), "red,blue");
	assert_true(params_has(pv, "set", "blue"));
	assert_false(params_has(pv, "set", "green"));
	assert_int_equal(params_int(pv, "size"), 2 << 20);
	/* a cpu list as written: thread i takes its i-th cpu */
	assert_string_equal(params_str(pv, "cpus"), "3,0-1");
	free(pv);
}

static void test_twice(void **state)
{
	struct param_values *pv = calloc(1, sizeof(*pv));
	struct errinfo err;
	char *argv[] = {"n=2", "n=3"};
	(void)state;
	assert_int_equal(parse(2, argv, pv, &err), -22);
	assert_non_null(strstr(err.msg, "given twice"));
	free(pv);
}

/* Every row's value lands in the field its offset names, typed. */
static void test_typed(void **state)
{
	struct param_values *pv = calloc(1, sizeof(*pv));
	struct test_params *tp = calloc(1, sizeof(*tp));
	struct errinfo err;
	char *argv[] = {"n=7",	       "size=1M",	 "threads=2,8",
			"colour=blue", "set=green,blue", "cpus=3,1"};
	(void)state;
	assert_int_equal(parse(6, argv, pv, &err), 0);
	for (int i = 0; i < pv->n; i++)
		param_store(&pv->v[i], tp);
	assert_int_equal(tp->n, 7);
	assert_int_equal(tp->size, 1 << 20);
	assert_int_equal(tp->threads.n, 2);
	assert_int_equal(tp->threads.v[0], 2);
	assert_int_equal(tp->threads.v[1], 8);
	assert_int_equal(tp->colour, BLUE);
	assert_int_equal(tp->set, (1u << GREEN) | (1u << BLUE));
	assert_int_equal(tp->cpus.n, 2);
	assert_int_equal(tp->cpus.v[0], 3);
	assert_int_equal(tp->cpus.v[1], 1);
	assert_string_equal(params_str(pv, "set"), "green,blue");
	free(tp);
	free(pv);
}

/* One value of row p: 0 with its text in v, or the refusal in err. */
static int parse_one(const struct param *p, const char *text,
		     struct param_value *v, struct errinfo *err)
{
	memset(err, 0, sizeof(*err));
	return param_parse_value(p, text, v, err);
}

/*
 * The longest list the parser takes (PARAM_MAX_LIST values, each of the
 * most digits a list row may allow, none a step from the next) is
 * recorded whole, and its text reads back as the same list; one value
 * more is refused naming the count, a longer text naming its length.
 */
static void test_longest_list_is_recorded(void **state)
{
	static const struct param sweep = {.name = "sizes",
					   .type = PARAM_SWEEP,
					   .min = 0,
					   .max = PARAM_LIST_VALUE_MAX};
	struct param_value *v = malloc(sizeof(*v)), *back = malloc(sizeof(*v));
	static char text[PARAM_VALUE_LEN + 16];
	struct errinfo err;
	int at = 0;

	(void)state;
	/* 99999, 99998, 99996, 99995...: steps of 1 and 2 by turns, so no
	 * run of 4 one step apart shortens it */
	for (int i = 0; i < PARAM_MAX_LIST; i++)
		at += snprintf(text + at, sizeof(text) - (size_t)at, "%s%d",
			       i ? "," : "", PARAM_LIST_VALUE_MAX - 3 * i / 2);
	assert_int_equal(at, PARAM_VALUE_LEN - 1);
	assert_int_equal(parse_one(&sweep, text, v, &err), 0);
	assert_int_equal(v->n, PARAM_MAX_LIST);
	assert_int_equal(strlen(v->text), PARAM_VALUE_LEN - 1);
	assert_int_equal(parse_one(&sweep, v->text, back, &err), 0);
	assert_string_equal(back->text, v->text);
	assert_int_equal(back->n, v->n);
	assert_memory_equal(back->list, v->list, sizeof(v->list));
	/* a step written as a step: the 1,024 values of 4-4096:4 */
	assert_int_equal(parse_one(&sweep, "4-4096:4", v, &err), 0);
	assert_int_equal(v->n, PARAM_MAX_LIST);
	assert_string_equal(v->text, "4-4096:4");
	/* one value more */
	assert_int_equal(parse_one(&sweep, "4-4100:4", v, &err), -EINVAL);
	assert_string_equal(err.field, "sizes");
	assert_string_equal(err.msg, "bad value '4-4100:4' for 'sizes': too "
				     "many values (at most 1024)");
	/* one character more */
	strcat(text, "0");
	assert_int_equal(parse_one(&sweep, text, v, &err), -EINVAL);
	assert_string_equal(err.field, "sizes");
	assert_string_equal(err.msg, "value of 'sizes' is too long (at most "
				     "6143 characters)");
	free(back);
	free(v);
}

static void test_registry_tables(void **state)
{
	struct topo *t = topo_load();
	(void)state;
	assert_non_null(t);
	/* every experiment's defaults validate on this machine */
	for (int i = 0; experiments[i]; i++) {
		struct param_values *pv = calloc(1, sizeof(*pv));
		struct errinfo err;
		int rc = experiment_parse(experiments[i], t, 0, NULL, pv, NULL,
					  NULL, &err);
		if (rc)
			fail_msg("%s: defaults rejected: %s",
				 experiments[i]->name, err.msg);
		free(pv);
	}
	topo_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_lists),
		cmocka_unit_test(test_twice),
		cmocka_unit_test(test_typed),
		cmocka_unit_test(test_longest_list_is_recorded),
		cmocka_unit_test(test_registry_tables),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
