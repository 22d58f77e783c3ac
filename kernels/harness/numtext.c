/* numtext.c - numbers as a user writes them: decimal, sizes (64K, 8M), lists of ranges (0,2-3) */
#include "numtext.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strbuf.h"
#include "utf8.h"

int numtext_u63(const char *s, const char **end, int64_t *out)
{
	int64_t v = 0;
	const char *p = s;

	if (!isdigit((unsigned char)*p))
		return -EINVAL;
	while (isdigit((unsigned char)*p)) {
		int d = *p - '0';
		if (v > (INT64_MAX - d) / 10)
			return -ERANGE;
		v = v * 10 + d;
		p++;
	}
	*end = p;
	*out = v;
	return 0;
}

int numtext_size(const char *text, int64_t *out)
{
	const char *end;
	int64_t v, mul = 1;
	int rc = numtext_u63(text, &end, &v);

	if (rc)
		return rc;
	/* K, M, G, T: 2^10, 2^20, 2^30, 2^40 */
	if (*end) {
		const char *units = "KMGT",
			   *u = strchr(units, toupper((unsigned char)*end));
		if (!u)
			return -EINVAL;
		mul = 1LL << (10 * (u - units + 1));
		end++;
		if (toupper((unsigned char)*end) == 'I')
			end++;
		if (toupper((unsigned char)*end) == 'B')
			end++;
		if (*end)
			return -EINVAL;
	}
	if (v > INT64_MAX / mul)
		return -ERANGE;
	*out = v * mul;
	return 0;
}

static int cmp_i32(const void *a, const void *b)
{
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
	return (x > y) - (x < y);
}

const char *numtext_shown(const char *text, char *buf)
{
	size_t n = strlen(text);

	if (n < NUMTEXT_SHOWN_LEN)
		return text;
	/* the start, cut between characters, and the mark of what is left */
	n = utf8_prefix_len(text, NUMTEXT_SHOWN_LEN - 8);
	memcpy(buf, text, n);
	memcpy(buf + n, "…", sizeof("…"));
	return buf;
}

/*
 * A number of the list at p into *v, *end after its digits. Digits past
 * INT64_MAX are out of range as any number past hi is: the message names
 * them and [lo, hi], what the user may write.
 */
static int list_number(const char *p, const char *what, int64_t lo, int64_t hi,
		       const char *text, const char **end, int64_t *v,
		       struct errinfo *err)
{
	int rc = numtext_u63(p, end, v);
	int digits = (int)strspn(p, "0123456789");

	if (rc == -ERANGE) {
		/* the digits a message has room for, and the range after */
		return errinfo_set(err, NULL,
				   "%s%.*s%s is out of range (allowed %" PRId64
				   "-%" PRId64 ")",
				   what, digits > 40 ? 40 : digits, p,
				   digits > 40 ? "…" : "", lo, hi);
	}
	if (rc) {
		return errinfo_set(err, NULL, "%s in '%s'",
				   *what ? "bad step" : "bad range", text);
	}
	return 0;
}

/* The list's items in the order written, unchecked for repeats. */
static int list_items(const char *text, int64_t min, int64_t max, int32_t *out,
		      int cap, struct errinfo *err)
{
	char buf[NUMTEXT_SHOWN_LEN];
	const char *p = text, *q = numtext_shown(text, buf);
	int n = 0;

	if (!*p) {
		return errinfo_set(err, NULL, "empty list");
	}
	for (;;) {
		int64_t a, b, step = 1;
		const char *end;

		if (!isdigit((unsigned char)*p)) {
			return errinfo_set(err, NULL,
					   "'%s' is not a list of integers", q);
		}
		if (list_number(p, "", min, max, q, &end, &a, err))
			return -EINVAL;
		b = a;
		p = end;
		if (*p == '-') {
			if (list_number(p + 1, "", min, max, q, &end, &b, err))
				return -EINVAL;
			p = end;
			if (*p == ':') {
				if (list_number(p + 1, "step ", 1, INT64_MAX, q,
						&end, &step, err))
					return -EINVAL;
				if (step == 0) {
					return errinfo_set(err, NULL,
							   "bad step in '%s'",
							   q);
				}
				p = end;
			}
		}
		if (b < a) {
			return errinfo_set(err, NULL,
					   "reversed range %" PRId64 "-%" PRId64
					   " (write the smaller number first)",
					   a, b);
		}
		if (a < min || b > max) {
			return errinfo_set(err, NULL,
					   "%" PRId64
					   " is out of range (allowed %" PRId64
					   "-%" PRId64 ")",
					   a < min ? a : b, min, max);
		}
		/* v += step past b may pass INT64_MAX: step on only while
		 * what is left of the range holds a whole step */
		for (int64_t v = a;; v += step) {
			if (n >= cap) {
				return errinfo_set(
					err, NULL,
					"too many values (at most %d)", cap);
			}
			out[n++] = (int32_t)v;
			if (b - v < step)
				break;
		}
		if (*p == '\0')
			break;
		if (*p != ',') {
			return errinfo_set(err, NULL,
					   "'%s' is not a list of integers", q);
		}
		p++;
	}
	return n;
}

/* -EINVAL (err set) when sorted v[0..n) holds a value twice, else 0. */
static int twice(const int32_t *v, int n, struct errinfo *err)
{
	for (int i = 1; i < n; i++)
		if (v[i] == v[i - 1])
			return errinfo_set(err, NULL, "%d is listed twice",
					   v[i]);
	return 0;
}

int parse_int_list(const char *text, int64_t min, int64_t max, int32_t *out,
		   int cap, struct errinfo *err)
{
	int n = list_items(text, min, max, out, cap, err);

	if (n < 0)
		return n;
	qsort(out, n, sizeof(*out), cmp_i32);
	return twice(out, n, err) ? -EINVAL : n;
}

int parse_int_list_ordered(const char *text, int64_t min, int64_t max,
			   int32_t *out, int cap, struct errinfo *err)
{
	int n = list_items(text, min, max, out, cap, err);
	int32_t *sorted;
	int rc;

	if (n < 0)
		return n;
	sorted = malloc((size_t)(n ? n : 1) * sizeof(*sorted));
	if (!sorted)
		return errinfo_set(err, NULL, "out of memory");
	memcpy(sorted, out, (size_t)n * sizeof(*sorted));
	qsort(sorted, n, sizeof(*sorted), cmp_i32);
	rc = twice(sorted, n, err);
	free(sorted);
	return rc ? -EINVAL : n;
}

/* v in decimal onto sb, as "%d" writes it (a printf an item was most of
 * a long list's parse) */
static void put_int(struct strbuf *sb, int32_t v)
{
	char num[STRBUF_INT_MAX];

	strbuf_add(sb, num, strbuf_int_text(num, v));
}

/* The fewest values one step (above 1) apart written as a-b:step: three
 * ("4,8,12") are never longer written out. */
#define STEP_RUN_MIN 4

/* The last index of the run that starts at i: values 1 apart, or with
 * steps, values one step above 1 apart (at least STEP_RUN_MIN of them);
 * *step gets the step written after ':' (0: none). */
static int run_end(const int32_t *v, int n, int i, int steps, int64_t *step)
{
	int64_t d = i + 1 < n ? (int64_t)v[i + 1] - v[i] : 0;
	int j = i;

	*step = 0;
	if (d < 1 || (d > 1 && !steps))
		return i;
	while (j + 1 < n && (int64_t)v[j + 1] - v[j] == d)
		j++;
	if (d == 1)
		return j;
	if (j - i + 1 < STEP_RUN_MIN)
		return i;
	*step = d;
	return j;
}

static int format_runs(const int32_t *v, int n, int steps, char *buf,
		       size_t len)
{
	struct strbuf sb = STRBUF_INIT;
	int rc = 0;

	for (int i = 0; i < n; i++) {
		int64_t step;
		int j = run_end(v, n, i, steps, &step);

		if (sb.len)
			strbuf_addch(&sb, ',');
		put_int(&sb, v[i]);
		if (j > i) {
			strbuf_addch(&sb, '-');
			put_int(&sb, v[j]);
		}
		if (step)
			strbuf_addf(&sb, ":%" PRId64, step);
		i = j;
	}
	if (sb.oom)
		rc = -ENOMEM;
	else if (sb.len >= len)
		rc = -ENOSPC;
	else
		memcpy(buf, strbuf_str(&sb), sb.len + 1);
	strbuf_release(&sb);
	return rc;
}

int format_int_list(const int32_t *v, int n, char *buf, size_t len)
{
	return format_runs(v, n, 0, buf, len);
}

int format_int_list_steps(const int32_t *v, int n, char *buf, size_t len)
{
	return format_runs(v, n, 1, buf, len);
}
