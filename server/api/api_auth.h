/* api_auth.h - /api/session: signing a browser in with a link's token or the join code, its name, signing out, who it is */
#ifndef NUMALAB_API_AUTH_H
#define NUMALAB_API_AUTH_H

#include "http.h"

/*
 * POST /api/session {"token" or "code", "name"?}: a link's token or the
 * class's join code; name is a display name of at most 48 bytes of UTF-8
 * without control characters ("" or absent: none). Bad input: 400 naming
 * the field; a wrong token or code: 401 and no cookie; too many: 429.
 */
enum MHD_Result api_sign_in(struct http_request *rq, void *ctx);
/* PATCH /api/session {"name"}: the signed-in browser's display name, as
 * api_sign_in checks it. */
enum MHD_Result api_rename(struct http_request *rq, void *ctx);
/* DELETE /api/session: signs out. */
enum MHD_Result api_sign_out(struct http_request *rq, void *ctx);
/* GET /api/session: {"role", "name", "sign_in"}. */
enum MHD_Result api_whoami(struct http_request *rq, void *ctx);

#endif
