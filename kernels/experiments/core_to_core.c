/* core_to_core.c - the round trip of one cache line between ordered pairs of CPUs, chosen by the topology */
#include <errno.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "experiment.h"
#include "pair_plan.h"
#include "plan_view.h"
#include "rates.h"
#include "stats.h"
#include "strbuf.h"
#include "team.h"
#include "workcost.h"

struct c2c_params {
	struct int_list cpus;
	struct pairs_request pairs;
	int64_t samples;
	int64_t round_trips;
};

/* Up to this many cpus the default measures every ordered pair; above, a few of
 * each relation. */
#define C2C_ALL_UP_TO 16

static int pairs_text(const char *text, void *field, char *norm, size_t len,
		      struct errinfo *err)
{
	struct pairs_request *req = field;
	int rc = pairs_parse(text, req, err);

	if (rc)
		return rc;
	if (req->mode == PAIRS_SAMPLE)
		snprintf(norm, len, "sample:%d", req->sample);
	else
		snprintf(norm, len, "%s", text);
	return 0;
}

static void pairs_default(const struct topo *t, char *buf, size_t len)
{
	snprintf(buf, len, "%s",
		 t->nallowed <= C2C_ALL_UP_TO ? "all" : "by_relation");
}

#define PARAM_STRUCT struct c2c_params
static const struct param params[] = {
	PARAM_CPULIST(
		cpus, "", 0, 65535,
		"the cpus to measure between (e.g. 0-3,8); empty: every cpu this process may use"),
	PARAM_TEXT(
		pairs, "by_relation", pairs_text,
		"which ordered pairs: all (the whole matrix), by_relation (3 of each relation the topology has: smt, shared cache, package, each numa distance) or sample:N (N spread evenly); default: all up to 16 cpus, by_relation above",
		.machine_def = pairs_default),
	PARAM_INT(
		samples, "200", 1, 100000, "per pair",
		"timed rounds per pair: a cell is their median (this experiment's sample count, in place of 'repeat')"),
	PARAM_INT(round_trips, "1000", 1, 10000000, "per sample",
		  "round trips timed together as one sample"),
	{0}};

/*
 * The names run and describe share, defined once: the charts, the bars'
 * series and the placement label of the cpus measured.
 */
#define C2C_LATENCY "latency"
#define C2C_BY_RELATION "by_relation"
#define C2C_BARS "median over pairs"
#define C2C_MEASURED "cpus measured"

static const struct chart charts[] = {
	CHART(C2C_LATENCY, CHART_HEATMAP,
	      "Round trip of one cache line between two CPUs", "answering cpu",
	      "writing cpu"),
	CHART(C2C_BY_RELATION, CHART_BAR,
	      "Round trip by what the two CPUs share", "the two cpus",
	      "round trip (ns)"),
	{0}};

static const char *const summary_keys[] = {"round_trip_ns_*", NULL};

/* How close two CPUs are, by the plan's relation_kind: bar labels, summary
 * keys, phrases. */
enum relation { R_SMT, R_L2, R_L3, R_PACKAGE, R_OTHER, NRELATIONS };
static const char *const relation_names[] = {
	"smt siblings", "shared L2", "shared L3",
	"same package, no shared cache", "other package"};
static const char *const relation_keys[] = {"smt", "shared_l2", "shared_l3",
					    "same_package", "other_package"};
static const char *const relation_phrases[] = {
	"between smt siblings", "between cores sharing an L2",
	"between cores sharing an L3",
	"between cores of one package that share no cache", "between packages"};

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

/* A plan's class as its bar is labelled: "other package, distance 21". */
static void class_label(const struct relation_class *c, char *buf, size_t len)
{
	if (c->distance > 0)
		snprintf(buf, len, "%s, distance %d", relation_names[c->kind],
			 c->distance);
	else if (c->distance < 0)
		snprintf(buf, len, "%s, another node", relation_names[c->kind]);
	else
		snprintf(buf, len, "%s", relation_names[c->kind]);
}

/* Its summary key: "round_trip_ns_other_package_distance_21". */
static void class_key(const struct relation_class *c, char *buf, size_t len)
{
	if (c->distance > 0)
		snprintf(buf, len, "round_trip_ns_%s_distance_%d",
			 relation_keys[c->kind], c->distance);
	else if (c->distance < 0)
		snprintf(buf, len, "round_trip_ns_%s_another_node",
			 relation_keys[c->kind]);
	else
		snprintf(buf, len, "round_trip_ns_%s", relation_keys[c->kind]);
}

/* How a sentence names the pairs of a bar's label: "between packages at
 * distance 21". */
static void label_phrase(const char *label, char *buf, size_t len)
{
	for (int k = 0; k < NRELATIONS; k++) {
		size_t n = strlen(relation_names[k]);
		const char *rest = label + n;
		int d;

		if (strncmp(label, relation_names[k], n) ||
		    (*rest && *rest != ','))
			continue;
		if (sscanf(rest, ", distance %d", &d) == 1)
			snprintf(buf, len, "%s at numa distance %d",
				 relation_phrases[k], d);
		else if (!strcmp(rest, ", another node"))
			snprintf(buf, len, "%s on two nodes",
				 relation_phrases[k]);
		else
			snprintf(buf, len, "%s", relation_phrases[k]);
		return;
	}
	snprintf(buf, len, "of kind '%s'", label);
}

/* "cpu3 · core 3 · L3 #0", and " · node 1" when the machine has several
 * nodes: words a reader of the heatmap's axes needs no key for */
static void cpu_label(const struct topo *t, int os, char *buf, size_t len)
{
	const struct topo_pu *p = topo_pu_by_os(t, os);
	struct strbuf sb = STRBUF_INIT;

	strbuf_addf(&sb, "cpu%d", os);
	if (p) {
		strbuf_addf(&sb, " · core %d", p->core);
		if (p->l3 >= 0)
			strbuf_addf(&sb, " · L3 #%d", p->l3);
		else if (p->l2 >= 0)
			strbuf_addf(&sb, " · L2 #%d", p->l2);
		if (t->nnodes > 1)
			strbuf_addf(&sb, " · node %d", p->node);
	}
	snprintf(buf, len, "%s", strbuf_str(&sb));
	strbuf_release(&sb);
}

#define C2C_MARK 256
/* Round trips of one relation this many times apart: a vCPU moved. */
#define C2C_JUMP 3

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
		while (atomic_load_explicit(line, memory_order_acquire) !=
		       v + 2)
			;
	}
}

/* The answer: spin with mov (%rdi),%rax; cmp; jne, then mov to write back. */
static __attribute__((noinline)) void pong(_Atomic uint64_t *line,
					   uint64_t base, uint64_t n)
{
	for (uint64_t i = 0; i < n; i++) {
		uint64_t v = base + 2 * i;
		while (atomic_load_explicit(line, memory_order_acquire) !=
		       v + 1)
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

	/* marked every C2C_MARK trips (20-100 us): a round is timed over
	 * the stretches both threads were on their cpus */
	for (uint64_t k = 0; k < j->trips; k += C2C_MARK) {
		uint64_t n = j->trips - k < C2C_MARK ? j->trips - k : C2C_MARK;
		if (tid == 0)
			ping(j->line, base + 2 * k, n);
		else
			pong(j->line, base + 2 * k, n);
		team_mark(tid == 0 ? (double)(k + n) : 0);
	}
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
		if (!p || !p->allowed)
			return errinfo_set(
				err, "cpus",
				"cpu %d is not available to this process (allowed: %s)",
				cpus->v[i], t->allowed_text);
	}
	if (cpus->n < 2)
		return errinfo_set(
			err, "cpus",
			"a round trip needs 2 cpus, but 'cpus' lists only cpu %d",
			cpus->v[0]);
	return 0;
}

/*
 * Times the pair (a writes, b answers) on line, a fresh page no other
 * pair has used. Returns 0 with ns[0..*n) and the CPUs each thread was
 * seen on, -ECANCELED, or -errno.
 */
static int measure_pair(struct run_ctx *ctx, _Atomic uint64_t *line, int a,
			int b, double *ns, int *n, int *seen)
{
	const struct c2c_params *cp = ctx->params;
	uint64_t trips = (uint64_t)cp->round_trips;
	int samples = (int)cp->samples;
	int cpus[2] = {a, b};
	struct c2c_job j = {.line = line, .trips = trips};
	struct team_job job = {.nthreads = 2,
			       .cpus = cpus,
			       .arg = &j,
			       .setup = c2c_setup,
			       .body = c2c_body,
			       .warmup = (int)ctx->common.warmup,
			       .repeat = samples,
			       .cancel = ctx->cancel,
			       .spin = 1,
			       .work = (double)trips};
	struct team_result res;
	int rc;

	rc = team_run(&job, ctx->topo, &res);
	if (rc == 0 || rc == -ECANCELED) {
		for (int r = 0; r < res.rounds; r++)
			ns[r] = res.seconds[r] / (double)trips * 1e9;
		*n = res.rounds;
		seen[0] = res.place[0].cpu_observed;
		seen[1] = res.place[1].cpu_observed;
		team_result_free(&res);
	}
	return rc;
}

/* The plan of the request: its cpus (or every allowed one) and its pairs. */
static int c2c_plan(const struct c2c_params *cp, const struct topo *t,
		    struct pair_plan *plan, struct errinfo *err)
{
	int cpus[PARAM_MAX_LIST];

	for (int i = 0; i < cp->cpus.n; i++)
		cpus[i] = cp->cpus.v[i];
	return pair_plan_make(t, cpus, cp->cpus.n, &cp->pairs, plan, err);
}

/*
 * One bar per relation some measured pair had (its samples are the
 * pairs' medians), and three summary values: the median over the pairs,
 * their least and their most.
 */
static void emit_relations(struct run_ctx *ctx, const struct pair_plan *plan,
			   double *const *by, const int *nby)
{
	struct stats s;

	for (int c = 0; c < plan->nclasses; c++) {
		char key[96], label[96];
		struct point p = {.chart = C2C_BY_RELATION,
				  .series = C2C_BARS,
				  .x = c,
				  .x_label = label,
				  .unit = "ns",
				  .samples = by[c],
				  .nsamples = nby[c]};
		size_t kl;

		if (!nby[c])
			continue;
		class_label(&plan->cls[c], label, sizeof(label));
		stats_compute(by[c], nby[c], &s);
		p.y = s.median;
		sink_point(ctx->sink, &p);
		class_key(&plan->cls[c], key, sizeof(key));
		sink_summary(ctx->sink, key, s.median, "ns");
		kl = strlen(key);
		snprintf(key + kl, sizeof(key) - kl, "_min");
		sink_summary(ctx->sink, key, s.min, "ns");
		snprintf(key + kl, sizeof(key) - kl, "_max");
		sink_summary(ctx->sink, key, s.max, "ns");
	}
}

#define C2C_MAX_BARS 256

static int bar_cmp(const void *pa, const void *pb)
{
	const struct result_point *a = *(const struct result_point *const *)pa;
	const struct result_point *b = *(const struct result_point *const *)pb;

	return (a->x > b->x) - (a->x < b->x);
}

/* How many cells of the matrix hold a round trip. */
static int measured_cells(const struct run_result *r)
{
	int n = 0;

	for (int i = 0; i < r->ncells; i++)
		if (!strcmp(r->cells[i].chart, C2C_LATENCY) &&
		    r->cells[i].value == r->cells[i].value)
			n++;
	return n;
}

/* The bars of the relations, nearest first; returns how many. */
static int collect_bars(const struct run_result *r,
			const struct result_point **bar)
{
	int nbars = 0;

	for (int i = 0; i < r->npoints && nbars < C2C_MAX_BARS; i++) {
		const struct result_point *p = &r->points[i];
		if (!strcmp(p->chart, C2C_BY_RELATION) && p->n >= 1 &&
		    p->x_label && !strcmp(p->series, C2C_BARS))
			bar[nbars++] = p;
	}
	qsort(bar, (size_t)nbars, sizeof(bar[0]), bar_cmp);
	return nbars;
}

/* What the run's pairs stand on: cpus that moved, a VM, a partial matrix. */
static void say_pairs(const struct run_result *r,
		      const struct result_placement *pl, struct verdict *v)
{
	const struct c2c_params *cp = r->params;
	int moved = 0;

	for (int i = 0; pl && i < pl->n; i++)
		if (pl->t[i].cpu_observed >= 0 &&
		    pl->t[i].cpu_observed != pl->t[i].cpu_requested)
			moved++;
	if (moved)
		verdict_note(
			v, "warn",
			"%d of the cpus measured ran elsewhere than pinned at least once: the pairs are grouped by the cpus asked for, so their relations may not be the ones that ran",
			moved);
	if (r->machine->vm == 1)
		verdict_note(
			v, "info",
			"on a virtual machine the cpus are threads of the host, which may place and pause them anywhere: the relations are the guest's view, not the host's cores, and may change between runs");
	long ordered = pl ? (long)pl->n * (pl->n - 1) : 0;
	if (cp && cp->pairs.mode == PAIRS_SAMPLE && pl && pl->n >= 2 &&
	    cp->pairs.sample > ordered)
		verdict_note(
			v, "info",
			"pairs=sample:%d asked for more pairs than the %ld ordered pairs of these %d cpus: all were measured",
			cp->pairs.sample, ordered, pl->n);
	else if (cp && cp->pairs.mode != PAIRS_ALL && pl && pl->n >= 2 &&
		 measured_cells(r) > 0)
		verdict_note(
			v, "info",
			"%d of the %ld ordered pairs were measured (%s): the empty cells of the matrix were not measured",
			measured_cells(r), (long)pl->n * (pl->n - 1),
			cp->pairs.mode == PAIRS_BY_RELATION
				? "a few of each relation, spread over the machine"
				: "a sample spread evenly over the matrix");
}

/* Whether two neighbouring relations can be told apart, in a note. */
static void say_neighbours(const struct run_result *r,
			   const struct result_point *near,
			   const struct result_point *far,
			   const char *near_phrase, const char *far_phrase,
			   struct verdict *v)
{
	double tol = experiment_precision(r->exp);
	struct comparison c;

	compare_points(far, near, tol, &c);
	if (c.rel == CMP_SAME)
		verdict_note(
			v, "info",
			"pairs %s and pairs %s cannot be told apart here: their round trips are the same within %.0f%%",
			near_phrase, far_phrase, 100 * tol);
	else if (c.rel == CMP_FEW || c.rel == CMP_UNSURE)
		verdict_note(
			v, "info",
			"pairs %s and pairs %s cannot be told apart here: their round trips overlap (%s)",
			near_phrase, far_phrase, compare_why_not(&c));
}

/*
 * One figure per relation into text, its spread over its pairs into
 * spread, each neighbour compared; last_phrase ends as the farthest's
 * phrase.
 */
static void say_relations(const struct run_result *r,
			  const struct result_point *const *bar, int nbars,
			  struct strbuf *text, struct strbuf *spread,
			  char *last_phrase, size_t len, struct verdict *v)
{
	char phrase[128];

	for (int k = 0; k < nbars; k++) {
		label_phrase(bar[k]->x_label, phrase, sizeof(phrase));
		strbuf_addf(text, "%s%.0f ns %s", k ? ", " : "", bar[k]->y,
			    phrase);
		strbuf_addf(spread, "%s%s %.0f-%.0f ns (%d pair%s)",
			    k ? "; " : "", bar[k]->x_label, bar[k]->min,
			    bar[k]->max, bar[k]->n, bar[k]->n == 1 ? "" : "s");
		if (k > 0)
			say_neighbours(r, bar[k - 1], bar[k], last_phrase,
				       phrase, v);
		snprintf(last_phrase, len, "%s", phrase);
	}
	if (nbars > 1)
		verdict_note(v, "info",
			     "the spread over the pairs of each relation: %s",
			     strbuf_str(spread));
}

/* A vCPU the host moved: one relation's pairs several-fold apart. */
static void say_jumps(const struct run_result *r,
		      const struct result_point *const *bar, int nbars,
		      struct verdict *v)
{
	char phrase[128];

	for (int k = 0; r->machine->vm == 1 && k < nbars; k++)
		if (bar[k]->min > 0 && bar[k]->max >= C2C_JUMP * bar[k]->min) {
			label_phrase(bar[k]->x_label, phrase, sizeof(phrase));
			verdict_note(
				v, "warn",
				"round trips %s ran from %.0f to %.0f ns, %.1f-fold apart: on a virtual machine that is the host moving the vCPUs between its cores, not a relation of the guest's cpus",
				phrase, bar[k]->min, bar[k]->max,
				bar[k]->max / bar[k]->min);
		}
}

/* The headline: one relation, several, or why none was measured. */
static void c2c_headline(const struct result_point *const *bar, int nbars,
			 const struct strbuf *text, const char *last_phrase,
			 const struct result_placement *pl, struct verdict *v)
{
	if (nbars == 1) {
		verdict_headline(
			v,
			"one cache line took %.0f ns to go there and back %s (median of %d ordered pair%s, %.0f-%.0f ns)",
			bar[0]->y, last_phrase, bar[0]->n,
			bar[0]->n == 1 ? "" : "s", bar[0]->min, bar[0]->max);
		verdict_note(
			v, "info",
			"every pair measured was %s: nothing closer or farther was there to compare with",
			last_phrase);
	} else if (nbars > 1) {
		verdict_headline(v, "round trip of one cache line: %s",
				 strbuf_str(text));
	} else if (pl && pl->n < 2) {
		verdict_headline(
			v,
			"nothing to measure: a cache line can only travel between 2 or more cpus");
	} else {
		verdict_headline(
			v,
			"no pair was measured to the end: no round trip to report");
	}
}

/*
 * The sentence: one figure per relation measured (its bar, the median
 * over its pairs), each with its spread over those pairs in a note;
 * two neighbouring relations are called different only where their
 * intervals over the pairs do not overlap.
 */
static void c2c_describe(const struct run_result *r, struct verdict *v)
{
	const struct result_point *bar[C2C_MAX_BARS];
	const struct result_placement *pl =
		result_placement_find(r, C2C_MEASURED);
	struct strbuf text = STRBUF_INIT, spread = STRBUF_INIT;
	char last_phrase[128] = "";
	int nbars = collect_bars(r, bar);

	say_pairs(r, pl, v);
	say_relations(r, bar, nbars, &text, &spread, last_phrase,
		      sizeof(last_phrase), v);
	say_jumps(r, bar, nbars, v);
	c2c_headline(bar, nbars, &text, last_phrase, pl, v);
	strbuf_release(&text);
	strbuf_release(&spread);
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
		verdict_note(
			v, "cannot",
			"a round trip needs 2 cpus, but only %d %s available to this run: nothing can be measured",
			n, n == 1 ? "is" : "are");
		free(list);
		return;
	}
	for (int i = 0; i < n && nkinds < NRELATIONS; i++)
		for (int k = i + 1; k < n; k++) {
			const struct topo_pu *a = topo_pu_by_os(t, list[i]);
			const struct topo_pu *b = topo_pu_by_os(t, list[k]);
			if (a && b && !kinds[relation(a, b)]) {
				kinds[relation(a, b)] = 1;
				nkinds++;
				only = relation(a, b);
			}
		}
	if (nkinds == 1)
		verdict_note(
			v, "info",
			"every pair of these cpus is %s: the matrix will show one kind of pair, with nothing closer or farther to compare",
			relation_phrases[only]);
	/* what was asked is not quietly cut to what there is */
	long ordered = (long)n * (n - 1);
	if (cp->pairs.mode == PAIRS_SAMPLE && cp->pairs.sample > ordered)
		verdict_note(
			v, "info",
			"pairs=sample:%d asks for more pairs than the %ld ordered pairs of these %d cpus: all %ld are measured",
			cp->pairs.sample, ordered, n, ordered);
	free(list);
}

/* The same-cpu cells: every row and column gets its label, no value. */
static void emit_diagonal(struct run_ctx *ctx, int n, char (*labels)[64])
{
	for (int i = 0; i < n; i++) {
		struct cell c = {.chart = C2C_LATENCY,
				 .row = i,
				 .col = i,
				 .row_label = labels[i],
				 .col_label = labels[i],
				 .unit = "ns",
				 .note = "same cpu"};
		sink_cell(ctx->sink, &c);
	}
}

/*
 * A run's state: the plan, its cpus' labels and where each was seen,
 * one pair's samples, the pairs' medians by relation, and the page of
 * the line in flight.
 */
struct c2c_state {
	struct pair_plan plan;
	int n;
	int *seen, *nby;
	double *ns;
	double **by;
	struct thread_place *place;
	char (*labels)[64];
	_Atomic uint64_t *line;
};

/* Allocates st's arrays for its plan and labels its cpus; 0 or -ENOMEM. */
static int c2c_state_alloc(const struct topo *t, int samples,
			   struct c2c_state *st)
{
	const struct pair_plan *plan = &st->plan;
	int n = plan->ncpus;

	st->n = n;
	st->ns = calloc((size_t)samples + 1, sizeof(double));
	st->seen = calloc((size_t)n + 1, sizeof(*st->seen));
	st->labels = calloc((size_t)n + 1, sizeof(*st->labels));
	st->place = calloc((size_t)n + 1, sizeof(*st->place));
	st->nby = calloc((size_t)plan->nclasses + 1, sizeof(*st->nby));
	st->by = calloc((size_t)plan->nclasses + 1, sizeof(*st->by));
	if (!st->ns || !st->seen || !st->labels || !st->place || !st->nby ||
	    !st->by)
		return -ENOMEM;
	for (int c = 0; c < plan->nclasses; c++)
		if (!(st->by[c] = calloc((size_t)plan->cls[c].planned + 1,
					 sizeof(double))))
			return -ENOMEM;
	for (int i = 0; i < n; i++) {
		cpu_label(t, plan->cpu[i], st->labels[i],
			  sizeof(st->labels[i]));
		st->seen[i] = -1;
	}
	return 0;
}

static void c2c_state_free(struct c2c_state *st)
{
	for (int c = 0; st->by && c < st->plan.nclasses; c++)
		free(st->by[c]);
	free(st->by);
	free(st->nby);
	free(st->line);
	free(st->labels);
	free(st->place);
	free(st->seen);
	free(st->ns);
	pair_plan_free(&st->plan);
}

/* Fewer than 2 cpus: says so, and records the one there is. */
static void c2c_alone(struct run_ctx *ctx, struct c2c_state *st)
{
	const struct topo *t = ctx->topo;
	int only = st->n ? st->plan.cpu[0] : 0;

	sink_note(
		ctx->sink, "warn",
		"a round trip needs 2 cpus, but this process may use only cpu %s: nothing was measured (run it on a machine, or under a cpu mask, with 2 or more)",
		t->allowed_text);
	if (st->n)
		emit_diagonal(ctx, st->n, st->labels);
	team_describe(t, 0, only, only, &st->place[0]);
	sink_placement(ctx->sink, C2C_MEASURED, st->place, 1);
}

/*
 * Measures pair p on a fresh page and emits its cell; its median joins
 * its relation's. Returns 0, -ECANCELED, or -errno.
 */
static int c2c_pair(struct run_ctx *ctx, struct c2c_state *st, long p,
		    long every)
{
	const struct pair_plan *plan = &st->plan;
	const struct cpu_pair *pr = &plan->pair[p];
	struct cell c = {.chart = C2C_LATENCY,
			 .row = pr->row,
			 .col = pr->col,
			 .row_label = st->labels[pr->row],
			 .col_label = st->labels[pr->col],
			 .unit = "ns"};
	_Atomic uint64_t *fresh = aligned_alloc(4096, 4096);
	struct stats s;
	int got = 0, obs[2], rc;

	/* a new page before the old one goes: no pair times a line another
	 * left behind */
	free(st->line);
	st->line = fresh;
	if (!st->line)
		return -ENOMEM;
	if (p % every == 0) {
		char what[160];
		snprintf(what, sizeof(what), "%s -> %s (%s)",
			 st->labels[pr->row], st->labels[pr->col],
			 plan->cls[pr->cls].name);
		sink_progress(ctx->sink, (double)p, (double)plan->npairs, what);
	}
	rc = measure_pair(ctx, st->line, pr->a, pr->b, st->ns, &got, obs);
	if (rc)
		return rc;
	if (st->seen[pr->row] < 0)
		st->seen[pr->row] = obs[0];
	if (st->seen[pr->col] < 0)
		st->seen[pr->col] = obs[1];
	if (obs[0] != pr->a || obs[1] != pr->b)
		sink_note(
			ctx->sink, "warn",
			"%s -> %s: the threads ran on cpu %d and %d, not where they were pinned",
			st->labels[pr->row], st->labels[pr->col], obs[0],
			obs[1]);
	stats_compute(st->ns, got, &s);
	c.value = s.median;
	c.samples = st->ns;
	c.nsamples = got;
	sink_cell(ctx->sink, &c);
	st->by[pr->cls][st->nby[pr->cls]++] = s.median;
	return 0;
}

static int c2c_run(struct run_ctx *ctx)
{
	const struct topo *t = ctx->topo;
	const struct c2c_params *cp = ctx->params;
	struct c2c_state st = {0};
	struct errinfo err = {0};
	long every, p;
	int rc;

	rc = c2c_plan(cp, t, &st.plan, &err);
	if (rc) {
		sink_note(ctx->sink, "warn", "no plan of pairs: %s", err.msg);
		goto out;
	}
	rc = c2c_state_alloc(t, (int)cp->samples, &st);
	if (rc)
		goto out;
	if (st.n < 2) {
		c2c_alone(ctx, &st);
		goto out;
	}
	emit_diagonal(ctx, st.n, st.labels);
	every = st.plan.npairs / 256 + 1;
	for (p = 0; p < st.plan.npairs && !rc; p++)
		rc = c2c_pair(ctx, &st, p, every);
	/* one placement record: which cpus took part, as each was seen */
	for (int i = 0; i < st.n; i++)
		team_describe(t, i, st.plan.cpu[i], st.seen[i], &st.place[i]);
	sink_placement(ctx->sink, C2C_MEASURED, st.place, st.n);
	if (rc)
		goto out;
	sink_progress(ctx->sink, (double)st.plan.npairs, (double)st.plan.npairs,
		      "done");
	emit_relations(ctx, &st.plan, st.by, st.nby);
out:
	c2c_state_free(&st);
	return rc;
}

static void c2c_estimate(const void *params, const struct common_params *common,
			 const struct topo *t, double *seconds, uint64_t *bytes)
{
	const struct c2c_params *cp = params;
	double n = cp->cpus.n ? cp->cpus.n : (t ? t->nallowed : 1);
	double rounds = (double)(cp->samples + common->warmup);
	double trips = (double)cp->round_trips;
	double pairs = n * (n - 1);
	struct pair_plan plan;
	struct errinfo err;
	double rtt = rates_get()->rtt_ns * 1e-9;

	if (cp->pairs.mode == PAIRS_SAMPLE && cp->pairs.sample < pairs)
		pairs = cp->pairs.sample;
	else if (cp->pairs.mode == PAIRS_BY_RELATION && t &&
		 !c2c_plan(cp, t, &plan, &err)) {
		pairs = (double)plan.npairs;
		pair_plan_free(&plan);
	}
	/*
	 * The round trip was timed between the first two cpus; a pair across
	 * packages takes up to about three times as long (the matrix's far
	 * blocks), so count every pair at twice where there are several.
	 */
	if (t && t->npackages > 1)
		rtt *= 2;
	/* every planned pair: its team, then its samples of round trips */
	*seconds = pairs * (rounds * trips * rtt + cost_teams_s(1));
	*bytes = 4096;
}

/*
 * Before the run: the cpus of the matrix, the pairs of each relation
 * (how many, the first one), and where each pair's line goes.
 */
static void c2c_plan_view(const void *params,
			  const struct common_params *common,
			  const struct topo *t, struct strbuf *out)
{
	const struct c2c_params *cp = params;
	struct pair_plan plan;
	struct errinfo err = {0};

	(void)common;
	if (c2c_plan(cp, t, &plan, &err)) {
		strbuf_addf(out, "pairs: no plan: %s\n", err.msg);
		return;
	}
	if (plan.ncpus < 2) {
		strbuf_addstr(out, "pairs: none, a round trip needs 2 cpus\n");
		pair_plan_free(&plan);
		return;
	}
	plan_view_cpu_set(t, "cpus measured", plan.cpu, plan.ncpus, out);
	strbuf_addf(out, "pairs: %ld of the %ld ordered pairs%s\n", plan.npairs,
		    (long)plan.ncpus * (plan.ncpus - 1),
		    plan.sample_capped ? " (the sample asked for more: all "
					 "of them)"
				       : "");
	for (int c = 0; c < plan.nclasses; c++) {
		const struct relation_class *k = &plan.cls[c];
		char label[96];
		long p = 0;

		while (p < plan.npairs && plan.pair[p].cls != c)
			p++;
		class_label(k, label, sizeof(label));
		if (p == plan.npairs)
			strbuf_addf(out, "%s: none of %ld pairs measured\n",
				    label, k->available);
		else
			strbuf_addf(
				out,
				"%s: %d of %ld pairs, the first cpu %d to %d\n",
				label, k->planned, k->available, plan.pair[p].a,
				plan.pair[p].b);
	}
	plan_view_first_touch(
		t,
		"each pair's line sits on a page of its own, which its writing cpu touches",
		out);
	pair_plan_free(&plan);
}

/* The classroom's question; the run takes a few seconds on 2 cores. */
static const struct lesson lessons[] = {
	LESSON("round-trip", "A cache line's round trip",
	       "how many nanoseconds does one cache line take to go to another core and back?",
	       "samples=40 round_trips=500", "ns", "round_trip_ns_*",
	       C2C_BY_RELATION),
	{0}};

/* The rulebook (rules.h): what its comparisons need. */
static const struct rule rules[] = {
	RULE(RULE_CPUS, .what = "a round trip between two cpus"), {RULE_END}};
static const char *const compared[] = {"round_trip_ns_*", NULL};

/* a pair is timed by the team harness alone: exactly samples rounds */
static const struct unread_param unread[] = {
	{.param = "repeat",
	 .why = "the timed rounds of each pair are 'samples'"},
	{.param = "budget",
	 .why = "each pair takes exactly 'samples' rounds, none added or redone"},
	{0}};

/* what a person reads for each summary key */
/* A round trip's keys in words: the median, the fastest and the slowest
 * pair. */
#define TRIP_LABELS(k, w)                                                      \
	{k "_min", w " (fastest pair)", "ns"},                                 \
		{k "_max", w " (slowest pair)", "ns"},                         \
	{                                                                      \
		k, w, "ns"                                                     \
	}
/* One relation's, at a node distance, to another node or with none said. */
#define REL_LABELS(k, w)                                                       \
	TRIP_LABELS("round_trip_ns_" k "_distance_*",                          \
		    "round trip " w ", distance %s"),                          \
		TRIP_LABELS("round_trip_ns_" k "_another_node",                \
			    "round trip " w ", another node"),                 \
		TRIP_LABELS("round_trip_ns_" k, "round trip " w)

static const struct key_label summary_labels[] = {
	REL_LABELS("smt", "between SMT siblings"),
	REL_LABELS("shared_l2", "between cores sharing an L2"),
	REL_LABELS("shared_l3", "between cores sharing an L3"),
	REL_LABELS("same_package",
		   "between cores of one package sharing no cache"),
	REL_LABELS("other_package", "between packages"),
	TRIP_LABELS("round_trip_ns_*", "round trip, %s"),
	{NULL, NULL, NULL}};

const struct experiment exp_core_to_core = {
	.name = "core_to_core",
	.lockstep = 1, /* a round trip needs both threads on their cpus */
	.smoke = "samples=2 round_trips=10 warmup=0",
	.unread = unread,
	.headline_key = "round_trip_ns_*",
	.headline_chart = C2C_LATENCY,
	.title = "Core-to-core latency",
	.summary =
		"Two pinned threads pass one cache line back and forth: the "
		"round trip between pairs of CPUs, as a matrix, by what they "
		"share",
	.section = "6.4",
	.explain =
		"Two threads, pinned to two CPUs, share one cache line and "
		"nothing else. The first writes a number into it; the second "
		"waits until it sees that number and writes the next one; the "
		"first waits for that, and so on. Each handover makes the line "
		"move to the other core's cache (the reader's request pulls it "
		"across, the write then takes it exclusively), so a round trip "
		"is the time for the line to travel there and back. A cell is "
		"the median over many samples, each averaging many round "
		"trips, and every pair gets a fresh line of its own.\n\n"
		"Which pairs: on a machine of up to 16 CPUs every ordered "
		"pair (pairs=all). Above that the whole matrix grows with the "
		"square of the CPUs (a million pairs on 1,024 CPUs), so by "
		"default numalab reads the topology and measures a few pairs "
		"of each relation it has (pairs=by_relation): SMT siblings, "
		"cores sharing an L2 or an L3, cores of one package sharing "
		"no cache, and cores of two packages at each NUMA distance, "
		"spread over the machine. Cells not measured stay empty. "
		"pairs=sample:N takes N pairs evenly over the matrix.\n\n"
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
	EXPERIMENT_PARTS(c2c),
	.plan = c2c_plan_view,
	.check = c2c_check,
};
