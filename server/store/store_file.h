/* store_file.h - the store's file before and while it is used: whose it is, whether it is whole, whether it is still there */
#ifndef NUMALAB_STORE_FILE_H
#define NUMALAB_STORE_FILE_H

#include <stddef.h>
#include <sys/types.h>

#include <sqlite3.h>

#include "errinfo.h"

/* "nlab": marks a numalab store; a file with another id is not ours */
#define STORE_FILE_APP_ID 0x6e6c6162
/* 1: a row an event (events); 2: a row a batch (event_batches, run_imports).
 * A file of version 1 is converted when it is opened for writing. */
#define STORE_FILE_VERSION 2

struct store_file {
	char *path;	 /* the file system path, NULL for a store in memory */
	char *open_path; /* what sqlite3_open_v2 gets */
	int open_flags;
	int immutable; /* read-only media: opened without locks or -shm */
	dev_t dev;
	ino_t ino;
	int known;  /* dev/ino were taken once the file existed */
	int warned; /* it was said that the file went away */
};

/*
 * Looks at the store's file before anything is written to it: a file
 * that is not SQLite, one of another program (its application id or
 * user version), one whose schema holds tables that are not ours, or one
 * that fails a quick integrity check is refused with err naming the file
 * and what to do (-EINVAL). Fills sf with how to open it (read-only media
 * without locks). A store that will not be saved (":memory:", "") is
 * said on stderr. Returns 0 or -errno.
 */
int store_file_check(const char *path, struct store_file *sf,
		     struct errinfo *err);
/* -EINVAL (err says why) when the file, as SQLite reads it (its log
 * included), is of a newer store version than this numalab's. */
int store_file_version_ok(struct store_file *sf, sqlite3 *db,
			  struct errinfo *err);

/* Marks a writable store as numalab's; takes its dev/ino. 0 or -EIO. */
int store_file_mark(struct store_file *sf, sqlite3 *db, struct errinfo *err);
/*
 * Nonzero (-ESTALE, err set, said once on stderr) when the file was
 * deleted or replaced since it was opened: what is written now is lost.
 */
int store_file_gone(struct store_file *sf, struct errinfo *err);
void store_file_release(struct store_file *sf);

#endif
