/* test_rates.c - the rates cache: a round trip, a changed machine or a bad rate measured again, a cache not saved said, and estimates that follow the rates */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "estimate_history.h"
#include "estimate_now.h"
#include "experiment.h"
#include "params.h"
#include "rates.h"
#include "registry.h"
#include "topo.h"
#include "topo_fixture.h"
#include "workcost.h"

static void temp_path(char *buf, size_t len)
{
	snprintf(buf, len, "/tmp/numalab-test-rates-%d", (int)getpid());
}

static void test_save_load_round_trip(void **state)
{
	struct rates r, back;
	char path[128];
	(void)state;

	temp_path(path, sizeof(path));
	rates_default(&r);
	r.inc_ns = 0.75;
	r.bounce_ns = 42.5;
	r.read_gbs = 12.25;
	r.rtt_ns = 180;
	r.start_s = 0.0625;
	assert_int_equal(rates_save(path, "cpu A|2|6.1|v1", &r), 0);
	assert_int_equal(rates_load(path, "cpu A|2|6.1|v1", &back), 0);
	assert_int_equal(back.measured, 1);
	assert_string_equal(back.source, "cached");
	assert_float_equal(back.inc_ns, 0.75, 1e-9);
	assert_float_equal(back.bounce_ns, 42.5, 1e-9);
	assert_float_equal(back.read_gbs, 12.25, 1e-9);
	assert_float_equal(back.rtt_ns, 180, 1e-9);
	assert_float_equal(back.start_s, 0.0625, 1e-9);
	assert_float_equal(back.team_s, r.team_s, 1e-12);
	/* another machine (here: more cpus) does not take these rates */
	assert_int_equal(rates_load(path, "cpu A|4|6.1|v1", &back), -ESTALE);
	assert_int_equal(back.measured, 0);
	unlink(path);
}

/* A rate calibrate could not measure stays the guess, and is named so:
 * never "calibrated" for a rate nothing timed. */
static void test_guessed_rates_named(void **state)
{
	struct rates r;
	char names[512], said[96];
	(void)state;

	rates_default(&r);
	assert_int_equal(rates_guessed(&r, NULL, 0), 11);
	rates_set(&r);
	rates_said(said, sizeof(said));
	assert_string_equal(said, "built-in guesses, no rates measured here");
	r.measured = 1;
	r.inc_ns = 0.3;
	r.atomic_ns = 6;
	r.read_gbs = 40;
	r.write_gbs = 35;
	r.touch_page_ns = 12000;
	r.start_s = 0.01;
	r.spawn_ns = 30000;
	assert_int_equal(rates_guessed(&r, names, sizeof(names)), 4);
	assert_string_equal(names, "increment of a shared line, atomic add of "
				   "a shared line, team, round trip");
	rates_set(&r);
	rates_said(said, sizeof(said));
	assert_string_equal(said, "the rates measured here, 4 built-in");
	r.standin = 1;
	rates_set(&r);
	rates_said(said, sizeof(said));
	assert_string_equal(
		said, "this machine's rates, not the topology's, 4 built-in");
}

static void test_changed_fingerprint_recalibrates(void **state)
{
	struct topo *t = topo_load();
	struct rates r, stale;
	char path[128], fp[512];
	(void)state;

	assert_non_null(t);
	temp_path(path, sizeof(path));
	/* a cache made on some other machine, with rates no machine has */
	rates_default(&stale);
	stale.inc_ns = 12345;
	assert_int_equal(rates_save(path, "another machine|1|0|0", &stale), 0);
	assert_int_equal(rates_init(t, path, NULL, 0), 0);
	assert_string_equal(rates_get()->source, "calibrated");
	assert_true(rates_get()->inc_ns < 12345);
	/* the file now holds this machine's rates, and the next start takes
	 * them */
	rates_fingerprint(t, fp, sizeof(fp));
	assert_int_equal(rates_load(path, fp, &r), 0);
	assert_float_equal(r.inc_ns, rates_get()->inc_ns,
			   rates_get()->inc_ns * 1e-5);
	assert_int_equal(rates_init(t, path, NULL, 0), 0);
	assert_string_equal(rates_get()->source, "cached");
	unlink(path);
	topo_free(t);
}

/* The cache at path with one line replaced: key's value is now v. */
static void rewrite_rate(const char *path, const char *key, const char *v)
{
	char text[4096] = "", line[512];
	size_t n = strlen(key), at = 0;
	FILE *f = fopen(path, "r");

	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		at += (size_t)snprintf(
			text + at, sizeof(text) - at, "%s",
			strncmp(line, key, n) || line[n] != '=' ? line : "");
	fclose(f);
	snprintf(text + at, sizeof(text) - at, "%s=%s\n", key, v);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* A rate that is no positive finite number makes the cache bad, never
 * used: inc_ns=inf once gave an estimate of "about inf s" and a --json
 * estimate of an empty line. */
static void test_bad_rate_is_a_bad_cache(void **state)
{
	static const char *const bad[] = {"inf",   "-inf", "nan", "0", "-1",
					  "1e999", "abc",  "",	  "2x"};
	struct rates r, back;
	char path[128];
	(void)state;

	temp_path(path, sizeof(path));
	rates_default(&r);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(rates_save(path, "cpu A|2|6.1|v1", &r), 0);
		rewrite_rate(path, "inc_ns", bad[i]);
		if (rates_load(path, "cpu A|2|6.1|v1", &back) != -EINVAL)
			fail_msg("inc_ns=%s was taken", bad[i]);
		assert_int_equal(back.measured, 0);
		assert_true(isfinite(back.inc_ns) && back.inc_ns > 0);
		/* another machine's file is stale whatever it holds */
		assert_int_equal(rates_load(path, "cpu B|2|6.1|v1", &back),
				 -ESTALE);
	}
	/* a good one read back as written */
	assert_int_equal(rates_save(path, "cpu A|2|6.1|v1", &r), 0);
	rewrite_rate(path, "inc_ns", "0.5");
	assert_int_equal(rates_load(path, "cpu A|2|6.1|v1", &back), 0);
	assert_float_equal(back.inc_ns, 0.5, 0);
	unlink(path);
}

/* rates_init measures again over a bad cache, and says so; and says when
 * it could not save what it measured */
static void test_init_says_what_went_wrong(void **state)
{
	struct topo *t = topo_load();
	struct rates r;
	char path[128], fp[512], note[512], file[128], under[160];
	(void)state;

	assert_non_null(t);
	temp_path(path, sizeof(path));
	rates_fingerprint(t, fp, sizeof(fp));
	rates_default(&r);
	assert_int_equal(rates_save(path, fp, &r), 0);
	rewrite_rate(path, "inc_ns", "inf");
	assert_int_equal(rates_init(t, path, note, sizeof(note)), 0);
	assert_string_equal(rates_get()->source, "calibrated");
	assert_true(isfinite(rates_get()->inc_ns));
	if (!strstr(note, "not a positive finite number: ignored, measured "
			  "again") ||
	    !strstr(note, path))
		fail_msg("note: '%s'", note);
	/* saved over: the next start takes it, and says nothing */
	assert_int_equal(rates_load(path, fp, &r), 0);
	assert_int_equal(rates_init(t, path, note, sizeof(note)), 0);
	assert_string_equal(note, "");
	unlink(path);

	/* a cache folder that is a file */
	snprintf(file, sizeof(file), "%s.file", path);
	snprintf(under, sizeof(under), "%s/numalab/rates", file);
	fclose(fopen(file, "w"));
	assert_int_equal(rates_init(t, under, note, sizeof(note)), -ENOTDIR);
	assert_string_equal(rates_get()->source, "calibrated");
	if (!strstr(note, "not saved in ") || !strstr(note, under) ||
	    !strstr(note, strerror(ENOTDIR)))
		fail_msg("note: '%s'", note);
	unlink(file);
	topo_free(t);
}

/* An estimate scales with the rates it is given: no constants hide in it. */
static void test_estimates_follow_rates(void **state)
{
	struct topo *t = topo_load();
	struct rates r;
	(void)state;

	assert_non_null(t);
	for (int i = 0; experiments[i]; i++) {
		const struct experiment *e = experiments[i];
		struct param_values *pv = calloc(1, sizeof(*pv));
		void *params = calloc(1, e->params_size ? e->params_size : 1);
		struct common_params common;
		struct errinfo err;
		double fast, slow;
		uint64_t bytes;

		assert_non_null(pv);
		assert_non_null(params);
		if (!e->estimate || experiment_parse(e, t, 0, NULL, pv, params,
						     &common, &err)) {
			free(params);
			free(pv);
			continue;
		}
		rates_default(&r);
		rates_set(&r);
		assert_int_equal(experiment_estimate(e, params, &common, t,
						     &fast, &bytes),
				 0);
		r.inc_ns *= 10;
		r.bounce_ns *= 10;
		r.atomic_ns *= 10;
		r.atomic_shared_ns *= 10;
		r.read_gbs /= 10;
		r.write_gbs /= 10;
		r.touch_page_ns *= 10;
		r.team_s *= 10;
		r.rtt_ns *= 10;
		r.start_s *= 10;
		r.spawn_ns *= 10;
		rates_set(&r);
		assert_int_equal(experiment_estimate(e, params, &common, t,
						     &slow, &bytes),
				 0);
		/* every part of the work got 10 times dearer, so the whole did
		 */
		if (slow < 9.9 * fast || slow > 10.1 * fast)
			fail_msg(
				"%s: %g s at the built-in rates, %g s at a tenth of them",
				e->name, fast, slow);
		free(params);
		free(pv);
	}
	topo_free(t);
}

/* Parses experiment name's defaults into *params (calloc'ed, freed by
 * the caller) and common. */
static void *defaults_of(const char *name, const struct topo *t,
			 struct common_params *common)
{
	const struct experiment *e = experiment_find(name);
	struct param_values *pv = calloc(1, sizeof(*pv));
	void *params = calloc(1, e->params_size);
	struct errinfo err;

	assert_non_null(pv);
	assert_non_null(params);
	assert_int_equal(
		experiment_parse(e, t, 0, NULL, pv, params, common, &err), 0);
	free(pv);
	return params;
}

/* An experiment that takes exactly its rounds (core_to_core, whose
 * .unread lists budget) is estimated at them, with no growth into an
 * automatic budget it never uses; one that adapts (false_sharing) is
 * estimated above its least rounds. */
static void test_estimate_grows_only_where_rounds_adapt(void **state)
{
	static const char *const names[] = {"core_to_core", "false_sharing"};
	struct topo *t = topo_load();
	struct rates r;

	(void)state;
	assert_non_null(t);
	rates_default(&r);
	rates_set(&r);
	for (int i = 0; i < 2; i++) {
		const struct experiment *e = experiment_find(names[i]);
		struct common_params common, exact;
		void *params = defaults_of(names[i], t, &common);
		double auto_s, exact_s;
		uint64_t bytes;

		exact = common;
		exact.budget = 0;
		assert_int_equal(experiment_estimate(e, params, &common, t,
						     &auto_s, &bytes),
				 0);
		assert_int_equal(experiment_estimate(e, params, &exact, t,
						     &exact_s, &bytes),
				 0);
		if (experiment_never_reads(e, "budget")
			    ? auto_s != exact_s
			    : auto_s <= exact_s * 1.01)
			fail_msg(
				"%s: %g s with the automatic budget, %g s with none",
				names[i], auto_s, exact_s);
		free(params);
	}
	topo_free(t);
}

/* The estimate for the machine as it is now: never under the quiet one,
 * and it says what it was made of, quiet or busy (an experiment whose
 * threads share no line: such a line's cost is measured now, below). */
static void test_estimate_now_says_its_basis(void **state)
{
	const struct experiment *e = experiment_find("bandwidth_scaling");
	struct topo *t = topo_load();
	struct common_params common;
	struct cpu_room room;
	struct rates r;
	double quiet, now;
	uint64_t bytes;
	char basis[256];
	void *params;

	(void)state;
	assert_non_null(t);
	params = defaults_of("bandwidth_scaling", t, &common);
	rates_default(&r);
	rates_set(&r);
	/* the minute's probes go nowhere but this process: a folder that is
	 * not there, not the user's cache */
	setenv("XDG_CACHE_HOME", "/nonexistent/numalab-test-rates", 1);
	cpu_room_now(0, &room);
	assert_true(room.cpus >= 1);
	assert_true(room.share > 0);
	assert_true(room.slowdown >= 1);
	assert_int_equal(
		experiment_estimate(e, params, &common, t, &quiet, &bytes), 0);
	assert_int_equal(experiment_estimate_now(e, params, &common, t, &now,
						 &bytes, basis, sizeof(basis)),
			 0);
	assert_true(now >= quiet * 0.999);
	/* it names what it used: the rates (here the built-in guesses, never
	 * called measured), the probe's share and the load average */
	unsetenv("XDG_CACHE_HOME");
	if (strncmp(basis, "built-in guesses, no rates measured here (", 42) ||
	    !strstr(basis, "a thread of the run would get") ||
	    !strstr(basis, "(spinning: ") || !strstr(basis, "load average") ||
	    strstr(basis, "shared line"))
		fail_msg("basis: '%s'", basis);
	assert_true(room.probe > 0);
	assert_true(room.seen >= 0);
	free(params);
	topo_free(t);
}

/*
 * What a line two threads fight for costs moves on a VM (5x within ten
 * minutes on an idle guest): the estimate measures it now (a few ms)
 * where the machine is quiet, and where it is dearer than the rates' it
 * estimates with it, and says so. Rates that make every step of
 * false_sharing a femtosecond (the truth is nanoseconds, under a
 * sanitizer too) give it an estimate of next to nothing; the shared line
 * measured now gives it one of a millisecond at least. A server, which
 * measures nothing beside the runs it serves, keeps the rates'.
 */
static void test_estimate_now_measures_a_shared_line(void **state)
{
	const struct experiment *e = experiment_find("false_sharing");
	struct topo *t = topo_load();
	struct common_params common;
	void *params;
	struct rates r;
	double quiet, now;
	uint64_t bytes;
	char basis[256];

	(void)state;
	assert_non_null(t);
	params = defaults_of("false_sharing", t, &common);
	rates_default(&r);
	r.inc_ns = r.bounce_ns = r.atomic_ns = r.atomic_shared_ns = 1e-6;
	r.team_s = r.start_s = 1e-15;
	r.spawn_ns = 1e-6;
	rates_set(&r);
	setenv("XDG_CACHE_HOME", "/nonexistent/numalab-test-rates", 1);
	assert_int_equal(
		experiment_estimate(e, params, &common, t, &quiet, &bytes), 0);
	assert_int_equal(experiment_estimate_now(e, params, &common, t, &now,
						 &bytes, basis, sizeof(basis)),
			 0);
	/* the line is measured on a quiet machine only (estimate_now.c):
	 * beside other work, its two threads seldom run together. Then the
	 * basis says the machine is busy, and the estimate is no quieter */
	int busy = strstr(basis, "busy now") || strstr(basis, " ms, ");
	if (t->nallowed >= 2 && busy) {
		if (now < quiet * 0.999 || strstr(basis, "shared line"))
			fail_msg("busy: %g s against %g: '%s'", now, quiet,
				 basis);
	} else if (t->nallowed >= 2) {
		if (now < 100 * quiet || now < 1e-3 ||
		    !strstr(basis, "; a shared line "))
			fail_msg("%g s against %g at a bounce of 1 fs: '%s'",
				 now, quiet, basis);
	} else if (now < quiet * 0.999 || strstr(basis, "shared line")) {
		fail_msg("one cpu: %g s against %g: '%s'", now, quiet, basis);
	}
	/* the rates are left as they were */
	assert_float_equal(rates_get()->bounce_ns, 1e-6, 0);
	cpu_room_passive(1);
	assert_int_equal(experiment_estimate_now(e, params, &common, t, &now,
						 &bytes, basis, sizeof(basis)),
			 0);
	cpu_room_passive(0);
	unsetenv("XDG_CACHE_HOME");
	if (now < quiet * 0.999 || strstr(basis, "shared line"))
		fail_msg("passive: %g s against %g: '%s'", now, quiet, basis);
	free(params);
	topo_free(t);
}

/* The busy model on canned figures: the quiet estimate at a slowdown of
 * 1, each part slowed as it says, rounds past the budget not grown. */
static void test_estimate_busy_parts(void **state)
{
	(void)state;
	/* quiet: the rounds grown to the middle of least and 3x */
	assert_float_equal(estimate_busy_s(0.02, 0.1, 1, 3, 1, 1, 1),
			   0.12 + sqrt(3), 1e-9);
	/* 4x slower: start 4x, work done once 2x, rounds 4x (past 3x: not
	 * grown) */
	assert_float_equal(estimate_busy_s(0.02, 0.1, 1, 3, 4, 4, 1),
			   0.08 + 0.2 + 4, 1e-9);
	/* 2x slower: the rounds grown to the middle of 2x and 3x */
	assert_float_equal(estimate_busy_s(0, 0, 1, 3, 2, 2, 1), sqrt(6), 1e-9);
	/* lockstep: the rounds 16x where one thread is 4x */
	assert_float_equal(estimate_busy_s(0, 0, 1, 3, 4, 16, 1), 16, 1e-9);
	/* no budget (budget=0): exactly the slowed rounds */
	assert_float_equal(estimate_busy_s(0, 0, 2, 0, 1.5, 1.5, 1), 3, 1e-9);
	/* a worker's start now 3x the rates': the start and the work done
	 * once 3x, where the probe said 1x and 1.5x; the rounds as the
	 * probe says */
	assert_float_equal(estimate_busy_s(0.02, 0.1, 1, 0, 1, 1, 3),
			   0.06 + 0.3 + 1, 1e-9);
	assert_float_equal(estimate_busy_s(0.02, 0.1, 1, 0, 4, 4, 1.5),
			   0.08 + 0.2 + 4, 1e-9);
	/* a lockstep run's round trips 5x shorter now than the rates': its
	 * rounds 5x shorter, grown as a quiet run's (sqrt(3)), not into
	 * the whole budget the rates set */
	assert_float_equal(estimate_busy_s(0, 0, 1, 3, 1, 0.2, 1),
			   0.2 * sqrt(3), 1e-9);
}

/* The minute's probes: the mean of those of as many threads within the
 * window, none from the future. */
static void test_room_mean(void **state)
{
	struct room_seen v[] = {{.at = 100, .want = 2, .share = 0.2},
				{.at = 130, .want = 2, .share = 0.6},
				{.at = 150, .want = 1, .share = 0.9},
				{.at = 170, .want = 2, .share = 0.4},
				{.at = 175, .want = 2, .share = 1.0}};
	int used;

	(void)state;
	/* at 170: 100 is past the window, 175 not yet, want 1 another's */
	assert_float_equal(room_mean(v, 5, 170, 2, &used), 0.5, 1e-9);
	assert_int_equal(used, 2);
	assert_float_equal(room_mean(v, 5, 170, 1, &used), 0.9, 1e-9);
	assert_true(room_mean(v, 5, 170, 4, &used) < 0);
	assert_int_equal(used, 0);
}

/* The history is kept in its file between processes: what another wrote
 * counts, what is past the window is dropped from it. */
static void test_room_history_file(void **state)
{
	char path[256];
	FILE *f;
	int used, lines = 0;
	double at, share, mean;
	int want;

	(void)state;
	snprintf(path, sizeof(path), "/tmp/numalab-test-room-%d",
		 (int)getpid());
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "1000.0 2 0.9\n1950.0 2 0.3\n1990.0 2 0.5\n");
	fclose(f);
	/* the mean of those before it in the window */
	mean = room_history(path, 2000, 2, 0.1, &used);
	assert_int_equal(used, 2);
	assert_float_equal(mean, (0.3 + 0.5) / 2, 1e-9);
	f = fopen(path, "r");
	assert_non_null(f);
	while (fscanf(f, "%lf %d %lf", &at, &want, &share) == 3) {
		assert_true(at >= 2000 - ROOM_WINDOW_S);
		lines++;
	}
	fclose(f);
	assert_int_equal(lines, 3);
	unlink(path);
}

/* The hook's seconds for memory_policy_semantics with argv on t. */
static double policy_steps_s(struct topo *t, int argc, char **argv)
{
	const struct experiment *e = experiment_find("memory_policy_semantics");
	struct param_values *pv = calloc(1, sizeof(*pv));
	void *params = calloc(1, e->params_size);
	struct common_params common;
	struct errinfo err;
	double s = 0;
	uint64_t bytes;

	assert_non_null(pv);
	assert_non_null(params);
	assert_int_equal(
		experiment_parse(e, t, argc, argv, pv, params, &common, &err),
		0);
	e->estimate(params, &common, t, &s, &bytes);
	free(params);
	free(pv);
	return s;
}

/*
 * memory_policy_semantics counts more than its first touches: every
 * buffer freed again, the pages counted after each step, and on one node
 * too the rounds of migrate_pages, each asking its child where the pages
 * are before and after its move (its default run took 30 ms past its
 * start where the touches alone made 14).
 */
static void test_estimate_counts_policy_steps(void **state)
{
	struct topo *t = synthetic("pack:1 numa:1 l3:1 core:2 pu:1");
	char *one[] = {"size=4M", "repeat=1"},
	     *many[] = {"size=4M", "repeat=21"};
	double size = 4 << 20, once, more;
	struct rates r;

	(void)state;
	rates_default(&r);
	rates_set(&r);
	once = policy_steps_s(t, 2, one);
	more = policy_steps_s(t, 2, many);
	/* eight buffers of size touched and freed, and counted at least once */
	assert_true(once >= cost_teams_s(3) + 8 * cost_touch_s(t, size, 1) +
				    8 * cost_free_s(size) +
				    8 * cost_census_s(size));
	/* twenty more rounds: the child asked twice a round, each answer
	 * a census of both nodes, though no page moves on one node */
	assert_true(more - once >= 20 * 4 * cost_census_s(size) * 0.999);
	topo_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_save_load_round_trip),
		cmocka_unit_test(test_guessed_rates_named),
		cmocka_unit_test(test_changed_fingerprint_recalibrates),
		cmocka_unit_test(test_bad_rate_is_a_bad_cache),
		cmocka_unit_test(test_init_says_what_went_wrong),
		cmocka_unit_test(test_estimates_follow_rates),
		cmocka_unit_test(test_estimate_now_says_its_basis),
		cmocka_unit_test(test_estimate_grows_only_where_rounds_adapt),
		cmocka_unit_test(test_estimate_now_measures_a_shared_line),
		cmocka_unit_test(test_estimate_busy_parts),
		cmocka_unit_test(test_room_mean),
		cmocka_unit_test(test_room_history_file),
		cmocka_unit_test(test_estimate_counts_policy_steps),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
