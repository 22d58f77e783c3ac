/* datetime.h - RFC 3339 times read into an instant, so two can be ordered */
#ifndef NUMALAB_DATETIME_H
#define NUMALAB_DATETIME_H

#include <stdint.h>

/* An instant: seconds since 1970-01-01T00:00:00Z and the nanoseconds past. */
struct datetime {
	int64_t sec;
	int32_t nsec;
};

/*
 * Reads s, an RFC 3339 date-time (2026-12-03T12:00:00Z,
 * 2026-12-03T12:00:00.123+01:00), into *out, its offset applied: two
 * times written in other zones compare as the instants they are. 0, or
 * -EINVAL when s is not one (digits past the ninth of a fraction are
 * read as far as the nanosecond).
 */
int datetime_parse(const char *s, struct datetime *out);

/* <0, 0 or >0 as a is before, the same instant as, or after b. */
int datetime_cmp(const struct datetime *a, const struct datetime *b);

#endif
