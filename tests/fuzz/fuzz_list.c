/* fuzz_list.c - libFuzzer target: the CPU/node list parser and its round trip */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "params.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char text[512], back[4096];
	struct errinfo err;
	int32_t v[PARAM_MAX_LIST], w[PARAM_MAX_LIST];
	int n, m;

	if (size >= sizeof(text))
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	n = parse_int_list(text, 0, 4095, v, PARAM_MAX_LIST, &err);
	if (n <= 0)
		return 0;
	/* what we print must parse back to the same list */
	if (format_int_list(v, n, back, sizeof(back)))
		return 0;
	m = parse_int_list(back, 0, 4095, w, PARAM_MAX_LIST, &err);
	if (m != n || memcmp(v, w, sizeof(int32_t) * (size_t)n))
		abort();
	return 0;
}
