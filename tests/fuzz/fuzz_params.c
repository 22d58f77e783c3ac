/* fuzz_params.c - libFuzzer target: CLI k=v arguments through every experiment's table */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "experiment.h"
#include "registry.h"

static struct topo *topo;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf, *argv[16];
	int argc = 0;
	struct param_values *pv;
	struct errinfo err;

	if (!topo)
		topo = topo_load();
	if (size < 1 || size > 4096)
		return 0;
	/* first byte picks the experiment; the rest is NUL/newline separated
	 * k=v */
	int nexp = 0;
	while (experiments[nexp])
		nexp++;
	const struct experiment *e = experiments[data[0] % nexp];
	buf = malloc(size);
	memcpy(buf, data + 1, size - 1);
	buf[size - 1] = '\0';
	for (char *s = buf; argc < 16;) {
		argv[argc++] = s;
		char *nl = strchr(s, '\n');
		if (!nl)
			break;
		*nl = '\0';
		s = nl + 1;
	}
	pv = calloc(1, sizeof(*pv));
	void *typed = calloc(1, e->params_size ? e->params_size : 1);
	struct common_params common;
	experiment_parse(e, topo, argc, argv, pv, typed, &common, &err);
	free(typed);
	free(pv);
	free(buf);
	return 0;
}
