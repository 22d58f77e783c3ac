/* lesson.c - a classroom lesson's params as the argv a run takes */
#include "lesson.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "declares.h"
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

int lesson_article(const struct experiment *exp, const struct lesson *l,
		   char *words, size_t len, double *value)
{
	const struct reference *a, *b;
	double va, vb;

	if (!l->figure || !(a = experiment_figure(exp, l->figure)) || !a->words)
		return -1;
	if (!l->figure_over) {
		if (experiment_figure_in(exp, l->figure, l->unit, value))
			return -1;
		snprintf(words, len, "%s", a->words);
		return 0;
	}
	if (!(b = experiment_figure(exp, l->figure_over)) || !b->words ||
	    strcmp(a->unit, b->unit) || !(b->y > 0))
		return -1;
	va = a->y;
	vb = b->y;
	*value = va / vb;
	snprintf(words, len, "%s against %s: %.1f×", a->words, b->words,
		 *value);
	return 0;
}
