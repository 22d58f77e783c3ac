/* http_tls.c - the server's TLS certificate and key: read with a bound, checked with GnuTLS */
#define _GNU_SOURCE
#include "http_tls.h"

#include <errno.h>
#include <fcntl.h>
#include <gnutls/gnutls.h>
#include <gnutls/x509.h>
#include <microhttpd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int http_tls_supported(void)
{
	return MHD_is_feature_supported(MHD_FEATURE_TLS) == MHD_YES;
}

/* The file at path into *out (NUL-terminated); what names it in err. */
static int read_file(const char *what, const char *path, char **out,
		     struct errinfo *err)
{
	struct stat st;
	size_t n = 0;
	char *buf = NULL;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY), rc = 0;

	*out = NULL;
	if (fd < 0) {
		rc = -errno;
		errinfo_set(err, NULL, "cannot read %s '%s': %s", what, path,
			    strerror(errno));
		return rc;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		rc = -EINVAL;
		errinfo_set(err, NULL, "%s '%s' is not a regular file", what,
			    path);
		goto out;
	}
	buf = malloc(HTTP_TLS_FILE_MAX + 1);
	if (!buf) {
		rc = -ENOMEM;
		errinfo_set(err, NULL, "out of memory");
		goto out;
	}
	/* one byte more than allowed: a file that fills it is too large */
	while (n <= HTTP_TLS_FILE_MAX) {
		ssize_t r = read(fd, buf + n, HTTP_TLS_FILE_MAX + 1 - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			rc = -errno;
			errinfo_set(err, NULL, "cannot read %s '%s': %s", what,
				    path, strerror(errno));
			goto out;
		}
		if (!r)
			break;
		n += (size_t)r;
	}
	if (n > HTTP_TLS_FILE_MAX) {
		rc = -EFBIG;
		errinfo_set(err, NULL, "%s '%s' is larger than %d KiB", what,
			    path, HTTP_TLS_FILE_MAX / 1024);
		goto out;
	}
	if (!n) {
		rc = -EINVAL;
		errinfo_set(err, NULL, "%s '%s' is empty", what, path);
		goto out;
	}
	buf[n] = '\0';
	*out = buf;
	buf = NULL;
out:
	if (buf) {
		explicit_bzero(buf, n);
		free(buf);
	}
	close(fd);
	return rc;
}

/* GnuTLS's text for g, without its final period (errors here have none). */
static const char *why(int g, char *buf, size_t len)
{
	size_t n;

	snprintf(buf, len, "%s", gnutls_strerror(g));
	n = strlen(buf);
	while (n && buf[n - 1] == '.')
		buf[--n] = '\0';
	return buf;
}

/* The PEM texts are one certificate (or more) and a key that is its. */
static int check_pair(const struct http_tls *tls, const char *cert_path,
		      const char *key_path, struct errinfo *err)
{
	gnutls_datum_t c = {(unsigned char *)tls->cert,
			    (unsigned int)strlen(tls->cert)};
	gnutls_datum_t k = {(unsigned char *)tls->key,
			    (unsigned int)strlen(tls->key)};
	gnutls_x509_crt_t crt[16];
	unsigned int ncrt = 16;
	gnutls_x509_privkey_t pk = NULL;
	gnutls_certificate_credentials_t cred = NULL;
	char text[128];
	int g;

	g = gnutls_x509_crt_list_import(
		crt, &ncrt, &c, GNUTLS_X509_FMT_PEM,
		GNUTLS_X509_CRT_LIST_IMPORT_FAIL_IF_EXCEED);
	if (g < 0 || !ncrt) {
		errinfo_set(err, NULL,
			    "TLS certificate '%s' holds no PEM certificate: %s",
			    cert_path,
			    g < 0 ? why(g, text, sizeof(text)) : "none found");
		return -EINVAL;
	}
	for (unsigned int i = 0; i < ncrt; i++)
		gnutls_x509_crt_deinit(crt[i]);
	if (gnutls_x509_privkey_init(&pk) < 0)
		goto oom;
	g = gnutls_x509_privkey_import2(pk, &k, GNUTLS_X509_FMT_PEM, NULL, 0);
	gnutls_x509_privkey_deinit(pk);
	if (g < 0) {
		errinfo_set(
			err, NULL,
			"TLS key '%s' holds no unencrypted PEM private key: %s",
			key_path, why(g, text, sizeof(text)));
		return -EINVAL;
	}
	if (gnutls_certificate_allocate_credentials(&cred) < 0)
		goto oom;
	g = gnutls_certificate_set_x509_key_mem(cred, &c, &k,
						GNUTLS_X509_FMT_PEM);
	gnutls_certificate_free_credentials(cred);
	if (g < 0) {
		errinfo_set(
			err, NULL,
			"TLS key '%s' does not go with certificate '%s': %s",
			key_path, cert_path, why(g, text, sizeof(text)));
		return -EINVAL;
	}
	return 0;
oom:
	errinfo_set(err, NULL, "out of memory");
	return -ENOMEM;
}

int http_tls_load(const char *cert_path, const char *key_path,
		  struct http_tls *tls, struct errinfo *err)
{
	int rc;

	tls->cert = tls->key = NULL;
	if (!http_tls_supported()) {
		errinfo_set(
			err, NULL,
			"this libmicrohttpd was built without TLS: it cannot "
			"serve HTTPS (install one built with GnuTLS)");
		return -ENOTSUP;
	}
	rc = read_file("TLS certificate", cert_path, &tls->cert, err);
	if (!rc)
		rc = read_file("TLS key", key_path, &tls->key, err);
	if (!rc)
		rc = check_pair(tls, cert_path, key_path, err);
	if (rc)
		http_tls_clear(tls);
	return rc;
}

int http_tls_names(const struct http_tls *tls, const char *host)
{
	gnutls_datum_t c = {(unsigned char *)tls->cert,
			    (unsigned int)strlen(tls->cert)};
	gnutls_x509_crt_t crt;
	int yes = 0;

	if (gnutls_x509_crt_init(&crt) < 0)
		return 0;
	if (gnutls_x509_crt_import(crt, &c, GNUTLS_X509_FMT_PEM) >= 0)
		yes = gnutls_x509_crt_check_hostname(crt, host) != 0;
	gnutls_x509_crt_deinit(crt);
	return yes;
}

void http_tls_clear(struct http_tls *tls)
{
	if (tls->key) {
		explicit_bzero(tls->key, strlen(tls->key));
		free(tls->key);
	}
	free(tls->cert);
	tls->cert = tls->key = NULL;
}
