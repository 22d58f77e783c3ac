/* event_batches.h - a run's events as the store keeps them: a row a batch, an event's text a line */
#ifndef NUMALAB_EVENT_BATCHES_H
#define NUMALAB_EVENT_BATCHES_H

#include <stddef.h>
#include <stdint.h>

#include "runlog.h"

struct store;

/*
 * The table: a row holds events first_seq..last_seq of a run (numbered
 * without a gap), their texts in that order, one a line (an event's text
 * is compact JSON: it holds no line break). The runner stores what it read
 * in one go as one row, where a row an event cost most of a sample's
 * store time (a B-tree insert, its balancing and its foreign-key check
 * each).
 */
#define EVENT_BATCHES_SQL                                                      \
	"CREATE TABLE IF NOT EXISTS event_batches ("                           \
	" id INTEGER PRIMARY KEY,"                                             \
	" run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"      \
	" first_seq INTEGER NOT NULL,"                                         \
	" last_seq INTEGER NOT NULL,"                                          \
	" data TEXT NOT NULL);"                                                \
	"CREATE INDEX IF NOT EXISTS event_batches_by_run"                      \
	" ON event_batches(run_id, last_seq);"

/* A row holds at most this much text (a longer event is a row alone). */
#define EVENT_BATCH_BYTES (1 << 20)

/*
 * Inserts ev[0..n) of run id as rows: a row for each run of consecutive
 * seqs, up to EVENT_BATCH_BYTES of text. The caller holds the store's mu
 * and a transaction or savepoint around it. 0, -EINVAL (a text with a
 * line break: nothing inserted), -ENOMEM or -EIO (SQLite's error set).
 */
int event_batches_insert(struct store *st, int64_t id,
			 const struct runlog_event *const *ev, int n);

/* How many rows event_batches_insert makes of ev[0..n). */
int event_batches_rows(const struct runlog_event *const *ev, int n);

/*
 * Calls fn for each event of a row (data, len bytes, holding events
 * first..last) with its seq, its text and the text's length, in order,
 * from the first with a seq above after. Stops at fn's first non-zero
 * return and returns it; -EIO when the row does not hold last - first + 1
 * lines.
 */
int event_batches_each(const char *data, size_t len, int64_t first,
		       int64_t last, int64_t after,
		       int (*fn)(void *arg, int64_t seq, const char *text,
				 size_t len),
		       void *arg);

/*
 * The "type" of an event's text into type (truncated to its size, as the
 * run log keeps it): read where the run log puts it (after the seq) without
 * parsing, else from the text parsed. 0, or -EIO when the text has none.
 */
int event_text_type(const char *text, size_t len, char *type, size_t size);

#endif
