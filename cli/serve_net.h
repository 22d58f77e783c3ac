/* serve_net.h - the addresses serve is reached at: loopback, the printed links, the name a campaign delivers to */
#ifndef NUMALAB_SERVE_NET_H
#define NUMALAB_SERVE_NET_H

#include <stddef.h>

#include "http_tls.h"
#include "strvec.h"

/* 1 when every address host resolves to is a loopback one. */
int serve_is_loopback(const char *host);

/*
 * The hosts the printed links use, into v, the one the projector's QR
 * code uses first: the listen address; for a wildcard one each address a
 * phone can reach, then the host name when it resolves to one of them
 * (into *named as well, for the allowed hosts). A machine with no such
 * address gets its loopback one.
 */
void serve_link_hosts(const char *host, struct strvec *v, char *named,
		      size_t len);

/* The teacher's and the class's links for each of hosts (or on
 * public_url alone), a pair of lines each, then the join page's. */
void serve_links(const char *scheme, const struct strvec *hosts,
		 const char *public_url, int port, const char *token,
		 const char *class_token, const char *join_code);

/* The address a campaign started here reaches this server at: the listen
 * address, or loopback for a wildcard one. */
const char *serve_self_address(const char *host);

/*
 * The name a campaign started here delivers to over HTTPS, into name: the
 * first of this server's own address, localhost, allowed_hosts and its
 * host name that the certificate names, since the campaign verifies the
 * certificate as any client does (it reaches the name at
 * serve_self_address). 0, or -EINVAL said.
 */
int serve_fleet_name(const struct strvec *allowed_hosts, const char *host,
		     const struct http_tls *tls, char *name, size_t len);

#endif
