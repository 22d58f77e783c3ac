/* url_check.c - an http(s) URL given to an option, read whole before anything starts: scheme, host, port, path */
#include "url_check.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define URL_MAX 1000

/* What is being read: the option's name, and whether a /PATH may follow */
struct url_of {
	const char *url, *option;
	int path;
};

/* "bad OPTION 'URL': WHY (what is allowed)"; -EINVAL */
__attribute__((format(printf, 3, 4))) static int
bad(struct errinfo *err, const struct url_of *u, const char *fmt, ...)
{
	char why[300];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	return errinfo_set(err, u->option + 2,
			   "bad %s '%.200s': %s (give http://HOST[:PORT] "
			   "or https://HOST[:PORT]%s; HOST a name, an IPv4 "
			   "address or an IPv6 one in [])",
			   u->option, u->url, why,
			   u->path ? ", a /PATH after it when the server is "
				     "under one"
				   : ", nothing after it");
}

/* a host name: labels of letters, digits, '-' and '_' between dots, each
 * 1-63 long, 253 in all; one final dot allowed */
static int is_name(const char *h, size_t n)
{
	size_t label = 0;

	if (!n || n > 254 || (n == 254 && h[n - 1] != '.'))
		return 0;
	for (size_t i = 0; i < n; i++) {
		char c = h[i];
		if (c == '.') {
			if (!label)
				return 0;
			label = 0;
		} else if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			   (c >= '0' && c <= '9') || c == '-' || c == '_') {
			if (++label > 63)
				return 0;
		} else {
			return 0;
		}
	}
	return 1;
}

/* [IPv6] or [IPv6%zone] at h (n bytes, from '[' through ']') */
static int is_v6(const char *h, size_t n)
{
	char a[INET6_ADDRSTRLEN + 64];
	struct in6_addr v6;
	size_t k = strcspn(h + 1, "%]");

	if (n < 3 || n - 2 >= sizeof(a) || k >= sizeof(a))
		return 0;
	memcpy(a, h + 1, k);
	a[k] = '\0';
	if (inet_pton(AF_INET6, a, &v6) != 1)
		return 0;
	/* a zone after '%' (RFC 6874 writes it %25): unreserved characters */
	for (size_t i = k + 2; i < n - 1; i++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			    "0123456789-._~%",
			    h[i]))
			return 0;
	return h[k + 1] == ']' || n - 1 > k + 2;
}

/* The host at a (n bytes: up to the port's ':' or the end). */
static int host_check(const struct url_of *u, const char *a, size_t n,
		      struct errinfo *err)
{
	char v4[16];
	struct in_addr in;

	if (!n)
		return bad(err, u, "no host");
	if (a[0] == '[')
		return is_v6(a, n)
			       ? 0
			       : bad(err, u, "'%.*s' is not an IPv6 address",
				     (int)n, a);
	if (strspn(a, "0123456789.") >= n) {
		if (n >= sizeof(v4))
			return bad(err, u, "'%.*s' is not an IPv4 address",
				   (int)n, a);
		memcpy(v4, a, n);
		v4[n] = '\0';
		if (inet_pton(AF_INET, v4, &in) != 1)
			return bad(err, u, "'%s' is not an IPv4 address", v4);
		return 0;
	}
	if (!is_name(a, n))
		return bad(err, u,
			   "'%.*s' is not a host name (letters, digits, '-' "
			   "and '_', in labels between dots)",
			   (int)n, a);
	return 0;
}

/* The port at p (n bytes after the ':'). */
static int port_check(const struct url_of *u, const char *p, size_t n,
		      struct errinfo *err)
{
	long v = 0;

	if (!n)
		return bad(err, u, "the port after ':' is empty");
	if (strspn(p, "0123456789") < n)
		return bad(err, u, "port '%.*s' is not a number", (int)n, p);
	for (size_t i = 0; i < n && v <= 65535; i++)
		v = v * 10 + (p[i] - '0');
	if (v < 1 || v > 65535)
		return bad(err, u, "port %.*s is out of range (1-65535)",
			   (int)n, p);
	return 0;
}

/* The authority a (n bytes): host, then an optional :PORT. */
static int authority_check(const struct url_of *u, const char *a, size_t n,
			   struct errinfo *err)
{
	const char *colon;
	size_t h;

	if (memchr(a, '@', n))
		return bad(err, u, "a user or password in it is not taken");
	if (n && a[0] == '[') {
		const char *close = memchr(a, ']', n);
		if (!close)
			return bad(err, u,
				   "the IPv6 address's '[' is not closed");
		h = (size_t)(close - a) + 1;
		if (h < n && a[h] != ':')
			return bad(err, u,
				   "'%.*s' after the IPv6 address (only "
				   "':PORT' may follow ']')",
				   (int)(n - h), a + h);
	} else {
		colon = memchr(a, ':', n);
		h = colon ? (size_t)(colon - a) : n;
		if (colon && memchr(colon + 1, ':', n - h - 1))
			return bad(err, u,
				   "an IPv6 address goes in brackets, as in "
				   "http://[::1]:8080");
		if (memchr(a, ']', n))
			return bad(err, u, "a ']' without its '['");
	}
	if (host_check(u, a, h, err))
		return -EINVAL;
	return h < n ? port_check(u, a + h + 1, n - h - 1, err) : 0;
}

int url_check(const char *url, const char *option, int path, int *tls,
	      struct errinfo *err)
{
	const struct url_of of = {url, option, path}, *u = &of;
	const char *a, *sep = strstr(url, "://");
	size_t n;

	if (strlen(url) > URL_MAX)
		return bad(err, u, "longer than %d characters", URL_MAX);
	if (!strncmp(url, "https://", 8))
		*tls = 1;
	else if (!strncmp(url, "http://", 7))
		*tls = 0;
	else if (sep)
		return bad(err, u, "its scheme '%.*s' is not http or https",
			   (int)(sep - url), url);
	else
		return bad(err, u,
			   "no scheme: it starts with http:// or "
			   "https://");
	a = url + (*tls ? 8 : 7);
	n = strcspn(a, "/?#");
	if (authority_check(u, a, n, err))
		return -EINVAL;
	if (strpbrk(a + n, "?#"))
		return bad(err, u,
			   path ? "a query or fragment ('?', '#') is not "
				  "taken: the API's paths are added after "
				  "the URL"
				: "a query or fragment ('?', '#') is not "
				  "taken");
	if (!path && a[n])
		return bad(err, u, "'%s' after the host is not taken", a + n);
	for (const unsigned char *p = (const unsigned char *)a + n; *p; p++)
		if (*p <= ' ' || *p >= 0x7f)
			return bad(err, u,
				   "its path has a space, a control character "
				   "or a character outside ASCII (percent-"
				   "encode it)");
	return 0;
}
