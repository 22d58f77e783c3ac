/* vl.c - what the parts of variable_layout share: the labels and points they emit, and the checks their sentences make, the cost of an operation */
#include <stdio.h>
#include <string.h>

#include "rates.h"
#include "team.h"
#include "team_points.h"
#include "workcost.h"

#include "vl.h"

int vl_asked(const struct vl_params *vp, enum vl_part part)
{
	return (vp->parts & (1u << part)) != 0;
}

void vl_label(char *buf, size_t len, const char *chart, const char *name)
{
	snprintf(buf, len, "%s: %s", chart, name);
}

double vl_emit(struct run_ctx *ctx, const char *chart, const char *series,
	       int x, const char *label, const struct team_result *res,
	       double scale, const char *unit, const char *extra_key,
	       double extra)
{
	const char *const keys[] = {"overlap", "corun", extra_key};
	const double vals[] = {team_overlap_median(res), team_corun_median(res),
			       extra};

	return team_points_time(ctx->sink,
				(struct point){.chart = chart,
					       .series = series,
					       .x = x,
					       .x_label = label,
					       .unit = unit,
					       .extra_keys = keys,
					       .extra_vals = vals,
					       .nextra = extra_key ? 3 : 2},
				res, scale);
}

/* --- what the parts say --- */

const struct result_point *vl_point(const struct run_result *r,
				    const char *chart, const char *series,
				    const char *label)
{
	return result_point_find_label(r, chart, series, label);
}

/* Whether every thread of a placement ran on one core (SMT siblings or one
 * CPU). */
static int one_core(const struct result_placement *p)
{
	for (int i = 1; p && i < p->n; i++)
		if (p->t[i].core != p->t[0].core)
			return 0;
	return 1;
}

int vl_can_race(const struct run_result *r, const char *chart, const char *name,
		const char *what, const char *key, struct verdict *v)
{
	char label[96], why[VERDICT_TEXT_LEN];
	const struct result_placement *p;

	vl_label(label, sizeof(label), chart, name);
	p = result_placement_find(r, label);
	if (!p || p->n < 2)
		snprintf(
			why, sizeof(why),
			"%s needs two threads running at once; this run had %d",
			what, p ? p->n : 1);
	else if (result_placement_distinct_cpus(p) < 2)
		snprintf(
			why, sizeof(why),
			"%s needs threads on distinct cpus, but its %d threads were all seen on one cpu",
			what, p->n);
	else {
		if (one_core(p))
			verdict_note(
				v, "warn",
				"%s: the threads ran on SMT siblings of one core, which share the L1, so a shared line hardly moves; placement=spread puts them on separate cores",
				what);
		return 1;
	}
	verdict_note(v, "cannot", "%s", why);
	verdict_qualify(v, key, VERDICT_DISOWNED, "%s", why);
	return 0;
}

enum contend_overlap vl_contended(const struct run_result *r,
				  const struct result_point *shared,
				  const struct result_point *apart,
				  const char *key, const char *what,
				  struct comparison *c, struct verdict *v,
				  char *why, size_t len)
{
	enum contend_overlap o;

	compare_points(shared, apart, experiment_precision(r->exp), c);
	compare_state_interval(v, key, c);
	o = contend_overlap(c, contend_floor(r->exp));
	if (o == CONTEND_TOO_LITTLE)
		snprintf(
			why, len,
			"the threads ran at the same time for only %.0f%% of a round, so they hardly contended: %s could not be measured (other processes held the cpus, or one thread finished before the other started)",
			100 * c->together, what);
	else
		contend_why(
			c,
			"sharing the line came out faster than keeping apart, which sharing cannot cause: the machine's load changed between the two",
			why, len);
	if (why[0])
		verdict_qualify(v, key,
				c->rel == CMP_MORE && o != CONTEND_TOO_LITTLE
					? VERDICT_AT_LEAST
					: VERDICT_DISOWNED,
				"%s", why);
	if (o == CONTEND_TOO_LITTLE)
		verdict_note(v, "cannot", "%s", why);
	return o;
}

int vl_dso_missing(const struct run_result *r, struct verdict *v, int say)
{
	double found = 1;

	/* a TLS part (the caller checked one was asked for) emits dso_found */
	if (result_summary_get(r, KEY_DSO_FOUND, &found) || found)
		return 0;
	if (say)
		verdict_note(
			v, "cannot",
			"TLS in a shared object was not measured: " DSO_SMALL
			" and " DSO_BIG
			" were found neither beside the binary nor in lib/numalab/ of its prefix (make builds them into the build folder, make install puts them there)");
	return 1;
}

void vl_cost(const struct vl_params *vp, const struct common_params *common,
	     const struct topo *t, struct vl_cost *c)
{
	const struct rates *r = rates_get();
	int n = (int)vp->threads;

	c->rounds = cost_rounds(common);
	c->ops = (double)vp->ops;
	/*
	 * An operation updates two variables through the layout's address
	 * arithmetic: about five plain increments' worth (the parts' cpu
	 * time on the lab VM: 2.3 ns an access at 0.27 ns an increment,
	 * where eight made every part's estimate 1.4-1.9x); one that shares
	 * its line with another writer waits for the line instead.
	 */
	c->alone = 5 * r->inc_ns * 1e-9 * cost_crowd(t, n);
	c->shared = (n > 1 ? r->bounce_ns * (n / 2.0) : 0) * 1e-9;
	if (c->shared < c->alone)
		c->shared = c->alone;
	/*
	 * A read is one load: an increment's worth apart (0.28 ns against
	 * 0.30 on the Zen 5 VM, where an operation's five made the readers'
	 * estimate 5x their run), and beside the writer the line comes back
	 * shared rather than owned: half of what two writers pay for it
	 * (0.56 ns at 0.99).
	 */
	c->read = r->inc_ns * 1e-9 * cost_crowd(t, n);
	c->read_shared = r->bounce_ns * 1e-9 * n / 4.0;
	if (c->read_shared < c->read)
		c->read_shared = c->read;
}
