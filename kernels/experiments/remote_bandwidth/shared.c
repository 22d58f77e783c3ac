/* shared.c - what the parts of remote_bandwidth share: one timed stream, the cache finding, the headline they add to */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "bw.h"
#include "experiment.h"
#include "mem_size.h"
#include "team_points.h"

#include "rb.h"

int rb_measure(struct run_ctx *ctx, enum bw_op op, const int *cpus, int threads,
	       char **dst, char **src, size_t bytes, int touch,
	       struct bw_result *res)
{
	struct bw_job job = {.op = op,
			     .nthreads = threads,
			     .cpus = cpus,
			     .dst = dst,
			     .src = src,
			     .bytes = bytes,
			     .passes = 1,
			     .touch = touch};
	char wrong[96];

	snprintf(wrong, sizeof(wrong),
		 "the %s loop gave wrong data: the kernel is wrong",
		 bw_op_names[op]);
	return team_points_bw(ctx, &job, res, wrong);
}

/* Adds s to the headline in head (len bytes), after what the parts
 * before wrote. */
void rb_head_add(char *head, size_t len, const char *s)
{
	size_t at = strnlen(head, len);

	if (at + 1 < len)
		snprintf(head + at, len - at, "%s", s);
}

/* Whether the size read from cache: the rulebook's finding when it ran, the
 * machine's own cache otherwise. */
int rb_from_cache(const struct run_result *r, uint64_t size)
{
	if (r->rules && r->rules->checked)
		return r->rules->from_cache > 0;
	return mem_from_cache(r->machine, size);
}
