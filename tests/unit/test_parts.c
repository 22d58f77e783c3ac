/* test_parts.c - the harness's share of an experiment of parts: only the selected parts run, say and count in the estimate, and their progress names them */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "experiment.h"
#include "rates.h"

/* The params of the fake experiment: a bit a part, as parts= sets them. */
struct fake_params {
	unsigned parts;
};

static char order[8]; /* the parts that ran or spoke, by letter */

static void mark(char c)
{
	size_t n = strlen(order);

	if (n + 1 < sizeof(order))
		order[n] = c;
}

static int wants(const void *params, unsigned bit)
{
	return (((const struct fake_params *)params)->parts & bit) != 0;
}

static int a_wanted(const void *params)
{
	return wants(params, 1);
}

static int b_wanted(const void *params)
{
	return wants(params, 2);
}

static int a_run(struct run_ctx *ctx, const void *state)
{
	(void)state;
	mark('a');
	sink_progress(ctx->sink, 0, 2, "a's step");
	return 0;
}

static int b_run(struct run_ctx *ctx, const void *state)
{
	(void)state;
	mark('b');
	sink_progress(ctx->sink, 1, 2, "b's step");
	return 0;
}

/* always selected (no wanted hook); fails, so nothing after it runs */
static int c_run(struct run_ctx *ctx, const void *state)
{
	(void)ctx;
	(void)state;
	mark('c');
	return -EIO;
}

static void say(const struct run_result *r, char c, char *head, size_t len)
{
	(void)r;
	mark(c);
	if (!head[0])
		snprintf(head, len, "%c first", c);
}

static void a_say(const struct run_result *r, struct verdict *v, char *head,
		  size_t len)
{
	(void)v;
	say(r, 'A', head, len);
}

static void b_say(const struct run_result *r, struct verdict *v, char *head,
		  size_t len)
{
	(void)v;
	say(r, 'B', head, len);
}

static void c_say(const struct run_result *r, struct verdict *v, char *head,
		  size_t len)
{
	(void)v;
	say(r, 'C', head, len);
}

static void estimate(double s, uint64_t b, double *seconds, uint64_t *bytes)
{
	*seconds = s;
	*bytes = b;
}

static void a_estimate(const void *params, const struct common_params *common,
		       const struct topo *t, double *seconds, uint64_t *bytes)
{
	(void)params;
	(void)common;
	(void)t;
	estimate(1.5, 100, seconds, bytes);
}

static void b_estimate(const void *params, const struct common_params *common,
		       const struct topo *t, double *seconds, uint64_t *bytes)
{
	(void)params;
	(void)common;
	(void)t;
	estimate(2.25, 20, seconds, bytes);
}

static const char *const a_reads[] = {"size", NULL};

static const struct part fake_parts[] = {
	{"a", a_run, a_say, a_estimate, a_wanted, a_reads},
	{"b", b_run, b_say, b_estimate, b_wanted, NULL},
	{"c", c_run, c_say, NULL, NULL, NULL},
	{0}};

static const struct experiment fake = {.name = "fake",
				       .params_size =
					       sizeof(struct fake_params),
				       .parts = fake_parts};

static void test_runs_only_selected(void **state)
{
	struct fake_params p = {.parts = 2};
	struct run_ctx ctx = {.exp = &fake, .params = &p};

	(void)state;
	memset(order, 0, sizeof(order));
	assert_int_equal(experiment_run_parts(&ctx, NULL), -EIO);
	assert_string_equal(order, "bc");
	p.parts = 3;
	memset(order, 0, sizeof(order));
	assert_int_equal(experiment_run_parts(&ctx, NULL), -EIO);
	assert_string_equal(order, "abc");
}

/* The progress events a run sent, "what@part" each, space-separated. */
static char heard[128];

static void hear_progress(void *ctx, double done, double total,
			  const char *what, const char *part)
{
	size_t n = strlen(heard);

	(void)ctx;
	(void)done;
	(void)total;
	snprintf(heard + n, sizeof(heard) - n, "%s%s@%s", n ? " " : "", what,
		 part ? part : "-");
}

static void test_progress_names_the_part(void **state)
{
	static const struct sink_ops ops = {.progress = hear_progress};
	struct sink s = {.ops = &ops};
	struct fake_params p = {.parts = 3};
	struct run_ctx ctx = {.exp = &fake, .params = &p, .sink = &s};

	(void)state;
	memset(order, 0, sizeof(order));
	heard[0] = '\0';
	assert_int_equal(experiment_run_parts(&ctx, NULL), -EIO);
	assert_string_equal(heard, "a's step@a b's step@b");
	/* outside the parts (the experiment's own run()), no part */
	heard[0] = '\0';
	sink_progress(&s, 2, 2, "done");
	assert_string_equal(heard, "done@-");
}

/* The same parts selected by a set param named as them (parts_param). */
static const struct param_choice part_names[] = {
	{"a", 0}, {"b", 1}, {"c", 2}, {0}};
#define PARAM_STRUCT struct fake_params
static const struct param by_name_params[] = {
	PARAM_SET(parts, "all", part_names, "the parts"), {0}};
#undef PARAM_STRUCT
static const struct part by_name_parts[] = {
	{"a", a_run, a_say, NULL, NULL, NULL},
	{"b", b_run, b_say, NULL, NULL, NULL},
	{"c", c_run, c_say, NULL, NULL, NULL},
	{0}};
static const struct experiment by_name = {.name = "by_name",
					  .params = by_name_params,
					  .params_size =
						  sizeof(struct fake_params),
					  .parts = by_name_parts,
					  .parts_param = "parts"};

static void test_selected_by_param(void **state)
{
	struct fake_params p = {.parts = 1u << 1};
	struct run_ctx ctx = {.exp = &by_name, .params = &p};

	(void)state;
	memset(order, 0, sizeof(order));
	assert_int_equal(experiment_run_parts(&ctx, NULL), 0);
	assert_string_equal(order, "b");
	p.parts = 1u << 0 | 1u << 2;
	memset(order, 0, sizeof(order));
	assert_int_equal(experiment_run_parts(&ctx, NULL), -EIO);
	assert_string_equal(order, "ac");
}

static void test_describes_only_selected(void **state)
{
	struct fake_params p = {.parts = 2};
	struct run_result r = {0};
	char head[32] = "";

	(void)state;
	r.exp = &fake;
	r.params = &p;
	memset(order, 0, sizeof(order));
	experiment_describe_parts(&r, NULL, head, sizeof(head));
	assert_string_equal(order, "BC");
	assert_string_equal(head, "B first");
}

static void test_estimate_sums_selected(void **state)
{
	struct fake_params p = {.parts = 1};
	struct common_params common = {.repeat = 1};
	double s;
	uint64_t b;

	(void)state;
	experiment_estimate_parts(&fake, &p, &common, NULL, &s, &b);
	assert_true(s == 1.5);
	assert_int_equal(b, 100);
	p.parts = 3;
	experiment_estimate_parts(&fake, &p, &common, NULL, &s, &b);
	assert_true(s == 3.75);
	assert_int_equal(b, 120);
	/* no estimate of its own: the harness sums the parts' (budget 0:
	 * no rounds grown, only the start of a run added) */
	assert_int_equal(experiment_estimate(&fake, &p, &common, NULL, &s, &b),
			 0);
	assert_true(s == 3.75 + rates_get()->start_s);
	assert_int_equal(b, 120);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_runs_only_selected),
		cmocka_unit_test(test_progress_names_the_part),
		cmocka_unit_test(test_selected_by_param),
		cmocka_unit_test(test_describes_only_selected),
		cmocka_unit_test(test_estimate_sums_selected),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
