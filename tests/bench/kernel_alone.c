/* kernel_alone.c - an experiment's run() called directly, with a sink that only keeps numbers */
/*
 * usage: kernel_alone NAME [k=v ...]
 * The harness-overhead baseline: no JSON, no pipe, no server. Parses the
 * params the way the worker does (same table, same defaults), calls the
 * descriptor's run() and prints, after it returns, one tab-separated line
 * per point, cell and summary:
 *   point  CHART  SERIES  X  Y  UNIT
 *   cell   CHART  ROW  COL  VALUE  UNIT
 *   summary  KEY  VALUE  UNIT
 * Nothing is printed while the kernel runs, so its timing sees no I/O.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "experiment.h"
#include "registry.h"

#define MAX_LINES 65536

static char *lines[MAX_LINES];
static int nlines;

static void keep(char *s)
{
	if (s && nlines < MAX_LINES)
		lines[nlines++] = s;
	else
		free(s);
}

static const char *str(const char *s)
{
	return s ? s : "";
}

static void on_point(void *ctx, const struct point *p)
{
	char *s = NULL;

	(void)ctx;
	if (asprintf(&s, "point\t%s\t%s\t%.17g\t%.17g\t%s", str(p->chart),
		     str(p->series), p->x, p->y, str(p->unit)) < 0)
		s = NULL;
	keep(s);
}

static void on_cell(void *ctx, const struct cell *c)
{
	char *s = NULL;

	(void)ctx;
	if (asprintf(&s, "cell\t%s\t%d\t%d\t%.17g\t%s", str(c->chart), c->row,
		     c->col, c->note ? -1.0 : c->value, str(c->unit)) < 0)
		s = NULL;
	keep(s);
}

static void on_summary(void *ctx, const char *key, double value,
		       const char *unit)
{
	char *s = NULL;

	(void)ctx;
	if (asprintf(&s, "summary\t%s\t%.17g\t%s", str(key), value, str(unit)) <
	    0)
		s = NULL;
	keep(s);
}

static void on_note(void *ctx, const char *level, const char *text)
{
	(void)ctx;
	if (!strcmp(level, "warn"))
		fprintf(stderr, "kernel_alone: %s\n", text);
}

static const struct sink_ops ops = {
	.point = on_point,
	.cell = on_cell,
	.note = on_note,
	.summary = on_summary,
};

int main(int argc, char **argv)
{
	static volatile sig_atomic_t never;
	const struct experiment *e;
	struct param_values *pv;
	struct common_params common;
	void *params;
	struct errinfo err;
	struct sink sink = {.ops = &ops};
	struct topo *t;
	int rc;

	if (argc < 2) {
		fprintf(stderr, "usage: kernel_alone NAME [k=v ...]\n");
		return 2;
	}
	e = experiment_find(argv[1]);
	if (!e) {
		fprintf(stderr, "kernel_alone: unknown experiment '%s'\n",
			argv[1]);
		return 2;
	}
	t = topo_load();
	pv = calloc(1, sizeof(*pv));
	params = calloc(1, e->params_size ? e->params_size : 1);
	if (!t || !pv || !params) {
		fprintf(stderr, "kernel_alone: %s\n",
			strerror(errno ? errno : ENOMEM));
		return 1;
	}
	if (experiment_parse(e, t, argc - 2, argv + 2, pv, params, &common,
			     &err)) {
		fprintf(stderr, "kernel_alone %s: %s\n", e->name, err.msg);
		return 2;
	}
	struct run_ctx ctx = {.exp = e,
			      .params = params,
			      .common = common,
			      .topo = t,
			      .sink = &sink,
			      .cancel = &never};
	rc = e->run(&ctx);
	for (int i = 0; i < nlines; i++) {
		puts(lines[i]);
		free(lines[i]);
	}
	if (rc)
		fprintf(stderr, "kernel_alone %s: %s\n", e->name,
			strerror(-rc));
	free(params);
	free(pv);
	topo_free(t);
	return rc ? 1 : 0;
}
