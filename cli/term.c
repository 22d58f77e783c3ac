/* term.c - how wide the text a command prints may be: COLUMNS, else the terminal's width */
#include "term.h"

#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

int term_columns(FILE *f)
{
	const char *env = getenv("COLUMNS");
	struct winsize ws;

	if (env && *env) {
		char *end;
		long n = strtol(env, &end, 10);

		if (!*end && n >= 20 && n <= 10000)
			return (int)n;
	}
	if (isatty(fileno(f)) && !ioctl(fileno(f), TIOCGWINSZ, &ws) &&
	    ws.ws_col >= 20)
		return ws.ws_col;
	return 0;
}

/* The columns n bytes of UTF-8 take: one a character (no wide ones here). */
static int cols(const char *s, size_t n)
{
	int w = 0;

	for (size_t i = 0; i < n; i++)
		w += ((unsigned char)s[i] & 0xc0) != 0x80;
	return w;
}

void term_wrap(struct strbuf *sb, const char *text, int indent, int width)
{
	int col = indent;
	const char *p = text;

	while (*p) {
		size_t n;
		int w;

		while (*p == ' ')
			p++;
		if (!*p)
			break;
		n = strcspn(p, " ");
		w = cols(p, n);
		if (col > indent && width > 0 && col + 1 + w > width) {
			strbuf_addf(sb, "\n%*s", indent, "");
			col = indent;
		} else if (col > indent) {
			strbuf_addch(sb, ' ');
			col++;
		}
		strbuf_add(sb, p, n);
		col += w;
		p += n;
	}
}
