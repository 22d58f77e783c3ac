/* live_journal.h - a live run's events as they come: a file beside the store, a write a batch */
#ifndef NUMALAB_LIVE_JOURNAL_H
#define NUMALAB_LIVE_JOURNAL_H

#include <stddef.h>
#include <stdint.h>

#include "runlog.h"
#include "strbuf.h"

/*
 * A commit of SQLite's costs the runner 60-90 us of CPU each time it
 * wakes for a batch (its B-trees and its log's pages come cold, and the
 * log grows by three pages a commit); a write to a file costs it about
 * 10. So a live run's batches go to this file, STORE-live, each in one
 * write before readers see it (a server that dies keeps it as the page
 * cache keeps SQLite's log), and into the store in the transaction that
 * ends the run; a server that starts folds in what a dead one left.
 *
 * The file: a section a run, each the line "numalab live events 1 run
 * ID", then a line an event, "SEQ TEXT" (TEXT is compact JSON: no line
 * break), seqs rising, and once the store holds them the line "numalab
 * live events kept". Only the last section can hold events the store
 * lacks. The file is emptied when a run begins past LIVE_JOURNAL_ROLL
 * bytes, not at every run: ext4 writes out what a file held when it is
 * cut to nothing, a few hundred microseconds of the server's CPU, and
 * disk writes, each time.
 *
 * A file that does not start with a head (or is not empty), or that
 * another user owns, is not ours: left as it is, and no journal is kept. The
 * server holds a lock on it while it is open, so a second process on the store
 * leaves it alone.
 */
#define LIVE_JOURNAL_SUFFIX "-live"
#define LIVE_JOURNAL_HEAD "numalab live events 1 run "
#define LIVE_JOURNAL_KEPT "numalab live events kept\n"
#define LIVE_JOURNAL_ROLL (16u << 20)

struct live_journal {
	int fd;		/* -1: no journal (the store writes batches itself) */
	int64_t run_id; /* the run of the last section, 0: none open */
	size_t start;	/* where the last section starts */
	size_t bytes;	/* what the file holds, all whole lines */
	int pending;	/* the last section may hold events not kept */
	struct strbuf buf; /* a batch's lines, before their write */
};

/*
 * Opens (or makes, 0600) path and locks it. 0; -EWOULDBLOCK when another
 * process holds it; -EEXIST when it is a file of someone else's (not ours:
 * left untouched); -errno. Either way j is usable (fd -1 on failure).
 */
int live_journal_open(struct live_journal *j, const char *path);
void live_journal_close(struct live_journal *j);

/* Starts a section for run id (the file emptied first when it is past
 * LIVE_JOURNAL_ROLL). 0 or -errno. */
int live_journal_begin(struct live_journal *j, int64_t id);
/*
 * Appends ev[0..n) of the begun run in one write. 0; -EINVAL (a text with
 * a line break: nothing written); -errno (the file as it was before).
 */
int live_journal_append(struct live_journal *j,
			const struct runlog_event *const *ev, int n);
/* Empties the file (what a server that stopped left, once folded in: its
 * last line may be half written). 0 or -errno. */
int live_journal_empty(struct live_journal *j);
/* The last section's events are in the store: it says so. 0 or -errno. */
int live_journal_kept(struct live_journal *j);

/*
 * What the file holds from its last section on (all of it, when that is
 * not known: after an open): *data (malloc'd, the caller frees; NULL when
 * there is nothing) of *len bytes. 0 or -errno.
 */
int live_journal_read(struct live_journal *j, char **data, size_t *len);

/* One event of a journal's text: seq, and text..text+len in the data. */
struct live_event {
	int64_t seq;
	const char *text;
	size_t len;
};

/*
 * Parses a journal's data, its last section: its run into *id and its
 * events into ev[0..*n) (malloc'd, the caller frees; none when the
 * section says they are kept), those after the last line that reads as
 * one dropped (a line a dying server half wrote). 0; -EINVAL when there
 * is no whole head; -ENOMEM.
 */
int live_journal_parse(const char *data, size_t len, int64_t *id,
		       struct live_event **ev, int *n);

#endif
