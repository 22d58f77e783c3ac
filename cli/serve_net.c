/* serve_net.c - the addresses serve is reached at: loopback, the printed links, the name a campaign delivers to */
#define _GNU_SOURCE
#include "serve_net.h"

#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "say.h"

/* 1 when every address host resolves to is a loopback one. */
int serve_is_loopback(const char *host)
{
	struct addrinfo hints = {.ai_socktype = SOCK_STREAM};
	struct addrinfo *ai = NULL;
	int loop = 1;

	if (getaddrinfo(host, NULL, &hints, &ai))
		return 0;
	for (struct addrinfo *a = ai; a; a = a->ai_next) {
		if (a->ai_family == AF_INET) {
			const struct sockaddr_in *s = (void *)a->ai_addr;
			if ((ntohl(s->sin_addr.s_addr) >> 24) != 127)
				loop = 0;
		} else if (a->ai_family == AF_INET6) {
			const struct sockaddr_in6 *s = (void *)a->ai_addr;
			if (!IN6_IS_ADDR_LOOPBACK(&s->sin6_addr))
				loop = 0;
		} else {
			loop = 0;
		}
	}
	freeaddrinfo(ai);
	return loop;
}

static int serve_is_wildcard(const char *host)
{
	return !strcmp(host, "0.0.0.0") || !strcmp(host, "::");
}

/* This machine's host name into name ("" when it has none). */
static void serve_host_name(char *name, size_t len)
{
	if (gethostname(name, len))
		name[0] = '\0';
	name[len - 1] = '\0';
}

/* Whether text is one of v's strings. */
static int in_vec(const struct strvec *v, const char *text)
{
	for (size_t i = 0; i < v->n; i++)
		if (!strcmp(v->v[i], text))
			return 1;
	return 0;
}

/*
 * The addresses of this machine a phone can reach, into v: each
 * non-loopback address of an interface that is up (IPv4 for 0.0.0.0;
 * IPv6 too for ::, but not link-local ones, which need a zone a link
 * cannot carry).
 */
static void reach_addresses(const char *host, struct strvec *v)
{
	struct ifaddrs *ifs = NULL;
	char buf[INET6_ADDRSTRLEN];

	if (getifaddrs(&ifs))
		return;
	for (int fam = 0; fam < 2; fam++)
		for (struct ifaddrs *i = ifs; i; i = i->ifa_next) {
			const struct sockaddr *sa = i->ifa_addr;
			if (!sa || !(i->ifa_flags & IFF_UP) ||
			    (i->ifa_flags & IFF_LOOPBACK))
				continue;
			if (fam == 0 && sa->sa_family == AF_INET) {
				const struct sockaddr_in *s4 = (void *)sa;
				if ((ntohl(s4->sin_addr.s_addr) >> 24) == 127)
					continue;
				inet_ntop(AF_INET, &s4->sin_addr, buf,
					  sizeof(buf));
			} else if (fam == 1 && sa->sa_family == AF_INET6 &&
				   !strcmp(host, "::")) {
				const struct sockaddr_in6 *s6 = (void *)sa;
				if (IN6_IS_ADDR_LINKLOCAL(&s6->sin6_addr) ||
				    IN6_IS_ADDR_LOOPBACK(&s6->sin6_addr) ||
				    IN6_IS_ADDR_V4MAPPED(&s6->sin6_addr))
					continue;
				inet_ntop(AF_INET6, &s6->sin6_addr, buf,
					  sizeof(buf));
			} else {
				continue;
			}
			if (!in_vec(v, buf))
				strvec_push(v, buf);
		}
	freeifaddrs(ifs);
}

/* Whether name resolves to one of the addresses in v. */
static int resolves_to_one(const char *name, const struct strvec *v)
{
	struct addrinfo hints = {.ai_socktype = SOCK_STREAM};
	struct addrinfo *ai = NULL;
	char buf[INET6_ADDRSTRLEN];
	int hit = 0;

	if (!*name || getaddrinfo(name, NULL, &hints, &ai))
		return 0;
	for (struct addrinfo *a = ai; a && !hit; a = a->ai_next)
		if (!getnameinfo(a->ai_addr, a->ai_addrlen, buf, sizeof(buf),
				 NULL, 0, NI_NUMERICHOST))
			hit = in_vec(v, buf);
	freeaddrinfo(ai);
	return hit;
}

/*
 * The hosts the printed links use, into v, the one the projector's QR
 * code uses first: the listen address; for a wildcard one each address a
 * phone can reach, then the host name when it resolves to one of them
 * (into *named as well, for the allowed hosts). A machine with no such
 * address gets its loopback one.
 */
void serve_link_hosts(const char *host, struct strvec *v, char *named,
		      size_t len)
{
	char name[256];

	named[0] = '\0';
	if (!serve_is_wildcard(host)) {
		strvec_push(v, host);
		return;
	}
	reach_addresses(host, v);
	serve_host_name(name, sizeof(name));
	if (v->n && resolves_to_one(name, v)) {
		strvec_push(v, name);
		snprintf(named, len, "%s", name);
	}
	if (!v->n)
		strvec_push(v, strcmp(host, "::") ? "127.0.0.1" : "::1");
}

/* The teacher's and the class's links for each of hosts (or on
 * public_url alone), a pair of lines each, then the join page's. */
void serve_links(const char *scheme, const struct strvec *hosts,
		 const char *public_url, int port, const char *token,
		 const char *class_token, const char *join_code)
{
	char base[512];

	for (size_t i = 0; i < (public_url ? 1 : hosts->n); i++) {
		if (public_url) {
			snprintf(base, sizeof(base), "%s", public_url);
		} else {
			const char *h = hosts->v[i];
			int v6 = strchr(h, ':') != NULL;
			snprintf(base, sizeof(base), "%s://%s%s%s:%d", scheme,
				 v6 ? "[" : "", h, v6 ? "]" : "", port);
		}
		printf("teacher: %s/?token=%s\n", base, token);
		printf("class: %s/?token=%s\n", base, class_token);
	}
	if (public_url)
		snprintf(base, sizeof(base), "%s/join", public_url);
	else {
		const char *h = hosts->v[0];
		int v6 = strchr(h, ':') != NULL;
		snprintf(base, sizeof(base), "%s://%s%s%s:%d/join", scheme,
			 v6 ? "[" : "", h, v6 ? "]" : "", port);
	}
	printf("join: %s code %s\n", base, join_code);
}

/* The address a campaign started here reaches this server at: the listen
 * address, or loopback for a wildcard one. */
const char *serve_self_address(const char *host)
{
	return !strcmp(host, "0.0.0.0") ? "127.0.0.1"
	       : !strcmp(host, "::")	? "::1"
					: host;
}

/*
 * The name a campaign started here delivers to over HTTPS, into name: the
 * first of this server's own address, localhost, its --allowed-host names
 * and its host name that the certificate names, since the campaign
 * verifies the certificate as any client does (it reaches the name at
 * serve_self_address). 0, or -EINVAL said.
 */
int serve_fleet_name(const struct strvec *allowed_hosts, const char *host,
		     const struct http_tls *tls, char *name, size_t len)
{
	char link[256];
	struct strvec cand = STRVEC_INIT;
	int rc = -EINVAL;

	if (serve_is_wildcard(host))
		serve_host_name(link, sizeof(link));
	else
		snprintf(link, sizeof(link), "%s", host);
	strvec_push(&cand, serve_self_address(host));
	strvec_push(&cand, "localhost");
	for (size_t i = 0; i < allowed_hosts->n; i++)
		strvec_push(&cand, allowed_hosts->v[i]);
	strvec_push(&cand, link);
	for (size_t i = 0; i < cand.n && rc; i++)
		if (http_tls_names(tls, cand.v[i])) {
			snprintf(name, len, "%s", cand.v[i]);
			rc = 0;
		}
	if (rc)
		say(stderr,
		    "numalab serve: '--fleet' with '--tls-cert': the "
		    "certificate names none of %s, localhost, the "
		    "--allowed-host names or '%s', and a campaign started "
		    "here verifies it when it delivers its runs (add one to "
		    "its subjectAltName, e.g. IP:%s)\n",
		    serve_self_address(host), link, serve_self_address(host));
	strvec_clear(&cand);
	return rc;
}
