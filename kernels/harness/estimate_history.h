/* estimate_history.h - the shares of a cpu probed over the last minute, kept between estimates, so that one moment's probe does not make the estimate */
#ifndef NUMALAB_ESTIMATE_HISTORY_H
#define NUMALAB_ESTIMATE_HISTORY_H

#include <stddef.h>

/* How far back a probe still counts, in seconds. */
#define ROOM_WINDOW_S 60.0
/* The most probes kept. */
#define ROOM_KEPT 64

/* One probe as kept: when (seconds since the epoch), the threads it
 * spun, and the share of a cpu each got. */
struct room_seen {
	double at;
	int want;
	double share;
};

/*
 * The mean share of the probes in v[0..n) of want threads taken within
 * ROOM_WINDOW_S before now (none from the future); -1 when there are none.
 * *used (may be NULL) gets how many counted.
 */
double room_mean(const struct room_seen *v, int n, double now, int want,
		 int *used);

/*
 * Adds a probe of want threads that got share at now to the history kept
 * in the file path (NULL: in this process only), drops what is past the
 * window, and returns the mean of those of want threads within it before
 * this one (*used: how many; -1 and 0 when none). A file that cannot be
 * read or written leaves this process's own history.
 */
double room_history(const char *path, double now, int want, double share,
		    int *used);

/* Where the CLI keeps it: beside the rates' cache (rates_default_path),
 * "room". */
void room_default_path(char *buf, size_t len);

#endif
