/* http.h - the HTTP server: starting and stopping it, and every header its handlers need */
#ifndef NUMALAB_HTTP_H
#define NUMALAB_HTTP_H

#include "errinfo.h"
#include "http_request.h"
#include "http_response.h"
#include "join_code.h"
#include "session.h"
#include "sign_in.h"
#include "whoami.h"

/*
 * Starts the daemon: a few threads, each an epoll loop over its share of
 * the connections (a slow or idle one costs memory, not a thread). routes is
 * NULL-method-terminated; ctx goes to every handler. NULL with err set.
 */
struct http_server *http_start(const struct http_config *cfg,
			       const struct http_route *routes, void *ctx,
			       struct errinfo *err);
/* The port it listens on. */
int http_port(struct http_server *srv);
/* Stops accepting, closes every connection, joins the threads (after
 * stream_stop). */
void http_stop(struct http_server *srv);

#endif
