/* placement.c - planning where threads run: by strategy, in pairs around a cache, on chosen nodes */
#include "topo.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "params.h"
#include "units.h"

/* The grouping key of a PU at each level of the spread order. */
static int level_key(const struct topo_pu *p, int level)
{
	switch (level) {
	case 0:
		return p->node;
	case 1:
		return p->package;
	case 2:
		return p->l3;
	case 3:
		return p->l2;
	case 4:
		return p->core;
	default:
		return p->logical;
	}
}

/*
 * Orders pus[0..n) so that consecutive entries are as far apart as
 * possible: group by the key of this level, order each group the same
 * way one level down, then take one from each group in turn.
 */
static void spread_order(const struct topo_pu **pus, int n, int level)
{
	const struct topo_pu **tmp, **grp;
	int *start, *len, ng = 0;

	if (n <= 1 || level > 5)
		return;
	tmp = malloc(sizeof(*tmp) * (size_t)n);
	grp = malloc(sizeof(*grp) * (size_t)n);
	start = malloc(sizeof(int) * (size_t)n);
	len = malloc(sizeof(int) * (size_t)n);
	if (!tmp || !grp || !start || !len)
		goto out;
	/* stable grouping in order of first appearance */
	int placed = 0;
	for (int i = 0; i < n; i++) {
		int k = level_key(pus[i], level), seen = 0;
		for (int j = 0; j < i; j++)
			if (level_key(pus[j], level) == k) {
				seen = 1;
				break;
			}
		if (seen)
			continue;
		start[ng] = placed;
		len[ng] = 0;
		for (int j = i; j < n; j++)
			if (level_key(pus[j], level) == k) {
				grp[placed++] = pus[j];
				len[ng]++;
			}
		ng++;
	}
	for (int g = 0; g < ng; g++)
		spread_order(grp + start[g], len[g], level + 1);
	int out_n = 0;
	for (int round = 0; out_n < n; round++)
		for (int g = 0; g < ng; g++)
			if (round < len[g])
				tmp[out_n++] = grp[start[g] + round];
	memcpy(pus, tmp, sizeof(*tmp) * (size_t)n);
out:
	free(tmp);
	free(grp);
	free(start);
	free(len);
}

int topo_plan(const struct topo *t, enum place_strategy s, const int32_t *cpus,
	      int ncpus, int nthreads, int *out, struct errinfo *err)
{
	const struct topo_pu **pus;
	int n = 0;

	if (nthreads < 1) {
		errinfo_set(err, NULL, "need at least one thread");
		return -EINVAL;
	}
	if (ncpus > 0) {
		for (int i = 0; i < ncpus; i++) {
			const struct topo_pu *p = topo_pu_by_os(t, cpus[i]);
			if (!p) {
				errinfo_set(
					err, NULL,
					"cpu %d is not available to this process (allowed: %s)",
					cpus[i], t->allowed_text);
				return -EINVAL;
			}
			if (!p->allowed) {
				errinfo_set(
					err, NULL,
					"cpu %d is outside this process's cpuset (allowed: %s, from %s)",
					cpus[i], t->allowed_text,
					t->cpus_source);
				return -EINVAL;
			}
		}
		if (ncpus < nthreads) {
			errinfo_set(
				err, NULL,
				"%d threads need %d cpus, but cpus lists %d",
				nthreads, nthreads, ncpus);
			return -EINVAL;
		}
		/* the listed order, as given */
		for (int i = 0; i < nthreads; i++)
			out[i] = cpus[i];
		return 0;
	}
	if (nthreads > t->nallowed) {
		errinfo_set(
			err, NULL,
			"%d threads, but only %d %s available to this process (allowed: %s, from %s)",
			nthreads, t->nallowed,
			units_plural(t->nallowed, "cpu is", "cpus are"),
			t->allowed_text, t->cpus_source);
		return -EINVAL;
	}
	if (s == PLACE_OS) {
		for (int i = 0; i < nthreads; i++)
			out[i] = -1;
		return 0;
	}
	pus = malloc(sizeof(*pus) * (size_t)t->npus);
	if (!pus) {
		errinfo_set(err, NULL, "out of memory");
		return -ENOMEM;
	}
	for (int i = 0; i < t->npus; i++)
		if (t->pu[i].allowed)
			pus[n++] = &t->pu[i];
	if (s == PLACE_SPREAD)
		spread_order(pus, n, 0);
	for (int i = 0; i < nthreads; i++)
		out[i] = pus[i]->os;
	free(pus);
	return 0;
}

int topo_pu_cache(const struct topo_pu *p, int level)
{
	switch (level) {
	case 1:
		return p->l1;
	case 2:
		return p->l2;
	case 3:
		return p->l3;
	default:
		return -1;
	}
}

const struct topo_cache *topo_cache_find(const struct topo *t, int level,
					 int logical)
{
	for (int i = 0; i < t->ncaches; i++)
		if (t->cache[i].level == level &&
		    t->cache[i].logical == logical)
			return &t->cache[i];
	return NULL;
}

/*
 * The allowed PUs under level-`level` caches, grouped by instance in
 * order of first appearance; inside a group the first PU of every core
 * comes before any SMT sibling. The arrays are sized t->npus.
 */
struct cache_groups {
	int n;
	int *start, *len;
	const struct topo_pu **pu;
};

static void cache_groups_free(struct cache_groups *g)
{
	free(g->start);
	free(g->len);
	free(g->pu);
}

static int cache_groups_load(const struct topo *t, int level,
			     struct cache_groups *g)
{
	int *key = NULL, placed = 0, max_rank = 0;

	memset(g, 0, sizeof(*g));
	g->start = calloc((size_t)t->npus + 1, sizeof(int));
	g->len = calloc((size_t)t->npus + 1, sizeof(int));
	g->pu = calloc((size_t)t->npus + 1, sizeof(*g->pu));
	key = calloc((size_t)t->npus + 1, sizeof(int));
	if (!g->start || !g->len || !g->pu || !key) {
		free(key);
		cache_groups_free(g);
		return -ENOMEM;
	}
	for (int i = 0; i < t->npus; i++) {
		const struct topo_pu *p = &t->pu[i];
		int k = topo_pu_cache(p, level), seen = 0;
		if (!p->allowed || k < 0)
			continue;
		if (p->smt_rank > max_rank)
			max_rank = p->smt_rank;
		for (int j = 0; j < g->n && !seen; j++)
			seen = key[j] == k;
		if (!seen)
			key[g->n++] = k;
	}
	for (int j = 0; j < g->n; j++) {
		g->start[j] = placed;
		for (int r = 0; r <= max_rank; r++)
			for (int i = 0; i < t->npus; i++) {
				const struct topo_pu *p = &t->pu[i];
				if (p->allowed && p->smt_rank == r &&
				    topo_pu_cache(p, level) == key[j]) {
					g->pu[placed++] = p;
					g->len[j]++;
				}
			}
	}
	free(key);
	return 0;
}

int topo_pair_level(const struct topo *t)
{
	for (int level = 3; level >= 1; level--) {
		struct cache_groups g;
		int widest = 0, n;

		if (cache_groups_load(t, level, &g))
			return 0;
		for (int j = 0; j < g.n; j++)
			if (g.len[j] > widest)
				widest = g.len[j];
		n = g.n;
		cache_groups_free(&g);
		if (n >= 2 && widest >= 2)
			return level;
	}
	return 0;
}

/* The first group from `from` on (wrapping) with `need` PUs free, not `avoid`.
 */
static int next_group(const struct cache_groups *g, const int *used, int from,
		      int need, int avoid)
{
	for (int d = 0; d < g->n; d++) {
		int j = (from + d) % g->n;
		if (j != avoid && g->len[j] - used[j] >= need)
			return j;
	}
	return -1;
}

int topo_plan_pairs(const struct topo *t, int level, enum pair_mode mode,
		    int npairs, int *out, struct errinfo *err)
{
	struct cache_groups g;
	int *used, rc = 0;

	if (npairs < 1) {
		errinfo_set(err, NULL, "need at least one pair");
		return -EINVAL;
	}
	if (level < 1 || level > 3) {
		errinfo_set(err, NULL,
			    "no cache level %d to place pairs around", level);
		return -EINVAL;
	}
	if (cache_groups_load(t, level, &g)) {
		errinfo_set(err, NULL, "out of memory");
		return -ENOMEM;
	}
	used = calloc((size_t)g.n + 1, sizeof(int));
	if (!used) {
		errinfo_set(err, NULL, "out of memory");
		rc = -ENOMEM;
		goto out;
	}
	if (g.n == 0) {
		errinfo_set(err, NULL, "no allowed cpu is under an L%d cache",
			    level);
		rc = -EINVAL;
		goto out;
	}
	if (mode == PAIR_SPLIT && g.n < 2) {
		errinfo_set(
			err, NULL,
			"splitting a pair needs two L%d caches, but every allowed cpu (%s) is under one",
			level, t->allowed_text);
		rc = -EINVAL;
		goto out;
	}
	for (int k = 0; k < npairs; k++) {
		int a, b;

		if (mode == PAIR_SHARED) {
			a = b = next_group(&g, used, k % g.n, 2, -1);
		} else {
			a = next_group(&g, used, k % g.n, 1, -1);
			b = a < 0 ? -1 : next_group(&g, used, a + 1, 1, a);
		}
		if (a < 0 || b < 0) {
			errinfo_set(
				err, NULL,
				"%d pair%s %s do not fit: the %d allowed cpu%s (%s) hold only %d",
				npairs, npairs == 1 ? "" : "s",
				mode == PAIR_SHARED ? "each under one cache"
						    : "split across caches",
				t->nallowed, t->nallowed == 1 ? "" : "s",
				t->allowed_text, k);
			rc = -EINVAL;
			goto out;
		}
		out[2 * k] = g.pu[g.start[a] + used[a]++]->os;
		out[2 * k + 1] = g.pu[g.start[b] + used[b]++]->os;
	}
out:
	free(used);
	cache_groups_free(&g);
	return rc;
}

int topo_cpu_node(const struct topo *t, int cpu)
{
	const struct topo_pu *p = topo_pu_by_os(t, cpu);

	return p ? p->node : -1;
}

int topo_node_ncpus(const struct topo *t, int node)
{
	int n = 0;

	for (int i = 0; i < t->npus; i++)
		n += t->pu[i].allowed && t->pu[i].node == node;
	return n;
}

int topo_plan_nodes(const struct topo *t, enum place_strategy s,
		    const int32_t *nodes, int n, int nthreads, int *out,
		    struct errinfo *err)
{
	int *all = malloc(sizeof(int) * (size_t)(t->nallowed + 1));
	int k = 0, rc;

	if (!all) {
		errinfo_set(err, NULL, "out of memory");
		return -ENOMEM;
	}
	if (s == PLACE_OS)
		s = PLACE_COMPACT;
	/* the machine-wide order, then only the CPUs of the nodes asked for */
	rc = t->nallowed > 0 ? topo_plan(t, s, NULL, 0, t->nallowed, all, err)
			     : -EINVAL;
	for (int i = 0; !rc && i < t->nallowed && k < nthreads; i++) {
		int node = topo_cpu_node(t, all[i]);
		int want = n == 0;
		for (int j = 0; j < n && !want; j++)
			want = nodes[j] == node;
		if (want)
			out[k++] = all[i];
	}
	free(all);
	if (rc)
		return rc;
	if (k < nthreads) {
		char list[128] = "all nodes";
		if (n)
			format_int_list(nodes, n, list, sizeof(list));
		errinfo_set(
			err, NULL,
			"%d threads need %d cpus, but node%s %s ha%s only %d that this process may use",
			nthreads, nthreads, n == 1 ? "" : "s", list,
			n == 1 ? "s" : "ve", k);
		return -EINVAL;
	}
	return 0;
}

static void topo_machine_nodes(const struct topo *t, char *buf, size_t len)
{
	int32_t v[TOPO_MAX_NODES];
	char list[200];

	for (int i = 0; i < t->nnodes; i++)
		v[i] = t->node[i].os;
	format_int_list(v, t->nnodes, list, sizeof(list));
	snprintf(buf, len, "nodes %s", list);
}

int topo_check_nodes(const struct topo *t, const int32_t *nodes, int n,
		     const char *field, int need_mem, int need_cpus,
		     struct errinfo *err)
{
	char have[220];

	if (!t)
		return 0;
	for (int i = 0; i < n; i++) {
		int k = topo_node_index(t, nodes[i]);
		const char *why = NULL;
		if (k < 0) {
			topo_machine_nodes(t, have, sizeof(have));
			snprintf(err->msg, sizeof(err->msg),
				 "node %d does not exist (this machine has %s)",
				 nodes[i], have);
		} else if (need_mem && t->node[k].mem_total == 0 &&
			   t->nnodes > 1) {
			why = "has no memory";
		} else if (need_mem && t->nmems_allowed > 0 &&
			   !t->node[k].mem_allowed) {
			snprintf(
				err->msg, sizeof(err->msg),
				"node %d is outside this process's cpuset (allowed mems: %s, from %s; in '%s')",
				nodes[i], t->allowed_mems_text, t->mems_source,
				field);
		} else if (need_cpus && topo_node_ncpus(t, nodes[i]) == 0 &&
			   !t->cpus_source[0]) {
			/* a topology built by hand knows no cpuset to name */
			why = "has no cpus this process may use";
		} else if (need_cpus && topo_node_ncpus(t, nodes[i]) == 0) {
			snprintf(
				err->msg, sizeof(err->msg),
				"node %d has no cpus this process may use (in '%s'): its cpus are outside this process's cpuset (allowed: %s, from %s)",
				nodes[i], field, t->allowed_text,
				t->cpus_source);
		} else {
			continue;
		}
		if (why)
			snprintf(err->msg, sizeof(err->msg),
				 "node %d %s (in '%s')", nodes[i], why, field);
		snprintf(err->field, sizeof(err->field), "%s", field);
		return -EINVAL;
	}
	return 0;
}

int topo_check_free(const struct topo *t, const int32_t *nodes, int n,
		    uint64_t bytes, const char *field, struct errinfo *err)
{
	return topo_check_free_why(t, nodes, n, bytes, field, NULL, err);
}

int topo_check_free_why(const struct topo *t, const int32_t *nodes, int n,
			uint64_t bytes, const char *field, const char *why,
			struct errinfo *err)
{
	uint64_t free_sum = 0, total_sum = 0;
	int unknown = 0, count = 0;
	int32_t listed[TOPO_MAX_NODES];
	char list[160], asks[160];

	if (!t)
		return 0;
	for (int i = 0; i < t->nnodes; i++) {
		int want = n == 0;
		for (int j = 0; j < n && !want; j++)
			want = nodes[j] == t->node[i].os;
		if (!want)
			continue;
		if (count < TOPO_MAX_NODES)
			listed[count++] = t->node[i].os;
		free_sum += t->node[i].mem_free;
		total_sum += t->node[i].mem_total;
		unknown |= !t->node[i].mem_free_known;
	}
	if (!count)
		return 0;
	snprintf(asks, sizeof(asks), "%.1f MiB%s%s%s",
		 (double)bytes / 1048576.0, why ? " (" : "", why ? why : "",
		 why ? ")" : "");
	/* unknown is not zero: what cannot be free is what is not there */
	if (unknown) {
		if (!total_sum || bytes <= total_sum)
			return 0;
		format_int_list(listed, count, list, sizeof(list));
		errinfo_set(
			err, field,
			"'%s' asks for %s, more than the %.1f MiB node%s %s %s in all (free memory is unknown here)",
			field, asks, (double)total_sum / 1048576.0,
			count == 1 ? "" : "s", list,
			count == 1 ? "has" : "have");
		return -EINVAL;
	}
	if (bytes <= free_sum)
		return 0;
	format_int_list(listed, count, list, sizeof(list));
	errinfo_set(
		err, field,
		"'%s' asks for %s, more than the %.1f MiB free on node%s %s%s",
		field, asks, (double)free_sum / 1048576.0,
		count == 1 ? "" : "s", list, count == 1 ? "" : " together");
	return -EINVAL;
}
