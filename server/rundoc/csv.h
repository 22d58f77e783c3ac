/* csv.h - one CSV field as RFC 4180 writes it, with formula text neutralised */
#ifndef NUMALAB_CSV_H
#define NUMALAB_CSV_H

#include "strbuf.h"

/*
 * Appends v as one field (no separator): quoted when it holds , " CR or
 * LF, and, when it starts with = + - @ TAB or CR and is not a plain
 * number, quoted with a leading ' so that a spreadsheet shows it as
 * text instead of running it as a formula (OWASP's CSV injection
 * advice). NULL is an empty field. The page's web/csv.js does the same,
 * tested on the same cases (tests/data/csv_cases.json).
 */
void csv_field(struct strbuf *sb, const char *v);

#endif
