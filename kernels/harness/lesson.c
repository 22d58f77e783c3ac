/* lesson.c - a classroom lesson's params as the argv a run takes */
#include "lesson.h"

#include <errno.h>
#include <string.h>

#include "strbuf.h"

int lesson_argv(const struct lesson *l, struct strvec *out)
{
	return params_text_argv(l->params, out);
}

int params_text_argv(const char *text, struct strvec *out)
{
	const char *s = text ? text : "";

	while (*s) {
		size_t len = strcspn(s, " ");
		if (len) {
			struct strbuf sb = STRBUF_INIT;
			strbuf_add(&sb, s, len);
			strvec_push(out, strbuf_str(&sb));
			strbuf_release(&sb);
		}
		s += len;
		s += strspn(s, " ");
	}
	return out->oom ? -ENOMEM : 0;
}
