/* thread_start.c - variable_layout's thread_start part: starting and joining threads that touch TLS of a dlopen'ed object with a small or a 1 MiB block */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "rates.h"
#include "team.h"
#include "team_points.h"
#include "workcost.h"

#include "vl.h"

static const char *const start_names[START_N] = {
	"no thread-local variable", "TLS of a dlopen'ed object (8 B block)",
	"TLS of a dlopen'ed object (1 MiB block)"};

static void *start_plain(void *arg)
{
	return arg;
}

static void *start_touch(void *arg)
{
	const struct dso *d = arg;

	d->bump();
	return NULL;
}

struct start_job {
	const struct dso *d; /* NULL: the thread touches nothing */
	int starts;
	atomic_int failed;
};

static void start_body(void *arg, int tid, int round)
{
	struct start_job *j = arg;

	(void)tid;
	(void)round;
	for (int i = 0; i < j->starts; i++) {
		pthread_t th;
		int e = j->d ? pthread_create(&th, NULL, start_touch,
					      (void *)j->d)
			     : pthread_create(&th, NULL, start_plain, NULL);
		if (e) {
			atomic_store(&j->failed, e);
			return;
		}
		pthread_join(th, NULL);
		team_mark(i + 1); /* 20-100 us a start */
	}
}

static int start_check(void *arg)
{
	struct start_job *j = arg;

	return atomic_load(&j->failed) ? -EIO : 0;
}

/* Measures starting threads that touch d's TLS (NULL: none). */
static int run_start(struct run_ctx *ctx, const struct vl_state *st,
		     enum vl_start s, const struct dso *d, double *t)
{
	const struct vl_params *vp = ctx->params;
	struct start_job j = {.d = d, .starts = (int)vp->starts};
	/* the started threads run on the body's cpu: the process's cpu
	 * clock counts them, so the time it was all off the cpu is left
	 * out */
	struct team_job job = {.nthreads = 1,
			       .cpus = st->cpus,
			       .arg = &j,
			       .body = start_body,
			       .check = start_check,
			       .work = (double)vp->starts,
			       .process_clock = 1};
	struct team_result res;
	char label[80];
	int rc;

	snprintf(label, sizeof(label), "thread start: %s", start_names[s]);
	sink_progress(ctx->sink, LAY_N + AT_N + ACC_N + s, VL_STEPS, label);
	rc = team_points_run(ctx, &job, &res, label, VL_WRONG);
	if (rc)
		return rc;
	*t = vl_emit(ctx, VL_START, VL_START_SERIES, s, start_names[s], &res,
		     1e6 / (double)vp->starts, "µs", "tls_block_bytes",
		     d ? (double)d->bytes() : 0);
	team_result_free(&res);
	return 0;
}

int vl_thread_start_run(struct run_ctx *ctx, const void *state)
{
	const struct vl_params *vp = ctx->params;
	const struct vl_state *st = state;
	const struct dso *which[START_N] = {NULL, &st->small, &st->big};
	double t[START_N] = {0};
	int rc = 0;

	/* the first TLS part says whether the objects were found */
	if (!vl_asked(vp, PART_TLS_ACCESS))
		sink_summary(ctx->sink, KEY_DSO_FOUND, st->found, NULL);
	for (int s = 0; s < START_N && !rc; s++)
		if (s == START_NONE || which[s]->handle)
			rc = run_start(ctx, st, (enum vl_start)s,
				       s == START_NONE ? NULL : which[s],
				       &t[s]);
	if (!rc && st->big.handle)
		sink_summary(ctx->sink, KEY_BIG_START,
			     t[START_BIG] - t[START_NONE], "µs");
	return rc;
}

/* --- what the part showed --- */

/* Starting threads with a 1 MiB TLS block against none: a headline. */
void vl_thread_start_say(const struct run_result *r, struct verdict *v,
			 char *head, size_t len)
{
	const struct vl_params *vp = r->params;
	double tol = experiment_precision(r->exp);
	const struct result_point *none, *big;
	struct comparison c;

	if (vl_dso_missing(r, v, !vl_asked(vp, PART_TLS_ACCESS)))
		return;
	none = vl_point(r, VL_START, VL_START_SERIES, start_names[START_NONE]);
	big = vl_point(r, VL_START, VL_START_SERIES, start_names[START_BIG]);
	if (!none || !big)
		return;
	compare_points(big, none, tol, &c);
	if (c.rel == CMP_MORE) {
		verdict_note(
			v, "info",
			"a thread that touched one variable of an object with a 1 MiB TLS block took %.0f µs to start and join, %.0f µs without: the whole block is allocated on that first touch",
			big->y, none->y);
		if (!head[0])
			snprintf(
				head, len,
				"one touch of a 1 MiB TLS block made a thread cost %.0f µs instead of %.0f µs",
				big->y, none->y);
	} else if (c.rel == CMP_SAME) {
		verdict_note(
			v, "warn",
			"starting threads with and without a large TLS block took the same time within %.0f%% (%.0f and %.0f µs)",
			100 * tol, big->y, none->y);
	} else {
		verdict_note(
			v, "warn",
			"starting threads with and without a large TLS block could not be told apart (%.0f and %.0f µs)",
			big->y, none->y);
		verdict_qualify(
			v, KEY_BIG_START, VERDICT_DISOWNED, "%s",
			c.rel == CMP_LESS
				? "threads with a large TLS block started faster than without, which its allocation cannot cause"
				: compare_why_not(&c));
	}
}

/* A thread created and joined; the big object zeroes 1 MiB of TLS in it. */
void vl_thread_start_estimate(const void *params,
			      const struct common_params *common,
			      const struct topo *t, double *seconds,
			      uint64_t *bytes)
{
	const struct vl_params *vp = params;
	struct vl_cost c;

	(void)bytes;
	vl_cost(params, common, t, &c);
	*seconds = c.rounds * (double)vp->starts *
			   (START_N * rates_get()->spawn_ns * 1e-9 +
			    cost_stream_s(t, COST_WRITE, 1 << 20, 1)) +
		   cost_teams_s(START_N);
}
