/* say.h - messages to the terminal that never carry its control characters */
#ifndef NUMALAB_SAY_H
#define NUMALAB_SAY_H

#include <stdio.h>

/*
 * fprintf to f, with every control character of the text (C0 but the
 * final newline, DEL, and C1 as UTF-8) written as \xHH instead: an
 * argument that holds an escape sequence is shown, never run.
 */
__attribute__((format(printf, 2, 3))) void say(FILE *f, const char *fmt, ...);

#endif
