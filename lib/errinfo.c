/* errinfo.c - one error: the field it concerns and its text */
#include "errinfo.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

int errinfo_set(struct errinfo *e, const char *field, const char *fmt, ...)
{
	va_list ap;

	if (!e)
		return -EINVAL;
	snprintf(e->field, sizeof(e->field), "%s", field ? field : "");
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	return -EINVAL;
}

void errinfo_clear(struct errinfo *e)
{
	e->field[0] = '\0';
	e->msg[0] = '\0';
}
