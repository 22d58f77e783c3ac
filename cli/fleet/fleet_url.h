/* fleet_url.h - a --server URL read whole before anything starts: scheme, host, port, path */
#ifndef NUMALAB_FLEET_URL_H
#define NUMALAB_FLEET_URL_H

#include "errinfo.h"

/*
 * Whether url is one a campaign can deliver to: http:// or https://, a
 * host (a name, an IPv4 address, or an IPv6 one in closed brackets), an
 * optional :PORT (1-65535) and an optional /PATH the API's paths are
 * added to; no user, query or fragment. 0 with *tls set for https, or
 * -EINVAL with err (field "server") naming what is wrong and what is
 * allowed.
 */
int fleet_url_check(const char *url, int *tls, struct errinfo *err);

#endif
