/* jsonschema_keywords.h - the keywords of a schema that look at one value alone (jsonschema.c walks the rest) */
#ifndef NUMALAB_JSONSCHEMA_KEYWORDS_H
#define NUMALAB_JSONSCHEMA_KEYWORDS_H

#include <jansson.h>

#include "jsonschema_ctx.h"

/* Each returns 0, or -EINVAL with the check's error set (vctx_fail). */
/* Whether v is of the schema type named type ("string", "integer"...). */
int jskw_is_type(const char *type, json_t *v);
int jskw_type(struct vctx *c, json_t *s, json_t *kw, json_t *v);
int jskw_enum(struct vctx *c, json_t *s, json_t *kw, json_t *v);
int jskw_minimum(struct vctx *c, json_t *s, json_t *kw, json_t *v);
int jskw_maximum(struct vctx *c, json_t *s, json_t *kw, json_t *v);
int jskw_min_length(struct vctx *c, json_t *s, json_t *kw, json_t *v);
int jskw_max_length(struct vctx *c, json_t *s, json_t *kw, json_t *v);
int jskw_format(struct vctx *c, json_t *s, json_t *kw, json_t *v);
int jskw_min_items(struct vctx *c, json_t *s, json_t *kw, json_t *v);
int jskw_max_items(struct vctx *c, json_t *s, json_t *kw, json_t *v);
int jskw_max_properties(struct vctx *c, json_t *s, json_t *kw, json_t *v);
int jskw_required(struct vctx *c, json_t *s, json_t *kw, json_t *v);

#endif
