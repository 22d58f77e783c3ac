/* numtext.h - numbers as a user writes them: decimal, sizes (64K, 8M), lists of ranges (0,2-3) */
#ifndef NUMALAB_NUMTEXT_H
#define NUMALAB_NUMTEXT_H

#include <stddef.h>
#include <stdint.h>

#include "errinfo.h"

/* The most bytes numtext_shown writes, its NUL included. */
#define NUMTEXT_SHOWN_LEN 48
/*
 * text as a message quotes it: whole when it is short, else its start and
 * "…" written into buf (NUMTEXT_SHOWN_LEN bytes), so that a long list's
 * refusal still says why.
 */
const char *numtext_shown(const char *text, char *buf);

/* Strict decimal: digits only, no sign, no spaces, no overflow (-ERANGE).
 * *end after the digits. 0, or -EINVAL when s starts with none. */
int numtext_u63(const char *s, const char **end, int64_t *out);

/* A size: decimal with K, M, G or T (and an optional i, B: 64KiB), in
 * bytes. 0, -EINVAL, or -ERANGE past INT64_MAX. */
int numtext_size(const char *text, int64_t *out);

/*
 * Parses a list of non-negative integers: "0,2-3", "1-8:2". Rejects
 * reversed ranges, duplicates and elements outside [min, max].
 * Returns the count, or -EINVAL with err set (no field).
 */
int parse_int_list(const char *text, int64_t min, int64_t max, int32_t *out,
		   int cap, struct errinfo *err);
/* The same, its elements kept in the order written ("3,1,2" is 3, 1, 2):
 * a cpu list names the cpu of each thread in turn. */
int parse_int_list_ordered(const char *text, int64_t min, int64_t max,
			   int32_t *out, int cap, struct errinfo *err);

/* Formats a list back to its shortest text form ("0-3,8"). Returns 0, or
 * -ENOSPC if it did not fit. */
int format_int_list(const int32_t *v, int n, char *buf, size_t len);
/*
 * The same, as a param records a list: a run of 4 or more values one step
 * (above 1) apart is written a-b:step, as a user writes a sweep, so
 * "4-4096:4" is recorded as written, not as its 1,024 values. Never
 * longer than the values written out one by one.
 */
int format_int_list_steps(const int32_t *v, int n, char *buf, size_t len);

#endif
