/* contend.c - what the experiments of threads contending for a line share: the spacing that keeps words apart, and how long the threads must have run together */
#include "contend.h"

#include <stdio.h>

#include "declares.h"

size_t contend_apart(int line_size)
{
	size_t two = 2 * (size_t)(line_size > 0 ? line_size : 64);

	return two > CONTEND_APART ? two : CONTEND_APART;
}

double contend_floor(const struct experiment *exp)
{
	double floor = rules_together_floor(exp);

	return floor > 0 ? floor : CONTEND_FLOOR;
}

enum contend_overlap contend_overlap(const struct comparison *c, double floor)
{
	if (c->together < floor)
		return CONTEND_TOO_LITTLE;
	return c->together < CMP_FULL_OVERLAP ? CONTEND_PARTLY : CONTEND_FULL;
}

const char *contend_why(const struct comparison *c, const char *faster,
			char *buf, size_t len)
{
	if (c->rel == CMP_MORE && c->lower_bound)
		snprintf(
			buf, len,
			"the threads ran together only %.0f%% of a round, so the full penalty may be larger",
			100 * c->together);
	else if (c->rel == CMP_LESS)
		snprintf(buf, len, "%s", faster);
	else if (c->rel == CMP_FEW || c->rel == CMP_UNSURE)
		snprintf(buf, len, "%s", compare_why_not(c));
	else
		buf[0] = '\0';
	return buf;
}
