/* fleet_exec.h - running an engine's command (sinfo, sbatch, clush) and keeping what it says */
#ifndef NUMALAB_FLEET_EXEC_H
#define NUMALAB_FLEET_EXEC_H

#include "strbuf.h"

/*
 * Runs argv (looked up in PATH) with stdin from /dev/null, and appends
 * its stdout to out and its stderr to err (either may be NULL: thrown
 * away). Returns its exit status, 128+N when killed by signal N, or
 * -errno when it could not be started (127: not found).
 */
int fleet_exec(char *const argv[], struct strbuf *out, struct strbuf *err);

/*
 * Runs argv as fleet_exec does, handing each line of its stdout (stream
 * 0) and stderr (1) to line(arg, stream, text) as it comes (without its
 * newline; a last line without one too). It runs in a process group of
 * its own, with every process it starts (Ctrl-C at the terminal reaches
 * only the caller). Every 250 ms it asks stop(arg): once true, the group
 * is sent SIGTERM, and SIGKILL when the output ended or 5 s later, so
 * nothing it started lives on. Returns as fleet_exec.
 */
int fleet_exec_lines(char *const argv[],
		     void (*line)(void *arg, int stream, char *text),
		     int (*stop)(void *arg), void *arg);

/* Whether name is a program in PATH. */
int fleet_in_path(const char *name);

/* The last non-empty line of text, without its newline, into buf. */
void fleet_last_line(const char *text, char *buf, size_t len);

#endif
