/* suggest.c - the nearest known name to a mistyped one */
#include "suggest.h"

#include <ctype.h>
#include <limits.h>
#include <string.h>

#define SUGGEST_MAX_LEN 64

static int min3(int a, int b, int c)
{
	int m = a < b ? a : b;
	return m < c ? m : c;
}

int suggest_distance(const char *a, const char *b)
{
	/* three rows of the table: two back (for a swap), one back, this */
	int d[3][SUGGEST_MAX_LEN + 1];
	size_t n = strlen(a), m = strlen(b);

	if (n >= SUGGEST_MAX_LEN || m >= SUGGEST_MAX_LEN)
		return INT_MAX;
	for (size_t j = 0; j <= m; j++)
		d[0][j] = (int)j;
	for (size_t i = 1; i <= n; i++) {
		int *cur = d[i % 3], *up = d[(i - 1) % 3],
		    *up2 = d[(i + 1) % 3];
		cur[0] = (int)i;
		for (size_t j = 1; j <= m; j++) {
			int ca = tolower((unsigned char)a[i - 1]),
			    cb = tolower((unsigned char)b[j - 1]);
			cur[j] = min3(up[j] + 1, cur[j - 1] + 1,
				      up[j - 1] + (ca != cb));
			if (i > 1 && j > 1 &&
			    ca == tolower((unsigned char)b[j - 2]) &&
			    cb == tolower((unsigned char)a[i - 2]) &&
			    up2[j - 2] + 1 < cur[j])
				cur[j] = up2[j - 2] + 1;
		}
	}
	return d[n % 3][m];
}

void suggest_init(struct suggest *s, const char *word)
{
	s->word = word;
	s->best = NULL;
	s->dist = INT_MAX;
}

void suggest_consider(struct suggest *s, const char *name)
{
	int d;

	if (!s->word || !name)
		return;
	d = suggest_distance(s->word, name);
	if (d < s->dist) {
		s->dist = d;
		s->best = name;
	}
}

const char *suggest_best(const struct suggest *s)
{
	int len = s->word ? (int)strlen(s->word) : 0;
	int limit = len / 3;

	if (limit < 1)
		limit = 1;
	if (limit > 3)
		limit = 3;
	if (!s->best || s->dist > limit || s->dist >= (int)strlen(s->best))
		return NULL;
	return s->best;
}
