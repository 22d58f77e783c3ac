/* core_to_core.c - the round trip of one cache line between every ordered pair of CPUs */
#include <errno.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "experiment.h"
#include "rates.h"
#include "stats.h"
#include "strbuf.h"
#include "team.h"
#include "workcost.h"

struct c2c_params {
	struct int_list cpus;
	int64_t samples;
	int64_t round_trips;
};

static const struct param params[] = {
	{.name = "cpus",
	 .type = PARAM_CPULIST,
	 .def = "",
	 .min = 0,
	 .max = 65535,
	 .help = "the cpus to measure between (e.g. 0-3,8); empty: every cpu "
		 "this process may use",
	 .offset = offsetof(struct c2c_params, cpus)},
	{.name = "samples",
	 .type = PARAM_INT,
	 .def = "200",
	 .min = 1,
	 .max = 100000,
	 .unit = "per pair",
	 .help = "timed rounds per pair: a cell is their median (this "
		 "experiment's sample count; 'repeat' is not used)",
	 .offset = offsetof(struct c2c_params, samples)},
	{.name = "round_trips",
	 .type = PARAM_INT,
	 .def = "1000",
	 .min = 1,
	 .max = 10000000,
	 .unit = "per sample",
	 .help = "round trips timed together as one sample",
	 .offset = offsetof(struct c2c_params, round_trips)},
	{0}};

static const struct chart charts[] = {
	{.id = "latency",
	 .kind = CHART_HEATMAP,
	 .title = "Round trip of one cache line between two CPUs",
	 .x_label = "answering cpu",
	 .y_label = "writing cpu"},
	{.id = "by_relation",
	 .kind = CHART_BAR,
	 .title = "Round trip by what the two CPUs share",
	 .x_label = "the two cpus",
	 .y_label = "round trip (ns)"},
	{0}};

static const char *const summary_keys[] = {"round_trip_ns_*", NULL};

/* How close two CPUs are, closest first; the index is the bar's x. */
enum relation { R_SMT, R_L2, R_L3, R_PACKAGE, R_OTHER, NRELATIONS };
static const char *const relation_names[] = {
	"smt siblings", "shared L2", "shared L3", "same package, no shared cache",
	"other package"};
static const char *const relation_keys[] = {"smt", "shared_l2", "shared_l3",
					    "same_package", "other_package"};

static enum relation relation(const struct topo_pu *a, const struct topo_pu *b)
{
	if (a->core == b->core)
		return R_SMT;
	if (a->l2 >= 0 && a->l2 == b->l2)
		return R_L2;
	if (a->l3 >= 0 && a->l3 == b->l3)
		return R_L3;
	if (a->package == b->package)
		return R_PACKAGE;
	return R_OTHER;
}

/* "cpu3 c3 L3#0", and " n1" when the machine has several nodes */
static void cpu_label(const struct topo *t, int os, char *buf, size_t len)
{
	const struct topo_pu *p = topo_pu_by_os(t, os);
	struct strbuf sb = STRBUF_INIT;

	strbuf_addf(&sb, "cpu%d", os);
	if (p) {
		strbuf_addf(&sb, " c%d", p->core);
		if (p->l3 >= 0)
			strbuf_addf(&sb, " L3#%d", p->l3);
		else if (p->l2 >= 0)
			strbuf_addf(&sb, " L2#%d", p->l2);
		if (t->nnodes > 1)
			strbuf_addf(&sb, " n%d", p->node);
	}
	snprintf(buf, len, "%s", strbuf_str(&sb));
	strbuf_release(&sb);
}

struct c2c_job {
	_Atomic uint64_t *line; /* alone in its page */
	uint64_t trips;
};

/*
 * The writer: mov %rax,(%rdi) to hand the line over, then mov (%rdi),%rdx;
 * cmp; jne until the answer is there. No pause in the spin: it would add
 * its own delay (tens of cycles) to every round trip.
 */
static __attribute__((noinline)) void ping(_Atomic uint64_t *line,
					   uint64_t base, uint64_t n)
{
	for (uint64_t i = 0; i < n; i++) {
		uint64_t v = base + 2 * i;
		atomic_store_explicit(line, v + 1, memory_order_release);
		while (atomic_load_explicit(line, memory_order_acquire) != v + 2)
			;
	}
}

/* The answer: spin with mov (%rdi),%rax; cmp; jne, then mov to write back. */
static __attribute__((noinline)) void pong(_Atomic uint64_t *line,
					   uint64_t base, uint64_t n)
{
	for (uint64_t i = 0; i < n; i++) {
		uint64_t v = base + 2 * i;
		while (atomic_load_explicit(line, memory_order_acquire) != v + 1)
			;
		atomic_store_explicit(line, v + 2, memory_order_release);
	}
}

static void c2c_setup(void *arg, int tid)
{
	struct c2c_job *j = arg;

	/* first touch by the writer: the line's home is the row cpu's node */
	if (tid == 0)
		atomic_store_explicit(j->line, 0, memory_order_relaxed);
}

static void c2c_body(void *arg, int tid, int round)
{
	struct c2c_job *j = arg;
	/* each round carries on where the last one left the counter */
	uint64_t base = (uint64_t)round * 2 * j->trips;

	if (tid == 0)
		ping(j->line, base, j->trips);
	else
		pong(j->line, base, j->trips);
}

static int c2c_check(const void *params, const struct common_params *common,
		     const struct topo *t, struct errinfo *err)
{
	const struct c2c_params *cp = params;
	const struct int_list *cpus = &cp->cpus;

	(void)common;
	if (!t || cpus->n == 0)
		return 0;
	for (int i = 0; i < cpus->n; i++) {
		const struct topo_pu *p = topo_pu_by_os(t, cpus->v[i]);
		if (!p || !p->allowed) {
			snprintf(err->field, sizeof(err->field), "cpus");
			snprintf(err->msg, sizeof(err->msg),
				 "cpu %d is not available to this process (allowed: %s)",
				 cpus->v[i], t->allowed_text);
			return -EINVAL;
		}
	}
	if (cpus->n < 2) {
		snprintf(err->field, sizeof(err->field), "cpus");
		snprintf(err->msg, sizeof(err->msg),
			 "a round trip needs 2 cpus, but 'cpus' lists only cpu %d",
			 cpus->v[0]);
		return -EINVAL;
	}
	return 0;
}

/*
 * Times the pair (a writes, b answers). Returns 0 with ns[0..*n) and the
 * CPUs each thread was seen on, -ECANCELED, or -errno.
 */
static int measure_pair(struct run_ctx *ctx, int a, int b, double *ns, int *n,
			int *seen)
{
	const struct c2c_params *cp = ctx->params;
	uint64_t trips = (uint64_t)cp->round_trips;
	int samples = (int)cp->samples;
	int cpus[2] = {a, b};
	struct c2c_job j = {.trips = trips};
	struct team_job job = {.nthreads = 2,
			       .cpus = cpus,
			       .arg = &j,
			       .setup = c2c_setup,
			       .body = c2c_body,
			       .warmup = (int)ctx->common.warmup,
			       .repeat = samples,
			       .cancel = ctx->cancel,
			       .spin = 1};
	struct team_result res;
	int rc;

	j.line = aligned_alloc(4096, 4096);
	if (!j.line)
		return -ENOMEM;
	rc = team_run(&job, ctx->topo, &res);
	if (rc == 0 || rc == -ECANCELED) {
		for (int r = 0; r < res.rounds; r++)
			ns[r] = res.seconds[r] / (double)trips * 1e9;
		*n = res.rounds;
		seen[0] = res.place[0].cpu_observed;
		seen[1] = res.place[1].cpu_observed;
		team_result_free(&res);
	}
	free(j.line);
	return rc;
}

/* The cpus to measure: the list given, or every allowed one in OS order. */
static int cpu_list(const struct run_ctx *ctx, int *out)
{
	const struct c2c_params *cp = ctx->params;
	const struct int_list *cpus = &cp->cpus;
	const struct topo *t = ctx->topo;
	int n = 0;

	if (cpus->n > 0) {
		for (int i = 0; i < cpus->n; i++)
			out[i] = cpus->v[i];
		return cpus->n;
	}
	for (int os = 0; n < t->nallowed && n < PARAM_MAX_LIST; os++) {
		const struct topo_pu *p = topo_pu_by_os(t, os);
		if (p && p->allowed)
			out[n++] = os;
		if (os > 65535)
			break;
	}
	return n;
}

/* How the headline says where a pair of each relation sits. */
static const char *const relation_phrases[] = {
	"between smt siblings", "between cores sharing an L2",
	"between cores sharing an L3",
	"between cores of one package that share no cache",
	"between packages"};

/* One bar per relation that some measured pair had, and its summary value. */
static void emit_relations(struct run_ctx *ctx, double *const *by, const int *nby)
{
	struct stats s;

	for (int r = 0; r < NRELATIONS; r++) {
		char key[64];
		struct point p = {.chart = "by_relation",
				  .series = "median over pairs",
				  .x = r,
				  .x_label = relation_names[r],
				  .unit = "ns",
				  .samples = by[r],
				  .nsamples = nby[r]};

		if (!nby[r])
			continue;
		stats_compute(by[r], nby[r], &s);
		p.y = s.median;
		sink_point(ctx->sink, &p);
		snprintf(key, sizeof(key), "round_trip_ns_%s", relation_keys[r]);
		sink_summary(ctx->sink, key, s.median, "ns");
	}
}

/*
 * The sentence: each relation is stated only where measured pairs of it
 * exist (its bar), and two relations are called different only where
 * their intervals over the pairs do not overlap.
 */
static void c2c_describe(const struct run_result *r, struct verdict *v)
{
	const struct rr_point *bar[NRELATIONS] = {0};
	const struct rr_placement *pl = rr_placement_find(r, "cpus measured");
	struct strbuf text = STRBUF_INIT;
	int classes = 0, last = -1, moved = 0;

	for (int k = 0; k < NRELATIONS; k++) {
		bar[k] = rr_point_find_label(r, "by_relation", "median over pairs",
					     relation_names[k]);
		if (bar[k] && bar[k]->n < 1)
			bar[k] = NULL;
	}
	for (int i = 0; pl && i < pl->n; i++)
		if (pl->t[i].cpu_observed >= 0 &&
		    pl->t[i].cpu_observed != pl->t[i].cpu_requested)
			moved++;
	if (moved)
		verdict_note(v, "warn", "%d of the cpus measured ran elsewhere than pinned at least once: the pairs are grouped by the cpus asked for, so their relations may not be the ones that ran",
			     moved);
	if (r->machine->vm == 1)
		verdict_note(v, "info", "on a virtual machine the cpus are threads of the host, which may place and pause them anywhere: the relations are the ones the guest sees");
	for (int k = 0; k < NRELATIONS; k++) {
		if (!bar[k])
			continue;
		strbuf_addf(&text, "%s%.0f ns %s", classes ? ", " : "", bar[k]->y,
			    relation_phrases[k]);
		if (last >= 0 && rr_point_compare(bar[k], bar[last]) == 0)
			verdict_note(v, "info", "pairs %s and pairs %s cannot be told apart here: their round trips overlap",
				     relation_phrases[last], relation_phrases[k]);
		classes++;
		last = k;
	}
	if (classes == 1) {
		verdict_headline(v, "one cache line took %.0f ns to go there and back %s (median of %d ordered pairs, %.0f-%.0f ns)",
				 bar[last]->y, relation_phrases[last], bar[last]->n,
				 bar[last]->min, bar[last]->max);
		verdict_note(v, "info", "every pair measured was %s: nothing closer or farther was there to compare with",
			     relation_phrases[last]);
	} else if (classes > 1) {
		verdict_headline(v, "round trip of one cache line: %s", strbuf_str(&text));
	} else if (pl && pl->n < 2) {
		verdict_headline(v, "nothing to measure: a cache line can only travel between 2 or more cpus");
	} else {
		verdict_headline(v, "no pair was measured to the end: no round trip to report");
	}
	strbuf_release(&text);
}

/* Before the run: two cpus or more, and which kinds of pair they make. */
static void c2c_precheck(const void *params, const struct common_params *common,
			 const struct topo *t, struct verdict *v)
{
	const struct c2c_params *cp = params;
	int *list = calloc(PARAM_MAX_LIST, sizeof(int));
	int n = 0, kinds[NRELATIONS] = {0}, nkinds = 0, only = 0;

	(void)common;
	if (!list)
		return;
	if (cp->cpus.n > 0) {
		for (int i = 0; i < cp->cpus.n; i++)
			list[n++] = cp->cpus.v[i];
	} else {
		for (int i = 0; i < t->npus && n < PARAM_MAX_LIST; i++)
			if (t->pu[i].allowed)
				list[n++] = t->pu[i].os;
	}
	if (n < 2) {
		verdict_note(v, "cannot", "a round trip needs 2 cpus, but only %d %s available to this run: nothing can be measured",
			     n, n == 1 ? "is" : "are");
		free(list);
		return;
	}
	for (int i = 0; i < n; i++)
		for (int k = i + 1; k < n; k++) {
			const struct topo_pu *a = topo_pu_by_os(t, list[i]);
			const struct topo_pu *b = topo_pu_by_os(t, list[k]);
			if (a && b)
				kinds[relation(a, b)] = 1;
		}
	for (int k = 0; k < NRELATIONS; k++)
		if (kinds[k]) {
			nkinds++;
			only = k;
		}
	if (nkinds == 1)
		verdict_note(v, "info", "every pair of these cpus is %s: the matrix will show one kind of pair, with nothing closer or farther to compare",
			     relation_phrases[only]);
	free(list);
}

static int c2c_run(struct run_ctx *ctx)
{
	const struct topo *t = ctx->topo;
	const struct c2c_params *cp = ctx->params;
	int samples = (int)cp->samples;
	int *list = calloc(PARAM_MAX_LIST, sizeof(int));
	int *seen = calloc(PARAM_MAX_LIST, sizeof(int));
	double *ns = calloc((size_t)samples + 1, sizeof(double));
	double *by[NRELATIONS] = {0};
	int nby[NRELATIONS] = {0};
	struct thread_place *place = NULL;
	char (*labels)[64] = NULL;
	int n, rc = 0;

	if (!list || !seen || !ns) {
		rc = -ENOMEM;
		goto out;
	}
	n = cpu_list(ctx, list);
	labels = calloc((size_t)n + 1, sizeof(*labels));
	place = calloc((size_t)n + 1, sizeof(*place));
	for (int r = 0; r < NRELATIONS; r++)
		by[r] = calloc((size_t)n * (size_t)n + 1, sizeof(double));
	if (!labels || !place) {
		rc = -ENOMEM;
		goto out;
	}
	for (int r = 0; r < NRELATIONS; r++)
		if (!by[r]) {
			rc = -ENOMEM;
			goto out;
		}
	for (int i = 0; i < n; i++) {
		cpu_label(t, list[i], labels[i], sizeof(labels[i]));
		seen[i] = -1;
	}
	if (n < 2) {
		struct cell c = {.chart = "latency",
				 .row_label = labels[0],
				 .col_label = labels[0],
				 .unit = "ns",
				 .note = "same cpu"};
		sink_note(ctx->sink, "warn",
			  "a round trip needs 2 cpus, but this process may use only cpu %s: nothing was measured (run it on a machine, or under a cpu mask, with 2 or more)",
			  t->allowed_text);
		sink_cell(ctx->sink, &c);
		team_describe(t, 0, list[0], list[0], &place[0]);
		sink_placement(ctx->sink, "cpus measured", place, n);
		goto out;
	}
	for (int i = 0; i < n && !rc; i++) {
		char what[96];

		snprintf(what, sizeof(what), "from %s", labels[i]);
		sink_progress(ctx->sink, i, n, what);
		for (int k = 0; k < n && !rc; k++) {
			struct cell c = {.chart = "latency",
					 .row = i,
					 .col = k,
					 .row_label = labels[i],
					 .col_label = labels[k],
					 .unit = "ns"};
			struct stats s;
			int got = 0, obs[2];

			if (i == k) {
				c.note = "same cpu";
				sink_cell(ctx->sink, &c);
				continue;
			}
			rc = measure_pair(ctx, list[i], list[k], ns, &got, obs);
			if (rc)
				break;
			if (seen[i] < 0)
				seen[i] = obs[0];
			if (seen[k] < 0)
				seen[k] = obs[1];
			if (obs[0] != list[i] || obs[1] != list[k])
				sink_note(ctx->sink, "warn",
					  "%s -> %s: the threads ran on cpu %d and %d, not where they were pinned",
					  labels[i], labels[k], obs[0], obs[1]);
			stats_compute(ns, got, &s);
			c.value = s.median;
			c.samples = ns;
			c.nsamples = got;
			sink_cell(ctx->sink, &c);
			enum relation rel = relation(topo_pu_by_os(t, list[i]),
						     topo_pu_by_os(t, list[k]));
			by[rel][nby[rel]++] = s.median;
		}
	}
	/* one placement record: which cpus took part, as each was seen */
	for (int i = 0; i < n; i++)
		team_describe(t, i, list[i], seen[i], &place[i]);
	sink_placement(ctx->sink, "cpus measured", place, n);
	if (rc)
		goto out;
	sink_progress(ctx->sink, n, n, "done");
	emit_relations(ctx, by, nby);
out:
	for (int r = 0; r < NRELATIONS; r++)
		free(by[r]);
	free(labels);
	free(place);
	free(list);
	free(seen);
	free(ns);
	return rc;
}

static void c2c_estimate(const void *params, const struct common_params *common,
			 const struct topo *t, double *seconds, uint64_t *bytes)
{
	const struct c2c_params *cp = params;
	double n = cp->cpus.n ? cp->cpus.n : (t ? t->nallowed : 1);
	double rounds = (double)(cp->samples + common->warmup);
	double trips = (double)cp->round_trips;
	double rtt = rates_get()->rtt_ns * 1e-9;

	/*
	 * The round trip was timed between the first two cpus; a pair across
	 * packages takes up to about three times as long (the matrix's far
	 * blocks), so count every pair at twice where there are several.
	 */
	if (t && t->npackages > 1)
		rtt *= 2;
	/* every ordered pair: its team, then its samples of round trips */
	*seconds = n * (n - 1) * (rounds * trips * rtt + cost_teams_s(1));
	*bytes = 4096;
}

const struct experiment exp_core_to_core = {
	.name = "core_to_core",
	.title = "Core-to-core latency",
	.summary = "Two pinned threads pass one cache line back and forth: the "
		   "round trip between every pair of CPUs, as a matrix",
	.section = "6.4",
	.explain =
		"Two threads, pinned to two CPUs, share one cache line and "
		"nothing else. The first writes a number into it; the second "
		"waits until it sees that number and writes the next one; the "
		"first waits for that, and so on. Each handover makes the line "
		"move to the other core's cache (the reader's request pulls it "
		"across, the write then takes it exclusively), so a round trip "
		"is the time for the line to travel there and back. Every "
		"ordered pair of CPUs is measured; a cell is the median over "
		"many samples, each averaging many round trips.\n\n"
		"The article has no such table, but section 6.4 rests on this "
		"cost: false sharing and contended atomic increments are slow "
		"because every write waits for the line to come over, and the "
		"farther apart the cores, the longer it takes. In 2007 cores "
		"mostly met at a shared L2 or went over the front side bus to "
		"another processor.\n\n"
		"Today expect blocks in the matrix: smallest between SMT "
		"siblings of one core (the line never leaves the core's own "
		"L1 and L2), some tens of nanoseconds between cores under one "
		"L3, more between chiplets of one package that share no cache "
		"(AMD's CCXs), and the most, often 100-300 ns, between "
		"sockets. The matrix is close to symmetric: where it is not, "
		"one side's cache or memory is farther from the line's home. "
		"On a virtual machine the CPUs are threads of the host and can "
		"be moved or paused by it, so expect noise there.",
	.params = params,
	.params_size = sizeof(struct c2c_params),
	.charts = charts,
	.summary_keys = summary_keys,
	.uses_placement = 0,
	.check = c2c_check,
	.run = c2c_run,
	.describe = c2c_describe,
	.precheck = c2c_precheck,
	.estimate = c2c_estimate,
};
