/* descriptor.h - the descriptor every experiment exports, and its run context: types only */
#ifndef NUMALAB_DESCRIPTOR_H
#define NUMALAB_DESCRIPTOR_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "params.h"

/*
 * What the descriptor points at, declared where its rows are built:
 * labels.h (key_label), rules.h (rule), sink.h (sink), verdict.h (verdict,
 * run_result), topo.h (topo), adapt.h (adapt_run), strbuf.h (strbuf). This
 * header includes none of them, so that any of those may read a descriptor
 * without a circle of includes.
 */
struct adapt_run;
struct key_label;
struct rule;
struct run_result;
struct sink;
struct strbuf;
struct topo;
struct verdict;

/* How the page draws one chart; points name their chart by id. */
enum chart_kind {
	CHART_LINE, /* x numeric, one line per series */
	CHART_BAR,  /* x is a category (or thread count), bars grouped by series
		     */
	CHART_HEATMAP /* cells: row, col, value */
};

/*
 * The most series one chart of a run holds: past it a chart takes seconds
 * to draw and says nothing a person can read. An import refuses more
 * (import.h), so an experiment that makes a series of each value of a
 * list refuses, before it runs, a list that would make more.
 */
#define CHART_MAX_SERIES 128

/*
 * The most summary values one run records, the harness's own included:
 * an import refuses a document with more (the RunDocument schema's
 * summary maxProperties), so an experiment whose values grow with a list
 * refuses, before it runs, lists that would make more (summary_room).
 */
#define RUN_SUMMARY_MAX 1024

struct chart {
	const char *id;
	enum chart_kind kind;
	const char *title;
	const char *x_label;
	const char *y_label;
	int log_x; /* draw x on a log scale */
	int log_y; /* draw y on a log scale (values that span decades) */
	/*
	 * When y grows with a param's count of operations (the wall time of
	 * a round of increments= each), that param's name and what one
	 * operation is ("increment"): runs of different sizes are compared
	 * per operation, y divided by the param's value. NULL when y does
	 * not grow with the run's size.
	 */
	const char *per_param, *per;
	/*
	 * The series (a glob: "L* cache") that mark a place on the x axis (a
	 * cache's size) rather than measure: drawn as a labelled line across
	 * the plot, printed as words beside the row they mark. NULL: none.
	 */
	const char *marks;
};

/* A figure the article published, drawn beside this machine's as a labelled
 * reference. */
struct reference {
	/*
	 * The one place an article figure lives: .id names it for the
	 * lessons (struct lesson .figure) and describe rules
	 * (experiment_figure), .words says it in a sentence ("390% of the
	 * separate-line time with 2 threads on four Pentium 4 processors
	 * (2007)"). Both may be NULL for a figure only drawn.
	 */
	const char *id, *words;
	const char *chart;
	const char *series; /* names the source: "article 2007: 4x Pentium 4" */
	double x;
	const char *x_label; /* for categorical charts, or NULL */
	double y;
	const char *unit;
	/*
	 * When y is the total of a run larger than ours (0.23 s for 4 threads
	 * x 1M increments), the operations it covers (4e6), what one is
	 * ("increment") and this experiment's chart of the same figure per
	 * operation ("ns"): the CLI and --json set it beside our points per
	 * operation. 0 / NULL when y is already comparable.
	 */
	double ops;
	const char *per, *per_chart;
};

/*
 * One chart or reference per call; anything more (.log_x, .x_label,
 * .ops, .per, .per_chart) follows as designated initialisers.
 */
#define CHART(i, k, t, xl, yl, ...)                                            \
	{                                                                      \
		.id = (i), .kind = (k), .title = (t), .x_label = (xl),         \
		.y_label = (yl), __VA_ARGS__                                   \
	}
#define REFERENCE(c, s, xv, yv, u, ...)                                        \
	{                                                                      \
		.chart = (c), .series = (s), .x = (xv), .y = (yv),             \
		.unit = (u), __VA_ARGS__                                       \
	}

/*
 * A lesson for the classroom: a question the class answers with a guess
 * before a run with these params (each under 10 s on 2 cores, and never
 * over the server's estimate limit), then the run's answer beside the
 * article's figure.
 */
struct lesson {
	const char *id;	      /* unique within its experiment */
	const char *title;    /* a few words, for the picker */
	const char *question; /* asked before the run */
	const char *params;   /* "k=v k=v": what the run is started with */
	const char *unit;     /* of the guess and of the answer: "x", "ns" */
	/*
	 * The summary key that answers it, or an fnmatch(3) pattern: the
	 * run's first summary key it matches.
	 */
	const char *answer;
	const char *chart; /* the chart that shows it */
	/* the id of the article's figure (struct reference .id) it is set
	 * beside, or NULL; with figure_over, the ratio of the two figures
	 * (cas over fetch_add: 0.73 s / 0.21 s) */
	const char *figure, *figure_over;
	/* the fewest cpus on which it can show anything (0: 2); fewer make
	 * its precheck say "cannot" */
	int min_cpus;
};

/* One lesson per call; .figure follows where it has one. */
#define LESSON(i, t, q, p, u, a, c, ...)                                       \
	{                                                                      \
		.id = (i), .title = (t), .question = (q), .params = (p),       \
		.unit = (u), .answer = (a), .chart = (c), __VA_ARGS__          \
	}

/*
 * A descriptor's usual fields, from the names every experiment file gives
 * them: its tables params (filling PARAM_STRUCT), charts, summary_keys,
 * summary_labels, lessons, rules and compared, and its hooks <prefix>_run,
 * _describe, _precheck, _estimate: the four every registered experiment
 * has. A field it does not name keeps its default unless the descriptor
 * sets it: no placement params, no NUMA nodes needed, a precision of 0.05,
 * and no check, plan, references, series_labels or parts.
 */
#define EXPERIMENT_PARTS(prefix)                                               \
	.params = params, .params_size = sizeof(PARAM_STRUCT),                 \
	.charts = charts, .summary_keys = summary_keys,                        \
	.summary_labels = summary_labels, .lessons = lessons, .rules = rules,  \
	.compared = compared, .run = prefix##_run,                             \
	.describe = prefix##_describe, .precheck = prefix##_precheck,          \
	.estimate = prefix##_estimate

/*
 * A param every experiment takes (repeat, warmup, budget), or a placement
 * param (cpus, placement), that one never reads, and what does its job
 * there instead ("its timed rounds per pair are 'samples'"): a row of its
 * descriptor's .unread. With .only, the param is read after all where
 * that holds, as a row's own .only says it ("modes=created_pinned,..."
 * names one of the experiment's own params), beside the param's own.
 */
struct unread_param {
	const char *param;
	const char *why;
	const char *only;
};

/* The params every experiment takes, filled by experiment_parse. */
struct common_params {
	int64_t repeat, warmup;
	/*
	 * Seconds the run's rounds may grow into (adapt.h): ADAPT_BUDGET_AUTO
	 * (-1) for a few times its estimate; 0 for exactly repeat rounds.
	 */
	double budget;
	/* only for experiments with uses_placement; else empty and PLACE_SPREAD
	 */
	struct int_list cpus;
	int placement; /* enum place_strategy */
};

struct run_ctx {
	const struct experiment *exp;
	/* the experiment's own struct (exp->params_size bytes), filled by its
	 * table */
	const void *params;
	struct common_params common;
	const struct topo *topo;
	struct sink *sink;
	volatile sig_atomic_t *cancel; /* set by SIGTERM/SIGINT: stop soon */
	/*
	 * The run's account of rounds kept and redone (adapt.h), set by
	 * experiment_run; NULL: every point takes exactly repeat rounds.
	 */
	struct adapt_run *adapt;
	/* The most seconds the run may take (a server's limit); 0: none. */
	double max_seconds;
};

/*
 * One part of an experiment of several (read-only data, then
 * accumulation, then migration): a row of its descriptor's .parts and a
 * file of its folder. The experiment's run() prepares what the parts
 * share (a plan) and hands it to experiment_run_parts, which runs each
 * part the run's params select, in order; its describe() hands a headline
 * buffer to experiment_describe_parts, which asks each selected part in
 * order; its estimate may be experiment_estimate_parts, the sum of the
 * selected parts' estimates (the harness uses that sum when an
 * experiment with parts has no estimate of its own).
 *
 * The budget the points' rounds grow into (adapt.h) is split between the
 * selected parts: as each starts, it gets a share of what is left,
 * weighted by its estimate against those of the selected parts not yet
 * run (equal shares when one of them has no estimate), and its points
 * share that over its steps. A part with few long points gets the time
 * its estimate says it needs, not what its few steps would get among a
 * run of many short ones. When a selected part does not give its steps,
 * there is no split: every point shares what is left over the steps the
 * run's progress has left, as in a run of one part.
 */
struct part {
	const char *name; /* "readonly": unique within its experiment */
	/* Measures the part from state (what run() prepared). Returns 0,
	 * -ECANCELED when ctx->cancel was seen, or -errno: the parts after
	 * it are not run. */
	int (*run)(struct run_ctx *ctx, const void *state);
	/* Says what the part showed (notes) and its share of the headline
	 * into head (len bytes): the first part that has one writes it when
	 * head is empty, or each adds its sentence after the last's, as the
	 * experiment's describe() joins them. */
	void (*describe)(const struct run_result *r, struct verdict *v,
			 char *head, size_t len);
	/* Seconds (and bytes) the part alone takes, as the experiment's
	 * estimate hook; NULL: the experiment estimates the whole run. */
	void (*estimate)(const void *params, const struct common_params *common,
			 const struct topo *t, double *seconds,
			 uint64_t *bytes);
	/* Whether the run's params select the part; NULL: the experiment's
	 * parts_param says, or without one every run measures it. An
	 * unselected part is neither run, nor described, nor estimated. */
	int (*wanted)(const void *params);
	/* The names of the params the part alone reads, NULL-terminated; NULL:
	 * only those every part shares. */
	const char *const *reads;
	/* Its steps: the progress events it sends, one before each point,
	 * whatever the params; 0: not said (no budget split, above). */
	int steps;
};

/*
 * Declares the hooks of a part, <name>_run, <name>_say, <name>_estimate
 * and <name>_wanted, as struct part takes them: one line a part in its
 * experiment's header (a part defines the ones its row names).
 */
#define PART_HOOKS(name)                                                       \
	int name##_run(struct run_ctx *ctx, const void *state);                \
	void name##_say(const struct run_result *r, struct verdict *v,         \
			char *head, size_t len);                               \
	void name##_estimate(                                                  \
		const void *params, const struct common_params *common,        \
		const struct topo *t, double *seconds, uint64_t *bytes);       \
	int name##_wanted(const void *params)

struct experiment {
	const char *name;    /* identifier used by the API and the CLI */
	const char *title;   /* for the page */
	const char *summary; /* one line */
	const char *explain; /* a few paragraphs, plain text, blank line
				separated */
	const char *section; /* where the article discusses it, "6.4.1" */
	const struct param *params; /* NULL-name-terminated */
	size_t params_size; /* sizeof the struct its rows' offsets point into */
	const struct chart *charts; /* NULL-id-terminated */
	const struct reference
		*references; /* NULL-chart-terminated, may be NULL */
	/*
	 * Every summary key the run may emit, as fnmatch(3) patterns
	 * ("slowdown_*_threads*"); NULL-terminated, may be NULL (none).
	 */
	const char *const *summary_keys;
	/*
	 * The words and unit of each summary key (struct key_label): every
	 * summary_keys pattern must be matched by a row; a row's '*'s fill
	 * its label's "%s"s ("slowdown_*_threads" -> "slowdown with %s
	 * threads", "×"). The harness's own keys (rounds_kept, ...) are
	 * labelled once in labels.c. Required when summary_keys is set.
	 */
	const struct key_label *summary_labels;
	/*
	 * Words for the series whose names are not already words
	 * ("c11_seq_cst" -> "C11 atomic, seq_cst"); a series no row matches
	 * is shown by its name. May be NULL.
	 */
	const struct key_label *series_labels;
	/*
	 * The headline figure: the summary key (a summary_keys pattern or a
	 * key it matches) and the chart a page shows first. May be NULL.
	 */
	const char *headline_key, *headline_chart;
	/*
	 * The smallest run that still draws its charts ("k=v k=v"): the
	 * registry test runs it and checks every chart id and summary key it
	 * emits against this descriptor. Required.
	 */
	const char *smoke;
	int uses_placement; /* takes the common cpus/placement params */
	int min_nodes; /* NUMA nodes it needs to show anything; 0/1: none */
	/*
	 * The share (0-1) of its estimate whose rounds never grow into the
	 * adaptive budget (work timed on its own threads, not through the
	 * team harness or bw_measure): experiment_estimate adds budget only
	 * for the rest. 0: all of it may grow.
	 */
	double fixed_share;
	/*
	 * 1: its rounds advance only while two of its threads run at once (a
	 * line handed back and forth): on a busy machine they slow by about
	 * the square of what one thread's share of a cpu says (estimate_now).
	 */
	int lockstep;
	/*
	 * Checks what the param table alone cannot (relations between
	 * params, what the machine allows) before anything is allocated.
	 * May be NULL. Returns 0 or -EINVAL with err set.
	 */
	int (*check)(const void *params, const struct common_params *common,
		     const struct topo *t, struct errinfo *err);
	/*
	 * Before the run: for each comparison the run would state, whether
	 * the resolved placement and this machine can show it. Adds a note
	 * of level "cannot" per comparison that cannot be shown (one
	 * sentence: what, and why), "warn" for one that can only be shown
	 * weakly. The run stays allowed; the page shows these as badges on
	 * the form. Pure: reads only its arguments. Required of a registered
	 * experiment (as describe and estimate are: EXPERIMENT_PARTS names all
	 * four hooks, test_registry checks them); only a test's own descriptor
	 * goes without, and the harness then says nothing before the run.
	 */
	void (*precheck)(const void *params, const struct common_params *common,
			 const struct topo *t, struct verdict *v);
	/* Runs it: measures and emits points and summary values, no verdict.
	 * Returns 0, -ECANCELED when ctx->cancel was seen, or -errno. */
	int (*run)(struct run_ctx *ctx);
	/*
	 * Says what a run showed: its headline and interpretive notes, from
	 * the run alone (points, summary, observed placement, the facts of
	 * the machine it ran on), after checking that every comparison it
	 * states is valid there; when one is not, it says what could not be
	 * shown and why instead. Pure, so a stored or imported run can be
	 * described again with today's rules. Required of a registered
	 * experiment; without one (a test's descriptor) a run has no headline.
	 */
	void (*describe)(const struct run_result *r, struct verdict *v);
	/*
	 * A rough upper estimate of the run's wall time (seconds) and of the
	 * memory it allocates (bytes), so a server can refuse a request over
	 * its limits before it starts. Required of a registered experiment;
	 * without one (a test's descriptor) the cost is unknown. Build it
	 * from this machine's measured rates, never from constants: the
	 * run's work (rounds x operations, bytes streamed, pages touched,
	 * teams started, round trips) times what rates_get() (rates.h) says
	 * each costs here, with the helpers of workcost.h. Aim for an honest,
	 * slightly high figure: estimate / actual within 0.5-2x (the bench's
	 * estimate row checks it). Call it through experiment_estimate.
	 */
	void (*estimate)(const void *params, const struct common_params *common,
			 const struct topo *t, double *seconds,
			 uint64_t *bytes);
	/*
	 * Where the run would put its threads and its memory on t, before
	 * it runs, as lines (plan_view.h helps): cpus, nodes, pairs or
	 * cells, so that a plan can be checked on a topology file with
	 * `numalab estimate`. Pure. May be NULL (the machine's part only).
	 */
	void (*plan)(const void *params, const struct common_params *common,
		     const struct topo *t, struct strbuf *out);
	/*
	 * 1-3 lessons for the classroom, NULL-id-terminated: required of a
	 * registered experiment (test_lessons checks 1 to 3); NULL only in a
	 * test's own descriptor.
	 */
	const struct lesson *lessons;
	/*
	 * The rulebook (rules.h): what its comparisons need, RULE_END-
	 * terminated; checked by shared code before and after every run.
	 * May be NULL only for an experiment that compares nothing.
	 */
	const struct rule *rules;
	/*
	 * The summary keys (fnmatch patterns) that state a comparison: the
	 * harness marks them disowned when a rule fails. NULL-terminated,
	 * may be NULL.
	 */
	const char *const *compared;
	/*
	 * The smallest relative difference this experiment calls a
	 * difference (0.05 = 5%): the tol of its comparisons (compare.h) and
	 * what the adaptive rounds aim to resolve. 0: 0.05.
	 */
	double precision;
	/*
	 * The parts, in the order they run, for an experiment of several
	 * (struct part); NULL-name-terminated. NULL: one part, all of it in
	 * run() and describe().
	 */
	const struct part *parts;
	/*
	 * The params every experiment takes that this one never reads,
	 * NULL-param-terminated; NULL: it reads them all. A request that
	 * gives one is refused with its why, the API schema marks it
	 * ("unread"), and the page and --help leave it out.
	 */
	const struct unread_param *unread;
	/*
	 * The param (an enum or a set) whose choices are named as the parts
	 * (mode=, parts=): a part without a .wanted hook is selected when its
	 * name is the choice, or among the choices. NULL: such a part always
	 * is.
	 */
	const char *parts_param;
};

#endif
