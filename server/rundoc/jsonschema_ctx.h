/* jsonschema_ctx.h - one check of a value against a schema: the path it stands at, and its error */
#ifndef NUMALAB_JSONSCHEMA_CTX_H
#define NUMALAB_JSONSCHEMA_CTX_H

#include <stddef.h>

#include "errinfo.h"

#define PATH_LEN 160

struct vctx {
	struct errinfo *err;
	char path[PATH_LEN];
	size_t len;
	int depth;
};

/* Appends .key (or [i]) to the path; returns the length to pop back to. */
size_t vctx_key(struct vctx *c, const char *key);
size_t vctx_index(struct vctx *c, size_t i);
void vctx_pop(struct vctx *c, size_t old);
/* "'samples[3].y'", or "the document" for the whole of it, into buf. */
const char *vctx_subject(struct vctx *c, char *buf, size_t len);
/* Sets the check's error (its field: the path) and returns -EINVAL. */
__attribute__((format(printf, 2, 3))) int vctx_fail(struct vctx *c,
						    const char *fmt, ...);
/* The same for field key of the value here: "<what> 'path.key'". */
int vctx_fail_field(struct vctx *c, const char *what, const char *key);

#endif
