/* utf8.h - whether text is UTF-8, and a copy of text that is made so */
#ifndef NUMALAB_UTF8_H
#define NUMALAB_UTF8_H

#include <stddef.h>

/*
 * How many bytes of s (n long) are well-formed UTF-8 (RFC 3629: no
 * overlong forms, no surrogates, nothing past U+10FFFF) before the
 * first byte that is not; n when all are.
 */
size_t utf8_valid_len(const char *s, size_t n);

/*
 * A NUL-terminated copy of s in which every byte that is not part of
 * well-formed UTF-8 is written as \xHH; malloc'd, NULL on ENOMEM.
 */
char *utf8_escape(const char *s);

/*
 * The length of the longest prefix of s of at most max bytes that does
 * not end inside a character: for cutting text to a column's width.
 */
size_t utf8_prefix_len(const char *s, size_t max);

/*
 * The offset of the first control character in s (n bytes of UTF-8): C0,
 * DEL, or C1 (U+0080-U+009F); n when there is none. A name shown to a
 * class holds none.
 */
size_t utf8_control_at(const char *s, size_t n);

#endif
