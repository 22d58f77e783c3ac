/* token_file.h - the bearer token read from a file, one rule for every command */
#ifndef NUMALAB_TOKEN_FILE_H
#define NUMALAB_TOKEN_FILE_H

#include "errinfo.h"

/*
 * The first line of the file at path with its trailing white space (spaces,
 * tabs, "\r", "\n") removed, in *out (malloc'ed). Returns 0; -errno with
 * err naming the file when it cannot be read, -EINVAL when nothing is left
 * of its first line, -ENOMEM.
 */
int token_file_read(const char *path, char **out, struct errinfo *err);

#endif
