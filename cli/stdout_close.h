/* stdout_close.h - a command's last step: its output written, or said not to be */
#ifndef NUMALAB_STDOUT_CLOSE_H
#define NUMALAB_STDOUT_CLOSE_H

#include <stdio.h>

/*
 * Flushes and closes stdout. When any of the command's output could not
 * be written (a full disk, a closed pipe), says "PROG: cannot write the
 * output: why" on stderr and returns rc, or 1 when rc was 0; else rc.
 */
int stdout_close(const char *prog, int rc);

/*
 * fflush(f). Where f is stdout and the flush fails, why is kept for
 * stdout_close() to say: the stream keeps only that a write failed, and
 * the data it could not write is gone, so the last flush finds no error.
 */
int stdout_flush(FILE *f);

#endif
