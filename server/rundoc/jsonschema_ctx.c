/* jsonschema_ctx.c - where a check stands in the value (samples[3].stats.n), and its error */
#include "jsonschema_ctx.h"

#include <stdarg.h>
#include <stdio.h>

/* Appends fmt's text to the path, cut to fit; the length to pop back to. */
__attribute__((format(printf, 2, 3))) static size_t push(struct vctx *c,
							 const char *fmt, ...)
{
	size_t old = c->len;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(c->path + c->len, sizeof(c->path) - c->len, fmt, ap);
	va_end(ap);
	if (n > 0)
		c->len += (size_t)n < sizeof(c->path) - c->len
				  ? (size_t)n
				  : sizeof(c->path) - c->len - 1;
	return old;
}

size_t vctx_key(struct vctx *c, const char *key)
{
	return push(c, "%s%.40s", c->len ? "." : "", key);
}

size_t vctx_index(struct vctx *c, size_t i)
{
	return push(c, "[%zu]", i);
}

void vctx_pop(struct vctx *c, size_t old)
{
	c->len = old;
	c->path[old] = '\0';
}

/* "'samples[3].y'" or "the value" for the whole of it. */
const char *vctx_subject(struct vctx *c, char *buf, size_t len)
{
	if (!c->len)
		snprintf(buf, len, "the document");
	else
		snprintf(buf, len, "'%s'", c->path);
	return buf;
}

int vctx_fail(struct vctx *c, const char *fmt, ...)
{
	char msg[ERRINFO_MSG_LEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* the field as long as errinfo keeps it: the start says where */
	return errinfo_set(c->err, c->len ? c->path : NULL, "%s", msg);
}

int vctx_fail_field(struct vctx *c, const char *what, const char *key)
{
	size_t old = vctx_key(c, key);
	int rc = vctx_fail(c, "%s '%s'", what, c->path);

	vctx_pop(c, old);
	return rc;
}
