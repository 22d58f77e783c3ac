/* store.h - runs and their events in one SQLite file */
#ifndef NUMALAB_STORE_H
#define NUMALAB_STORE_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "errinfo.h"
#include "runlog.h"

/*
 * Threads: every call but store_open and store_close is safe from any
 * thread at once (one connection behind one mutex; the runner thread,
 * the HTTP handlers and import all call in). store_open runs before the
 * other threads start, store_close after they have stopped.
 */
struct store;

/*
 * Opens (creating if needed) the database at path (a file name or a
 * "file:" URI, e.g. "file:x.db?mode=ro"), in WAL mode. Returns NULL with
 * err set when it cannot be opened or has a foreign schema.
 */
struct store *store_open(const char *path, struct errinfo *err);
void store_close(struct store *st);
/* Now, the way the store keeps times: ISO-8601 UTC with milliseconds. */
void store_timestamp(char *buf, size_t len);
/* Nonzero when writes will fail (opened read-only). */
int store_readonly(struct store *st);
/*
 * One atomic step: what the calling thread stores between begin and end
 * is kept whole or not at all, also when the process is killed between
 * two calls. The thread holds the store throughout (other threads wait),
 * so it reads what it wrote and nobody else's statement falls in. Nested,
 * they are one step: the outermost end decides. begin: 0, or -EIO with
 * err set (the step is not begun). end (once per begin): with ok, keeps
 * the step: 0, or -EIO with err set when it could not (nothing kept);
 * without ok, drops it and returns 0.
 */
int store_atomic_begin(struct store *st, struct errinfo *err);
int store_atomic_end(struct store *st, int ok, struct errinfo *err);

/*
 * Every run left queued or running by a server that stopped becomes
 * `interrupted` with error why (why_queued for one that had not started,
 * when not NULL), its summary and headline folded from the
 * events it kept (events_fold), and a final `interrupted` event; its
 * notes and other events stay as they were. Only runs up to *upto are
 * touched; 0 on entry: every stale run, and *upto is set to the highest,
 * so a later try leaves runs started since alone. Returns how many, or
 * -ENOSPC (the disk is full: try again when it has room) or -EIO, with
 * err set.
 */
int store_interrupt_stale(struct store *st, const char *why,
			  const char *why_queued, int64_t *upto,
			  struct errinfo *err);

/*
 * After a write found the disk full: the WAL checkpointed (PASSIVE, on
 * this connection), so that the next write begins it again in the room
 * it already holds rather than growing it. 0 when every frame was copied,
 * else -ENOSPC (the checkpoint itself needed room, or a reader held it).
 */
int store_make_room(struct store *st);

/*
 * The writes below return 0, or -EIO with err set (err may be NULL).
 * A new queued run: 0 and *id.
 */
int store_create_run(struct store *st, const char *experiment,
		     const char *params_json, const char *request_json,
		     const char *created_at, int64_t *id, struct errinfo *err);
int store_run_started(struct store *st, int64_t id, const char *started_at,
		      struct errinfo *err);
int store_run_machine(struct store *st, int64_t id, const char *machine_json,
		      struct errinfo *err);
/* An imported run's mark (its imported event's text), for the run list. */
int store_run_imported(struct store *st, int64_t id, const char *event_json,
		       struct errinfo *err);
/*
 * The journal beside the store (live_journal.h) for the runs this process
 * will run (numalab serve; other users of the store leave it alone):
 * opened and locked, and what a server that stopped left in it folded
 * into the store. 0 (where it cannot be kept, stderr says so and the runs
 * store their batches themselves); -EBUSY with err set when another
 * process holds it: another server serves this store (the runs store
 * their batches themselves, and the runs that look unfinished may be
 * that server's, live).
 */
int store_live_attach(struct store *st, struct errinfo *err);
/*
 * A live run's events, from now until store_live_end, go to a journal
 * beside the store (live_journal.h): a write a batch rather than a
 * commit. 0; else (no journal here, or the last run's could not be
 * folded in) the run's events go to the store batch by batch.
 */
int store_live_begin(struct store *st, int64_t id);
/*
 * Run id's journaled events into the store: inside an atomic step, kept
 * when it commits (the run's end and its events in one transaction),
 * else in a transaction of their own. 0 or -EIO (err set; the journal
 * keeps them for the next try or the next start).
 */
int store_live_end(struct store *st, int64_t id, struct errinfo *err);
/* Events in one transaction: all or none (a live run's: its journal). */
int store_append_events(struct store *st, int64_t id,
			const struct runlog_event *const *ev, int n,
			struct errinfo *err);
/* summary_json and headline and error may be NULL. */
int store_run_finished(struct store *st, int64_t id, const char *status,
		       const char *finished_at, const char *error,
		       const char *headline, const char *summary_json,
		       struct errinfo *err);

/*
 * The run's row as an object (id, experiment, status, created_at,
 * started_at, finished_at, params, request, error, headline, summary,
 * machine). NULL with errno ENOENT when there is no such run, EIO or
 * ENOMEM.
 */
json_t *store_get_run(struct store *st, int64_t id);
/* 0 when the run has a row; -ENOENT when it has none, -EIO. */
int store_has_run(struct store *st, int64_t id);

/*
 * Newest first; experiment may be NULL, and machine (NULL: all) keeps the
 * runs whose host name or CPU model holds it (any case). *runs: array of
 * {id, experiment, status, created_at, finished_at, headline, params,
 * hostname, cpu_model}. Returns 0, -EIO or -ENOMEM (*runs may then
 * hold part of the list, or be NULL).
 */
int store_find_runs(struct store *st, const char *experiment,
		    const char *machine, int64_t limit, int64_t offset,
		    json_t **runs, int64_t *total);

/*
 * Runs fn with the store's connection under its lock, for the tables
 * other modules own (campaigns.c). Returns what fn returned.
 */
struct sqlite3;
int store_with_db(struct store *st, int (*fn)(struct sqlite3 *db, void *arg),
		  void *arg);
/*
 * The same, for a write: refused with -ESTALE and err saying why when
 * the database file was deleted or replaced while the server ran (what
 * would be written is lost), as store_create_run refuses a run.
 */
int store_write_with_db(struct store *st,
			int (*fn)(struct sqlite3 *db, void *arg), void *arg,
			struct errinfo *err);

/* Appends the run's stored events after seq `after` to log. 0 or -errno. */
int store_load_events(struct store *st, int64_t id, int64_t after,
		      struct runlog *log);

#endif
