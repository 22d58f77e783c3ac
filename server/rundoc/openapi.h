/* openapi.h - the API's OpenAPI 3 description, embedded from server/rundoc/openapi.json */
#ifndef NUMALAB_OPENAPI_H
#define NUMALAB_OPENAPI_H

#include <stddef.h>

extern const char openapi_json[];
extern const size_t openapi_json_len;

#endif
