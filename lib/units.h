/* units.h - numbers in the units a person reads: 573 µs, not 0.0005731 s */
#ifndef NUMALAB_UNITS_H
#define NUMALAB_UNITS_H

#include <stddef.h>

/*
 * The unit to show a value of magnitude v in unit: time in ns, µs, ms or
 * s; rates in MB/s or GB/s; bytes in B, KiB, MiB or GiB; "x" as "×". *factor
 * is what to multiply values by. Any other unit is kept (factor 1); NULL
 * is "".
 */
const char *units_pick(double v, const char *unit, double *factor);

/*
 * v with three significant digits ("573", "1.23", "0.0123"); a whole
 * number or one of 100 or more without a fraction ("12345"); an exponent
 * only under 0.0001.
 */
void units_number(double v, char *buf, size_t len);

/*
 * v in unit, scaled and written as "573 µs" ("yes"/"no" for "yes/no",
 * the number alone when unit is empty).
 */
void units_format(double v, const char *unit, char *buf, size_t len);

/*
 * one when n is 1, else many: the words after a count, singular or plural
 * ("1 run was", "2 runs were"), instead of "run(s)".
 */
const char *units_plural(long n, const char *one, const char *many);

#endif
