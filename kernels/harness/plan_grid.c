/* plan_grid.c - the square of classes the pair and cell plans choose from, spread over the machine */
#include "plan_grid.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>

uint16_t *plan_grid_at(const struct grid *g, int i, int j)
{
	return &g->cls[(size_t)i * (size_t)g->n + (size_t)j];
}

static int use_max(const struct grid *g)
{
	int m = 0;

	for (int i = 0; i < g->n; i++)
		if (g->use[i] > m)
			m = g->use[i];
	return m;
}

static int picked(const struct pick *p, int np, int a, int b)
{
	for (int i = 0; i < np; i++)
		if (p[i].a == a && p[i].b == b)
			return 1;
	return 0;
}

/*
 * One pair of class c: the first item with use <= level from position
 * start on, with the first partner of class c and use <= level from the
 * opposite side of the machine on. Returns 1 with *out, or 0.
 */
static int pick_one(struct grid *g, uint16_t c, int start, int level,
		    int reverse_ok, const struct pick *done, int ndone,
		    struct pick *out)
{
	int n = g->n;

	for (int s = 0; s < n; s++) {
		int pa = (start + s) % n, a = g->order[pa];
		if (g->use[a] > level)
			continue;
		for (int u = 0; u < n; u++) {
			int b = g->order[(pa + n / 2 + u) % n];
			if (*plan_grid_at(g, a, b) != c || g->use[b] > level ||
			    picked(done, ndone, a, b) ||
			    (!reverse_ok && picked(done, ndone, b, a)))
				continue;
			out->a = a;
			out->b = b;
			return 1;
		}
	}
	return 0;
}

int plan_pick_spread(struct grid *g, uint16_t c, int k, struct pick *out)
{
	int got = 0;

	for (int j = 0; j < k; j++) {
		int start = (int)((long)j * g->n / k), found = 0;

		for (int rev = 0; rev < 2 && !found; rev++) {
			int top = use_max(g);
			for (int level = 0; level <= top && !found; level++)
				found = pick_one(g, c, start, level, rev, out,
						 got, &out[got]);
		}
		if (!found)
			break;
		g->use[out[got].a]++;
		if (out[got].b != out[got].a)
			g->use[out[got].b]++;
		got++;
	}
	return got;
}

void plan_grid_free(struct grid *g)
{
	free(g->cls);
	free(g->order);
	free(g->use);
}

int plan_grid_init(struct grid *g, int n)
{
	g->n = n;
	g->cls = malloc((size_t)n * (size_t)n * sizeof(*g->cls) + 1);
	g->order = calloc((size_t)n + 1, sizeof(*g->order));
	g->use = calloc((size_t)n + 1, sizeof(*g->use));
	if (!g->cls || !g->order || !g->use) {
		plan_grid_free(g);
		return -ENOMEM;
	}
	return 0;
}

int plan_distance_key(int d)
{
	return d == 0 ? 0 : d > 0 ? d : INT_MAX;
}
