/* headline.c - what memory_latency's parts share in saying what a run showed: a part's headline */
#include <stdio.h>

#include "strbuf.h"
#include "verdict.h"

#include "ml.h"

void ml_say_part(const struct run_result *r, ml_describe_fn *describe,
		 struct verdict *v, char *head, size_t len)
{
	struct strbuf sb = STRBUF_INIT;

	describe(r, &sb, v);
	if (sb.len && !head[0])
		snprintf(head, len, "%s", strbuf_str(&sb));
	strbuf_release(&sb);
}
