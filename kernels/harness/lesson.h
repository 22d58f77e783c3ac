/* lesson.h - a classroom lesson's params as the argv a run takes */
#ifndef NUMALAB_LESSON_H
#define NUMALAB_LESSON_H

#include "descriptor.h"
#include "strvec.h"

/*
 * Splits l->params ("k=v k=v") at spaces into out, one k=v per string.
 * Returns 0, or -ENOMEM when a push failed (out keeps what was pushed).
 */
int lesson_argv(const struct lesson *l, struct strvec *out);

/* The same for any "k=v k=v" text (a descriptor's smoke run). */
int params_text_argv(const char *text, struct strvec *out);

/*
 * The article's figure a lesson is set beside, in its unit: the figure
 * (or the ratio figure / figure_over) and its words. Returns 0, or -1
 * when the lesson names none (or a figure its experiment does not hold).
 */
int lesson_article(const struct experiment *exp, const struct lesson *l,
		   char *words, size_t len, double *value);

#endif
