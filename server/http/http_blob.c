/* http_blob.c - an answer's bytes kept once: shared by every request, with its ETag and a gzip copy */
#include "http_blob.h"

#include <endian.h>
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
/* a browser may keep it, and asks again with the ETag */
#define CACHE_CONTROL "private, no-cache"

/* The bytes, owned jointly by their blob and the answers made of them (an
 * answer may still be sent after its blob is gone). */
struct payload {
	unsigned int refs; /* atomic */
	char *bytes;
	size_t len;
	char *gz; /* NULL: identity is sent */
	size_t gz_len;
};

struct http_blob {
	unsigned int refs; /* atomic */
	struct payload *p;
	const char *type; /* a literal */
	char etag[24];	  /* "16 hex digits" */
	pthread_mutex_t mu;
	/* set under mu (read without it: see ready()); once set, never
	 * changed until the blob goes */
	int gz_tried;
	struct MHD_Response *ready[2]; /* identity, gzip: for any request
					  without CORS */
};

static void payload_unref(void *cls)
{
	struct payload *p = cls;

	if (__atomic_sub_fetch(&p->refs, 1, __ATOMIC_ACQ_REL))
		return;
	free(p->gz);
	free(p->bytes);
	free(p);
}

/* Odd 64-bit constants with well spread bits (the golden ratio's and two
 * others'), for the digest's multiplies. */
#define K1 0x9e3779b97f4a7c15ull
#define K2 0xc2b2ae3d27d4eb4full
#define K3 0x165667b19e3779f9ull

static uint64_t rotl(uint64_t x, int r)
{
	return x << r | x >> (64 - r);
}

/* Eight bytes as a little-endian word, whatever the host's order. */
static uint64_t word(const char *p)
{
	uint64_t w;

	memcpy(&w, p, sizeof(w));
	return le64toh(w);
}

/* One lane's step: a word multiplied in, rotated, multiplied again. */
static uint64_t step(uint64_t acc, uint64_t w)
{
	return rotl(acc + w * K2, 31) * K1;
}

/*
 * The ETag's 64 bits: four lanes of words at a time (a byte at a time, a
 * finished run's 60 KB document took 80 us of the first read), the tail
 * bytes and the length folded in, then the bits mixed through. The same
 * bytes give the same tag in every run of every server of this version;
 * a client holding another version's tag is sent the bytes once.
 */
static uint64_t digest(const char *p, size_t n)
{
	uint64_t a = K1 + K2, b = K2, c = 0, d = -K1, h;
	size_t i = 0;

	for (; i + 32 <= n; i += 32) {
		a = step(a, word(p + i));
		b = step(b, word(p + i + 8));
		c = step(c, word(p + i + 16));
		d = step(d, word(p + i + 24));
	}
	h = rotl(a, 1) + rotl(b, 7) + rotl(c, 12) + rotl(d, 18) + n;
	for (; i + 8 <= n; i += 8)
		h = rotl(h ^ step(0, word(p + i)), 27) * K1 + K3;
	for (; i < n; i++)
		h = rotl(h ^ (unsigned char)p[i] * K3, 11) * K1;
	h ^= h >> 33;
	h *= K2;
	h ^= h >> 29;
	h *= K3;
	return h ^ (h >> 32);
}

struct http_blob *http_blob_new(char *bytes, size_t len,
				const char *content_type)
{
	struct http_blob *b = calloc(1, sizeof(*b));
	struct payload *p = b ? calloc(1, sizeof(*p)) : NULL;
	uint64_t h;

	if (!p) {
		free(b);
		free(bytes);
		return NULL;
	}
	h = digest(bytes, len);
	snprintf(b->etag, sizeof(b->etag), "\"%016llx\"",
		 (unsigned long long)h);
	p->refs = 1;
	p->bytes = bytes;
	p->len = len;
	b->refs = 1;
	b->p = p;
	b->type = content_type;
	pthread_mutex_init(&b->mu, NULL);
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
	/* an answer still being sent keeps its own (libmicrohttpd counts) */
	for (int i = 0; i < 2; i++)
		if (b->ready[i])
			MHD_destroy_response(b->ready[i]);
	payload_unref(b->p);
	pthread_mutex_destroy(&b->mu);
	free(b);
}

size_t http_blob_size(const struct http_blob *b)
{
	return b->p->len + b->p->gz_len;
}

const char *http_blob_etag(const struct http_blob *b)
{
	return b->etag;
}

/* Makes the gzip copy; called with mu held. */
static void deflate_copy(struct http_blob *b)
{
	struct payload *p = b->p;
	z_stream zs = {0};
	char *out = NULL;
	uLong cap;

	if (p->len < GZIP_MIN ||
	    deflateInit2(&zs, GZIP_LEVEL, Z_DEFLATED, 15 + 16, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK)
		return;
	cap = deflateBound(&zs, (uLong)p->len);
	out = malloc(cap);
	if (out) {
		zs.next_in = (Bytef *)p->bytes;
		zs.avail_in = (uInt)p->len;
		zs.next_out = (Bytef *)out;
		zs.avail_out = (uInt)cap;
		if (deflate(&zs, Z_FINISH) == Z_STREAM_END &&
		    zs.total_out < p->len) {
			/* shrinking cannot fail in practice; where it does,
			 * the larger block is kept as it is */
			char *fit = realloc(out, zs.total_out);

			p->gz = fit ? fit : out;
			p->gz_len = zs.total_out;
			out = NULL;
		}
	}
	free(out);
	deflateEnd(&zs);
}

/* Makes the gzip copy, once; called with mu held. gz_tried is set once
 * the copy is in: ready() reads both without the lock. */
static void make_gzip(struct http_blob *b)
{
	if (b->gz_tried)
		return;
	deflate_copy(b);
	__atomic_store_n(&b->gz_tried, 1, __ATOMIC_RELEASE);
}

/* The answer of b's bytes (gz: the gzip copy), with its own headers, and
 * those of every answer too when it is to be shared; NULL on ENOMEM. */
static struct MHD_Response *answer(struct http_request *rq, struct http_blob *b,
				   int gz, int shared)
{
	struct payload *p = b->p;
	struct MHD_Response *r;

	r = MHD_create_response_from_buffer_with_free_callback_cls(
		gz ? p->gz_len : p->len, gz ? p->gz : p->bytes, payload_unref,
		p);
	if (!r)
		return NULL;
	__atomic_add_fetch(&p->refs, 1, __ATOMIC_RELAXED);
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, b->type);
	if (gz)
		MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_ENCODING,
					"gzip");
	MHD_add_response_header(r, MHD_HTTP_HEADER_ETAG, b->etag);
	MHD_add_response_header(r, MHD_HTTP_HEADER_VARY, "Accept-Encoding");
	if (shared)
		http_shareable(rq, r, CACHE_CONTROL);
	else
		MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL,
					CACHE_CONTROL);
	return r;
}

/* b's answer for the encoding asked: 1 when gzip was taken and is worth
 * it. The ready-made one, or NULL when it cannot be made. */
static struct MHD_Response *ready(struct http_request *rq, struct http_blob *b,
				  int want_gz, int *gz)
{
	struct MHD_Response *r;

	/* made once and never changed: every later request takes it without
	 * the lock */
	if (!want_gz || __atomic_load_n(&b->gz_tried, __ATOMIC_ACQUIRE)) {
		*gz = want_gz && b->p->gz;
		r = __atomic_load_n(&b->ready[*gz], __ATOMIC_ACQUIRE);
		if (r)
			return r;
	}
	pthread_mutex_lock(&b->mu);
	if (want_gz)
		make_gzip(b);
	*gz = want_gz && b->p->gz;
	if (!b->ready[*gz])
		__atomic_store_n(&b->ready[*gz], answer(rq, b, *gz, 1),
				 __ATOMIC_RELEASE);
	r = b->ready[*gz];
	pthread_mutex_unlock(&b->mu);
	return r;
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

enum MHD_Result http_blob_respond(struct http_request *rq, struct http_blob *b)
{
	const char *inm = http_header(rq, MHD_HTTP_HEADER_IF_NONE_MATCH);
	struct MHD_Response *resp;
	int gz;

	if (inm && etag_matches(inm, b->etag)) {
		resp = MHD_create_response_from_buffer(0, NULL,
						       MHD_RESPMEM_PERSISTENT);
		if (!resp)
			return MHD_NO;
		MHD_add_response_header(resp, MHD_HTTP_HEADER_ETAG, b->etag);
		MHD_add_response_header(resp, MHD_HTTP_HEADER_VARY,
					"Accept-Encoding");
		MHD_add_response_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL,
					CACHE_CONTROL);
		return http_respond(rq, MHD_HTTP_NOT_MODIFIED, resp);
	}
	gz = takes_gzip(http_header(rq, MHD_HTTP_HEADER_ACCEPT_ENCODING));
	resp = ready(rq, b, gz, &gz);
	if (!resp)
		return MHD_NO;
	if (!http_needs_cors(rq))
		return http_respond_shared(rq, MHD_HTTP_OK, resp);
	/* CORS headers name the request's origin: an answer of its own */
	resp = answer(rq, b, gz, 0);
	return resp ? http_respond(rq, MHD_HTTP_OK, resp) : MHD_NO;
}
