/* store_file.c - the store's file before and while it is used: whose it is, whether it is whole, whether it is still there */
#define _GNU_SOURCE
#include "store_file.h"
#include "strbuf.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* every table numalab makes: store.c's, campaigns.c's and guesses.c's */
static const char *const our_tables[] = {
	"runs",		"event_batches",  "run_imports",
	"run_guesses", /* guesses.c's */
	"events",      /* before store version 2 */
	"campaigns",	"campaign_nodes", "sqlite_sequence",
	"sqlite_stat1", "sqlite_stat4",	  NULL};

/* The file name inside a "file:" URI (up to '?' or '#'), or the path itself. */
static char *fs_path_of(const char *path)
{
	if (strncmp(path, "file:", 5))
		return strdup(path);
	path += 5;
	if (!strncmp(path, "///", 3))
		path += 2;
	return strndup(path, strcspn(path, "?#"));
}

static int in_memory(const char *path, const char *fs)
{
	return !*fs || !strcmp(fs, ":memory:") ||
	       (!strncmp(path, "file:", 5) && strstr(path, "mode=memory"));
}

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

/* The newer-version refusal's words; -EINVAL. */
static int newer(struct errinfo *err, const char *fs, long ver)
{
	errinfo_set(err, NULL,
		    "database '%s' was written by a newer numalab (store "
		    "version %ld; this one reads up to %d): open it with "
		    "that numalab, or give --db another file",
		    fs, ver, STORE_FILE_VERSION);
	return -EINVAL;
}

/* The 100-byte header as the file holds it: nothing opens it for writing. */
static int check_header(const char *fs, struct errinfo *err)
{
	unsigned char h[100];
	ssize_t n;
	uint32_t app, ver;
	int fd = open(fs, O_RDONLY | O_CLOEXEC | O_NOCTTY);

	if (fd < 0)
		return 0; /* a new file, or sqlite says why it cannot open it */
	n = pread(fd, h, sizeof(h), 0);
	if (n < 0) { /* a folder, say */
		int e = errno;
		close(fd);
		errinfo_set(err, NULL, "cannot read database '%s': %s", fs,
			    strerror(e));
		return -e;
	}
	close(fd);
	if (n == 0)
		return 0; /* empty: a new store */
	if (n < (ssize_t)sizeof(h) || memcmp(h, "SQLite format 3", 16)) {
		errinfo_set(
			err, NULL,
			"database '%s' is not a SQLite file (or its header is "
			"damaged): give --db a new file name, or restore it "
			"from a backup",
			fs);
		return -EINVAL;
	}
	app = be32(h + 68);
	ver = be32(h + 60);
	if (app == STORE_FILE_APP_ID && ver > STORE_FILE_VERSION)
		return newer(err, fs, (long)ver);
	if ((app && app != STORE_FILE_APP_ID) || (!app && ver)) {
		errinfo_set(
			err, NULL,
			"database '%s' belongs to another program (application "
			"id 0x%08x, user version %u): numalab leaves it as it "
			"is; give --db a file of its own",
			fs, app, ver);
		return -EINVAL;
	}
	return 0;
}

/* "file:" + path with the characters a URI gives meaning escaped. */
static char *uri_of(const char *fs, const char *query)
{
	struct strbuf b;

	strbuf_init(&b);
	strbuf_addstr(&b, "file:");
	for (const char *p = fs; *p; p++)
		if (*p == '%' || *p == '?' || *p == '#')
			strbuf_addf(&b, "%%%02X", (unsigned char)*p);
		else
			strbuf_addch(&b, *p);
	strbuf_addstr(&b, query);
	return strbuf_detach(&b);
}

/* The tables of a file that is not ours, comma-separated; "" when none. */
static int foreign_tables(sqlite3 *db, struct strbuf *out)
{
	sqlite3_stmt *s;
	int rc;

	if (sqlite3_prepare_v2(
		    db,
		    "SELECT name FROM sqlite_master WHERE type='table' "
		    "ORDER BY name",
		    -1, &s, NULL) != SQLITE_OK)
		return -EIO;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(s, 0);
		int ours = 0;
		for (const char *const *t = our_tables; *t && !ours; t++)
			ours = name && !strcmp(name, *t);
		if (!ours && name && out->len < 200)
			strbuf_addf(out, "%s'%s'", out->len ? ", " : "", name);
	}
	sqlite3_finalize(s);
	return rc == SQLITE_DONE ? 0 : -EIO;
}

/* The schema and a quick integrity check, read through a read-only connection.
 */
static int check_contents(const char *fs, int immutable, struct errinfo *err)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *s = NULL;
	struct strbuf foreign;
	char *uri = uri_of(fs, immutable ? "?immutable=1" : "?mode=ro");
	const char *what = NULL;
	char why[160];
	int rc = -EINVAL;

	strbuf_init(&foreign);
	if (!uri || sqlite3_open_v2(uri, &db,
				    SQLITE_OPEN_READONLY | SQLITE_OPEN_URI |
					    SQLITE_OPEN_NOMUTEX,
				    NULL) != SQLITE_OK) {
		rc = 0; /* the real open says why */
		goto out;
	}
	if (foreign_tables(db, &foreign)) {
		what = sqlite3_errmsg(db);
		goto corrupt;
	}
	if (foreign.len) {
		errinfo_set(
			err, NULL,
			"database '%s' belongs to another program (it holds "
			"%s): numalab leaves it as it is; give --db a file of "
			"its own",
			fs, foreign.buf);
		goto out;
	}
	if (sqlite3_prepare_v2(db, "PRAGMA quick_check(1)", -1, &s, NULL) !=
		    SQLITE_OK ||
	    sqlite3_step(s) != SQLITE_ROW) {
		what = sqlite3_errmsg(db);
		goto corrupt;
	}
	what = (const char *)sqlite3_column_text(s, 0);
	if (what && !strcmp(what, "ok")) {
		rc = 0;
		goto out;
	}
corrupt:
	snprintf(why, sizeof(why), "%s", what ? what : "unreadable");
	for (char *p = why; *p; p++)
		if ((unsigned char)*p < 0x20)
			*p = ' ';
	errinfo_set(err, NULL,
		    "database '%s' is damaged (%s): restore it from a backup, "
		    "or move it away to start an empty one",
		    fs, why);
out:
	sqlite3_finalize(s);
	sqlite3_close(db);
	strbuf_release(&foreign);
	free(uri);
	return rc;
}

/* Writes here would fail: the folder (for -wal and -shm) or the file cannot be
 * written. */
static int read_only_media(const char *fs)
{
	char *copy = strdup(fs);
	int ro;

	if (!copy)
		return 0;
	ro = access(dirname(copy), W_OK) && errno == EROFS;
	if (!ro && access(fs, W_OK) && errno == EROFS)
		ro = 1;
	free(copy);
	return ro;
}

int store_file_check(const char *path, struct store_file *sf,
		     struct errinfo *err)
{
	struct stat st;
	char *fs = fs_path_of(path);
	int rc;

	memset(sf, 0, sizeof(*sf));
	sf->open_flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
			 SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX;
	if (!fs)
		goto enomem;
	if (in_memory(path, fs)) {
		fprintf(stderr,
			"numalab: database '%s' is not a file: runs live in "
			"memory and are lost when the server stops (give --db "
			"FILE to keep them)\n",
			path);
		free(fs);
		sf->open_path = strdup(path);
		return sf->open_path ? 0 : -ENOMEM;
	}
	sf->path = fs;
	rc = check_header(fs, err);
	if (rc)
		return rc;
	if (!strncmp(path, "file:", 5) || stat(fs, &st) ||
	    !read_only_media(fs)) {
		sf->open_path = strdup(path);
	} else {
		/* no -shm can be made: read it as it is, no locks */
		sf->immutable = 1;
		sf->open_path = uri_of(fs, "?immutable=1");
		sf->open_flags = SQLITE_OPEN_READONLY | SQLITE_OPEN_URI |
				 SQLITE_OPEN_NOMUTEX;
	}
	if (!sf->open_path)
		goto enomem;
	if (!stat(fs, &st) && st.st_size > 0) {
		rc = check_contents(fs, sf->immutable, err);
		if (rc)
			return rc;
		sf->dev = st.st_dev;
		sf->ino = st.st_ino;
		sf->known = 1;
	}
	return 0;
enomem:
	errinfo_set(err, NULL, "out of memory");
	return -ENOMEM;
}

/* PRAGMA name's value, -1 when it cannot be read. */
static long pragma_int(sqlite3 *db, const char *name)
{
	sqlite3_stmt *s = NULL;
	char sql[64];
	long v = -1;

	snprintf(sql, sizeof(sql), "PRAGMA %s", name);
	if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) == SQLITE_OK &&
	    sqlite3_step(s) == SQLITE_ROW)
		v = (long)sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	return v;
}

int store_file_version_ok(struct store_file *sf, sqlite3 *db,
			  struct errinfo *err)
{
	long ver = pragma_int(db, "user_version");

	/* as SQLite reads it, the log included: a newer server that ended
	 * before a checkpoint left its mark there, not in the header */
	if (pragma_int(db, "application_id") == STORE_FILE_APP_ID &&
	    ver > STORE_FILE_VERSION)
		return newer(err, sf->path ? sf->path : "", ver);
	return 0;
}

int store_file_mark(struct store_file *sf, sqlite3 *db, struct errinfo *err)
{
	struct stat st;
	char sql[128];

	snprintf(sql, sizeof(sql),
		 "PRAGMA application_id=%d; PRAGMA user_version=%d;",
		 STORE_FILE_APP_ID, STORE_FILE_VERSION);
	/* a file already marked is not written: a full disk still opens;
	 * a mark is never lowered */
	if ((pragma_int(db, "application_id") != STORE_FILE_APP_ID ||
	     pragma_int(db, "user_version") < STORE_FILE_VERSION) &&
	    sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK) {
		errinfo_set(err, NULL, "cannot mark database '%s': %s",
			    sf->path ? sf->path : "", sqlite3_errmsg(db));
		return -EIO;
	}
	if (sf->path && !stat(sf->path, &st)) {
		sf->dev = st.st_dev;
		sf->ino = st.st_ino;
		sf->known = 1;
	}
	return 0;
}

int store_file_gone(struct store_file *sf, struct errinfo *err)
{
	struct stat st;
	const char *how;
	struct errinfo local;

	if (!sf->path || !sf->known)
		return 0;
	if (stat(sf->path, &st))
		how = "deleted";
	else if (st.st_dev != sf->dev || st.st_ino != sf->ino)
		how = "replaced";
	else
		return 0;
	if (!err)
		err = &local;
	errinfo_set(
		err, NULL,
		"database '%s' was %s while the server ran: new runs and "
		"campaigns would be lost, so none are accepted (restart the "
		"server)",
		sf->path, how);
	if (!sf->warned) {
		sf->warned = 1;
		fprintf(stderr, "numalab: %s\n", err->msg);
	}
	return -ESTALE;
}

void store_file_release(struct store_file *sf)
{
	free(sf->path);
	free(sf->open_path);
	memset(sf, 0, sizeof(*sf));
}
