/* lesson.c - a classroom lesson's params as the argv a run takes */
#include "lesson.h"

#include <errno.h>
#include <string.h>

#include "strbuf.h"

int lesson_argv(const struct lesson *l, struct strvec *out)
{
	const char *s = l->params ? l->params : "";

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
