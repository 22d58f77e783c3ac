/* trust.c - who may ask: the Host allow-list, same-origin writes, HTTP framing and the import quota */
#define _GNU_SOURCE
#include "trust.h"
#include "strvec.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#define QUOTA_SLOTS 256

struct quota_slot {
	unsigned char addr[16]; /* IPv4 mapped into IPv6 */
	time_t since;		/* start of its window; 0: free */
	unsigned int count;
	size_t bytes;
};

struct trust {
	char *listen_host;
	struct strvec allowed;
	char *cors;
	char *public_origin;
	int tls;
	unsigned int quota_count;
	size_t quota_bytes;
	int quota_window_s;
	pthread_mutex_t mu;
	struct quota_slot slots[QUOTA_SLOTS];
	unsigned long serial; /* this trust's number, for last_host */
};

/* The last Host each thread found allowed, and under which trust (its
 * rules never change): most requests name the host the one before did. */
static unsigned long serials;
static __thread struct {
	unsigned long serial;
	char host[64];
} last_host;

struct trust *trust_new(const struct trust_config *cfg)
{
	struct trust *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	strvec_init(&t->allowed);
	for (const char *const *h = cfg->allowed_hosts; h && *h; h++)
		strvec_push(&t->allowed, *h);
	t->listen_host = cfg->listen_host ? strdup(cfg->listen_host) : NULL;
	t->cors = cfg->cors ? strdup(cfg->cors) : NULL;
	t->public_origin =
		cfg->public_origin ? strdup(cfg->public_origin) : NULL;
	if (t->public_origin) {
		/* its host (no port, no brackets) answers like --allowed-host
		 */
		const char *h = strstr(t->public_origin, "://");
		char name[256];
		h = h ? h + 3 : t->public_origin;
		size_t n = *h == '[' ? strcspn(h + 1, "]") : strcspn(h, ":/");
		snprintf(name, sizeof(name), "%.*s", (int)n,
			 *h == '[' ? h + 1 : h);
		strvec_push(&t->allowed, name);
	}
	t->tls = cfg->tls;
	t->quota_count = cfg->quota_count;
	t->quota_bytes = cfg->quota_bytes;
	t->quota_window_s =
		cfg->quota_window_s > 0 ? cfg->quota_window_s : 3600;
	pthread_mutex_init(&t->mu, NULL);
	t->serial = __atomic_add_fetch(&serials, 1, __ATOMIC_RELAXED);
	if (t->allowed.oom || (cfg->listen_host && !t->listen_host) ||
	    (cfg->cors && !t->cors) ||
	    (cfg->public_origin && !t->public_origin)) {
		trust_free(t);
		return NULL;
	}
	return t;
}

void trust_free(struct trust *t)
{
	if (!t)
		return;
	strvec_clear(&t->allowed);
	free(t->listen_host);
	free(t->cors);
	free(t->public_origin);
	pthread_mutex_destroy(&t->mu);
	free(t);
}

static const char *header(struct MHD_Connection *conn, const char *name)
{
	return MHD_lookup_connection_value(conn, MHD_HEADER_KIND, name);
}

/* The head's framing and Host headers (the first of each, as
 * MHD_lookup_connection_value finds it), read in one pass. */
struct head {
	const char *cl, *te, *host;
	int hosts;
	int cls, types; /* Content-Length, Content-Type headers */
};

static enum MHD_Result scan_head(void *cls, enum MHD_ValueKind kind,
				 const char *key, const char *value)
{
	struct head *h = cls;

	(void)kind;
	if (!strcasecmp(key, MHD_HTTP_HEADER_HOST)) {
		if (!h->hosts++)
			h->host = value;
	} else if (!strcasecmp(key, MHD_HTTP_HEADER_CONTENT_LENGTH)) {
		if (!h->cls++)
			h->cl = value;
	} else if (!strcasecmp(key, MHD_HTTP_HEADER_CONTENT_TYPE)) {
		h->types++;
	} else if (!h->te &&
		   !strcasecmp(key, MHD_HTTP_HEADER_TRANSFER_ENCODING)) {
		h->te = value;
	}
	return MHD_YES;
}

/* name (without port) against one allowed name: any case, a final dot ignored.
 */
static int same_name(const char *name, size_t n, const char *allowed)
{
	size_t an = strlen(allowed);

	if (n && name[n - 1] == '.')
		n--;
	if (an && allowed[an - 1] == '.')
		an--;
	return n == an && !strncasecmp(name, allowed, n);
}

/*
 * An address literal cannot be rebound by DNS: a page that reached us by
 * one is a page we served. A name must be one we were told we are.
 */
static int host_allowed(struct trust *t, const char *host)
{
	char buf[256];
	unsigned char a[16];
	const char *port;
	size_t n;

	if (host[0] == '[') {
		const char *close = strchr(host, ']');
		n = close ? (size_t)(close - host - 1) : 0;
		port = close ? close + 1 : NULL;
		if (!n || n >= sizeof(buf) || (*port && *port != ':'))
			return 0;
		memcpy(buf, host + 1, n);
		buf[n] = '\0';
		if (inet_pton(AF_INET6, buf, a) != 1)
			return 0;
	} else {
		port = strchr(host, ':');
		n = port ? (size_t)(port - host) : strlen(host);
		if (!port)
			port = "";
		if (!n || n >= sizeof(buf))
			return 0;
		memcpy(buf, host, n);
		buf[n] = '\0';
	}
	if (*port) {
		if (!port[1] ||
		    strspn(port + 1, "0123456789") != strlen(port + 1))
			return 0;
	}
	if (host[0] == '[' || inet_pton(AF_INET, buf, a) == 1)
		return 1;
	if (same_name(buf, n, "localhost"))
		return 1;
	if (t->listen_host && same_name(buf, n, t->listen_host))
		return 1;
	for (size_t i = 0; i < t->allowed.n; i++)
		if (same_name(buf, n, t->allowed.v[i]))
			return 1;
	return 0;
}

/* host_allowed, remembered for the last host this thread allowed. */
static int host_allowed_again(struct trust *t, const char *host)
{
	size_t n = strlen(host);

	if (n < sizeof(last_host.host) && last_host.serial == t->serial &&
	    !memcmp(last_host.host, host, n + 1))
		return 1;
	if (!host_allowed(t, host))
		return 0;
	if (n < sizeof(last_host.host)) {
		memcpy(last_host.host, host, n + 1);
		last_host.serial = t->serial;
	}
	return 1;
}

static int cors_allows(struct trust *t, const char *origin)
{
	return t->cors && origin && strcmp(origin, "null") &&
	       (!strcmp(t->cors, "*") || !strcasecmp(t->cors, origin));
}

/* The request comes from a page of this server (or a --cors one), or from no
 * page at all. */
static int origin_ok(struct trust *t, struct MHD_Connection *conn,
		     const char *host)
{
	const char *origin = header(conn, "Origin");
	const char *site = header(conn, "Sec-Fetch-Site");

	if (cors_allows(t, origin))
		return 1;
	if (origin && t->public_origin && !strcasecmp(origin, t->public_origin))
		return 1;
	if (origin) {
		const char *scheme = t->tls ? "https://" : "http://";
		size_t n = strlen(scheme);
		if (strncasecmp(origin, scheme, n) || !host ||
		    strcasecmp(origin + n, host))
			return 0;
	}
	return !site || !strcasecmp(site, "same-origin") ||
	       !strcasecmp(site, "none");
}

int trust_same_origin(struct trust *t, struct MHD_Connection *conn)
{
	return origin_ok(t, conn, header(conn, MHD_HTTP_HEADER_HOST));
}

/* application/json, any parameters after it. */
static int json_type(const char *ct)
{
	size_t n = strlen("application/json");

	while (*ct == ' ')
		ct++;
	return !strncasecmp(ct, "application/json", n) &&
	       (ct[n] == '\0' || ct[n] == ';' || ct[n] == ' ');
}

unsigned int trust_check_head(struct trust *t, struct MHD_Connection *conn,
			      int changes, const char *version,
			      struct errinfo *err, int *close)
{
	struct head h = {0};
	const char *cl, *te, *host, *ct;
	int hosts;

	MHD_get_connection_values(conn, MHD_HEADER_KIND, scan_head, &h);
	cl = h.cl;
	te = h.te;
	host = h.host;
	hosts = h.hosts;
	*close = 0;
	/* two framings, or one we cannot read: where the body ends is unknown
	 */
	if (te && cl) {
		*close = 1;
		errinfo_set(err, NULL,
			    "a request may not carry both Content-Length "
			    "and Transfer-Encoding");
		return MHD_HTTP_BAD_REQUEST;
	}
	if (te && strcasecmp(te, "chunked")) {
		*close = 1;
		errinfo_set(
			err, NULL,
			"unsupported Transfer-Encoding '%.60s' (only 'chunked')",
			te);
		return MHD_HTTP_NOT_IMPLEMENTED;
	}
	/* which of two names the request is for is anyone's guess (RFC 9112
	 * 3.2: 400) */
	/* which one the body is read by would be a guess */
	if (h.cls > 1 || h.types > 1) {
		*close = 1;
		errinfo_set(err, NULL,
			    "the request gives its %s %d times (send one %s "
			    "header)",
			    h.cls > 1 ? "length" : "content type",
			    h.cls > 1 ? h.cls : h.types,
			    h.cls > 1 ? "Content-Length" : "Content-Type");
		return MHD_HTTP_BAD_REQUEST;
	}
	if (hosts > 1) {
		*close = 1;
		errinfo_set(
			err, NULL,
			"the request names its host %d times (send one Host "
			"header)",
			hosts);
		return MHD_HTTP_BAD_REQUEST;
	}
	if (!host) {
		if (version && !strcmp(version, MHD_HTTP_VERSION_1_0))
			goto host_done;
		*close = 1;
		errinfo_set(err, NULL,
			    "missing Host header (HTTP/1.1 needs one)");
		return MHD_HTTP_BAD_REQUEST;
	}
	if (!host_allowed_again(t, host)) {
		*close = 1;
		errinfo_set(
			err, NULL,
			"unknown host '%.100s' (this server answers to its "
			"loopback names, address literals and --allowed-host)",
			host);
		return MHD_HTTP_MISDIRECTED_REQUEST;
	}
host_done:
	if (!changes)
		return 0;
	if (!origin_ok(t, conn, host)) {
		errinfo_set(
			err, NULL,
			"cross-origin request from '%.100s' refused (only "
			"this server's own pages, or the --cors origin, may "
			"change runs)",
			header(conn, "Origin")
				? header(conn, "Origin")
				: header(conn, "Sec-Fetch-Site"));
		return MHD_HTTP_FORBIDDEN;
	}
	ct = header(conn, MHD_HTTP_HEADER_CONTENT_TYPE);
	if (!ct) {
		errinfo_set(err, NULL,
			    "missing Content-Type (send 'application/json')");
		return MHD_HTTP_UNSUPPORTED_MEDIA_TYPE;
	}
	if (!json_type(ct)) {
		errinfo_set(err, NULL,
			    "unsupported Content-Type '%.100s' (send "
			    "'application/json')",
			    ct);
		return MHD_HTTP_UNSUPPORTED_MEDIA_TYPE;
	}
	return 0;
}

void trust_address_key(const struct sockaddr *addr, unsigned char key[16])
{
	memset(key, 0, 16);
	if (addr && addr->sa_family == AF_INET) {
		const struct sockaddr_in *s = (const void *)addr;
		key[10] = key[11] = 0xff;
		memcpy(key + 12, &s->sin_addr, 4);
	} else if (addr && addr->sa_family == AF_INET6) {
		const struct sockaddr_in6 *s = (const void *)addr;
		memcpy(key, &s->sin6_addr, 16);
	}
}

void trust_client_key(const struct sockaddr *addr, unsigned char key[16])
{
	const struct sockaddr_in6 *s6 = (const void *)addr;

	trust_address_key(addr, key);
	/* an IPv4 client (on a dual-stack socket too) keeps its address */
	if (addr && addr->sa_family == AF_INET6 &&
	    !IN6_IS_ADDR_V4MAPPED(&s6->sin6_addr))
		memset(key + 8, 0, 8);
}

unsigned int trust_quota(struct trust *t, const struct sockaddr *addr,
			 size_t bytes, struct errinfo *err, int *retry_after)
{
	struct quota_slot *slot = NULL, *oldest = &t->slots[0];
	unsigned char key[16];
	time_t now = time(NULL);
	unsigned int status = 0;

	if (!t->quota_count && !t->quota_bytes)
		return 0;
	trust_client_key(addr, key);
	pthread_mutex_lock(&t->mu);
	for (int i = 0; i < QUOTA_SLOTS; i++) {
		struct quota_slot *s = &t->slots[i];
		if (s->since && now - s->since >= t->quota_window_s)
			s->since = 0;
		if (s->since && !memcmp(s->addr, key, 16))
			slot = s;
		if (!s->since || (oldest->since && s->since < oldest->since))
			oldest = s;
	}
	if (!slot) {
		/* a full table forgets the oldest window: it ends soonest */
		slot = oldest;
		memcpy(slot->addr, key, 16);
		slot->since = now;
		slot->count = 0;
		slot->bytes = 0;
	}
	if ((t->quota_count && slot->count + 1 > t->quota_count) ||
	    (t->quota_bytes && slot->bytes + bytes > t->quota_bytes)) {
		*retry_after = (int)(t->quota_window_s - (now - slot->since));
		if (*retry_after < 1)
			*retry_after = 1;
		errinfo_set(
			err, NULL,
			"import quota reached: at most %u imports and %zu MiB "
			"per client every %d s (this client has made %u, "
			"%zu KiB): try again in %d s",
			t->quota_count, t->quota_bytes >> 20, t->quota_window_s,
			slot->count, slot->bytes >> 10, *retry_after);
		status = MHD_HTTP_TOO_MANY_REQUESTS;
	} else {
		slot->count++;
		slot->bytes += bytes;
	}
	pthread_mutex_unlock(&t->mu);
	return status;
}

void trust_quota_refund(struct trust *t, const struct sockaddr *addr,
			size_t bytes)
{
	unsigned char key[16];

	if (!t->quota_count && !t->quota_bytes)
		return;
	trust_client_key(addr, key);
	pthread_mutex_lock(&t->mu);
	for (int i = 0; i < QUOTA_SLOTS; i++) {
		struct quota_slot *s = &t->slots[i];
		if (!s->since || memcmp(s->addr, key, 16))
			continue;
		if (s->count)
			s->count--;
		s->bytes = s->bytes > bytes ? s->bytes - bytes : 0;
		break;
	}
	pthread_mutex_unlock(&t->mu);
}
