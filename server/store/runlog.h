/* runlog.h - the in-memory event log of a run, shared by its runner and its subscribers */
#ifndef NUMALAB_RUNLOG_H
#define NUMALAB_RUNLOG_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

/* One event as it is streamed: immutable once appended. */
struct runlog_event {
	int64_t seq;   /* from 1 */
	char type[32]; /* the event's "type" */
	char *json;    /* compact JSON object, "seq" included */
	size_t len;
};

struct runlog;

/*
 * A runner shows readers at most this many events of a run that the
 * store has not kept: it stores (then shows) a batch before it grows
 * past this, a batch the store refuses fails the run, and only the
 * run's end follows. An end made later from what the store kept (after
 * a restart, or when the disk filled) is numbered this far above the
 * last stored event, above any seq a reader may have seen, so a client
 * resuming from its last seq still sees the run end.
 */
#define RUNLOG_UNSTORED_MAX 1024
/* The batch a runner stores at most in one go; leaves room for its end. */
#define RUNLOG_BATCH_MAX (RUNLOG_UNSTORED_MAX - 8)

/* A new open log with one reference. NULL on ENOMEM. */
struct runlog *runlog_new(int64_t run_id);
struct runlog *runlog_ref(struct runlog *log);
/* 1 when that was the last reference (the log is freed), else 0. */
int runlog_unref(struct runlog *log);
/* A reference, unless the last one is being dropped (then NULL). */
struct runlog *runlog_ref_live(struct runlog *log);
/* fn(log, arg) runs when the last reference goes, before the log is freed. */
void runlog_on_free(struct runlog *log, void (*fn)(struct runlog *, void *),
		    void *arg);
/* fn(log) runs after every append to and close of a log, outside its
 * lock: log is the one that changed. */
void runlog_set_change_hook(void (*fn)(struct runlog *));

int64_t runlog_run_id(const struct runlog *log);

/*
 * Numbers ev (sets its "seq" to the next one), serialises it and appends
 * it, waking every subscriber. Never blocks on a subscriber. Returns the
 * stored event (valid while the caller holds a reference), or NULL with
 * errno: EPIPE when the log is closed, EINVAL when ev has no "type",
 * ENOMEM.
 */
const struct runlog_event *runlog_append(struct runlog *log, json_t *ev);
/*
 * Like runlog_append, but held back from readers until runlog_publish:
 * the runner stores a batch first, then shows it. text (len bytes, or
 * NULL) is the line ev was parsed from: kept as the event's text with its
 * seq put in front, rather than ev serialised again, when it is one
 * object on one line without a seq of its own.
 */
const struct runlog_event *runlog_append_held(struct runlog *log, json_t *ev,
					      const char *text, size_t len);
/*
 * Like runlog_append_held, for a line not parsed: text (len bytes) is one
 * JSON object on one line, of this type, that names no seq of its own.
 * NULL with errno EINVAL when the text is not so (nothing appended).
 */
const struct runlog_event *runlog_append_text_held(struct runlog *log,
						   const char *type,
						   const char *text,
						   size_t len);
/* Shows every held event to readers (and wakes them). */
void runlog_publish(struct runlog *log);
/*
 * Appends an already serialised event (json, len bytes) with its own seq
 * (replay from the store: seq must be above the last one). Returns 0 or
 * -errno.
 */
int runlog_append_raw(struct runlog *log, int64_t seq, const char *type,
		      const char *json, size_t len);

/* No more events: wakes every subscriber so it can finish. */
void runlog_close(struct runlog *log);
int runlog_closed(struct runlog *log);

/* The highest seq so far (0 when empty). */
int64_t runlog_last_seq(struct runlog *log);

/* The first event with a seq above `after`, or NULL if there is none (yet). */
const struct runlog_event *runlog_next(struct runlog *log, int64_t after);

#endif
