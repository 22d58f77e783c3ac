/* csv.c - one CSV field as RFC 4180 writes it, with formula text neutralised */
#include "csv.h"

#include <ctype.h>
#include <string.h>

static int csv_is_number(const char *v)
{
	int digits = 0;

	if (*v == '+' || *v == '-')
		v++;
	for (; isdigit((unsigned char)*v); v++)
		digits++;
	if (*v == '.')
		for (v++; isdigit((unsigned char)*v); v++)
			digits++;
	if (!digits)
		return 0;
	if (*v == 'e' || *v == 'E') {
		v++;
		if (*v == '+' || *v == '-')
			v++;
		if (!isdigit((unsigned char)*v))
			return 0;
		while (isdigit((unsigned char)*v))
			v++;
	}
	return !*v;
}

void csv_field(struct strbuf *sb, const char *v)
{
	int formula;

	if (!v)
		return;
	formula = *v && strchr("=+-@\t\r", *v) && !csv_is_number(v);
	if (!formula && !v[strcspn(v, ",\"\r\n")]) {
		strbuf_addstr(sb, v);
		return;
	}
	strbuf_addch(sb, '"');
	if (formula)
		strbuf_addch(sb, '\'');
	for (; *v; v++) {
		if (*v == '"')
			strbuf_addch(sb, '"');
		strbuf_addch(sb, *v);
	}
	strbuf_addch(sb, '"');
}
