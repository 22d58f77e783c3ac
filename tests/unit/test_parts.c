/* test_parts.c - the harness's share of an experiment of parts: only the selected parts run, say and count in the estimate, their progress names them, and each gets its share of the budget */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "adapt.h"
#include "clock.h"
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
	{"a", a_run, a_say, a_estimate, a_wanted, a_reads, 0},
	{"b", b_run, b_say, b_estimate, b_wanted, NULL, 0},
	{"c", c_run, c_say, NULL, NULL, NULL, 0},
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
	{"a", a_run, a_say, NULL, NULL, NULL, 0},
	{"b", b_run, b_say, NULL, NULL, NULL, 0},
	{"c", c_run, c_say, NULL, NULL, NULL, 0},
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

/*
 * The budget split: two parts of one step each, x then y, a point each;
 * a part's share is the seconds from its point's start to its deadline.
 */
static double share_x, share_y;
static double seconds_x, seconds_y; /* their estimates; 0: no hook's */

static double point_share(struct run_ctx *ctx, double done)
{
	struct adapt_point ap;
	double now;

	sink_progress(ctx->sink, done, 2, "a point");
	now = clock_now();
	adapt_run_point(ctx->adapt, 3, now, &ap);
	return ap.deadline - now;
}

static int x_run(struct run_ctx *ctx, const void *state)
{
	(void)state;
	share_x = point_share(ctx, 0);
	return 0;
}

static int y_run(struct run_ctx *ctx, const void *state)
{
	(void)state;
	share_y = point_share(ctx, 1);
	return 0;
}

static void x_estimate(const void *params, const struct common_params *common,
		       const struct topo *t, double *seconds, uint64_t *bytes)
{
	(void)params;
	(void)common;
	(void)t;
	estimate(seconds_x, 0, seconds, bytes);
}

static void y_estimate(const void *params, const struct common_params *common,
		       const struct topo *t, double *seconds, uint64_t *bytes)
{
	(void)params;
	(void)common;
	(void)t;
	estimate(seconds_y, 0, seconds, bytes);
}

static const struct part split_parts[] = {
	{"x", x_run, NULL, x_estimate, NULL, NULL, 1},
	{"y", y_run, NULL, y_estimate, NULL, NULL, 1},
	{0}};
static const struct part unsplit_parts[] = {
	{"x", x_run, NULL, x_estimate, NULL, NULL, 0},
	{"y", y_run, NULL, y_estimate, NULL, NULL, 0},
	{0}};

/* Runs exp's parts with a budget of 100 s; the shares land in share_*. */
static void run_split(const struct experiment *exp, double x, double y)
{
	static const struct sink_ops none = {0};
	struct sink quiet = {.ops = &none};
	struct fake_params p = {0};
	struct run_ctx ctx = {.exp = exp, .params = &p};
	struct adapt_run a;

	ctx.common.repeat = 3;
	adapt_run_init(&a, exp, &ctx.common, 100, &quiet);
	ctx.adapt = &a;
	ctx.sink = &a.sink;
	seconds_x = x;
	seconds_y = y;
	share_x = share_y = 0;
	assert_int_equal(experiment_run_parts(&ctx, NULL), 0);
	/* the split ends with the parts */
	assert_true(a.part_end == 0);
}

static void test_budget_split_by_estimate(void **state)
{
	static const struct experiment split = {.name = "split",
						.parts = split_parts};
	static const struct experiment unsplit = {.name = "unsplit",
						  .parts = unsplit_parts};

	(void)state;
	/* x is estimated 3 times y: x gets 75 s of the 100; y, the last,
	 * all that is left (x's point spent next to nothing) */
	run_split(&split, 3, 1);
	assert_true(share_x > 70 && share_x <= 75);
	assert_true(share_y > 95 && share_y <= 100);
	/* estimated a third of y: 25 s, the larger share going to y */
	run_split(&split, 1, 3);
	assert_true(share_x > 20 && share_x <= 25);
	/* a part without an estimate: equal shares */
	run_split(&split, 0, 3);
	assert_true(share_x > 45 && share_x <= 50);
	/* parts that do not give their steps: the run's steps share what is
	 * left, whatever the estimates (2 steps left: half of it) */
	run_split(&unsplit, 3, 1);
	assert_true(share_x > 45 && share_x <= 50);
	assert_true(share_y > 95 && share_y <= 100);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_runs_only_selected),
		cmocka_unit_test(test_progress_names_the_part),
		cmocka_unit_test(test_selected_by_param),
		cmocka_unit_test(test_describes_only_selected),
		cmocka_unit_test(test_estimate_sums_selected),
		cmocka_unit_test(test_budget_split_by_estimate),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
