/* sink_record.c - a sink that passes everything on and keeps what describe() and the table need */
#include "sink_record.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"

/* A copy of s, NULL for NULL (and for no memory: oom set). */
static char *keep(struct record *r, const char *s)
{
	char *d = s ? strdup(s) : NULL;

	if (s && !d)
		r->oom = 1;
	return d;
}

/* Makes room for one more element. Returns 0 or -1 (oom set). */
static int room(struct record *r, void **arr, int n, int *cap, size_t size)
{
	void *p;
	int c;

	if (n < *cap)
		return 0;
	c = *cap ? *cap * 2 : 16;
	p = realloc(*arr, (size_t)c * size);
	if (!p) {
		r->oom = 1;
		return -1;
	}
	*arr = p;
	*cap = c;
	return 0;
}

static void on_point(void *ctx, const struct point *p)
{
	struct record *r = ctx;
	struct result_point *q;
	struct stats s;

	sink_point(r->sink.next, p);
	if (room(r, (void **)&r->points, r->npoints, &r->cap_points,
		 sizeof(*r->points)))
		return;
	q = &r->points[r->npoints++];
	stats_compute(p->samples, p->nsamples, &s);
	q->chart = keep(r, p->chart);
	q->series = keep(r, p->series);
	q->x_label = keep(r, p->x_label);
	q->unit = keep(r, p->unit);
	q->x = p->x;
	q->y = p->y;
	q->n = p->nsamples;
	q->ci_lo = p->nsamples > 0 ? s.ci_lo : p->y;
	q->ci_hi = p->nsamples > 0 ? s.ci_hi : p->y;
	q->min = p->nsamples > 0 ? s.min : p->y;
	q->max = p->nsamples > 0 ? s.max : p->y;
	q->extra_keys = NULL;
	q->extra_vals = NULL;
	q->nextra = 0;
	if (p->nextra > 0) {
		char **keys = calloc((size_t)p->nextra, sizeof(*keys));
		double *vals = calloc((size_t)p->nextra, sizeof(*vals));
		if (!keys || !vals) {
			free(keys);
			free(vals);
			r->oom = 1;
			return;
		}
		for (int i = 0; i < p->nextra; i++) {
			keys[i] = keep(r, p->extra_keys[i]);
			vals[i] = p->extra_vals[i];
		}
		q->extra_keys = (const char *const *)keys;
		q->extra_vals = vals;
		q->nextra = p->nextra;
	}
}

static void on_cell(void *ctx, const struct cell *c)
{
	struct record *r = ctx;
	struct result_cell *q;
	struct stats s;

	sink_cell(r->sink.next, c);
	if (room(r, (void **)&r->cells, r->ncells, &r->cap_cells,
		 sizeof(*r->cells)))
		return;
	q = &r->cells[r->ncells++];
	q->chart = keep(r, c->chart);
	q->row = c->row;
	q->col = c->col;
	q->row_label = keep(r, c->row_label);
	q->col_label = keep(r, c->col_label);
	q->unit = keep(r, c->unit);
	q->value = c->nsamples > 0 || !c->note ? c->value : NAN;
	q->note = keep(r, c->note);
	stats_compute(c->samples, c->nsamples, &s);
	q->n = c->nsamples;
	q->ci_lo = c->nsamples > 0 ? s.ci_lo : q->value;
	q->ci_hi = c->nsamples > 0 ? s.ci_hi : q->value;
}

static void on_placement(void *ctx, const char *label,
			 const struct thread_place *tp, int n)
{
	struct record *r = ctx;
	struct result_placement *q;
	struct thread_place *t;

	sink_placement(r->sink.next, label, tp, n);
	if (room(r, (void **)&r->placements, r->nplacements, &r->cap_placements,
		 sizeof(*r->placements)))
		return;
	t = calloc(n > 0 ? (size_t)n : 1, sizeof(*t));
	if (!t) {
		r->oom = 1;
		return;
	}
	if (n > 0)
		memcpy(t, tp, (size_t)n * sizeof(*t));
	q = &r->placements[r->nplacements++];
	q->label = keep(r, label);
	q->t = t;
	q->n = n;
}

static void keep_summary(struct record *r, const char *key, double value,
			 const char *unit)
{
	struct result_summary *q;

	if (room(r, (void **)&r->summary, r->nsummary, &r->cap_summary,
		 sizeof(*r->summary)))
		return;
	q = &r->summary[r->nsummary++];
	q->key = keep(r, key);
	q->value = value;
	q->unit = keep(r, unit);
}

static void on_summary(void *ctx, const char *key, double value,
		       const char *unit)
{
	struct record *r = ctx;

	sink_summary(r->sink.next, key, value, unit);
	keep_summary(r, key, value, unit);
}

/* the interval goes on to the next sink; the value is kept as a summary's */
static void on_summary_interval(void *ctx, const char *key, double value,
				double lo, double hi, const char *unit)
{
	struct record *r = ctx;

	sink_summary_interval(r->sink.next, key, value, lo, hi, unit);
	keep_summary(r, key, value, unit);
}

static const struct sink_ops record_ops = {
	.point = on_point,
	.cell = on_cell,
	.placement = on_placement,
	.summary = on_summary,
	.summary_interval = on_summary_interval,
};

void record_init(struct record *r, struct sink *next)
{
	memset(r, 0, sizeof(*r));
	r->sink.ops = &record_ops;
	r->sink.ctx = r;
	r->sink.next = next;
}

void record_free(struct record *r)
{
	for (int i = 0; i < r->npoints; i++) {
		free((char *)r->points[i].chart);
		free((char *)r->points[i].series);
		free((char *)r->points[i].x_label);
		free((char *)r->points[i].unit);
		for (int k = 0; k < r->points[i].nextra; k++)
			free((char *)r->points[i].extra_keys[k]);
		free((void *)r->points[i].extra_keys);
		free((void *)r->points[i].extra_vals);
	}
	for (int i = 0; i < r->ncells; i++) {
		free((char *)r->cells[i].chart);
		free((char *)r->cells[i].note);
		free((char *)r->cells[i].row_label);
		free((char *)r->cells[i].col_label);
		free((char *)r->cells[i].unit);
	}
	for (int i = 0; i < r->nsummary; i++) {
		free((char *)r->summary[i].key);
		free((char *)r->summary[i].unit);
	}
	for (int i = 0; i < r->nplacements; i++) {
		free((char *)r->placements[i].label);
		free((void *)r->placements[i].t);
	}
	free(r->points);
	free(r->cells);
	free(r->summary);
	free(r->placements);
	memset(r, 0, sizeof(*r));
}

void record_result(const struct record *r, struct run_result *rr)
{
	/* each array with its count */
	rr->points = r->points, rr->npoints = r->npoints;
	rr->cells = r->cells, rr->ncells = r->ncells;
	rr->summary = r->summary, rr->nsummary = r->nsummary;
	rr->placements = r->placements, rr->nplacements = r->nplacements;
}
