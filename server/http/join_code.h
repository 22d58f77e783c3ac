/* join_code.h - the class's join code: made, changed, typed on a phone */
#ifndef NUMALAB_JOIN_CODE_H
#define NUMALAB_JOIN_CODE_H

#include "http_request.h"

/* POST /api/session {"code"}: the class's join code instead of a link's
 * token; answered as http_sign_in. */
enum MHD_Result http_join(struct http_request *rq, const char *code,
			  const char *name);
/* A join code of HTTP_JOIN_CODE_LEN random digits into code. 0, or -EIO. */
int http_join_code_make(char code[HTTP_JOIN_CODE_LEN + 1]);
/* The class's join code now into code: 1, or 0 when there is none. */
int http_join_code(struct http_request *rq, char code[HTTP_JOIN_CODE_LEN + 1]);
/* A new join code: the teacher opened the class's question anew. The old
 * code is refused from now on, with a message saying it expired. */
void http_join_rotate(struct http_request *rq);
#endif
