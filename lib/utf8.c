/* utf8.c - whether text is UTF-8, and a copy of text that is made so */
#include "utf8.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The length of the well-formed sequence at s (1 to 4), or 0. */
static size_t sequence(const unsigned char *s, size_t n)
{
	unsigned char c = s[0], lo = 0x80, hi = 0xbf;
	size_t len;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		len = 2;
	else if (c >= 0xe0 && c <= 0xef)
		len = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		len = 4;
	else
		return 0;
	/* the second byte's range rules out overlong forms, surrogates and
	 * code points past U+10FFFF */
	if (c == 0xe0)
		lo = 0xa0;
	else if (c == 0xed)
		hi = 0x9f;
	else if (c == 0xf0)
		lo = 0x90;
	else if (c == 0xf4)
		hi = 0x8f;
	if (n < len || s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < len; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return len;
}

size_t utf8_valid_len(const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, k;

	for (;;) {
		/* ASCII, most of what is checked, a byte at a time */
		while (i < n && u[i] < 0x80)
			i++;
		if (i == n || !(k = sequence(u + i, n - i)))
			return i;
		i += k;
	}
}

char *utf8_escape(const char *s)
{
	size_t n = strlen(s), o = 0;
	char *out = malloc(4 * n + 1);

	if (!out)
		return NULL;
	for (size_t i = 0; i < n;) {
		size_t k = sequence((const unsigned char *)s + i, n - i);
		if (k) {
			memcpy(out + o, s + i, k);
			o += k;
			i += k;
		} else {
			o += (size_t)sprintf(out + o, "\\x%02x",
					     (unsigned char)s[i]);
			i++;
		}
	}
	out[o] = '\0';
	return out;
}

size_t utf8_prefix_len(const char *s, size_t max)
{
	size_t n = strnlen(s, max);

	if (n < max || s[n] == '\0')
		return n;
	/* s[n] is the first byte left out: back off while it continues a
	 * character that began before it */
	while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
		n--;
	return n;
}

size_t utf8_control_at(const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;

	for (size_t i = 0; i < n; i++)
		/* C1 is 0xC2 0x80-0x9F in UTF-8 */
		if (u[i] < 0x20 || u[i] == 0x7f ||
		    (u[i] == 0xc2 && i + 1 < n && u[i + 1] >= 0x80 &&
		     u[i + 1] <= 0x9f))
			return i;
	return n;
}
