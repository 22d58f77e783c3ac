/* fuzz_jsonlimit.c - libFuzzer target: the bounded JSON parser against jansson's own */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "jsonlimit.h"

#define DEPTH 6
#define VALUES 40

/* levels of nesting (a scalar is 0) and values, as jsonlimit counts them */
static unsigned int depth_of(json_t *j, size_t *values)
{
	unsigned int d = 0, k;
	const char *key;
	json_t *v;
	size_t i;

	++*values;
	if (json_is_array(j)) {
		json_array_foreach (j, i, v)
			if ((k = depth_of(v, values)) > d)
				d = k;
		return d + 1;
	}
	if (json_is_object(j)) {
		json_object_foreach (j, key, v)
			if ((k = depth_of(v, values)) > d)
				d = k;
		return d + 1;
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct jsonlimit lim = {.depth = DEPTH, .values = VALUES};
	json_error_t err;
	size_t values = 0;
	json_t *plain =
		json_loadb((const char *)data, size,
			   JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &err);
	json_t *bounded = jsonlimit_load((const char *)data, size,
					 JSON_DECODE_ANY, &lim, &err, NULL, 0);
	unsigned int depth = plain ? depth_of(plain, &values) : 0;

	/* what it takes is what jansson takes, within the limits ... */
	if (bounded && (!plain || depth > DEPTH || values > VALUES ||
			!json_equal(plain, bounded)))
		abort();
	/* ... and all of that: a refusal is jansson's or a limit passed */
	if (!bounded && plain && depth <= DEPTH && values <= VALUES)
		abort();
	json_decref(plain);
	json_decref(bounded);
	return 0;
}
