/* plan_grid.h - the square of classes the pair and cell plans choose from, spread over the machine */
#ifndef NUMALAB_PLAN_GRID_H
#define NUMALAB_PLAN_GRID_H

#include <stdint.h>

/* an entry of no pair or cell */
#define NOT_A_PAIR UINT16_MAX

/*
 * The square both plans choose from: entry (i, j) is the class of the
 * pair or cell of items i and j (NOT_A_PAIR when there is none), order
 * lists the items the way they sit in the machine, use counts how many
 * chosen pairs each item is in.
 */
struct grid {
	int n;
	uint16_t *cls;
	int *order;
	int *use;
};

struct pick {
	int a, b;
};

/* The class entry of items i and j, to read or set. */
uint16_t *plan_grid_at(const struct grid *g, int i, int j);

/* A grid of n items, its classes unset. 0 or -ENOMEM (nothing to free). */
int plan_grid_init(struct grid *g, int n);
void plan_grid_free(struct grid *g);

/*
 * Up to k pairs of class c, anchored at evenly spaced places in g's
 * order; items are reused only when no unused one fits, and a pair
 * reversed only when no other is left. Fills out[0..) and returns the
 * count.
 */
int plan_pick_spread(struct grid *g, uint16_t c, int k, struct pick *out);

/* Sorting key of a class's distance: one node, then nearest first, unknown
 * last. */
int plan_distance_key(int d);

#endif
