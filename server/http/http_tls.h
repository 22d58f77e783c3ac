/* http_tls.h - the server's TLS certificate and key: read with a bound, checked with GnuTLS */
#ifndef NUMALAB_HTTP_TLS_H
#define NUMALAB_HTTP_TLS_H

#include <stddef.h>

#include "errinfo.h"

/* A certificate or key file larger than this is refused: a chain of a few
 * certificates takes a few KiB. */
#define HTTP_TLS_FILE_MAX (256 * 1024)

struct http_tls {
	char *cert; /* PEM text, NUL-terminated */
	char *key;  /* PEM text, NUL-terminated; wiped when cleared */
};

/*
 * Reads the certificate (chain) at cert_path and its private key at
 * key_path, and checks that they are PEM a certificate and an unencrypted
 * key, and that the key is the certificate's. Returns 0; -errno with err
 * naming the file at fault (-EINVAL: not what it should hold, -EFBIG: past
 * HTTP_TLS_FILE_MAX, -ENOTSUP: no TLS in libmicrohttpd).
 */
int http_tls_load(const char *cert_path, const char *key_path,
		  struct http_tls *tls, struct errinfo *err);
/*
 * Whether the certificate http_tls_load read (its first, the server's own)
 * names host (a DNS name or an address literal, as a client checks it).
 */
int http_tls_names(const struct http_tls *tls, const char *host);
/* Frees what http_tls_load read, the key wiped first. */
void http_tls_clear(struct http_tls *tls);

#endif
