/* page_census.c - what an array of page nodes says: counts per node, runs, the interleave pattern */
#include "page_census.h"

#include <errno.h>
#include <string.h>

static int index_in(const int *set, int n, int v)
{
	for (int i = 0; i < n; i++)
		if (set[i] == v)
			return i;
	return -1;
}

void page_census_of(const int *status, size_t n, const int *allowed,
		    int nallowed, struct page_census *c)
{
	int seen[TOPO_MAX_NODES], nseen = 0;
	const int *cyc = allowed;
	int ncyc = nallowed;
	size_t run = 0, first_run = 0, last_run = 0, inner = 0;
	int prev = -1, ok = 1;

	memset(c, 0, sizeof(*c));
	c->npages = n;
	c->first_forbidden_node = -1;
	for (size_t i = 0; i < n; i++) {
		int s = status[i];
		if (s == -ENOENT) {
			c->absent++;
			continue;
		}
		if (s < 0) {
			c->failed++;
			continue;
		}
		if (s < TOPO_MAX_NODES) {
			if (c->on_node[s]++ == 0 && nseen < TOPO_MAX_NODES) {
				/* ascending, for the cycle when no set is given
				 */
				int j = nseen++;
				for (; j > 0 && seen[j - 1] > s; j--)
					seen[j] = seen[j - 1];
				seen[j] = s;
			}
		} else {
			c->on_other++;
		}
		if (nallowed > 0 && index_in(allowed, nallowed, s) < 0) {
			if (c->forbidden++ == 0) {
				c->first_forbidden_node = s;
				c->first_forbidden_page = i;
			}
		}
	}
	c->nused = nseen + (c->on_other > 0);
	if (ncyc == 0) {
		cyc = seen;
		ncyc = nseen;
	}
	/* runs of one node, and whether consecutive runs follow the cycle */
	for (size_t i = 0; i <= n; i++) {
		int s = i < n ? status[i] : -1;
		if (s >= 0 && s == prev) {
			run++;
			continue;
		}
		if (run > 0) {
			c->runs++;
			if (c->runs == 1)
				first_run = run;
			else if (inner == 0 && c->runs > 2)
				inner = last_run;
			if (c->runs > 2 && last_run != inner)
				ok = 0;
			last_run = run;
			if (c->run_min == 0 || run < c->run_min)
				c->run_min = run;
			if (run > c->run_max)
				c->run_max = run;
		}
		if (s >= 0 && prev >= 0) {
			int a = index_in(cyc, ncyc, prev),
			    b = index_in(cyc, ncyc, s);
			if (a < 0 || b < 0 || b != (a + 1) % ncyc)
				ok = 0;
		}
		if (s < 0 && i < n)
			ok = 0; /* a hole breaks the pattern */
		prev = s;
		run = s >= 0 ? 1 : 0;
	}
	if (c->runs == 0) {
		c->interleaved = 0;
		return;
	}
	if (inner == 0)
		inner = first_run > last_run ? first_run : last_run;
	/* the first and the last run may be cut short by the buffer's ends */
	if (first_run > inner || last_run > inner)
		ok = 0;
	/* one run over several nodes shows no alternation at all */
	if (ncyc == 1)
		ok = ok && c->runs == 1;
	else if (c->runs < 2 || (c->runs >= (size_t)ncyc && nseen != ncyc))
		ok = 0;
	if (c->forbidden || c->on_other)
		ok = 0;
	c->interleaved = ok;
	c->run_len = inner;
}

void page_census_pattern(const struct page_census *c, const int *status,
			 size_t n, struct strbuf *sb)
{
	int shown = 0, prev = -2;

	for (size_t i = 0; i < n && shown < 8; i++) {
		if (status[i] == prev)
			continue;
		prev = status[i];
		if (status[i] >= 0)
			strbuf_addf(sb, "%s%d", shown ? "," : "", status[i]);
		else
			strbuf_addf(sb, "%s-", shown ? "," : "");
		shown++;
	}
	if (c->runs > 8)
		strbuf_addstr(sb, ",...");
	strbuf_addf(sb, " in runs of %zu-%zu page%s", c->run_min, c->run_max,
		    c->run_max == 1 ? "" : "s");
}
