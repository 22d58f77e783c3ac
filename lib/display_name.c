/* display_name.c - what a name shown to a class may hold: visible text, as written */
#include "display_name.h"

#include <string.h>

#include "utf8.h"

/* A range of code points a name may not hold, and what they are. */
struct hidden {
	unsigned long lo, hi;
	const char *what;
};

#define INVISIBLE "an invisible character"
#define DIRECTION "a text-direction control"

/*
 * Characters that show nothing or turn the text around them (Unicode's
 * format characters, Cf, and fillers that draw as blank): a name holding
 * one reads otherwise than it is, or looks like another.
 */
static const struct hidden hidden[] = {
	{0x00ad, 0x00ad, INVISIBLE}, /* soft hyphen */
	{0x034f, 0x034f, INVISIBLE}, /* combining grapheme joiner */
	{0x061c, 0x061c, DIRECTION}, /* Arabic letter mark */
	{0x115f, 0x1160, INVISIBLE}, /* Hangul fillers */
	{0x17b4, 0x17b5, INVISIBLE},
	{0x180e, 0x180e, INVISIBLE},
	{0x200b, 0x200d, INVISIBLE}, /* zero width space, non-joiner, joiner */
	{0x200e, 0x200f, DIRECTION}, /* left-to-right, right-to-left mark */
	{0x2028, 0x2029, "a line or paragraph separator"},
	{0x202a, 0x202e, DIRECTION}, /* embeddings and overrides */
	{0x2060, 0x2065, INVISIBLE}, /* word joiner, invisible operators */
	{0x2066, 0x2069, DIRECTION}, /* isolates */
	{0x206a, 0x206f, INVISIBLE},
	{0x3164, 0x3164, INVISIBLE}, /* Hangul filler */
	{0xfeff, 0xfeff, INVISIBLE}, /* zero width no-break space, BOM */
	{0xffa0, 0xffa0, INVISIBLE}, /* halfwidth Hangul filler */
	{0xfff9, 0xfffb, INVISIBLE}, /* interlinear annotation */
	{0x1bca0, 0x1bca3, INVISIBLE},
	{0x1d173, 0x1d17a, INVISIBLE},
	{0xe0000, 0xe007f, INVISIBLE}, /* tags */
};

/* Unicode's White_Space that is no control or separator: a space. */
static int is_space(unsigned long c)
{
	return c == 0x20 || c == 0xa0 || c == 0x1680 ||
	       (c >= 0x2000 && c <= 0x200a) || c == 0x202f || c == 0x205f ||
	       c == 0x3000;
}

/* The code point at s (well-formed UTF-8), its length into *len. */
static unsigned long decode(const unsigned char *s, size_t *len)
{
	unsigned long c = s[0];

	if (c < 0x80) {
		*len = 1;
		return c;
	}
	*len = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2;
	c &= 0x3f >> (*len - 1);
	for (size_t i = 1; i < *len; i++)
		c = c << 6 | (s[i] & 0x3f);
	return c;
}

static const struct hidden *hidden_of(unsigned long c)
{
	for (size_t i = 0; i < sizeof(hidden) / sizeof(hidden[0]); i++)
		if (c >= hidden[i].lo && c <= hidden[i].hi)
			return &hidden[i];
	return NULL;
}

/* What a well-formed name without controls may still be refused for: a
 * hidden character, only spaces, or a space at an end. */
static int visible_check(const char *name, size_t n, const char *subject,
			 const char *field, struct errinfo *err)
{
	const unsigned char *u = (const unsigned char *)name;
	unsigned long c = 0, first = 0;
	size_t len;
	int seen = 0;

	for (size_t at = 0; at < n; at += len) {
		const struct hidden *h;
		c = decode(u + at, &len);
		if ((h = hidden_of(c)))
			return errinfo_set(err, field,
					   "%s has %s (U+%04lX) at byte %zu "
					   "(letters, digits, spaces and "
					   "punctuation are allowed)",
					   subject, h->what, c, at);
		if (!at)
			first = c;
		seen |= !is_space(c);
	}
	if (n && !seen)
		return errinfo_set(err, field,
				   "%s is only spaces (give at least one "
				   "letter, digit or punctuation mark)",
				   subject);
	if (n && (is_space(first) || is_space(c)))
		return errinfo_set(err, field,
				   "%s %s with a space (U+%04lX): spaces are "
				   "allowed between words, not at either end",
				   subject, is_space(first) ? "starts" : "ends",
				   is_space(first) ? first : c);
	return 0;
}

int display_name_check(const char *name, const char *subject, const char *field,
		       struct errinfo *err)
{
	size_t n = strlen(name), at;

	if (n > DISPLAY_NAME_MAX)
		return errinfo_set(err, field,
				   "%s is %zu bytes long (at most %d bytes "
				   "of UTF-8)",
				   subject, n, DISPLAY_NAME_MAX);
	if (utf8_valid_len(name, n) != n)
		return errinfo_set(err, field, "%s is not UTF-8", subject);
	if ((at = utf8_control_at(name, n)) < n)
		return errinfo_set(err, field,
				   "%s has a control character at byte %zu "
				   "(letters, digits, spaces and punctuation "
				   "are allowed)",
				   subject, at);
	return visible_check(name, n, subject, field, err);
}
