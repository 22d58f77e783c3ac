/* whoami.h - what a browser's sign-in is, and the class's links and lobby */
#ifndef NUMALAB_WHOAMI_H
#define NUMALAB_WHOAMI_H

#include <jansson.h>

#include "http_request.h"

/* GET /api/session: {"role", "name", "sign_in"} (sign_in: whether this
 * server asks for a token at all), and for the teacher only "class_link",
 * the class's sign-in link with its token (for the projector's QR code). */
enum MHD_Result http_whoami(struct http_request *rq);
/* For the teacher only: {"link": the join page, "code": the join code now},
 * or NULL (another role, no code, ENOMEM). */
json_t *http_join_info(struct http_request *rq);
/* PATCH /api/session {"name"}: the signed-in browser's name. */
enum MHD_Result http_rename(struct http_request *rq, const char *name);
/* The projector's lobby: {"signed_in": students signed in now, "names":
 * their display names, in the order they joined (the unnamed left out)},
 * or NULL on ENOMEM. */
json_t *http_lobby(struct http_request *rq);
/* Students' sessions one client may hold (--max-client-sessions): the
 * guesses it may give one question too. */
int http_client_sessions_max(struct http_request *rq);

#endif
