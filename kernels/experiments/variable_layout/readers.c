/* readers.c - variable_layout's readers part: one thread writes, the others read a read-mostly word beside the written one or apart */
#include <errno.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "team.h"
#include "team_points.h"
#include "workcost.h"

#include "vl.h"

static const char *const where_names[AT_N] = {
	"same line as the written word", "own section (numalab_read_mostly)",
	".rodata (const)"};

/* A written word and a read-mostly one in the same line, as plain .data puts
 * them. */
static struct {
	volatile unsigned long hot;
	volatile unsigned long cold;
} vl_line __attribute__((aligned(VL_APART))) = {0, 42};

/*
 * The read-mostly word in a section of its own, aligned and padded to
 * VL_APART so nothing written shares its pair of lines. The section name
 * has no dot on purpose: the default linker script folds every .data.*
 * input section (.data.read_mostly included) into .data, where a written
 * word could follow; a name it does not know stays an output section of
 * its own (readelf -S shows numalab_read_mostly, 128 bytes).
 */
static struct {
	unsigned long v;
	char pad[VL_APART - sizeof(unsigned long)];
} vl_apart __attribute__((section("numalab_read_mostly"),
			  aligned(VL_APART))) = {.v = 42};

/* The same word as a constant: the tool chain puts it in .rodata. */
static const unsigned long vl_rodata[VL_APART / sizeof(unsigned long)]
	__attribute__((aligned(VL_APART))) = {42};

struct rd_job {
	const volatile unsigned long *word;
	uint64_t reads;
	int nreaders;
	atomic_int done;
	atomic_int stop_round; /* the writer stops when it passes its round */
	atomic_int bad;
};

static void rd_body(void *arg, int tid, int round)
{
	struct rd_job *j = arg;

	/*
	 * The writer is the last thread: thread 0 starts the round's clock,
	 * and as a reader it cannot start it after the work it times.
	 */
	if (tid == j->nreaders) {
		/* the written word counts the writes: a mark every VL_MARK */
		while (atomic_load_explicit(&j->stop_round,
					    memory_order_acquire) <= round)
			if (!(++vl_line.hot % VL_MARK))
				team_mark(0); /* its writes are not the work */
		return;
	}
	unsigned long sum = 0;
	for (uint64_t k = 0; k < j->reads; k += VL_MARK) {
		uint64_t end = j->reads - k < VL_MARK ? j->reads : k + VL_MARK;
		for (uint64_t i = k; i < end; i++)
			sum += *j->word;
		team_mark((double)end);
	}
	if (sum != 42 * (unsigned long)j->reads)
		atomic_store(&j->bad, 1);
	if (atomic_fetch_add(&j->done, 1) + 1 == j->nreaders * (round + 1))
		atomic_store_explicit(&j->stop_round, round + 1,
				      memory_order_release);
}

static int rd_check(void *arg)
{
	struct rd_job *j = arg;

	return atomic_load(&j->bad) ? -EIO : 0;
}

/* Measures the readers of the word at w while the last thread writes. */
static int run_where(struct run_ctx *ctx, const struct vl_state *st,
		     enum vl_where w, const volatile unsigned long *word,
		     double *t)
{
	const struct vl_params *vp = ctx->params;
	int n = st->n;
	struct rd_job j = {
		.word = word, .reads = (uint64_t)vp->ops, .nreaders = n - 1};
	struct team_job job = {.nthreads = n,
			       .cpus = st->cpus,
			       .arg = &j,
			       .body = rd_body,
			       .check = rd_check,
			       .spin = 1,
			       .work = (double)(n - 1) * (double)vp->ops};
	struct team_result res;
	char label[80];
	long dist = labs((long)((uintptr_t)word - (uintptr_t)&vl_line.hot));
	int rc;

	vl_label(label, sizeof(label), VL_READERS, where_names[w]);
	sink_progress(ctx->sink, LAY_N + w, VL_STEPS, label);
	rc = team_points_run(ctx, &job, &res, label, VL_WRONG);
	if (rc)
		return rc;
	*t = vl_emit(ctx, VL_READERS, VL_READERS_SERIES, w, where_names[w],
		     &res, 1e9 / (double)vp->ops, "ns", "bytes_from_written",
		     (double)dist);
	team_result_free(&res);
	return 0;
}

int vl_readers_run(struct run_ctx *ctx, const void *state)
{
	const struct vl_state *st = state;
	const volatile unsigned long *words[AT_N] = {&vl_line.cold, &vl_apart.v,
						     &vl_rodata[0]};
	double t[AT_N] = {0};
	int rc = 0;

	/* a writer and at least one reader */
	if (st->n < 2)
		return 0;
	for (int w = 0; w < AT_N && !rc; w++)
		rc = run_where(ctx, st, (enum vl_where)w, words[w], &t[w]);
	if (!rc && t[AT_SECTION] > 0)
		sink_summary(ctx->sink, KEY_READER,
			     t[AT_SAME_LINE] / t[AT_SECTION], "x");
	return rc;
}

/* --- what the part showed --- */

/* The readers beside the written word against apart: a headline. */
void vl_readers_say(const struct run_result *r, struct verdict *v, char *head,
		    size_t len)
{
	const struct vl_params *vp = r->params;
	const struct result_point *same, *sec, *ro;
	struct comparison c;
	char why[VERDICT_TEXT_LEN], rt[64];

	/* with one thread the part does not run (vl_readers_run) */
	if (vp->threads < 2) {
		verdict_note(
			v, "cannot",
			"readers of a read-mostly word need a writer and a reader at once: ask for threads=2 or more");
		return;
	}
	same = vl_point(r, VL_READERS, VL_READERS_SERIES,
			where_names[AT_SAME_LINE]);
	sec = vl_point(r, VL_READERS, VL_READERS_SERIES,
		       where_names[AT_SECTION]);
	if (!sec) /* a run stored before the section was renamed */
		sec = vl_point(r, VL_READERS, VL_READERS_SERIES,
			       "own section (.data.read_mostly)");
	ro = vl_point(r, VL_READERS, VL_READERS_SERIES, where_names[AT_RODATA]);
	if (!same || !sec)
		return;
	if (!vl_can_race(r, VL_READERS, where_names[AT_SAME_LINE],
			 "the read-mostly word", KEY_READER, v) ||
	    vl_contended(r, same, sec, KEY_READER,
			 "what a written neighbour costs the readers", &c, v,
			 why, sizeof(why)) == CONTEND_TOO_LITTLE)
		return;
	compare_ratio_text(&c, rt, sizeof(rt));
	if (c.rel == CMP_MORE) {
		verdict_note(
			v, "info",
			"a read-mostly word in the written word's line cost its readers %.1f ns per read, %.1f ns in a section of its own%s",
			same->y, sec->y, ro ? " (and as much in .rodata)" : "");
		if (!head[0])
			snprintf(
				head, len,
				"readers paid %s per read when their read-mostly word shared a line with a written one%s%s",
				rt, why[0] ? "; " : "", why);
	} else {
		verdict_note(
			v, "warn",
			"the readers' cost beside the written word (%.1f ns) and apart (%.1f ns) could not be told apart%s%s",
			same->y, sec->y, why[0] ? ": " : "", why);
	}
}

/* One place shares its line with the writer, the others do not; a
 * reader's operation is a read (vl_cost). */
void vl_readers_estimate(const void *params, const struct common_params *common,
			 const struct topo *t, double *seconds, uint64_t *bytes)
{
	struct vl_cost c;

	(void)bytes;
	vl_cost(params, common, t, &c);
	*seconds = c.rounds * c.ops * (c.read_shared + (AT_N - 1) * c.read) +
		   cost_teams_s(AT_N);
}
