/* trust.h - who may ask: the Host allow-list, same-origin writes, HTTP framing and the import quota */
#ifndef NUMALAB_TRUST_H
#define NUMALAB_TRUST_H

#include <stddef.h>
#include <sys/socket.h>

#include <microhttpd.h>

#include "errinfo.h"

struct trust_config {
	const char *listen_host; /* the name or address it listens on */
	const char *const *allowed_hosts; /* --allowed-host, NULL-terminated */
	const char *cors;		  /* the --cors origin, "*", or NULL */
	/* --public-url's origin (scheme://host[:port]): its host is allowed
	 * and its pages are this server's own (behind a proxy the Host and
	 * scheme the browser used are not the ones the server sees) */
	const char *public_origin;
	int tls; /* it serves HTTPS: its own pages' origin is https:// */
	unsigned int quota_count; /* imports per client per window */
	size_t quota_bytes;	  /* import bytes per client per window */
	int quota_window_s;
};

struct trust;

/* A copy of cfg. NULL on ENOMEM. */
struct trust *trust_new(const struct trust_config *cfg);
void trust_free(struct trust *t);

/*
 * Judges a request by its head alone, before any body is read: the
 * framing, the Host it names, and when it `changes` something (a route
 * that takes other methods than GET) its Content-Type and where it comes
 * from. Returns 0 when it
 * may go on; otherwise the HTTP status to answer with, the error text in
 * err, and *close set when the connection must not be reused.
 */
unsigned int trust_check_head(struct trust *t, struct MHD_Connection *conn,
			      int changes, const char *version,
			      struct errinfo *err, int *close);

/* Whether the request comes from a page of this server (or the --cors
 * origin), or from no page at all: asked of every request a session cookie
 * signs in, reads too. */
int trust_same_origin(struct trust *t, struct MHD_Connection *conn);

/*
 * Counts one import of `bytes` from the client at addr. Returns 0, or 429
 * with err set and *retry_after (seconds) when the client is past its quota
 * for the window; what is refused is not counted.
 */
unsigned int trust_quota(struct trust *t, const struct sockaddr *addr,
			 size_t bytes, struct errinfo *err, int *retry_after);

/* Gives back one import of `bytes` that trust_quota counted and the
 * server then refused. */
void trust_quota_refund(struct trust *t, const struct sockaddr *addr,
			size_t bytes);

/* The client's whole address as 16 bytes (IPv4 mapped into IPv6), all
 * zeros when addr is NULL or of another family. */
void trust_address_key(const struct sockaddr *addr, unsigned char key[16]);

/*
 * The key a client is counted under (its quota; its connections, conns.h): an
 * IPv4 address mapped into IPv6, an IPv6 address cut to its /64 (one host
 * commonly holds a whole /64), all zeros when addr is NULL or of another
 * family.
 */
void trust_client_key(const struct sockaddr *addr, unsigned char key[16]);

#endif
