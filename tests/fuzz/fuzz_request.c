/* fuzz_request.c - libFuzzer target: an API request body to validated params */
#include <stdint.h>
#include <stdlib.h>

#include <jansson.h>

#include "experiment.h"
#include "registry.h"
#include "schema.h"

static struct topo *topo;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_error_t jerr;
	json_t *body, *params = NULL;
	const char *name = NULL;
	struct strvec argv = STRVEC_INIT;
	struct errinfo err;

	if (!topo)
		topo = topo_load();
	body = json_loadb((const char *)data, size, 0, &jerr);
	if (!body)
		return 0;
	if (json_unpack_ex(body, &jerr, JSON_STRICT, "{s:s, s?o}", "experiment",
			   &name, "params", &params) == 0) {
		const struct experiment *e = experiment_find(name);
		int n = e ? schema_params_to_argv(params, &argv, 64, &err) : -1;
		if (n >= 0) {
			struct param_values *pv = calloc(1, sizeof(*pv));
			if (!experiment_parse(e, topo, n, argv.v, pv, NULL,
					      NULL, &err)) {
				json_t *back = schema_params_json(e, pv);
				json_decref(back);
			}
			free(pv);
		}
		strvec_clear(&argv);
	}
	json_decref(body);
	return 0;
}
