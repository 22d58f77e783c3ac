/* strbuf.h - a growable, always NUL-terminated string buffer */
#ifndef NUMALAB_STRBUF_H
#define NUMALAB_STRBUF_H

#include <stdarg.h>
#include <stddef.h>

/*
 * A buffer that grows as text is added. After a failed allocation it
 * stays valid (what was added before is kept) and sb->oom is set, so a
 * builder appends without checking each step and looks at oom once.
 */
struct strbuf {
	char *buf; /* never NULL after strbuf_init: "" at least */
	size_t len;
	size_t cap;
	int oom;
};

#define STRBUF_INIT                                                            \
	{                                                                      \
		0                                                              \
	}

void strbuf_init(struct strbuf *sb);
void strbuf_release(struct strbuf *sb);
/* Empties it, keeping its memory. */
void strbuf_reset(struct strbuf *sb);
/* Hands the text to the caller (free it); sb is empty again. NULL if it ran out
 * of memory. */
char *strbuf_detach(struct strbuf *sb);
/* The text; "" for an empty or never-used buffer. */
const char *strbuf_str(const struct strbuf *sb);

void strbuf_add(struct strbuf *sb, const char *data, size_t n);
void strbuf_addstr(struct strbuf *sb, const char *s);
void strbuf_addch(struct strbuf *sb, char c);
__attribute__((format(printf, 2, 3))) void strbuf_addf(struct strbuf *sb,
						       const char *fmt, ...);
void strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap);
/* Drops the last n bytes (all of them if n > len). */
void strbuf_trim_end(struct strbuf *sb, size_t n);

#define STRBUF_INT_MAX 21 /* "-9223372036854775808" and its NUL */
/*
 * v in decimal, as printf's %lld writes it, into out (STRBUF_INT_MAX
 * bytes at least), NUL-terminated; its length. What a line a sample
 * formats (a seq, a length) without printf.
 */
size_t strbuf_int_text(char *out, long long v);

#endif
