/* auth.h - who a request comes from: tokens, sign-in sessions, the roles a route asks for */
#ifndef NUMALAB_AUTH_H
#define NUMALAB_AUTH_H

#include "http_request.h"

/*
 * POST /api/session: signs the browser in with token, the teacher's or the
 * class's, and display name (checked by the caller). Queues 200 with the
 * session cookie (HttpOnly, SameSite=Strict, Secure under HTTPS) and
 * {"role", "name", "expires_in"}; 401 and no cookie for another token; 503
 * when the session table holds only teachers.
 */
enum MHD_Result http_sign_in(struct http_request *rq, const char *token,
			     const char *name);
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
/* For the teacher only: {"link": the join page, "code": the join code now},
 * or NULL (another role, no code, ENOMEM). */
json_t *http_join_info(struct http_request *rq);
/* PATCH /api/session {"name"}: the signed-in browser's name. */
enum MHD_Result http_rename(struct http_request *rq, const char *name);
/* DELETE /api/session: forgets the request's session and clears the
 * cookie; 200 {"role": "none"} signed in or not. */
enum MHD_Result http_sign_out(struct http_request *rq);
/* GET /api/session: {"role", "name", "sign_in"} (sign_in: whether this
 * server asks for a token at all), and for the teacher only "class_link",
 * the class's sign-in link with its token (for the projector's QR code). */
enum MHD_Result http_whoami(struct http_request *rq);
/* The projector's lobby: {"signed_in": students signed in now, "names":
 * their display names, in the order they joined (the unnamed left out)},
 * or NULL on ENOMEM. */
json_t *http_lobby(struct http_request *rq);
/* Students' sessions one client may hold (--max-client-sessions): the
 * guesses it may give one question too. */
int http_client_sessions_max(struct http_request *rq);

#endif
