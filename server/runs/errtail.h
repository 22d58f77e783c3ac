/* errtail.h - the last lines a worker wrote to stderr, kept for why its run failed */
#ifndef NUMALAB_ERRTAIL_H
#define NUMALAB_ERRTAIL_H

#include <stddef.h>
#include <stdint.h>

#define ERRTAIL_LINES 20     /* kept for the failure reason */
#define ERRTAIL_LINE_MAX 300 /* a longer line is cut */

struct errtail {
	char lines[ERRTAIL_LINES][ERRTAIL_LINE_MAX]; /* a ring */
	int n, head;
	char part[ERRTAIL_LINE_MAX]; /* the line being assembled */
	size_t partlen;
};

/* n more bytes of the worker's stderr: each whole line is kept, and
 * passed on to ours named by the run. */
void errtail_feed(struct errtail *t, const char *buf, size_t n, int64_t run_id);

/* The kept lines, oldest first, after ": " (a line not ended is one);
 * "" when there are none. Malloc'd. */
char *errtail_text(struct errtail *t);

#endif
