/* url_check.h - an http(s) URL given to an option, read whole before anything starts: scheme, host, port, path */
#ifndef NUMALAB_URL_CHECK_H
#define NUMALAB_URL_CHECK_H

#include "errinfo.h"

/*
 * Whether url, given to option ("--server", "--cors"), is http:// or
 * https://, a host (a name, an IPv4 address, or an IPv6 one in closed
 * brackets) and an optional :PORT (1-65535), then, where path, an
 * optional /PATH; no user, query or fragment. 0 with *tls set for https,
 * or -EINVAL with err (field: the option without its "--") naming what is
 * wrong and what is allowed.
 */
int url_check(const char *url, const char *option, int path, int *tls,
	      struct errinfo *err);

#endif
