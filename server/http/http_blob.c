/* http_blob.c - an answer's bytes kept once: shared by every request, with its ETag and a gzip copy */
#include "http_blob.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <zlib.h>

/* smaller bodies are sent as they are: gzip's header and the client's
 * inflating would cost more than the bytes saved */
#define GZIP_MIN 256
#define GZIP_LEVEL 6

struct http_blob {
	unsigned int refs; /* atomic */
	char *bytes;
	size_t len;
	const char *type; /* a literal */
	char etag[24];	  /* "16 hex digits" */
	pthread_mutex_t gz_mu;
	int gz_tried; /* under gz_mu; once set, gz and gz_len never change */
	char *gz;     /* NULL: identity is sent */
	size_t gz_len;
};

struct http_blob *http_blob_new(char *bytes, size_t len,
				const char *content_type)
{
	struct http_blob *b = calloc(1, sizeof(*b));
	uint64_t h = 14695981039346656037ull; /* FNV-1a */

	if (!b) {
		free(bytes);
		return NULL;
	}
	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)bytes[i]) * 1099511628211ull;
	h ^= len;
	snprintf(b->etag, sizeof(b->etag), "\"%016llx\"",
		 (unsigned long long)h);
	b->refs = 1;
	b->bytes = bytes;
	b->len = len;
	b->type = content_type;
	pthread_mutex_init(&b->gz_mu, NULL);
	return b;
}

struct http_blob *http_blob_copy(const char *bytes, size_t len,
				 const char *content_type)
{
	char *c = malloc(len ? len : 1);

	if (!c)
		return NULL;
	memcpy(c, bytes, len);
	return http_blob_new(c, len, content_type);
}

struct http_blob *http_blob_ref(struct http_blob *b)
{
	__atomic_add_fetch(&b->refs, 1, __ATOMIC_RELAXED);
	return b;
}

void http_blob_unref(struct http_blob *b)
{
	if (!b || __atomic_sub_fetch(&b->refs, 1, __ATOMIC_ACQ_REL))
		return;
	pthread_mutex_destroy(&b->gz_mu);
	free(b->gz);
	free(b->bytes);
	free(b);
}

size_t http_blob_size(const struct http_blob *b)
{
	return b->len + b->gz_len;
}

const char *http_blob_etag(const struct http_blob *b)
{
	return b->etag;
}

/* The gzip copy, made on first use; NULL when it would not be smaller. */
static const char *gzipped(struct http_blob *b, size_t *len)
{
	z_stream zs = {0};
	char *out = NULL;
	uLong cap;

	pthread_mutex_lock(&b->gz_mu);
	if (b->gz_tried)
		goto out;
	b->gz_tried = 1;
	if (b->len < GZIP_MIN ||
	    deflateInit2(&zs, GZIP_LEVEL, Z_DEFLATED, 15 + 16, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK)
		goto out;
	cap = deflateBound(&zs, (uLong)b->len);
	out = malloc(cap);
	if (out) {
		zs.next_in = (Bytef *)b->bytes;
		zs.avail_in = (uInt)b->len;
		zs.next_out = (Bytef *)out;
		zs.avail_out = (uInt)cap;
		if (deflate(&zs, Z_FINISH) == Z_STREAM_END &&
		    zs.total_out < b->len) {
			b->gz = realloc(out, zs.total_out);
			if (!b->gz)
				b->gz = out;
			b->gz_len = zs.total_out;
			out = NULL;
		}
	}
	free(out);
	deflateEnd(&zs);
out:
	*len = b->gz_len;
	out = b->gz;
	pthread_mutex_unlock(&b->gz_mu);
	return out;
}

/* The length of the list element at s (up to a comma), spaces trimmed
 * from its start into *start. */
static size_t element(const char *s, const char **start)
{
	size_t n;

	s += strspn(s, " \t");
	*start = s;
	n = strcspn(s, ",");
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--;
	return n;
}

/* Whether If-None-Match (a list of ETags, weak ones compared weakly, or
 * "*") names etag. */
static int etag_matches(const char *inm, const char *etag)
{
	size_t elen = strlen(etag);

	for (const char *p = inm; p && *p;
	     p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL) {
		const char *t;
		size_t n = element(p, &t);
		if (n == 1 && *t == '*')
			return 1;
		if (n > 2 && !strncmp(t, "W/", 2)) {
			t += 2;
			n -= 2;
		}
		if (n == elen && !memcmp(t, etag, n))
			return 1;
	}
	return 0;
}

/* Whether Accept-Encoding takes gzip: named (or "*") with a q above 0. */
static int takes_gzip(const char *ae)
{
	for (const char *p = ae; p && *p;
	     p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL) {
		const char *t, *q;
		size_t n = element(p, &t), name = strcspn(t, ";");
		if (name > n)
			name = n;
		while (name && (t[name - 1] == ' ' || t[name - 1] == '\t'))
			name--;
		if (!((name == 4 && !strncasecmp(t, "gzip", 4)) ||
		      (name == 6 && !strncasecmp(t, "x-gzip", 6)) ||
		      (name == 1 && *t == '*')))
			continue;
		q = memchr(t, ';', n);
		if (!q)
			return 1;
		q = strstr(q, "q=");
		return !q || q > t + n || strtod(q + 2, NULL) > 0;
	}
	return 0;
}

static void unref_cb(void *cls)
{
	http_blob_unref(cls);
}

enum MHD_Result http_blob_respond(struct http_request *rq, struct http_blob *b)
{
	const char *inm = http_header(rq, MHD_HTTP_HEADER_IF_NONE_MATCH);
	struct MHD_Response *resp;
	const char *body = b->bytes, *gz;
	size_t len = b->len, gz_len;
	unsigned int status = MHD_HTTP_OK;
	int encoded = 0;

	if (inm && etag_matches(inm, b->etag)) {
		status = MHD_HTTP_NOT_MODIFIED;
		resp = MHD_create_response_from_buffer(0, NULL,
						       MHD_RESPMEM_PERSISTENT);
	} else {
		if (takes_gzip(
			    http_header(rq, MHD_HTTP_HEADER_ACCEPT_ENCODING)) &&
		    (gz = gzipped(b, &gz_len))) {
			body = gz;
			len = gz_len;
			encoded = 1;
		}
		resp = MHD_create_response_from_buffer_with_free_callback_cls(
			len, (void *)body, unref_cb, http_blob_ref(b));
		if (!resp)
			http_blob_unref(b);
	}
	if (!resp)
		return MHD_NO;
	if (status == MHD_HTTP_OK)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE,
					b->type);
	if (encoded)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_ENCODING,
					"gzip");
	MHD_add_response_header(resp, MHD_HTTP_HEADER_ETAG, b->etag);
	MHD_add_response_header(resp, MHD_HTTP_HEADER_VARY, "Accept-Encoding");
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL,
				"private, no-cache");
	return http_respond(rq, status, resp);
}
