/* test_lessons.c - every classroom lesson parses, names what it answers, and is estimated under the server's limit */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <fnmatch.h>

#include "experiment.h"
#include "lesson.h"
#include "registry.h"
#include "topo_fixture.h"

/* numalab serve's default --max-run-seconds: a lesson must never be refused by
 * it */
#define SERVER_LIMIT_S 600.0

/* The machines a lesson must run on: 2 cores (the classroom's laptop), and
 * larger ones. */
static const char *const machines[] = {
	"pack:1 numa:1 l3:1 core:2 pu:1",
	"pack:2 numa:1 l3:1 core:2 pu:2",
	"pack:1 numa:4 l3:1 core:4 pu:1",
	NULL,
};

static void check_lesson(const struct experiment *e, const struct lesson *l,
			 const struct topo *t, const char *machine)
{
	struct strvec argv = STRVEC_INIT;
	struct param_values *pv = calloc(1, sizeof(*pv));
	void *params = calloc(1, e->params_size ? e->params_size : 1);
	struct common_params common;
	struct errinfo err;
	double seconds = 0;
	uint64_t bytes = 0;

	assert_non_null(pv);
	assert_non_null(params);
	assert_int_equal(lesson_argv(l, &argv), 0);
	if (experiment_parse(e, t, (int)argv.n, argv.v, pv, params, &common,
			     &err))
		fail_msg("%s lesson '%s' on %s: %s: %s", e->name, l->id,
			 machine, err.field, err.msg);
	if (e->estimate) {
		e->estimate(params, &common, t, &seconds, &bytes);
		if (seconds >= SERVER_LIMIT_S)
			fail_msg(
				"%s lesson '%s' on %s is estimated at %.0f s, over the server's %.0f s",
				e->name, l->id, machine, seconds,
				SERVER_LIMIT_S);
	}
	free(params);
	free(pv);
	strvec_clear(&argv);
}

static void test_every_lesson_runs_under_the_limit(void **state)
{
	(void)state;
	for (int m = 0; machines[m]; m++) {
		struct topo *t = synthetic(machines[m]);
		/* a synthetic machine reports no free memory: give each node 8
		 * GiB */
		for (int n = 0; n < t->nnodes; n++)
			t->node[n].mem_free = 8ull << 30;
		for (int i = 0; experiments[i]; i++)
			for (const struct lesson *l = experiments[i]->lessons;
			     l && l->id; l++)
				check_lesson(experiments[i], l, t, machines[m]);
		topo_free(t);
	}
}

static void test_every_lesson_is_complete(void **state)
{
	(void)state;
	for (int i = 0; experiments[i]; i++) {
		const struct experiment *e = experiments[i];
		int n = 0;
		for (const struct lesson *l = e->lessons; l && l->id;
		     l++, n++) {
			assert_non_null(l->title);
			assert_non_null(l->question);
			assert_non_null(l->params);
			assert_non_null(l->unit);
			if (!l->answer ||
			    !experiment_declares_summary(e, l->answer))
				fail_msg(
					"%s lesson '%s' answers with '%s', a summary key the experiment does not declare",
					e->name, l->id,
					l->answer ? l->answer : "(none)");
			if (!l->chart ||
			    !experiment_declares_chart(e, l->chart))
				fail_msg(
					"%s lesson '%s' points at chart '%s', which the experiment does not draw",
					e->name, l->id,
					l->chart ? l->chart : "(none)");
			for (const struct lesson *k = e->lessons; k < l; k++)
				if (!strcmp(k->id, l->id))
					fail_msg("%s has two lessons '%s'",
						 e->name, l->id);
		}
		if (n < 1 || n > 3)
			fail_msg(
				"%s has %d lessons; the classroom wants 1 to 3",
				e->name, n);
	}
}

/* Whether exp needs more than one node for anything it compares. */
static int needs_nodes(const struct experiment *e)
{
	for (const struct rule *r = e->rules; r && r->kind; r++)
		if (r->kind == RULE_NODES && r->floor > 1)
			return 1;
	return e->min_nodes > 1;
}

/* Whether l's answer is one of the comparisons its experiment states. */
static int answers_compared(const struct experiment *e, const struct lesson *l)
{
	for (int i = 0; e->compared && e->compared[i]; i++)
		if (!fnmatch(e->compared[i], l->answer, 0) ||
		    !fnmatch(l->answer, e->compared[i], 0))
			return 1;
	return 0;
}

/*
 * Every lesson passes its own rulebook before it runs: on a 2-cpu machine
 * shaped like this lab's VM (a last-level cache per cpu: plausible, and
 * the 508 MiB the VM reports) its precheck says "cannot" of nothing, when
 * its answer is a comparison, unless it needs two nodes or more cpus
 * (.min_cpus); on a 4-cpu, 2-node machine, nothing at all.
 */
static void test_every_lesson_passes_its_rules(void **state)
{
	static const char *const rooms[] = {
		"pack:1 numa:1 core:2 l3:1(size=33554432) pu:1",
		"pack:1 numa:1 core:2 l3:1(size=532676608) pu:1",
		"pack:2 numa:1 l3:1(size=33554432) core:2 pu:1",
		NULL,
	};
	(void)state;
	for (int m = 0; rooms[m]; m++) {
		struct topo *t = synthetic(rooms[m]);
		for (int n = 0; n < t->nnodes; n++)
			t->node[n].mem_free = t->node[n].mem_total = 8ull << 30;
		for (int i = 0; experiments[i]; i++) {
			const struct experiment *e = experiments[i];
			if (t->nnodes < 2 && needs_nodes(e))
				continue;
			for (const struct lesson *l = e->lessons; l && l->id;
			     l++) {
				if (l->min_cpus > t->nallowed)
					continue;
				struct strvec argv = STRVEC_INIT;
				struct param_values *pv =
					calloc(1, sizeof(*pv));
				void *params = calloc(
					1, e->params_size ? e->params_size : 1);
				struct common_params common;
				struct verdict *v = calloc(1, sizeof(*v));
				struct errinfo err;

				assert_non_null(pv);
				assert_non_null(params);
				assert_non_null(v);
				assert_int_equal(lesson_argv(l, &argv), 0);
				if (experiment_parse(e, t, (int)argv.n, argv.v,
						     pv, params, &common, &err))
					fail_msg("%s lesson '%s' on %s: %s",
						 e->name, l->id, rooms[m],
						 err.msg);
				experiment_precheck(e, params, &common, t, v);
				for (int k = 0;
				     k < v->nnotes && answers_compared(e, l);
				     k++)
					if (!strcmp(v->notes[k].level,
						    "cannot"))
						fail_msg(
							"%s lesson '%s' on %s fails its own rules: %s",
							e->name, l->id,
							rooms[m],
							v->notes[k].text);
				free(v);
				free(params);
				free(pv);
				strvec_clear(&argv);
			}
		}
		topo_free(t);
	}
}

static void test_params_split_at_spaces(void **state)
{
	const struct lesson l = {.id = "x", .params = " a=1  b=2,3 c=4 "};
	struct strvec argv = STRVEC_INIT;

	(void)state;
	assert_int_equal(lesson_argv(&l, &argv), 0);
	assert_int_equal(argv.n, 3);
	assert_string_equal(argv.v[0], "a=1");
	assert_string_equal(argv.v[1], "b=2,3");
	assert_string_equal(argv.v[2], "c=4");
	strvec_clear(&argv);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_params_split_at_spaces),
		cmocka_unit_test(test_every_lesson_is_complete),
		cmocka_unit_test(test_every_lesson_runs_under_the_limit),
		cmocka_unit_test(test_every_lesson_passes_its_rules),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
