/* sink.h - how kernels emit results, without knowing about JSON or terminals */
#ifndef NUMALAB_SINK_H
#define NUMALAB_SINK_H

#include <stddef.h>

struct stats;	   /* stats.h */
struct experiment; /* experiment.h */

/* Where each thread of a team really ran. */
struct thread_place {
	int thread;
	int cpu_requested;
	int cpu_observed; /* sched_getcpu inside the thread, -1 if unknown */
	int core, package, node;
	int l2, l3; /* cache instance ids (hwloc logical index), -1 if none */
};

/*
 * A point: one (series, x) of one chart. y is the median of samples;
 * samples are every raw measurement (n may be 1). x_label names a
 * categorical x (a variant, a CPU pair), NULL for a plain number.
 */
struct point {
	const char *chart;
	const char *series;
	double x;
	const char *x_label;
	double y;
	const char *unit;
	const double *samples;
	int nsamples;
	/* extra numbers to keep with the point (key/value), e.g. "lost": 12 */
	const char *const *extra_keys;
	const double *extra_vals;
	int nextra;
};

/* A heatmap cell. */
struct cell {
	const char *chart;
	int row, col;
	const char *row_label, *col_label;
	double value; /* median */
	const char *unit;
	const double *samples;
	int nsamples;
	const char
		*note; /* why a cell has no value ("needs 2 nodes"), or NULL */
};

struct sink_ops {
	void (*point)(void *ctx, const struct point *p);
	void (*cell)(void *ctx, const struct cell *c);
	void (*placement)(void *ctx, const char *label,
			  const struct thread_place *tp, int n);
	/* part: the running part's name (struct part .name) in an experiment
	 * of several, NULL in one of a single part */
	void (*progress)(void *ctx, double done, double total, const char *what,
			 const char *part);
	void (*note)(void *ctx, const char *level, const char *text);
	/* One number of the run's summary, e.g. "overhead_2_threads" = 6.1 */
	void (*summary)(void *ctx, const char *key, double value,
			const char *unit);
	/*
	 * The same number again with the 95% interval the verdict states
	 * beside it (a ratio: "4.0× (3.7–4.3)"), sent after the run by the
	 * verdict: a reader keeps it in place of the plain value. A sink
	 * without it gets summary() again.
	 */
	void (*summary_interval)(void *ctx, const char *key, double value,
				 double lo, double hi, const char *unit);
	/* The one sentence that names the outcome. */
	void (*headline)(void *ctx, const char *text);
	/*
	 * A summary key (or an fnmatch pattern of keys) the verdict does not
	 * state as measured: kind "disowned" (no valid measurement stands
	 * behind it) or "at_least" (a lower bound); why is the verdict's
	 * sentence. Sent before the headline.
	 */
	void (*qualify)(void *ctx, const char *key, const char *kind,
			const char *why);
	/*
	 * A part of the run that was asked for and not run: label names it
	 * as a placement would ("placement=split"), why says why in words.
	 * A sink without it passes it on to next, or with no next gets a
	 * warn note "label: skipped: why".
	 */
	void (*skipped)(void *ctx, const char *label, const char *why);
};

struct sink {
	const struct sink_ops *ops;
	void *ctx;
	/*
	 * The sink this one stands before, or NULL: every call its ops leave
	 * NULL goes on to next unchanged, so a sink that watches or keeps
	 * some of the events (the run's account of rounds, the record a
	 * verdict reads) names only those.
	 */
	struct sink *next;
	/*
	 * While set (experiment_run sets it), every chart id and summary key
	 * is checked against this descriptor; the first one it does not
	 * declare is written to undeclared ("chart 'tme'").
	 */
	const struct experiment *declared;
	char undeclared[128];
};

void sink_point(struct sink *s, const struct point *p);
/* Shorthand for a point with one sample and no label. */
void sink_xy(struct sink *s, const char *chart, const char *series, double x,
	     double y, const char *unit);
void sink_cell(struct sink *s, const struct cell *c);
void sink_placement(struct sink *s, const char *label,
		    const struct thread_place *tp, int n);
void sink_progress(struct sink *s, double done, double total, const char *what);
/* The same, naming the part it comes from: what the harness passes on for
 * an experiment of parts (experiment_run_parts), which calls sink_progress. */
void sink_progress_part(struct sink *s, double done, double total,
			const char *what, const char *part);
void sink_note(struct sink *s, const char *level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void sink_summary(struct sink *s, const char *key, double value,
		  const char *unit);
/* A summary value with its 95% interval lo..hi (see summary_interval). */
void sink_summary_interval(struct sink *s, const char *key, double value,
			   double lo, double hi, const char *unit);
void sink_headline(struct sink *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* While the sink checks declared ids, a key that covers no declared summary
 * key (nor "*") is undeclared. */
void sink_qualify(struct sink *s, const char *key, const char *kind,
		  const char *why);
/* A part asked for and not run, and why: data a reader need not parse. */
void sink_skipped(struct sink *s, const char *label, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
