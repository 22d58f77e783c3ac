/* topo_text.c - the machine drawn in plain ASCII boxes for `numalab topology` */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topo_text.h"

/* the most cores one row shows before folding the middle ones */
#define ROW_MAX_CORES 8
/* a core's PU list longer than this becomes "first +N" */
#define PU_TEXT_MAX 12
/* "| " and " |" of a package box around "| " and " |" of a node box */
#define ROW_MAX (TOPO_TEXT_WIDTH - 8)

struct core_col {
	int first, npus; /* index into t->pu of its first PU, PU count */
};

/* a column of the row: one core, or the folded cores between first and last */
struct col {
	int core;  /* index into the node's cores, -1 for the folded column */
	int width; /* of its box, borders included */
	char text[32];
};

static void add_chars(struct strbuf *sb, char c, int n)
{
	for (int i = 0; i < n; i++)
		strbuf_addch(sb, c);
}

/* text centred in a field of width w */
static void add_centred(struct strbuf *sb, const char *text, int w)
{
	int len = (int)strlen(text);
	int left = (w - len) / 2;

	if (len > w) {
		strbuf_add(sb, text, (size_t)w);
		return;
	}
	add_chars(sb, ' ', left);
	strbuf_addstr(sb, text);
	add_chars(sb, ' ', w - len - left);
}

/* 0 for bytes, 1 for KiB ... */
static int size_unit(unsigned long long bytes)
{
	int u = 0;

	while (bytes >= 1024 && u < 4) {
		bytes /= 1024;
		u++;
	}
	return u;
}

static void size_text(char *buf, size_t len, unsigned long long bytes)
{
	static const char *unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
	int u = 0;
	double v = (double)bytes;

	while (v >= 1024 && u < 4) {
		v /= 1024;
		u++;
	}
	if (v == (double)(unsigned long long)v)
		snprintf(buf, len, "%llu %s", (unsigned long long)v, unit[u]);
	else
		snprintf(buf, len, "%.1f %s", v, unit[u]);
}

static void pu_text(const struct topo *t, const struct core_col *c, int mark,
		    char *buf, size_t len)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_init(&sb);
	for (int i = 0; i < c->npus; i++) {
		const struct topo_pu *p = &t->pu[c->first + i];
		strbuf_addf(&sb, "%s%d%s", i ? " " : "", p->os,
			    mark && p->allowed ? "*" : "");
	}
	if (sb.len > PU_TEXT_MAX && c->npus > 1) {
		const struct topo_pu *p = &t->pu[c->first];
		strbuf_reset(&sb);
		strbuf_addf(&sb, "%d%s +%d", p->os,
			    mark && p->allowed ? "*" : "", c->npus - 1);
	}
	snprintf(buf, len, "%s", strbuf_str(&sb));
	strbuf_release(&sb);
}

static int pu_cache(const struct topo_pu *p, int level)
{
	return level == 1 ? p->l1 : level == 2 ? p->l2 : p->l3;
}

/* the cache of column c at this level; -2 when its folded cores span several */
static int col_cache(const struct topo *t, const struct core_col *cores,
		     int ncores, const struct col *c, int level)
{
	int a, b;

	if (c->core >= 0)
		return pu_cache(&t->pu[cores[c->core].first], level);
	a = pu_cache(&t->pu[cores[0].first], level);
	b = pu_cache(&t->pu[cores[ncores - 1].first], level);
	return a == b ? a : -2;
}

/* instances among the folded cores that neither the first nor the last has */
static int hidden_caches(const struct topo *t, const struct core_col *cores,
			 int ncores, int level)
{
	int a = pu_cache(&t->pu[cores[0].first], level);
	int b = pu_cache(&t->pu[cores[ncores - 1].first], level);
	int n = 0, prev = a;

	for (int i = 1; i < ncores - 1; i++) {
		int k = pu_cache(&t->pu[cores[i].first], level);
		if (k != prev && k != a && k != b && k >= 0)
			n++;
		prev = k;
	}
	return n;
}

static void cache_text(const struct topo *t, int level, int inst, int inner,
		       char *buf, size_t len)
{
	const struct topo_cache *c = topo_cache_find(t, level, inst);
	char size[24];

	if (!c) {
		snprintf(buf, len, "L%d", level);
		return;
	}
	size_text(size, sizeof(size), (unsigned long long)c->size);
	snprintf(buf, len, "L%d %s", level, size);
	if ((int)strlen(buf) <= inner)
		return;
	/* "L3 508M", then "508M" */
	*strchr(size, ' ') = 0;
	snprintf(buf, len, "L%d %s%c", level, size,
		 c->size >= 1024 ? "KMGT"[size_unit(c->size) - 1] : 'B');
	if ((int)strlen(buf) > inner)
		memmove(buf, buf + 3, strlen(buf + 3) + 1);
}

/* three lines of boxes: one span per run of columns with the same key */
static void box_row(struct strbuf *lines[3], const struct col *cols, int ncols,
		    const int *key, const char *const *text)
{
	for (int a = 0; a < ncols;) {
		int b = a, w;

		while (b + 1 < ncols && key[b + 1] == key[a] && key[a] >= 0)
			b++;
		w = b - a;
		for (int i = a; i <= b; i++)
			w += cols[i].width;
		if (a)
			for (int l = 0; l < 3; l++)
				strbuf_addch(lines[l], ' ');
		if (key[a] == -1) { /* no cache there */
			for (int l = 0; l < 3; l++)
				add_chars(lines[l], ' ', w);
		} else {
			strbuf_addch(lines[0], '+');
			add_chars(lines[0], '-', w - 2);
			strbuf_addch(lines[0], '+');
			strbuf_addch(lines[1], '|');
			add_centred(lines[1], text[a], w - 2);
			strbuf_addch(lines[1], '|');
			strbuf_addstr(lines[2],
				      strbuf_str(lines[0]) + lines[0]->len - w);
		}
		a = b + 1;
	}
}

/* does the level have a cache over some PU of the node */
static int level_present(const struct topo *t, const struct core_col *cores,
			 int ncores, int level)
{
	for (int i = 0; i < ncores; i++)
		for (int j = 0; j < cores[i].npus; j++)
			if (pu_cache(&t->pu[cores[i].first + j], level) >= 0)
				return 1;
	return 0;
}

/* the width of a core's box: the same all over the machine, so boxes align */
static int core_width(const struct topo *t, int mark)
{
	int cw = 10;

	for (int i = 0; i < t->npus;) {
		struct core_col c = {i, 1};
		char buf[64];
		int len;

		while (i + c.npus < t->npus &&
		       t->pu[i + c.npus].core == t->pu[i].core)
			c.npus++;
		pu_text(t, &c, mark, buf, sizeof(buf));
		len = (int)strlen(buf) + 4;
		if (len > cw)
			cw = len;
		i += c.npus;
	}
	return cw;
}

/*
 * The box of one NUMA node (node < 0: every PU of the package) as lines
 * of equal width ending in '\n'; returns that width.
 */
static int node_box(const struct topo *t, int pkg, int node, int nodei,
		    int mark, int cw, struct strbuf *out)
{
	struct core_col *cores = calloc((size_t)t->npus + 1, sizeof(*cores));
	struct col cols[ROW_MAX_CORES];
	struct strbuf row[3], body = STRBUF_INIT, title = STRBUF_INIT;
	struct strbuf *lines[3] = {&row[0], &row[1], &row[2]};
	int ncores = 0, ncols = 0, rw, inner, w, fold;
	char mem[24];

	strbuf_init(&body);
	strbuf_init(&title);
	if (!cores) {
		out->oom = 1;
		return 0;
	}
	for (int i = 0; i < t->npus; i++) {
		const struct topo_pu *p = &t->pu[i];
		if (p->package != pkg || (node >= 0 && p->node != node))
			continue;
		if (ncores && t->pu[cores[ncores - 1].first].core == p->core &&
		    cores[ncores - 1].first + cores[ncores - 1].npus == i)
			cores[ncores - 1].npus++;
		else
			cores[ncores++] = (struct core_col){i, 1};
	}
	fold = ncores > ROW_MAX_CORES || ncores * (cw + 1) - 1 > ROW_MAX;
	for (int i = 0; i < ncores; i++) {
		struct col *c = &cols[ncols];
		if (fold && i > 0 && i < ncores - 1) {
			if (i > 1)
				continue;
			c->core = -1;
			snprintf(c->text, sizeof(c->text), "... %d more",
				 ncores - 2);
			c->width = (int)strlen(c->text) + 4;
			if (c->width < cw)
				c->width = cw;
		} else {
			c->core = i;
			c->width = cw;
			pu_text(t, &cores[i], mark, c->text, sizeof(c->text));
		}
		ncols++;
	}
	for (int l = 0; l < 3; l++)
		strbuf_init(&row[l]);
	/* as lstopo nests them: the outermost cache on top, spanning the
	 * cores that share it, then each level inward, the cores last */
	for (int level = 3; level >= 1; level--) {
		int key[ROW_MAX_CORES];
		char textbuf[ROW_MAX_CORES][32];
		const char *text[ROW_MAX_CORES];

		if (!ncores || !level_present(t, cores, ncores, level))
			continue;
		for (int c = 0; c < ncols; c++)
			key[c] = col_cache(t, cores, ncores, &cols[c], level);
		for (int a = 0; a < ncols;) {
			int b = a, span;
			while (b + 1 < ncols && key[b + 1] == key[a] &&
			       key[a] >= 0)
				b++;
			span = b - a;
			for (int i = a; i <= b; i++)
				span += cols[i].width;
			if (key[a] == -2) {
				int n = hidden_caches(t, cores, ncores, level);
				if (n)
					snprintf(textbuf[a], sizeof(textbuf[a]),
						 "... %d more", n);
				else
					snprintf(textbuf[a], sizeof(textbuf[a]),
						 "...");
			} else if (key[a] >= 0) {
				cache_text(t, level, key[a], span - 2,
					   textbuf[a], sizeof(textbuf[a]));
			} else {
				textbuf[a][0] = 0;
			}
			text[a] = textbuf[a];
			a = b + 1;
		}
		box_row(lines, cols, ncols, key, text);
		for (int l = 0; l < 3; l++) {
			strbuf_addstr(&body, strbuf_str(&row[l]));
			strbuf_addch(&body, '\n');
			strbuf_reset(&row[l]);
		}
	}
	{
		int key[ROW_MAX_CORES];
		const char *text[ROW_MAX_CORES];
		for (int c = 0; c < ncols; c++) {
			key[c] = c;
			text[c] = cols[c].text;
		}
		box_row(lines, cols, ncols, key, text);
		for (int l = 0; l < 3; l++) {
			strbuf_addstr(&body, strbuf_str(&row[l]));
			strbuf_addch(&body, '\n');
			strbuf_reset(&row[l]);
		}
	}
	rw = ncols - 1;
	for (int c = 0; c < ncols; c++)
		rw += cols[c].width;
	if (rw < 0)
		rw = 0;

	if (node >= 0) {
		size_text(mem, sizeof(mem),
			  (unsigned long long)t->node[nodei].mem_total);
		strbuf_addf(&title, "NUMA node %d: %s", node, mem);
		if (mark && !t->node[nodei].mem_allowed)
			strbuf_addstr(&title, " (not allowed)");
	} else {
		strbuf_addstr(&title, "PUs");
	}
	inner = rw;
	if ((int)title.len + 4 > inner)
		inner = (int)title.len + 4;
	w = inner + 4;

	strbuf_addf(out, "+- %s ", strbuf_str(&title));
	add_chars(out, '-', w - (int)title.len - 5);
	strbuf_addstr(out, "+\n");
	for (const char *s = strbuf_str(&body); *s;) {
		const char *nl = strchr(s, '\n');
		strbuf_addstr(out, "| ");
		strbuf_add(out, s, (size_t)(nl - s));
		add_chars(out, ' ', inner - (int)(nl - s));
		strbuf_addstr(out, " |\n");
		s = nl + 1;
	}
	strbuf_addch(out, '+');
	add_chars(out, '-', w - 2);
	strbuf_addstr(out, "+\n");

	for (int l = 0; l < 3; l++)
		strbuf_release(&row[l]);
	strbuf_release(&body);
	strbuf_release(&title);
	free(cores);
	return w;
}

static int package_has(const struct topo *t, int pkg, int node)
{
	for (int i = 0; i < t->npus; i++)
		if (t->pu[i].package == pkg &&
		    (node < 0 || t->pu[i].node == node))
			return 1;
	return 0;
}

/* one line, cut to the drawing's width */
static void add_line(struct strbuf *out, const char *line)
{
	size_t n = strlen(line);

	if (n > TOPO_TEXT_WIDTH) {
		strbuf_add(out, line, TOPO_TEXT_WIDTH - 3);
		strbuf_addstr(out, "...");
	} else {
		strbuf_addstr(out, line);
	}
	strbuf_addch(out, '\n');
}

static void package_box(const struct topo *t, int pkg, int mark, int cw,
			struct strbuf *out)
{
	struct strbuf boxes = STRBUF_INIT, title = STRBUF_INIT;
	int w = 0, any = 0;

	strbuf_init(&boxes);
	strbuf_init(&title);
	for (int n = 0; n < t->nnodes; n++) {
		int bw;
		if (!package_has(t, pkg, t->node[n].os))
			continue;
		bw = node_box(t, pkg, t->node[n].os, n, mark, cw, &boxes);
		if (bw > w)
			w = bw;
		any = 1;
	}
	if (!any)
		w = node_box(t, pkg, -1, -1, mark, cw, &boxes);
	strbuf_addf(&title, "Package %d", pkg);
	if (w < (int)title.len + 4)
		w = (int)title.len + 4;

	strbuf_addf(out, "+- %s ", strbuf_str(&title));
	add_chars(out, '-', w + 4 - (int)title.len - 5);
	strbuf_addstr(out, "+\n");
	for (const char *s = strbuf_str(&boxes); *s;) {
		const char *nl = strchr(s, '\n');
		strbuf_addstr(out, "| ");
		strbuf_add(out, s, (size_t)(nl - s));
		add_chars(out, ' ', w - (int)(nl - s));
		strbuf_addstr(out, " |\n");
		s = nl + 1;
	}
	strbuf_addch(out, '+');
	add_chars(out, '-', w + 2);
	strbuf_addstr(out, "+\n");
	strbuf_release(&boxes);
	strbuf_release(&title);
}

void topo_text(const struct topo *t, struct strbuf *out)
{
	struct strbuf line = STRBUF_INIT;
	int mark = t->nallowed < t->npus;
	int npk = t->npackages > 0 ? t->npackages : 1;
	int cw = core_width(t, mark);
	int model = (int)strlen(t->cpu_model);

	strbuf_init(&line);
	while (model > 0 && t->cpu_model[model - 1] == ' ')
		model--;
	strbuf_addf(
		&line,
		"%.*s: %d package(s), %d core(s), %d PU(s), %d NUMA node(s)",
		model ? model : 7, model ? t->cpu_model : "machine",
		t->npackages, t->ncores, t->npus, t->nnodes);
	add_line(out, strbuf_str(&line));
	strbuf_reset(&line);
	if (mark)
		strbuf_addf(&line, "* = allowed: %d of %d PUs (%s)",
			    t->nallowed, t->npus, t->allowed_text);
	else
		strbuf_addf(&line, "all %d PUs allowed", t->npus);
	add_line(out, strbuf_str(&line));
	strbuf_release(&line);

	for (int p = 0; p < npk; p++)
		package_box(t, p, mark, cw, out);
	/* nodes with memory and no CPU (CXL, HBM) stand apart */
	for (int n = 0; n < t->nnodes; n++) {
		int has = 0;
		char mem[24];
		for (int i = 0; i < t->npus && !has; i++)
			has = t->pu[i].node == t->node[n].os;
		if (has)
			continue;
		size_text(mem, sizeof(mem),
			  (unsigned long long)t->node[n].mem_total);
		strbuf_addf(out, "NUMA node %d: %s, no CPUs\n", t->node[n].os,
			    mem);
	}
}
