/* sink_table.c - a sink that keeps a run's results for the closing table, with a progress line on a terminal */
#include "sink_table.h"

#include <fnmatch.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "strbuf.h"

static char *keep(struct sink_table *t, const char *s)
{
	char *d;

	if (!s)
		return NULL;
	d = strdup(s);
	if (!d)
		t->oom = 1;
	return d;
}

/* Room for one more of *n items of size bytes in *v; 0 or -1 (t->oom set). */
static int grow(struct sink_table *t, void *v, int *n, int *alloc, size_t size)
{
	void **pv = v;

	if (*n < *alloc)
		return 0;
	int want = *alloc ? 2 * *alloc : 16;
	void *p = realloc(*pv, (size_t)want * size);
	if (!p) {
		t->oom = 1;
		return -1;
	}
	*pv = p;
	*alloc = want;
	return 0;
}

void sink_table_clear_progress(struct sink_table *t)
{
	if (t->progress_drawn) {
		fputs("\r\033[K", stderr);
		t->progress_drawn = 0;
	}
}

int sink_table_measured(const struct result_cell *c)
{
	return c->n > 0 || !c->note;
}

double sink_table_lo(const struct result_point *p)
{
	return p->n > 1 ? p->ci_lo : NAN;
}

double sink_table_hi(const struct result_point *p)
{
	return p->n > 1 ? p->ci_hi : NAN;
}

/* Keeps text once, counting repeats; label is the first context it came with.
 */
static void keep_line(struct sink_table *t, struct tab_line **v, int *n,
		      int *alloc, const char *level, const char *text,
		      const char *label)
{
	for (int i = 0; i < *n; i++)
		if (!strcmp((*v)[i].text, text) &&
		    !strcmp((*v)[i].level, level)) {
			(*v)[i].count++;
			return;
		}
	if (grow(t, v, n, alloc, sizeof(**v)))
		return;
	(*v)[*n] = (struct tab_line){.level = keep(t, level),
				     .text = keep(t, text),
				     .first = keep(t, label),
				     .count = 1};
	if ((*v)[*n].level && (*v)[*n].text)
		(*n)++;
}

static void on_placement(void *ctx, const char *label,
			 const struct thread_place *tp, int n)
{
	struct sink_table *t = ctx;
	struct strbuf sb = STRBUF_INIT;
	int moved = 0;

	for (int i = 0; i < n; i++) {
		strbuf_addf(&sb, "%st%d@cpu%d", i ? " " : "", tp[i].thread,
			    tp[i].cpu_observed);
		if (tp[i].cpu_requested < 0)
			strbuf_addstr(&sb, "(unpinned)");
		else if (tp[i].cpu_observed != tp[i].cpu_requested) {
			strbuf_addf(&sb, "(asked cpu%d)", tp[i].cpu_requested);
			moved = 1;
		}
	}
	keep_line(t, &t->places, &t->nplaces, &t->aplaces,
		  moved ? "moved" : "pinned", strbuf_str(&sb), label);
	strbuf_release(&sb);
}

static void on_progress(void *ctx, double done, double total, const char *what,
			const char *part)
{
	struct sink_table *t = ctx;

	(void)part; /* the line says what, which names the step already */
	if (!t->progress)
		return;
	/* one line, drawn again in place: \r to its start, \033[K clears the
	 * rest */
	fprintf(stderr, "\r\033[K[%3.0f%%] %.70s",
		total > 0 ? 100 * done / total : 0, what ? what : "");
	fflush(stderr);
	t->progress_drawn = 1;
}

static void on_note(void *ctx, const char *level, const char *text)
{
	struct sink_table *t = ctx;

	keep_line(t, &t->notes, &t->nnotes, &t->anotes, level, text, NULL);
}

/* The summary entry of key: the one kept, else a new one at the end. */
static struct tab_summary *summary_slot(struct sink_table *t, const char *key,
					const char *unit)
{
	struct tab_summary *s;

	for (int i = 0; key && i < t->nsummary; i++)
		if (t->summary[i].key && !strcmp(t->summary[i].key, key))
			return &t->summary[i];
	if (grow(t, &t->summary, &t->nsummary, &t->asummary, sizeof(*s)))
		return NULL;
	s = &t->summary[t->nsummary++];
	*s = (struct tab_summary){.key = keep(t, key), .unit = keep(t, unit)};
	return s;
}

static void on_summary(void *ctx, const char *key, double value,
		       const char *unit)
{
	struct tab_summary *s = summary_slot(ctx, key, unit);

	if (s) {
		s->value = value;
		s->has_interval = 0;
	}
}

/* The verdict's interval beside a value: kept with the value it came with */
static void on_summary_interval(void *ctx, const char *key, double value,
				double lo, double hi, const char *unit)
{
	struct tab_summary *s = summary_slot(ctx, key, unit);

	if (s) {
		s->value = value;
		s->lo = lo;
		s->hi = hi;
		s->has_interval = 1;
	}
}

static void on_headline(void *ctx, const char *text)
{
	struct sink_table *t = ctx;

	free(t->headline);
	t->headline = keep(t, text);
}

static void on_qualify(void *ctx, const char *key, const char *kind,
		       const char *why)
{
	struct sink_table *t = ctx;
	struct tab_qualifier *m;

	if (grow(t, &t->qualifiers, &t->nqualifiers, &t->aqualifiers,
		 sizeof(*m)))
		return;
	m = &t->qualifiers[t->nqualifiers];
	*m = (struct tab_qualifier){.key = keep(t, key),
				    .kind = keep(t, kind),
				    .why = keep(t, why)};
	/* a qualifier short of a field qualifies nothing, or the wrong thing */
	if (m->key && m->kind && m->why)
		t->nqualifiers++;
	else {
		free(m->key);
		free(m->kind);
		free(m->why);
	}
}

const struct tab_qualifier *sink_table_qualifier(const struct sink_table *t,
						 const char *key)
{
	for (int i = 0; key && i < t->nqualifiers; i++)
		if (!fnmatch(t->qualifiers[i].key, key, 0))
			return &t->qualifiers[i];
	return NULL;
}

static const struct sink_ops table_ops = {
	.placement = on_placement,
	.progress = on_progress,
	.note = on_note,
	.summary = on_summary,
	.summary_interval = on_summary_interval,
	.headline = on_headline,
	.qualify = on_qualify,
};

void sink_table_init(struct sink_table *t, const struct experiment *e,
		     FILE *out)
{
	memset(t, 0, sizeof(*t));
	t->sink.ops = &table_ops;
	t->sink.ctx = t;
	record_init(&t->rec, &t->sink);
	t->exp = e;
	t->out = out;
	t->progress = isatty(2);
}

static void free_lines(struct tab_line *v, int n)
{
	for (int i = 0; i < n; i++) {
		free(v[i].level);
		free(v[i].text);
		free(v[i].first);
	}
	free(v);
}

void sink_table_release(struct sink_table *t)
{
	sink_table_clear_progress(t);
	record_free(&t->rec);
	for (int i = 0; i < t->nsummary; i++) {
		free(t->summary[i].key);
		free(t->summary[i].unit);
	}
	for (int i = 0; i < t->nqualifiers; i++) {
		free(t->qualifiers[i].key);
		free(t->qualifiers[i].kind);
		free(t->qualifiers[i].why);
	}
	free(t->qualifiers);
	free(t->summary);
	free_lines(t->notes, t->nnotes);
	free_lines(t->places, t->nplaces);
	free(t->headline);
	memset(t, 0, sizeof(*t));
}
