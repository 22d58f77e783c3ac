/* tls_access.c - variable_layout's tls_access part: one call, one increment, of a global, of __thread in the program, of __thread in a dlopen'ed object (dso/tls_module.c) */
#include <errno.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "team.h"
#include "team_points.h"
#include "workcost.h"

#include "vl.h"

static const char *const access_names[ACC_N] = {
	"global variable", "__thread in the program",
	"__thread in a dlopen'ed object"};

static unsigned long vl_plain;
static __thread unsigned long vl_tls_counter;

__attribute__((noinline)) static void bump_global(void)
{
	vl_plain++;
}

__attribute__((noinline)) static void bump_tls(void)
{
	vl_tls_counter++;
}

static long get_global(void)
{
	return (long)vl_plain;
}

static long get_tls(void)
{
	return (long)vl_tls_counter;
}

#define VL_ACC_MARK 8192

struct acc_job {
	void (*volatile bump)(void);
	long (*get)(void);
	uint64_t ops;
	atomic_int bad;
};

static void acc_body(void *arg, int tid, int round)
{
	struct acc_job *j = arg;
	long before = j->get();

	(void)tid;
	(void)round;
	/* marked every VL_ACC_MARK calls (20-120 us): a round is timed over
	 * the stretches its thread was on its cpu */
	for (uint64_t k = 0; k < j->ops; k += VL_ACC_MARK) {
		uint64_t end =
			j->ops - k < VL_ACC_MARK ? j->ops : k + VL_ACC_MARK;
		for (uint64_t i = k; i < end; i++)
			j->bump();
		team_mark((double)end);
	}
	if (j->get() - before != (long)j->ops)
		atomic_store(&j->bad, 1);
}

static int acc_check(void *arg)
{
	struct acc_job *j = arg;

	return atomic_load(&j->bad) ? -EIO : 0;
}

/* Measures the access a with the first thread's cpu. */
static int run_access(struct run_ctx *ctx, const struct vl_state *st,
		      enum vl_access a, double *t)
{
	const struct vl_params *vp = ctx->params;
	struct acc_job j = {.ops = (uint64_t)vp->ops};
	struct team_job job = {.nthreads = 1,
			       .cpus = st->cpus,
			       .arg = &j,
			       .body = acc_body,
			       .check = acc_check,
			       .work = (double)vp->ops};
	struct team_result res;
	char label[80];
	int rc;

	if (a == ACC_GLOBAL) {
		j.bump = bump_global;
		j.get = get_global;
	} else if (a == ACC_TLS_EXE) {
		j.bump = bump_tls;
		j.get = get_tls;
	} else {
		j.bump = st->small.bump;
		j.get = st->small.get;
	}
	snprintf(label, sizeof(label), "tls access: %s", access_names[a]);
	sink_progress(ctx->sink, LAY_N + AT_N + a, VL_STEPS, label);
	rc = team_points_run(ctx, &job, &res, label, VL_WRONG);
	if (rc)
		return rc;
	*t = vl_emit(ctx, VL_TLS, VL_TLS_SERIES, a, access_names[a], &res,
		     1e9 / (double)vp->ops, "ns", NULL, 0);
	team_result_free(&res);
	return 0;
}

int vl_tls_access_run(struct run_ctx *ctx, const void *state)
{
	const struct vl_state *st = state;
	double t[ACC_N] = {0};
	int rc = 0;

	/* the first TLS part says whether the objects were found */
	sink_summary(ctx->sink, KEY_DSO_FOUND, st->found, NULL);
	for (int a = 0; a < ACC_N && !rc; a++)
		if (a != ACC_TLS_DSO || st->small.handle)
			rc = run_access(ctx, st, (enum vl_access)a, &t[a]);
	if (!rc && st->small.handle)
		sink_summary(ctx->sink, KEY_DSO_EXTRA,
			     t[ACC_TLS_DSO] - t[ACC_TLS_EXE], "ns");
	return rc;
}

/* --- what the part showed --- */

/* TLS of a dlopen'ed object against the program's own. */
void vl_tls_access_say(const struct run_result *r, struct verdict *v,
		       char *head, size_t len)
{
	const struct result_point *exe, *dso;
	struct comparison c;

	(void)head;
	(void)len;
	if (vl_dso_missing(r, v, 1))
		return;
	exe = vl_point(r, VL_TLS, VL_TLS_SERIES, access_names[ACC_TLS_EXE]);
	dso = vl_point(r, VL_TLS, VL_TLS_SERIES, access_names[ACC_TLS_DSO]);
	if (!exe || !dso)
		return;
	compare_points(dso, exe, experiment_precision(r->exp), &c);
	if (c.rel == CMP_MORE) {
		verdict_note(
			v, "info",
			"a __thread variable of a dlopen'ed object cost %.1f ns per access against %.1f ns in the program: its address comes from __tls_get_addr each time",
			dso->y, exe->y);
		return;
	}
	verdict_note(
		v, "warn",
		"TLS in the dlopen'ed object (%.1f ns) was %s TLS in the program (%.1f ns) here",
		dso->y, compare_words(&c, "cheaper than", "as cheap as"),
		exe->y);
	if (c.rel != CMP_SAME)
		verdict_qualify(
			v, KEY_DSO_EXTRA, VERDICT_DISOWNED, "%s",
			c.rel == CMP_LESS
				? "TLS in the dlopen'ed object came out cheaper than in the program, which its extra call cannot cause"
				: compare_why_not(&c));
}

/* A variable of a dlopen'ed object is found through a call: twice a plain
 * access; the program's own (global, __thread) are plain accesses (each
 * counted twice made this part's estimate 2.5x its run: 1.7, 1.7 and
 * 2.8 ns an access on the Zen 5 VM). */
void vl_tls_access_estimate(const void *params,
			    const struct common_params *common,
			    const struct topo *t, double *seconds,
			    uint64_t *bytes)
{
	struct vl_cost c;

	(void)bytes;
	vl_cost(params, common, t, &c);
	*seconds =
		c.rounds * c.ops * (ACC_N + 1) * c.alone + cost_teams_s(ACC_N);
}
