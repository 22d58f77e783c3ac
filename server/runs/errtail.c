/* errtail.c - the last lines a worker wrote to stderr, kept for why its run failed */
#include "errtail.h"

#include <stdio.h>

#include "strbuf.h"

static void push_line(struct errtail *t)
{
	if (!t->partlen)
		return;
	t->part[t->partlen] = '\0';
	snprintf(t->lines[t->head], ERRTAIL_LINE_MAX, "%s", t->part);
	t->head = (t->head + 1) % ERRTAIL_LINES;
	if (t->n < ERRTAIL_LINES)
		t->n++;
	t->partlen = 0;
}

void errtail_feed(struct errtail *t, const char *buf, size_t n, int64_t run_id)
{
	for (size_t i = 0; i < n; i++) {
		if (buf[i] == '\n') {
			if (t->partlen) {
				t->part[t->partlen] = '\0';
				fprintf(stderr, "numalab: run %lld: %s\n",
					(long long)run_id, t->part);
			}
			push_line(t);
		} else if (t->partlen + 1 < ERRTAIL_LINE_MAX) {
			t->part[t->partlen++] = buf[i];
		}
	}
}

char *errtail_text(struct errtail *t)
{
	struct strbuf sb = STRBUF_INIT;

	push_line(t);
	for (int i = 0; i < t->n; i++) {
		int k = (t->head - t->n + i + ERRTAIL_LINES) % ERRTAIL_LINES;
		strbuf_addf(&sb, "%s%s", i ? "\n" : ": ", t->lines[k]);
	}
	return strbuf_detach(&sb);
}
