/* strvec.c - a growable, NULL-terminated vector of strings (an argv) */
#define _GNU_SOURCE /* vasprintf */
#include "strvec.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void strvec_init(struct strvec *sv)
{
	memset(sv, 0, sizeof(*sv));
}

void strvec_clear(struct strvec *sv)
{
	for (size_t i = 0; i < sv->n; i++)
		free(sv->v[i]);
	free(sv->v);
	strvec_init(sv);
}

/* Takes ownership of s (NULL means a failed allocation). */
static void push_owned(struct strvec *sv, char *s)
{
	if (!s || sv->oom) {
		free(s);
		sv->oom = 1;
		return;
	}
	if (sv->n + 2 > sv->cap) {
		size_t cap = sv->cap ? sv->cap * 2 : 8;
		char **v = realloc(sv->v, cap * sizeof(*v));
		if (!v) {
			free(s);
			sv->oom = 1;
			return;
		}
		sv->v = v;
		sv->cap = cap;
	}
	sv->v[sv->n++] = s;
	sv->v[sv->n] = NULL;
}

void strvec_push(struct strvec *sv, const char *s)
{
	push_owned(sv, strdup(s));
}

void strvec_pushf(struct strvec *sv, const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	push_owned(sv, s);
}
