/* jsonfast.h - the plain JSON the server's own programs write, parsed without jansson's lexer */
#ifndef NUMALAB_JSONFAST_H
#define NUMALAB_JSONFAST_H

#include <stddef.h>

#include <jansson.h>

/*
 * len bytes of buf as jansson's json_loadb(buf, len, JSON_REJECT_DUPLICATES)
 * would return them, when the text is an object or an array of plain
 * values (strings of printable ASCII without escapes, numbers in range,
 * true, false, null) with no repeated names; NULL for anything else, which
 * the caller then gives to jansson. NULL too when the text nests more than
 * max_depth containers or holds more than max_values values (containers
 * counted), as jsonlimit's scan counts them; so a text it parses is one
 * the scan would have passed, and no text recurses past max_depth.
 */
json_t *jsonfast_load_within(const char *buf, size_t len,
			     unsigned int max_depth, size_t max_values);

/*
 * 1 when buf is an object that jsonlimit_load(buf, len) with these bounds
 * accepts: walked with jsonfast_load_within's grammar (plain strings, no
 * repeated names, objects of up to 32 members), nothing made; a real far
 * inside a double's range is taken whatever its digits (the parse may
 * then leave it to jansson, which reads it). 0 otherwise: a text it
 * refuses may still be JSON, for a parse to decide. *has_seq: the object
 * has a member "seq".
 */
int jsonfast_check_within(const char *buf, size_t len, unsigned int max_depth,
			  size_t max_values, int *has_seq);

/*
 * A plain string's bytes (printable ASCII, no escape) from *at, just past
 * its opening quote, to its closing one (len bytes); *at then past that
 * quote. NULL when the string is not plain or not closed before end.
 */
const char *jsonfast_plain(const char **at, const char *end, size_t *len);

/*
 * The double of a JSON number's text (n bytes, as the grammar has it: a
 * real or an integer), rounded as strtod rounds it: read exactly where one
 * operation gives it (Clinger's fast path), else by strtod. 0, or -1 when
 * it is out of a double's range or not a number.
 */
int jsonfast_real(const char *s, size_t n, double *d);

#endif
