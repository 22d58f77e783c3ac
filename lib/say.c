/* say.c - messages to the terminal that never carry its control characters */
#include "say.h"
#include "strbuf.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static void escape_into(struct strbuf *out, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		unsigned char next = i + 1 < n ? (unsigned char)s[i + 1] : 0;

		if (c < 0x20 || c == 0x7f) {
			strbuf_addf(out, "\\x%02x", c);
		} else if (c == 0xc2 && next >= 0x80 && next <= 0x9f) {
			/* U+0080..U+009F: CSI and its kin, to a UTF-8 terminal
			 */
			strbuf_addf(out, "\\x%02x\\x%02x", c, next);
			i++;
		} else {
			strbuf_addch(out, (char)c);
		}
	}
}

void say(FILE *f, const char *fmt, ...)
{
	struct strbuf raw, out;
	va_list ap;
	size_t n;
	int nl;

	strbuf_init(&raw);
	strbuf_init(&out);
	va_start(ap, fmt);
	strbuf_vaddf(&raw, fmt, ap);
	va_end(ap);
	n = raw.len;
	nl = n && raw.buf[n - 1] == '\n';
	escape_into(&out, raw.buf, nl ? n - 1 : n);
	if (nl)
		strbuf_addch(&out, '\n');
	fputs(strbuf_str(&out), f);
	strbuf_release(&raw);
	strbuf_release(&out);
}
