/* jsonschema.h - a JSON value checked against a schema of the API's own OpenAPI document */
#ifndef NUMALAB_JSONSCHEMA_H
#define NUMALAB_JSONSCHEMA_H

#include <jansson.h>

#include "errinfo.h"

/* How deep schemas may nest ($ref, allOf, properties, items together). */
#define JSONSCHEMA_MAX_DEPTH 48

/*
 * Checks v against #/components/schemas/NAME of server/rundoc/openapi.json, the
 * document GET /api/openapi.json serves. Returns 0; -EINVAL with
 * err->field the JSON path of the first value at fault (`samples[3].stats.n`,
 * empty for the whole value) and err->msg what is allowed there; -ENOENT
 * when the document has no such schema; -ENOMEM.
 */
int jsonschema_check(const char *name, json_t *v, struct errinfo *err);

/*
 * Walks every schema of the document and names the first keyword this
 * validator does not know, or a pattern regcomp refuses. Returns 0, or
 * -EINVAL with err set (field: the schema's place in the document).
 */
int jsonschema_selfcheck(struct errinfo *err);

#endif
