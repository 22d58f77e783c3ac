/* http_response.c - every answer's security headers, CORS, and JSON bodies and errors */
#include "http_response.h"
#include "http_internal.h"
#include "jsondump.h"
#include "jsonlimit.h"
#include "utf8.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char csp[] =
	"default-src 'self'; img-src 'self' data: blob:; style-src 'self'; "
	"frame-ancestors 'none'";

int http_is_api(const char *path)
{
	return !strncmp(path, "/api/", 5) || !strcmp(path, "/api");
}

int http_needs_cors(struct http_request *rq)
{
	const char *allowed = rq->srv->cors;
	/* no --cors: no header looked up on every answer */
	const char *origin = allowed ? http_header(rq, "Origin") : NULL;

	return origin && (!strcmp(allowed, "*") || !strcmp(allowed, origin));
}

static void add_cors(struct http_request *rq, struct MHD_Response *resp)
{
	const char *origin = http_header(rq, "Origin");
	const char *allowed = rq->srv->cors;

	if (!http_needs_cors(rq))
		return;
	MHD_add_response_header(resp, "Access-Control-Allow-Origin",
				strcmp(allowed, "*") ? origin : "*");
	MHD_add_response_header(resp, "Vary", "Origin");
	MHD_add_response_header(resp, "Access-Control-Expose-Headers",
				"Location, Retry-After");
}

/* What every answer carries against framing, sniffing and leaks. */
static void add_security(struct http_request *rq, struct MHD_Response *resp)
{
	MHD_add_response_header(resp, "Content-Security-Policy", csp);
	MHD_add_response_header(resp, "X-Content-Type-Options", "nosniff");
	MHD_add_response_header(resp, "X-Frame-Options", "DENY");
	MHD_add_response_header(resp, "Referrer-Policy", "no-referrer");
	/* under TLS the browser is told to come back only over TLS (a
	 * browser ignores it over plain HTTP, and for an address literal) */
	if (rq->srv->cfg.tls_cert)
		MHD_add_response_header(resp, "Strict-Transport-Security",
					"max-age=31536000");
}

enum MHD_Result http_respond(struct http_request *rq, unsigned int status,
			     struct MHD_Response *resp)
{
	enum MHD_Result ret;

	if (!resp)
		return MHD_NO;
	add_security(rq, resp);
	if (!MHD_get_response_header(resp, "Cache-Control"))
		MHD_add_response_header(resp, "Cache-Control",
					http_is_api(rq->path) ? "no-store"
							      : "no-cache");
	add_cors(rq, resp);
	rq->status = status;
	ret = MHD_queue_response(rq->conn, status, resp);
	MHD_destroy_response(resp);
	return ret;
}

void http_shareable(struct http_request *rq, struct MHD_Response *resp,
		    const char *cache_control)
{
	add_security(rq, resp);
	MHD_add_response_header(resp, "Cache-Control", cache_control);
}

enum MHD_Result http_respond_shared(struct http_request *rq,
				    unsigned int status,
				    struct MHD_Response *resp)
{
	rq->status = status;
	return MHD_queue_response(rq->conn, status, resp);
}

enum MHD_Result http_respond_bare(struct http_request *rq, unsigned int status,
				  struct MHD_Response *resp)
{
	enum MHD_Result ret;

	if (!resp)
		return MHD_NO;
	MHD_add_response_header(resp, "X-Content-Type-Options", "nosniff");
	MHD_add_response_header(resp, "Connection", "close");
	rq->status = status;
	ret = MHD_queue_response(rq->conn, status, resp);
	MHD_destroy_response(resp);
	return ret;
}

char *http_json_text(const json_t *doc, size_t *len)
{
	size_t n = 0;
	char *s = doc ? jsondump_text(doc, &n) : NULL;
	char *b = s ? realloc(s, n + 2) : NULL;

	if (!b) {
		free(s);
		return NULL;
	}
	b[n] = '\n';
	b[n + 1] = '\0';
	*len = n + 1;
	return b;
}

struct MHD_Response *http_json_text_response(char *text, size_t len)
{
	struct MHD_Response *resp =
		text ? MHD_create_response_from_buffer(len, text,
						       MHD_RESPMEM_MUST_FREE)
		     : NULL;

	if (!resp) {
		free(text);
		return NULL;
	}
	MHD_add_response_header(resp, "Content-Type", "application/json");
	return resp;
}

struct MHD_Response *http_json_response(json_t *doc)
{
	size_t n = 0;
	char *b = http_json_text(doc, &n);

	json_decref(doc);
	return http_json_text_response(b, n);
}

enum MHD_Result http_json(struct http_request *rq, unsigned int status,
			  json_t *doc)
{
	return http_respond(rq, status, http_json_response(doc));
}

static struct MHD_Response *verror_response(const char *field, const char *fmt,
					    va_list ap)
{
	char msg[2048];
	json_t *doc;

	vsnprintf(msg, sizeof(msg), fmt, ap);
	doc = json_pack("{s:s}", "error", msg);
	if (!doc) {
		/* it quotes what a client sent, which need not be UTF-8 (or
		 * was cut inside a character): JSON cannot carry it as is */
		char *safe = utf8_escape(msg);
		doc = safe ? json_pack("{s:s}", "error", safe) : NULL;
		free(safe);
	}
	if (doc && field && *field)
		json_object_set_new(doc, "field", json_string(field));
	return http_json_response(doc);
}

struct MHD_Response *http_error_response(const char *field, const char *fmt,
					 ...)
{
	struct MHD_Response *resp;
	va_list ap;

	va_start(ap, fmt);
	resp = verror_response(field, fmt, ap);
	va_end(ap);
	return resp;
}

enum MHD_Result http_error(struct http_request *rq, unsigned int status,
			   const char *field, const char *fmt, ...)
{
	struct MHD_Response *resp;
	va_list ap;

	va_start(ap, fmt);
	resp = verror_response(field, fmt, ap);
	va_end(ap);
	return http_respond(rq, status, resp);
}

int http_body_none(struct http_request *rq, enum MHD_Result *ret)
{
	size_t i = 0;
	const char *key = NULL;
	json_t *doc, *v;

	while (i < rq->body_len && (rq->body[i] == ' ' || rq->body[i] == '\t' ||
				    rq->body[i] == '\r' || rq->body[i] == '\n'))
		i++;
	if (i == rq->body_len)
		return 0;
	doc = http_body_json(rq, ret);
	if (!doc)
		return -1;
	if (json_is_object(doc) && !json_object_size(doc)) {
		json_decref(doc);
		return 0;
	}
	if (json_is_object(doc))
		json_object_foreach (doc, key, v)
			break;
	*ret = key ? http_error(
			     rq, MHD_HTTP_BAD_REQUEST, key,
			     "unknown field '%.64s': this request takes none "
			     "(send {} or no body)",
			     key)
		   : http_error(rq, MHD_HTTP_BAD_REQUEST, NULL,
				"this request takes no body but {} (or none)");
	json_decref(doc);
	return -1;
}

json_t *http_body_json(struct http_request *rq, enum MHD_Result *ret)
{
	json_error_t jerr;
	char field[64];
	json_t *doc = jsonlimit_load(rq->body, rq->body_len, 0, NULL, &jerr,
				     field, sizeof(field));

	if (doc)
		return doc;
	if (*field)
		*ret = http_error(rq, MHD_HTTP_BAD_REQUEST, field,
				  "field '%s': %s", field, jerr.text);
	else if (jsonlimit_passed(&jerr))
		*ret = http_error(rq, MHD_HTTP_BAD_REQUEST, NULL,
				  "request body: %s, at line %d, column %d",
				  jerr.text, jerr.line, jerr.column);
	else
		*ret = http_error(rq, MHD_HTTP_BAD_REQUEST, NULL,
				  "malformed JSON at line %d, column %d: %s",
				  jerr.line, jerr.column, jerr.text);
	return NULL;
}
