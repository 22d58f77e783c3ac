/* suggest.h - the nearest known name to a mistyped one ("did you mean") */
#ifndef NUMALAB_SUGGEST_H
#define NUMALAB_SUGGEST_H

/*
 * The optimal-string-alignment distance of a and b: insertions, deletions,
 * substitutions and swaps of two neighbours, each costing 1, letters
 * compared without case. Names longer than 63 bytes count as far.
 */
int suggest_distance(const char *a, const char *b);

/* A search for the known name nearest to word: init, consider each, best. */
struct suggest {
	const char *word, *best;
	int dist;
};

void suggest_init(struct suggest *s, const char *word);
void suggest_consider(struct suggest *s, const char *name);
/*
 * The nearest name considered when it is near enough to be a typo (a
 * distance of at most a third of the word, at least 1, at most 3, and
 * less than the name's own length), else NULL.
 */
const char *suggest_best(const struct suggest *s);

#endif
