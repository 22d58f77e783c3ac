/* topo_text.c - the machine drawn in plain ASCII boxes for `numalab topology` */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topo_text.h"
#include "units.h"

/* "s" after a count that is not 1 */
#define S(n) units_plural((long)(n), "", "s")

/* more identical children than this are folded: the first, "... N more", the
 * last (as the page folds them) */
#define FOLD_OVER 4

/* The levels a node's PUs nest in, outermost first, as lstopo draws them. */
enum level { LV_L3, LV_L2, LV_L1, LV_CORE, LV_PU };

/* A drawn box: lines of one width, each ending in '\n'. */
struct block {
	struct strbuf text;
	int width, height;
};

static void add_chars(struct strbuf *sb, char c, int n)
{
	for (int i = 0; i < n; i++)
		strbuf_addch(sb, c);
}

static void block_init(struct block *b)
{
	strbuf_init(&b->text);
	b->width = b->height = 0;
}

/* one more line, padded to the block's width (which grows to hold it) */
static void block_line(struct block *b, const char *line, int w)
{
	strbuf_addstr(&b->text, line);
	add_chars(&b->text, ' ', w - (int)strlen(line));
	strbuf_addch(&b->text, '\n');
	b->height++;
}

/* line i of b, without its '\n', and its length */
static const char *block_row(const struct block *b, int i, int *len)
{
	const char *s = strbuf_str(&b->text);

	for (; i > 0 && *s; i--)
		s = strchr(s, '\n') + 1;
	*len = (int)(strchr(s, '\n') - s);
	return s;
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

static int key_of(const struct topo_pu *p, int lv)
{
	switch (lv) {
	case LV_L3:
		return p->l3;
	case LV_L2:
		return p->l2;
	case LV_L1:
		return p->l1;
	case LV_CORE:
		return p->core;
	default:
		return p->os;
	}
}

/* what the box of a group at lv says: "L3 16 MiB", "L1d 48 KiB", "Core 3" */
static void caption(const struct topo *t, int lv, int key, char *buf,
		    size_t len)
{
	const struct topo_cache *c;
	char size[24];

	if (lv == LV_CORE) {
		snprintf(buf, len, "Core %d", key);
		return;
	}
	c = topo_cache_find(t, 3 - lv, key);
	if (!c) {
		snprintf(buf, len, "L%d%s", 3 - lv, lv == LV_L1 ? "d" : "");
		return;
	}
	size_text(size, sizeof(size), (unsigned long long)c->size);
	snprintf(buf, len, "L%d%s (%s)", 3 - lv, lv == LV_L1 ? "d" : "", size);
}

static const char *kind_name(int lv, int n)
{
	static const char *const one[] = {"L3 cache", "L2 cache", "L1d cache",
					  "core", "PU"};
	static const char *const many[] = {"L3 caches", "L2 caches",
					   "L1d caches", "cores", "PUs"};
	return n == 1 ? one[lv] : many[lv];
}

/*
 * Boxes b around inner: the first caption in the top border, the others
 * on lines of their own under it (a chain of groups with one child each
 * drawn as one box, outermost caption first, as lstopo's single-child
 * caches read as bars over what they hold). Releases inner.
 */
static void box(struct block *b, char caps[][48], int ncaps,
		struct block *inner)
{
	int w = inner->width;

	for (int i = 0; i < ncaps; i++)
		if ((int)strlen(caps[i]) + (i ? 0 : 2) > w)
			w = (int)strlen(caps[i]) + (i ? 0 : 2);
	block_init(b);
	b->width = w + 4;
	if (ncaps) {
		strbuf_addf(&b->text, "+- %s ", caps[0]);
		add_chars(&b->text, '-', w - (int)strlen(caps[0]) - 1);
	} else {
		strbuf_addch(&b->text, '+');
		add_chars(&b->text, '-', w + 2);
	}
	strbuf_addstr(&b->text, "+\n");
	b->height++;
	for (int i = 1; i < ncaps; i++) {
		strbuf_addf(&b->text, "| %s", caps[i]);
		add_chars(&b->text, ' ', w - (int)strlen(caps[i]));
		strbuf_addstr(&b->text, " |\n");
		b->height++;
	}
	for (int i = 0; i < inner->height; i++) {
		int len;
		const char *r = block_row(inner, i, &len);
		strbuf_addstr(&b->text, "| ");
		strbuf_add(&b->text, r, (size_t)len);
		add_chars(&b->text, ' ', w - len);
		strbuf_addstr(&b->text, " |\n");
		b->height++;
	}
	strbuf_addch(&b->text, '+');
	add_chars(&b->text, '-', w + 2);
	strbuf_addstr(&b->text, "+\n");
	b->height++;
	strbuf_release(&inner->text);
	b->text.oom |= inner->text.oom;
}

/*
 * Lays kids side by side, one space apart, starting a new row where the
 * next would pass avail columns; releases each kid.
 */
static void rows(struct block *out, struct block *kids, int n, int avail)
{
	block_init(out);
	for (int a = 0; a < n;) {
		int b = a, w = kids[a].width, h = kids[a].height;

		while (b + 1 < n && w + 1 + kids[b + 1].width <= avail) {
			b++;
			w += 1 + kids[b].width;
			if (kids[b].height > h)
				h = kids[b].height;
		}
		for (int l = 0; l < h; l++) {
			for (int k = a; k <= b; k++) {
				int len = 0;
				const char *r =
					l < kids[k].height
						? block_row(&kids[k], l, &len)
						: "";
				if (k > a)
					strbuf_addch(&out->text, ' ');
				strbuf_add(&out->text, r, (size_t)len);
				add_chars(&out->text, ' ', kids[k].width - len);
			}
			strbuf_addch(&out->text, '\n');
			out->height++;
		}
		if (w > out->width)
			out->width = w;
		a = b + 1;
	}
	/* pad every line to the widest row */
	{
		struct block padded;
		block_init(&padded);
		for (int i = 0; i < out->height; i++) {
			int len;
			const char *r = block_row(out, i, &len);
			strbuf_add(&padded.text, r, (size_t)len);
			add_chars(&padded.text, ' ', out->width - len);
			strbuf_addch(&padded.text, '\n');
		}
		padded.width = out->width;
		padded.height = out->height;
		padded.text.oom |= out->text.oom;
		strbuf_release(&out->text);
		*out = padded;
	}
	for (int k = 0; k < n; k++)
		strbuf_release(&kids[k].text);
}

/* the next level under lv at which some PU of idx[a..b) has a group */
static int child_level(const struct topo *t, const int *idx, int a, int b,
		       int lv)
{
	for (int l = lv + 1; l < LV_PU; l++)
		for (int i = a; i < b; i++)
			if (key_of(&t->pu[idx[i]], l) >= 0)
				return l;
	return LV_PU;
}

static void pu_line(const struct topo *t, const struct topo_pu *p, int mark,
		    char *buf, size_t len)
{
	(void)t;
	snprintf(buf, len, "PU L#%d P#%d%s", p->logical, p->os,
		 mark && p->allowed ? "*" : "");
}

/*
 * The group of PUs idx[a..b) at level lv (-1: a whole node), its box
 * saying caps[0..ncaps) (outermost first), fitting avail columns where it
 * can.
 */
static void group(const struct topo *t, const int *idx, int a, int b, int lv,
		  char caps[][48], int ncaps, int mark, int avail,
		  struct block *out)
{
	int cl = child_level(t, idx, a, b, lv);
	int starts[1025], n = 0; /* past 1024 runs the last takes the rest */
	struct block inner;

	/* runs of PUs with the same group at cl */
	for (int i = a; i < b && n < 1024; i++)
		if (i == a || key_of(&t->pu[idx[i]], cl) !=
				      key_of(&t->pu[idx[i - 1]], cl))
			starts[n++] = i;
	starts[n] = b;
	if (cl == LV_PU) {
		char line[48];
		block_init(&inner);
		for (int i = a; i < b; i++) {
			pu_line(t, &t->pu[idx[i]], mark, line, sizeof(line));
			if ((int)strlen(line) > inner.width)
				inner.width = (int)strlen(line);
		}
		for (int i = a; i < b; i++) {
			if (b - a > FOLD_OVER && i > a && i < b - 1) {
				if (i == a + 1) {
					snprintf(line, sizeof(line),
						 "... %d more PUs", b - a - 2);
					if ((int)strlen(line) > inner.width)
						inner.width = (int)strlen(line);
					block_line(&inner, line, inner.width);
				}
				continue;
			}
			pu_line(t, &t->pu[idx[i]], mark, line, sizeof(line));
			block_line(&inner, line, inner.width);
		}
		box(out, caps, ncaps, &inner);
		return;
	}
	if (n == 1 && lv >= 0 && ncaps < 8) {
		/* one child: it sits in this box, its caption under ours */
		caption(t, cl, key_of(&t->pu[idx[a]], cl), caps[ncaps],
			sizeof(caps[0]));
		group(t, idx, a, b, cl, caps, ncaps + 1, mark, avail, out);
		return;
	}
	{
		struct block kids[FOLD_OVER + 1];
		int nk = 0, fold = n > FOLD_OVER;

		for (int k = 0; k < n; k++) {
			char sub[8][48];
			if (fold && k > 0 && k < n - 1) {
				char line[48];
				if (k > 1)
					continue;
				block_init(&inner);
				snprintf(line, sizeof(line), "... %d more",
					 n - 2);
				inner.width = (int)strlen(line);
				block_line(&inner, line, inner.width);
				snprintf(line, sizeof(line), "%s",
					 kind_name(cl, n - 2));
				if ((int)strlen(line) > inner.width)
					inner.width = (int)strlen(line);
				block_line(&inner, line, inner.width);
				box(&kids[nk++], sub, 0, &inner);
				continue;
			}
			caption(t, cl, key_of(&t->pu[idx[starts[k]]], cl),
				sub[0], sizeof(sub[0]));
			group(t, idx, starts[k], starts[k + 1], cl, sub, 1,
			      mark, avail - 4, &kids[nk++]);
		}
		rows(&inner, kids, nk, avail - 4);
		box(out, caps, ncaps, &inner);
	}
}

/*
 * The box of one NUMA node (node < 0: every PU of the package) as lines
 * of equal width ending in '\n'; returns that width.
 */
/* node_box's node: every PU of the package, or those of no node */
#define NODE_ANY (-1)
#define NODE_NONE (-2)

static int node_box(const struct topo *t, int pkg, int node, int nodei,
		    int mark, struct strbuf *out)
{
	int *idx = calloc((size_t)t->npus + 1, sizeof(*idx));
	char caps[8][48], mem[24];
	struct block b;
	int n = 0, w;

	if (!idx) {
		out->oom = 1;
		return 0;
	}
	for (int i = 0; i < t->npus; i++)
		if (t->pu[i].package == pkg &&
		    (node == NODE_ANY || t->pu[i].node == node))
			idx[n++] = i;
	if (node >= 0) {
		size_text(mem, sizeof(mem),
			  (unsigned long long)t->node[nodei].mem_total);
		snprintf(caps[0], sizeof(caps[0]), "NUMA node %d: %s%s%s%s",
			 node, mem, t->node[nodei].kind[0] ? " " : "",
			 t->node[nodei].kind,
			 mark && !t->node[nodei].mem_allowed ? " (not allowed)"
							     : "");
	} else if (node == NODE_NONE) {
		snprintf(caps[0], sizeof(caps[0]), "in no NUMA node");
	} else {
		snprintf(caps[0], sizeof(caps[0]), "PUs");
	}
	if (!n) {
		struct block none;
		block_init(&none);
		box(&b, caps, 1, &none);
	} else {
		group(t, idx, 0, n, -1, caps, 1, mark, TOPO_TEXT_WIDTH - 4, &b);
	}
	strbuf_addstr(out, strbuf_str(&b.text));
	out->oom |= b.text.oom;
	w = b.width;
	strbuf_release(&b.text);
	free(idx);
	return w;
}

static int package_has(const struct topo *t, int pkg, int node)
{
	for (int i = 0; i < t->npus; i++)
		if (t->pu[i].package == pkg &&
		    (node == NODE_ANY || t->pu[i].node == node))
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

static void package_box(const struct topo *t, int pkg, int mark,
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
		bw = node_box(t, pkg, t->node[n].os, n, mark, &boxes);
		if (bw > w)
			w = bw;
		any = 1;
	}
	/* PUs no node holds (node offline, or hidden by a cgroup) */
	int outside = 0;
	for (int i = 0; i < t->npus; i++)
		outside |= t->pu[i].package == pkg && t->pu[i].node < 0;
	if (any && outside) {
		int bw = node_box(t, pkg, NODE_NONE, -1, mark, &boxes);
		if (bw > w)
			w = bw;
	}
	if (!any)
		w = node_box(t, pkg, NODE_ANY, -1, mark, &boxes);
	if (pkg >= 0)
		strbuf_addf(&title, "Package %d", pkg);
	else
		strbuf_addstr(&title, "Machine (no package named)");
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
	/* a machine that names no package is drawn as one box, not "Package 0"
	 */
	int first = t->npackages > 0 ? 0 : -1;
	int npk = t->npackages > 0 ? t->npackages : 0;
	int model = (int)strlen(t->cpu_model);

	strbuf_init(&line);
	while (model > 0 && t->cpu_model[model - 1] == ' ')
		model--;
	strbuf_addf(&line,
		    "%.*s: %d package%s, %d core%s, %d PU%s, %d NUMA node%s",
		    model ? model : 7, model ? t->cpu_model : "machine",
		    t->npackages, S(t->npackages), t->ncores, S(t->ncores),
		    t->npus, S(t->npus), t->nnodes, S(t->nnodes));
	add_line(out, strbuf_str(&line));
	strbuf_reset(&line);
	if (mark)
		strbuf_addf(&line, "* = allowed: %d of %d PUs (%s)",
			    t->nallowed, t->npus, t->allowed_text);
	else if (t->npus == 1)
		strbuf_addstr(&line, "its one PU allowed");
	else
		strbuf_addf(&line, "all %d PUs allowed", t->npus);
	add_line(out, strbuf_str(&line));
	add_line(out,
		 "PU L#n P#m: L# is hwloc's logical index, P# the OS's number "
		 "(taskset, /proc/cpuinfo)");
	strbuf_release(&line);

	for (int p = first; p < npk || (p == -1 && first == -1); p++)
		package_box(t, p, mark, out);
	/* nodes with memory and no CPU (CXL, HBM, NVM) stand apart */
	for (int n = 0; n < t->nnodes; n++) {
		char mem[24];
		if (!t->node[n].cpuless)
			continue;
		size_text(mem, sizeof(mem),
			  (unsigned long long)t->node[n].mem_total);
		strbuf_addf(out, "NUMA node %d: %s%s%s, memory only",
			    t->node[n].os, mem, t->node[n].kind[0] ? " " : "",
			    t->node[n].kind);
		if (t->node[n].initiators[0])
			strbuf_addf(out, ", nearest cpus %s",
				    t->node[n].initiators);
		strbuf_addch(out, '\n');
	}
}

/*
 * Node i's distances to every node; a topology that gives none (hwloc
 * has none for a synthetic machine, a file may hold none) says so, and
 * an unknown distance is never printed as 0.
 */
static void distances_text(const struct topo *t, int i, struct strbuf *out)
{
	int known = 0;

	for (int j = 0; j < t->nnodes; j++)
		known += t->distance[i][j] > 0;
	if (!known) {
		strbuf_addstr(out, ", distances: unknown");
		return;
	}
	strbuf_addstr(out, ", distances:");
	for (int j = 0; j < t->nnodes; j++)
		if (t->distance[i][j] > 0)
			strbuf_addf(out, " %d", t->distance[i][j]);
		else
			strbuf_addstr(out, " ?");
	if (known < t->nnodes)
		strbuf_addstr(out, " (?: unknown)");
}

void topo_facts_text(const struct topo *t, struct strbuf *out)
{
	int outside = 0;

	strbuf_addf(out, "%s\n", t->cpu_model);
	strbuf_addf(
		out,
		"%d package%s, %d core%s, %d PU%s (%d allowed: %s), %d NUMA node%s%s\n",
		t->npackages, S(t->npackages), t->ncores, S(t->ncores), t->npus,
		S(t->npus), t->nallowed, t->allowed_text, t->nnodes,
		S(t->nnodes), t->smt ? ", SMT" : "");
	if (!t->thissystem)
		strbuf_addf(
			out,
			"topology: %s (not this system)\n"
			"architecture %s; free memory unknown; allowed cpus: %s\n",
			t->source, t->arch[0] ? t->arch : "not stated",
			t->cpus_source);
	if (t->noffline)
		strbuf_addf(out, "%d PU%s offline\n", t->noffline,
			    S(t->noffline));
	for (int i = 0; i < t->npus; i++)
		outside += t->pu[i].node < 0;
	if (outside) {
		strbuf_addf(out, "%d PU%s in no NUMA node:", outside,
			    S(outside));
		for (int i = 0; i < t->npus; i++)
			if (t->pu[i].node < 0)
				strbuf_addf(out, " %d", t->pu[i].os);
		strbuf_addch(out, '\n');
	}
	for (int i = 0; i < t->nnodes; i++) {
		const struct topo_node *nd = &t->node[i];
		char mem[24], fr[40] = "free unknown";

		size_text(mem, sizeof(mem), (unsigned long long)nd->mem_total);
		if (nd->mem_free_known) {
			size_text(fr, sizeof(fr),
				  (unsigned long long)nd->mem_free);
			strcat(fr, " free");
		}
		strbuf_addf(out, "node %d: %s, %s (%s), ", nd->os,
			    nd->kind[0] ? nd->kind : "kind not stated", mem,
			    fr);
		if (nd->cpuless)
			strbuf_addf(out, "memory only, nearest cpus %s",
				    nd->initiators[0] ? nd->initiators
						      : "none");
		else
			strbuf_addf(out, "%d PU%s local", nd->npus,
				    S(nd->npus));
		if (nd->nmemcaches) {
			size_text(mem, sizeof(mem),
				  (unsigned long long)nd->memcache_size);
			strbuf_addf(out, ", %d memory-side cache%s (%s)",
				    nd->nmemcaches, S(nd->nmemcaches), mem);
		}
		if (!nd->mem_allowed)
			strbuf_addstr(out, ", not allowed");
		distances_text(t, i, out);
		strbuf_addch(out, '\n');
	}
}
