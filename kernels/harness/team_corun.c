/* team_corun.c - the stretches of a round every thread was on a cpu at once, and the work done in them, from the threads' marks */
#include "team.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* An interval of time, [a, b). */
struct span_iv {
	double a, b;
};

/*
 * The slots of one thread's marks it spent on the cpu, joined where they
 * meet, into out; returns how many. The slot after one off the cpu is
 * left out too: the thread starts it refilling the caches and TLB that
 * whatever ran meanwhile took, at a pace that is neither alone nor with
 * its partners.
 */
static int on_cpu(const struct team_stamp *s, int n, struct span_iv *out)
{
	int k = 0, was_off = 0;

	for (int i = 1; i < n; i++) {
		double w = s[i].t - s[i - 1].t, c = s[i].cpu - s[i - 1].cpu;
		int off = !(w > 0) || c < TEAM_SLOT_ON_CPU * w;
		int skip = off || was_off;
		was_off = off;
		if (skip)
			continue;
		if (k && out[k - 1].b >= s[i - 1].t)
			out[k - 1].b = s[i].t;
		else
			out[k++] = (struct span_iv){s[i - 1].t, s[i].t};
	}
	return k;
}

/* The times in both sorted lists x and y, into out (nx + ny at most). */
static int intersect(const struct span_iv *x, int nx, const struct span_iv *y,
		     int ny, struct span_iv *out)
{
	int i = 0, j = 0, k = 0;

	while (i < nx && j < ny) {
		double a = fmax(x[i].a, y[j].a), b = fmin(x[i].b, y[j].b);
		if (a < b)
			out[k++] = (struct span_iv){a, b};
		if (x[i].b < y[j].b)
			i++;
		else
			j++;
	}
	return k;
}

/*
 * One thread's pace inside the sorted stretches c: the work over the
 * time of its slots that lie wholly inside one. A slot that straddles a
 * stretch's edge is left out, not cut: part of it ran while a partner
 * was off its cpu, at the uncontended pace, and its work cannot be
 * told apart. Into *work and *time (both 0 when no slot fits); returns
 * the work of the slots that straddle, in proportion to their time
 * inside (a slot's work taken as spread evenly), for a thread none of
 * whose slots fits whole.
 */
static double pace_inside(const struct team_stamp *s, int n,
			  const struct span_iv *c, int nc, double *work,
			  double *time)
{
	double cut = 0;
	int j = 0;

	*work = *time = 0;
	for (int i = 1; i < n && j < nc; i++) {
		double a = s[i - 1].t, b = s[i].t,
		       d = s[i].work - s[i - 1].work, inside = 0;
		if (!(b > a))
			continue;
		while (j < nc && c[j].b <= a)
			j++;
		if (j < nc && c[j].a <= a && c[j].b >= b) {
			*work += d > 0 ? d : 0;
			*time += b - a;
			continue;
		}
		for (int k = j; k < nc && c[k].a < b; k++)
			inside += fmin(b, c[k].b) - fmax(a, c[k].a);
		if (d > 0)
			cut += d * inside / (b - a);
	}
	return cut;
}

int team_corun(const struct team_stamp *const *stamp, const int *nstamp, int n,
	       struct team_corun *out)
{
	struct span_iv *cur = NULL, *one = NULL, *next = NULL;
	double first = INFINITY, last = -INFINITY;
	int total = 0, most = 0, nc = 0;

	memset(out, 0, sizeof(*out));
	for (int i = 0; i < n; i++) {
		total += nstamp[i];
		most = nstamp[i] > most ? nstamp[i] : most;
		if (nstamp[i] < 1)
			continue;
		first = fmin(first, stamp[i][0].t);
		last = fmax(last, stamp[i][nstamp[i] - 1].t);
	}
	out->span = last > first ? last - first : 0;
	if (n < 1 || total < 2)
		return 0;
	cur = calloc((size_t)total, sizeof(*cur));
	next = calloc((size_t)total, sizeof(*next));
	one = calloc((size_t)most + 1, sizeof(*one));
	if (!cur || !next || !one) {
		free(cur);
		free(next);
		free(one);
		return -ENOMEM;
	}
	nc = on_cpu(stamp[0], nstamp[0], cur);
	for (int i = 1; i < n && nc; i++) {
		struct span_iv *t;
		int k = on_cpu(stamp[i], nstamp[i], one);
		nc = intersect(cur, nc, one, k, next);
		t = cur;
		cur = next;
		next = t;
	}
	for (int k = 0; k < nc; k++)
		out->length += cur[k].b - cur[k].a;
	/* each thread's pace from its whole slots, over all the stretches */
	for (int i = 0; i < n && nc; i++) {
		double w, t,
			cut = pace_inside(stamp[i], nstamp[i], cur, nc, &w, &t);
		out->work += t > 0 ? w / t * out->length : cut;
	}
	free(cur);
	free(next);
	free(one);
	return 0;
}
