/* jsonlimit.h - JSON parsed within bounds of nesting and count, checked before anything recurses */
#ifndef NUMALAB_JSONLIMIT_H
#define NUMALAB_JSONLIMIT_H

#include <stddef.h>

#include <jansson.h>

/*
 * The deepest nesting a document a client sends may have (an object or
 * array directly in the top one is level 2). Real run documents, requests
 * and campaigns stay under 8; jansson's parser and everything that walks a
 * document afterwards (json_dumps, json_equal, json_deep_copy) recurses once
 * per level, and 32 levels cost a few KiB of stack.
 */
#define JSONLIMIT_DEPTH 32
/* What the server reads back of its own writing (stored events, campaign
 * records): a client's document inside the server's envelopes. */
#define JSONLIMIT_DEPTH_STORED 64
/* The most values (every scalar, array and object; an object member counts
 * once) one document may hold: jansson spends ~50 bytes on each. */
#define JSONLIMIT_VALUES (1024 * 1024)

struct jsonlimit {
	unsigned int depth; /* 0: JSONLIMIT_DEPTH; at most 64 */
	size_t values;	    /* 0: JSONLIMIT_VALUES */
};

/*
 * Parses len bytes of buf as one JSON document with json_loadb(flags |
 * JSON_REJECT_DUPLICATES), after one linear scan without recursion has
 * checked that it nests no deeper than lim->depth and holds no more than
 * lim->values values (lim NULL: the defaults). Returns the document, or NULL
 * with err filled as jansson fills it: for a limit the text names it
 * ("JSON nested deeper than 32 levels (allowed: at most 32)") and where it was
 * passed. When field is given, it receives the top-level member in which a
 * limit was passed ("" when none, or when jansson refused the text).
 */
json_t *jsonlimit_load(const char *buf, size_t len, size_t flags,
		       const struct jsonlimit *lim, json_error_t *err,
		       char *field, size_t fieldlen);

/* Whether err tells of a limit passed rather than of text jansson refused. */
int jsonlimit_passed(const json_error_t *err);

/* jsonlimit_load of a NUL-terminated text; NULL text gives NULL. */
json_t *jsonlimit_loads(const char *text, size_t flags,
			const struct jsonlimit *lim, json_error_t *err);

#endif
