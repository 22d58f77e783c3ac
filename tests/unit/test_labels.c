/* test_labels.c - every summary key and series a smoke run emits has words and a unit */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "experiment.h"
#include "lesson.h"
#include "registry.h"
#include "strbuf.h"
#include "strvec.h"
#include "topo_fixture.h"

static struct topo *topo;

/* What one smoke run said without words or unit, one line each. */
struct audit {
	const struct experiment *exp;
	struct strbuf missing;
};

static void said(struct audit *a, const char *what, const char *name)
{
	char line[256];

	snprintf(line, sizeof(line), "\n  %s: %s '%s'", a->exp->name, what,
		 name);
	if (!strstr(strbuf_str(&a->missing), line))
		strbuf_addstr(&a->missing, line);
}

/*
 * Whether label holds a word with '_' that is not a name a person types
 * (a C function or memory order: __atomic_fetch_add, move_pages,
 * seq_cst; a check a param names: after_touch).
 */
static int raw_part(const char *label)
{
	static const char *const names[] = {
		"__atomic_", "get_mempolicy", "move_pages", "migrate_pages",
		"seq_cst",   "after_touch",   "vma_wins",   NULL};
	char buf[256];
	char *save = NULL;

	snprintf(buf, sizeof(buf), "%s", label);
	for (char *w = strtok_r(buf, " ,:()", &save); w;
	     w = strtok_r(NULL, " ,:()", &save)) {
		int named = 0;
		if (!strchr(w, '_'))
			continue;
		for (int i = 0; names[i]; i++)
			named |= !strncmp(w, names[i], strlen(names[i]));
		if (!named)
			return 1;
	}
	return 0;
}

static void on_summary(void *ctx, const char *key, double value,
		       const char *unit)
{
	struct audit *a = ctx;
	const char *u = NULL;
	char label[256];

	(void)value;
	(void)unit;
	if (experiment_summary_label(a->exp, key, label, sizeof(label), &u))
		said(a, "no label for summary key", key);
	else if (!u || !u[0])
		said(a, "no unit for summary key", key);
	else if (!strcmp(label, key))
		said(a, "a label that is the raw key", key);
	else if (raw_part(label))
		/* "round trip, same_package": a part of the key left raw */
		said(a, "a label with a raw part of its key", label);
}

static void on_point(void *ctx, const struct point *p)
{
	struct audit *a = ctx;
	const char *u = NULL;
	char label[256];
	int row = !experiment_series_label(a->exp, p->series, label,
					   sizeof(label), &u);

	if (!label[0])
		said(a, "an empty label for series", p->series);
	/* a name with '_' and no space is an identifier, not words */
	if (!row && strchr(p->series, '_') && !strchr(p->series, ' '))
		said(a, "no label for series", p->series);
	if ((!u || !u[0]) && (!p->unit || !p->unit[0]))
		said(a, "no unit for series", p->series);
}

static const struct sink_ops audit_ops = {.point = on_point,
					  .summary = on_summary};

static void test_smoke_runs_labelled(void **state)
{
	struct strbuf all = STRBUF_INIT;
	(void)state;

	for (int i = 0; experiments[i]; i++) {
		const struct experiment *e = experiments[i];
		struct audit a = {.exp = e, .missing = STRBUF_INIT};
		struct sink sink = {.ops = &audit_ops, .ctx = &a};
		static volatile sig_atomic_t never;
		struct run_ctx ctx = {.exp = e,
				      .topo = topo,
				      .sink = &sink,
				      .cancel = &never};
		struct param_values *pv = calloc(1, sizeof(*pv));
		void *params = calloc(1, e->params_size ? e->params_size : 1);
		struct strvec argv = STRVEC_INIT;
		struct errinfo err;

		assert_non_null(pv);
		assert_non_null(params);
		assert_int_equal(params_text_argv(e->smoke, &argv), 0);
		if (experiment_parse(e, topo, (int)argv.n, argv.v, pv, params,
				     &ctx.common, &err)) {
			printf("  SKIP %s here: %s\n", e->name, err.msg);
		} else {
			ctx.params = params;
			int rc = experiment_run(&ctx, &err);
			if (rc && rc != -ECANCELED)
				fail_msg("%s: the smoke run failed: %s",
					 e->name,
					 err.msg[0] ? err.msg : strerror(-rc));
		}
		strbuf_addstr(&all, strbuf_str(&a.missing));
		strbuf_release(&a.missing);
		strvec_clear(&argv);
		free(params);
		free(pv);
	}
	if (all.len) {
		fprintf(stderr, "said without words or unit:%s\n",
			strbuf_str(&all));
		strbuf_release(&all);
		fail();
	}
	strbuf_release(&all);
}

/* Every declared pattern, taken as a key, has a row; so has the headline. */
static void test_patterns_labelled(void **state)
{
	char label[256];
	const char *u;
	(void)state;

	for (int i = 0; experiments[i]; i++) {
		const struct experiment *e = experiments[i];
		for (const char *const *k = e->summary_keys; k && *k; k++) {
			if (experiment_summary_label(e, *k, label,
						     sizeof(label), &u))
				fail_msg("%s: pattern '%s' has no label",
					 e->name, *k);
			assert_non_null(u);
			assert_true(u[0]);
		}
		if (e->headline_key)
			assert_int_equal(experiment_summary_label(
						 e, e->headline_key, label,
						 sizeof(label), &u),
					 0);
	}
}

static void test_captures(void **state)
{
	static const struct key_label t[] = {
		{"slowdown_*_threads_stride_*",
		 "slowdown with %s threads, stride %s B", "×"},
		{"slowdown_*_threads*", "slowdown with %s threads", "×"},
		{"*_*_peak_gbps", "%s, %s: peak", "GB/s"},
		{NULL, NULL, NULL}};
	char buf[128];
	const char *u = NULL;
	(void)state;

	assert_int_equal(label_lookup(t, "slowdown_2_threads_stride_64", buf,
				      sizeof(buf), &u),
			 0);
	assert_string_equal(buf, "slowdown with 2 threads, stride 64 B");
	assert_string_equal(u, "×");
	assert_int_equal(
		label_lookup(t, "slowdown_4_threads", buf, sizeof(buf), &u), 0);
	assert_string_equal(buf, "slowdown with 4 threads");
	/* each star takes the longest text, as a greedy "(.*)" */
	assert_int_equal(label_lookup(t, "write_nt_compact_peak_gbps", buf,
				      sizeof(buf), &u),
			 0);
	assert_string_equal(buf, "write_nt, compact: peak");
	assert_int_equal(label_lookup(t, "nothing", buf, sizeof(buf), &u),
			 -ENOENT);
	assert_string_equal(buf, "nothing");
	assert_null(u);
	/* a buffer too short is cut, not overrun */
	assert_int_equal(label_lookup(t, "slowdown_2_threads", buf, 9, &u), 0);
	assert_string_equal(buf, "slowdown");
	/* the harness's own keys are labelled for every experiment */
	assert_int_equal(experiment_summary_label(experiments[0], "rounds_kept",
						  buf, sizeof(buf), &u),
			 0);
	assert_string_equal(buf, "rounds kept");
	assert_string_equal(u, "rounds");
	/* a part that names a series is said as the series is */
	{
		static const struct key_label parts[] = {
			{"write_nt", "non-temporal writes", NULL},
			{NULL, NULL, NULL}};
		assert_int_equal(label_lookup_parts(
					 t, parts, "write_nt_compact_peak_gbps",
					 buf, sizeof(buf), &u),
				 0);
		assert_string_equal(buf, "non-temporal writes, compact: peak");
	}
	assert_int_equal(experiment_summary_label(
				 experiment_find("atomic_increment"),
				 "ns_per_increment_c11_relaxed_2_threads", buf,
				 sizeof(buf), &u),
			 0);
	assert_string_equal(
		buf, "C11 atomic, relaxed: time per increment, 2 threads");
}

static void test_bad_tables(void **state)
{
	static const struct key_label too_many[] = {{"a_*", "%s and %s", "x"},
						    {NULL, NULL, NULL}};
	static const struct key_label bad_conv[] = {{"a", "100%", "x"},
						    {NULL, NULL, NULL}};
	static const struct key_label no_unit[] = {{"a", "a thing", NULL},
						   {NULL, NULL, NULL}};
	static const struct key_label qmark[] = {{"a?", "a thing", "x"},
						 {NULL, NULL, NULL}};
	struct errinfo err;
	(void)state;

	assert_int_equal(label_table_check(too_many, 1, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "'a_*'"));
	assert_int_equal(label_table_check(bad_conv, 1, &err), -EINVAL);
	assert_int_equal(label_table_check(no_unit, 1, &err), -EINVAL);
	assert_int_equal(label_table_check(no_unit, 0, &err), 0);
	assert_int_equal(label_table_check(qmark, 1, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "'*' only"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_captures),
		cmocka_unit_test(test_bad_tables),
		cmocka_unit_test(test_patterns_labelled),
		cmocka_unit_test(test_smoke_runs_labelled),
	};
	int rc = 0;

	/* every test, smoke runs included, on each captured shape */
	for (int i = 0; smoke_shapes[i]; i++) {
		topo = smoke_shape(smoke_shapes[i]);
		if (!topo)
			continue;
		printf("shape %s\n", smoke_shapes[i]);
		rc |= cmocka_run_group_tests_name(smoke_shapes[i], tests, NULL,
						  NULL);
		topo_free(topo);
	}
	return rc;
}
