/* strbuf.c - a growable, always NUL-terminated string buffer */
#include "strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char empty[1];

void strbuf_init(struct strbuf *sb)
{
	sb->buf = empty;
	sb->len = 0;
	sb->cap = 0;
	sb->oom = 0;
}

void strbuf_release(struct strbuf *sb)
{
	if (sb->cap)
		free(sb->buf);
	strbuf_init(sb);
}

void strbuf_reset(struct strbuf *sb)
{
	sb->len = 0;
	if (sb->cap)
		sb->buf[0] = '\0';
	sb->oom = 0;
}

const char *strbuf_str(const struct strbuf *sb)
{
	return sb->buf && sb->cap ? sb->buf : "";
}

char *strbuf_detach(struct strbuf *sb)
{
	char *s;

	if (sb->oom) {
		strbuf_release(sb);
		return NULL;
	}
	s = sb->cap ? sb->buf : strdup("");
	strbuf_init(sb);
	return s;
}

/* Makes room for n more bytes and the NUL. Returns 0 or -1 (oom set). */
static int grow(struct strbuf *sb, size_t n)
{
	size_t want, cap;
	char *b;

	if (sb->oom)
		return -1;
	if (!sb->buf)
		strbuf_init(sb);
	want = sb->len + n + 1;
	if (want < n) { /* overflow */
		sb->oom = 1;
		return -1;
	}
	if (want <= sb->cap)
		return 0;
	cap = sb->cap ? sb->cap : 64;
	while (cap < want)
		cap = cap * 2 > cap ? cap * 2 : want;
	b = sb->cap ? realloc(sb->buf, cap) : malloc(cap);
	if (!b) {
		sb->oom = 1;
		return -1;
	}
	if (!sb->cap)
		b[0] = '\0';
	sb->buf = b;
	sb->cap = cap;
	return 0;
}

void strbuf_add(struct strbuf *sb, const char *data, size_t n)
{
	if (grow(sb, n))
		return;
	memcpy(sb->buf + sb->len, data, n);
	sb->len += n;
	sb->buf[sb->len] = '\0';
}

void strbuf_addstr(struct strbuf *sb, const char *s)
{
	strbuf_add(sb, s, strlen(s));
}

void strbuf_addch(struct strbuf *sb, char c)
{
	strbuf_add(sb, &c, 1);
}

void strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap)
{
	va_list cp;
	int n;

	va_copy(cp, ap);
	n = vsnprintf(NULL, 0, fmt, cp);
	va_end(cp);
	if (n < 0 || grow(sb, (size_t)n))
		return;
	vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, ap);
	sb->len += (size_t)n;
}

void strbuf_addf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(sb, fmt, ap);
	va_end(ap);
}

void strbuf_trim_end(struct strbuf *sb, size_t n)
{
	if (!sb->cap)
		return;
	sb->len = n > sb->len ? 0 : sb->len - n;
	sb->buf[sb->len] = '\0';
}

size_t strbuf_int_text(char *out, long long v)
{
	char tmp[STRBUF_INT_MAX];
	unsigned long long u =
		v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;
	size_t n = 0, k = 0;

	do {
		tmp[n++] = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	if (v < 0)
		out[k++] = '-';
	while (n)
		out[k++] = tmp[--n];
	out[k] = '\0';
	return k;
}
