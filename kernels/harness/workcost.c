/* workcost.c - what a piece of work costs here, from the measured rates: the parts every estimate is built of */
#include "workcost.h"

#include "descriptor.h"
#include "mem_size.h"
#include "rates.h"
#include "verdict.h"

double cost_rounds(const struct common_params *common)
{
	return (double)(common->repeat + common->warmup);
}

int cost_nodes(const struct topo *t)
{
	return t && t->nnodes > 0 ? t->nnodes : 1;
}

double cost_crowd(const struct topo *t, int nthreads)
{
	int cpus = t && t->nallowed > 0 ? t->nallowed : 1;

	return nthreads > cpus ? (double)((nthreads + cpus - 1) / cpus) : 1.0;
}

double cost_stream_s(const struct topo *t, enum cost_stream kind, double bytes,
		     int nthreads)
{
	const struct rates *r = rates_get();
	int cpus = t && t->nallowed > 0 ? t->nallowed : 1;
	int nodes = cost_nodes(t);
	int streams = nthreads < cpus ? nthreads : cpus;
	double one;

	if (streams > COST_STREAMS_PER_NODE * nodes)
		streams = COST_STREAMS_PER_NODE * nodes;
	if (streams < 1)
		streams = 1;
	switch (kind) {
	case COST_READ:
		one = bytes / (r->read_gbs * 1e9);
		break;
	case COST_WRITE:
		one = bytes / (r->write_gbs * 1e9);
		break;
	default: /* a copy loads and stores every byte */
		one = bytes / (r->read_gbs * 1e9) +
		      bytes / (r->write_gbs * 1e9);
		break;
	}
	return one / streams;
}

double cost_bw_s(const struct topo *t, enum bw_op op, double bytes,
		 int nthreads)
{
	enum cost_stream kind = op == BW_READ ? COST_READ
				: op == BW_COPY || op == BW_COPY_NT
					? COST_COPY
					: COST_WRITE;

	return cost_stream_s(t, kind, bytes, nthreads);
}

double cost_pass_s(const struct topo *t, enum cost_stream kind, double bytes,
		   double ws, int nthreads)
{
	struct machine_facts m;
	uint64_t llc;

	machine_facts_from_topo(t, &m);
	llc = machine_llc_total(&m);
	return cost_stream_s(t, kind, bytes, nthreads) /
	       (llc && ws <= (double)llc ? COST_CACHE_GAIN : 1);
}

double cost_touch_s(const struct topo *t, double bytes, int nthreads)
{
	int cpus = t && t->nallowed > 0 ? t->nallowed : 1;
	int side = nthreads < cpus ? nthreads : cpus;

	return bytes / 4096.0 * rates_get()->touch_page_ns * 1e-9 /
	       (side > 1 ? side : 1);
}

double cost_free_s(double bytes)
{
	return bytes / 4096.0 * rates_get()->touch_page_ns * 1e-9 *
	       COST_FREE_SHARE;
}

double cost_census_s(double bytes)
{
	return bytes / 4096.0 * rates_get()->touch_page_ns * 1e-9 *
	       COST_CENSUS_SHARE;
}

double cost_chase_s(const struct topo *t, double bytes, double loads)
{
	double line = t && t->line_size > 0 ? t->line_size : 64;
	double share = line / (rates_get()->read_gbs * 1e9);
	struct machine_facts m;

	machine_facts_from_topo(t, &m);
	return loads * share *
	       (mem_from_cache(&m, (uint64_t)bytes)
			? COST_LINES_FROM_CACHE
			: COST_LINES_IN_FLIGHT * COST_WALK);
}

double cost_teams_s(double n)
{
	return n * rates_get()->team_s;
}
