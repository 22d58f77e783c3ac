/* experiment.h - the descriptor every experiment exports, and its run context */
#ifndef NUMALAB_EXPERIMENT_H
#define NUMALAB_EXPERIMENT_H

#include <signal.h>
#include <stdint.h>

#include "params.h"
#include "sink.h"
#include "topo.h"

/* How the page draws one chart; points name their chart by id. */
enum chart_kind {
	CHART_LINE,   /* x numeric, one line per series */
	CHART_BAR,    /* x is a category (or thread count), bars grouped by series */
	CHART_HEATMAP /* cells: row, col, value */
};

struct chart {
	const char *id;
	enum chart_kind kind;
	const char *title;
	const char *x_label;
	const char *y_label;
	int log_x; /* draw x on a log scale */
};

/* A figure the article published, drawn beside this machine's as a labelled reference. */
struct reference {
	const char *chart;
	const char *series; /* names the source: "article 2007: 4x Pentium 4" */
	double x;
	const char *x_label; /* for categorical charts, or NULL */
	double y;
	const char *unit;
};

/* The params every experiment takes, filled by experiment_parse. */
struct common_params {
	int64_t repeat, warmup;
	/* only for experiments with uses_placement; else empty and PLACE_SPREAD */
	struct int_list cpus;
	int placement; /* enum place_strategy */
};

struct run_ctx {
	const struct experiment *exp;
	/* the experiment's own struct (exp->params_size bytes), filled by its table */
	const void *params;
	struct common_params common;
	const struct topo *topo;
	struct sink *sink;
	volatile sig_atomic_t *cancel; /* set by SIGTERM/SIGINT: stop soon */
};

struct experiment {
	const char *name;    /* identifier used by the API and the CLI */
	const char *title;   /* for the page */
	const char *summary; /* one line */
	const char *explain; /* a few paragraphs, plain text, blank line separated */
	const char *section; /* where the article discusses it, "6.4.1" */
	const struct param *params; /* NULL-name-terminated */
	size_t params_size;	    /* sizeof the struct its rows' offsets point into */
	const struct chart *charts; /* NULL-id-terminated */
	const struct reference *references; /* NULL-chart-terminated, may be NULL */
	/*
	 * Every summary key the run may emit, as fnmatch(3) patterns
	 * ("slowdown_*_threads*"); NULL-terminated, may be NULL (none).
	 */
	const char *const *summary_keys;
	int uses_placement;	   /* takes the common cpus/placement params */
	int min_nodes;		   /* NUMA nodes it needs to show anything; 0/1: none */
	/*
	 * Checks what the param table alone cannot (relations between
	 * params, what the machine allows) before anything is allocated.
	 * May be NULL. Returns 0 or -EINVAL with err set.
	 */
	int (*check)(const void *params, const struct common_params *common,
		     const struct topo *t, struct errinfo *err);
	/* Runs it. Returns 0, -ECANCELED when ctx->cancel was seen, or -errno. */
	int (*run)(struct run_ctx *ctx);
	/*
	 * A rough upper estimate of the run's wall time (seconds) and of the
	 * memory it allocates (bytes), so a server can refuse a request over
	 * its limits before it starts. May be NULL (then: unknown).
	 */
	void (*estimate)(const void *params, const struct common_params *common,
			 const struct topo *t, double *seconds, uint64_t *bytes);
};

/* The registry: a NULL-terminated table of every experiment. */
extern const struct experiment *const experiments[];
const struct experiment *experiment_find(const char *name);

/* Params every experiment takes: cpus, placement, repeat, warmup. */
extern const struct param common_params[];
extern const struct param placement_params[];

/*
 * Parses CLI/API k=v assignments for exp (its table + the common ones),
 * then runs the descriptor's check and the placement check against t.
 * pv (the text forms, as recorded and passed to the worker) must be
 * calloc'ed by the caller. params (exp->params_size bytes) and common
 * receive the typed values; either may be NULL when only the text forms
 * are wanted. Returns 0 or -EINVAL with err set.
 */
int experiment_parse(const struct experiment *exp, const struct topo *t,
		     int argc, char *const *argv, struct param_values *pv,
		     void *params, struct common_params *common,
		     struct errinfo *err);

/*
 * Parses the params of a run already made (the normalised k=v texts it
 * recorded) into the typed struct, without asking anything of this
 * machine: no trimmed defaults, no placement plan and no check hook, so a
 * run made elsewhere reads back the same. For code that describes a stored
 * run. Returns 0 or -EINVAL with err set.
 */
int experiment_parse_recorded(const struct experiment *exp, int argc,
			      char *const *argv, struct param_values *pv,
			      void *params, struct common_params *common,
			      struct errinfo *err);

/*
 * Checks a descriptor against itself: table size, offsets inside
 * params_size, choice lists, defaults that parse, chart ids unique and
 * every reference naming a declared chart. Returns 0 or -EINVAL with err
 * naming the first problem.
 */
int experiment_validate(const struct experiment *exp, struct errinfo *err);

/* Whether exp declares chart id / a summary_keys pattern matching key. */
int experiment_declares_chart(const struct experiment *exp, const char *id);
int experiment_declares_summary(const struct experiment *exp, const char *key);

/*
 * Runs exp with ctx, its sink checking every chart id and summary key
 * against the descriptor. Returns what the run returns, or -EPROTO with
 * err set when the run emitted an id its descriptor does not declare (the
 * results are then not to be trusted to draw or import).
 */
int experiment_run(struct run_ctx *ctx, struct errinfo *err);

/*
 * The CPU for each of nthreads threads, from the request's cpus and
 * placement params. Returns 0 or -EINVAL with err set.
 */
int experiment_plan(const struct run_ctx *ctx, int nthreads, int *cpus,
		    struct errinfo *err);

#endif
