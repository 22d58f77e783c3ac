/* strvec.h - a growable, NULL-terminated vector of strings (an argv) */
#ifndef NUMALAB_STRVEC_H
#define NUMALAB_STRVEC_H

#include <stddef.h>

/* v[n] is always NULL once anything was pushed; each string is owned. */
struct strvec {
	char **v;
	size_t n;
	size_t cap;
	int oom; /* a push failed; what was pushed before is kept */
};

#define STRVEC_INIT                                                            \
	{                                                                      \
		0                                                              \
	}

void strvec_init(struct strvec *sv);
void strvec_clear(struct strvec *sv);
void strvec_push(struct strvec *sv, const char *s);
__attribute__((format(printf, 2, 3))) void strvec_pushf(struct strvec *sv,
							const char *fmt, ...);

#endif
