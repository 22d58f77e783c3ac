/* datetime.c - RFC 3339 times read into an instant, so two can be ordered */
#include "datetime.h"

#include <errno.h>
#include <string.h>

/* n digits of s into *out; 0 when one is not a digit. */
static int digits(const char *s, int n, int *out)
{
	int v = 0;

	for (int i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return 0;
		v = v * 10 + (s[i] - '0');
	}
	*out = v;
	return 1;
}

/* Days from 1970-01-01 to y-m-d of the proleptic Gregorian calendar
 * (Howard Hinnant's days_from_civil): no timegm, which reads TZ. */
static int64_t days_from_civil(int64_t y, int m, int d)
{
	y -= m <= 2;
	int64_t era = (y >= 0 ? y : y - 399) / 400;
	int64_t yoe = y - era * 400;
	int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;

	return era * 146097 + doe - 719468;
}

int datetime_parse(const char *s, struct datetime *out)
{
	static const int mdays[] = {31, 29, 31, 30, 31, 30,
				    31, 31, 30, 31, 30, 31};
	int y, mo, d, h, mi, se, oh = 0, om = 0, sign = 0;
	int32_t ns = 0;

	if (strlen(s) < 20 || !digits(s, 4, &y) || s[4] != '-' ||
	    !digits(s + 5, 2, &mo) || mo < 1 || mo > 12 || s[7] != '-' ||
	    !digits(s + 8, 2, &d) || d < 1 || d > mdays[mo - 1] ||
	    (s[10] != 'T' && s[10] != 't') || !digits(s + 11, 2, &h) ||
	    h > 23 || s[13] != ':' || !digits(s + 14, 2, &mi) || mi > 59 ||
	    s[16] != ':' || !digits(s + 17, 2, &se) || se > 60)
		return -EINVAL;
	if (mo == 2 && d == 29 && (y % 4 || (y % 100 == 0 && y % 400)))
		return -EINVAL;
	s += 19;
	if (*s == '.') {
		size_t n = strspn(++s, "0123456789");
		if (!n)
			return -EINVAL;
		for (size_t i = 0; i < 9; i++)
			ns = ns * 10 + (i < n ? s[i] - '0' : 0);
		s += n;
	}
	if ((*s == 'Z' || *s == 'z') && !s[1])
		sign = 0;
	else if ((*s == '+' || *s == '-') && digits(s + 1, 2, &oh) &&
		 oh <= 23 && s[3] == ':' && digits(s + 4, 2, &om) && om <= 59 &&
		 !s[6])
		sign = *s == '+' ? 1 : -1;
	else
		return -EINVAL;
	/* a leap second (:60) is the next minute's first: the order holds */
	out->sec = days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + se -
		   sign * (oh * 3600 + om * 60);
	out->nsec = ns;
	return 0;
}

int datetime_cmp(const struct datetime *a, const struct datetime *b)
{
	if (a->sec != b->sec)
		return a->sec < b->sec ? -1 : 1;
	return (a->nsec > b->nsec) - (a->nsec < b->nsec);
}
