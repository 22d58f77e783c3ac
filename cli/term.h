/* term.h - how wide the text a command prints may be: COLUMNS, else the terminal's width */
#ifndef NUMALAB_TERM_H
#define NUMALAB_TERM_H

#include <stdio.h>

#include "strbuf.h"

/*
 * The columns a line printed on f may take: COLUMNS when it is a number
 * (at least 20), else the width of the terminal f is, else 0 (not a
 * terminal: no limit, so a pipe gets whole lines).
 */
int term_columns(FILE *f);

/*
 * text into sb, in lines of at most width columns (0: one line), every
 * line after the first indented by indent spaces; a word longer than a
 * line keeps a line of its own.
 */
void term_wrap(struct strbuf *sb, const char *text, int indent, int width);

#endif
