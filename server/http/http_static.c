/* http_static.c - the web folder's files, and the paths that may never reach it */
#define _GNU_SOURCE
#include "http_internal.h"
#include "http_response.h"

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

static const struct {
	const char *ext, *type;
} mime_types[] = {
	{".html", "text/html; charset=utf-8"},
	{".htm", "text/html; charset=utf-8"},
	{".js", "text/javascript; charset=utf-8"},
	{".mjs", "text/javascript; charset=utf-8"},
	{".css", "text/css; charset=utf-8"},
	{".json", "application/json"},
	{".map", "application/json"},
	{".webmanifest", "application/manifest+json"},
	{".svg", "image/svg+xml"},
	{".png", "image/png"},
	{".jpg", "image/jpeg"},
	{".jpeg", "image/jpeg"},
	{".gif", "image/gif"},
	{".webp", "image/webp"},
	{".ico", "image/x-icon"},
	{".woff", "font/woff"},
	{".woff2", "font/woff2"},
	{".txt", "text/plain; charset=utf-8"},
	{".md", "text/plain; charset=utf-8"},
	{".csv", "text/csv; charset=utf-8"},
	{".wasm", "application/wasm"},
};

static const char *mime_type(const char *path)
{
	const char *dot = strrchr(path, '.');

	if (dot && !strchr(dot, '/'))
		for (size_t i = 0;
		     i < sizeof(mime_types) / sizeof(mime_types[0]); i++)
			if (!strcasecmp(dot, mime_types[i].ext))
				return mime_types[i].type;
	return "application/octet-stream";
}

/* The path as sent, without the query: to see what decoding hides. */
static int raw_path_ok(const char *raw)
{
	size_t n = strcspn(raw, "?");

	for (size_t i = 0; i < n; i++) {
		if (raw[i] == '\\')
			return 0;
		if (raw[i] != '%' || i + 2 >= n)
			continue;
		/* encoded slash, backslash or NUL: a name cannot hold them */
		char a = raw[i + 1], b = (char)(raw[i + 2] | 0x20);
		if ((a == '2' && b == 'f') || (a == '5' && b == 'c') ||
		    (a == '0' && b == '0'))
			return 0;
	}
	return 1;
}

/* Each segment of the decoded path: no "..", ".", or hidden names. */
static int segments_ok(const char *path)
{
	const char *s = path;

	if (*s != '/')
		return 0;
	while (*s) {
		s++;
		size_t n = strcspn(s, "/");
		if (n == 0 && s[0] == '/')
			return 0; /* "//" */
		if (n && s[0] == '.')
			return 0; /* ".", "..", ".git" */
		for (size_t i = 0; i < n; i++)
			if ((unsigned char)s[i] < 0x20 || s[i] == '\\')
				return 0;
		s += n;
	}
	return 1;
}

enum MHD_Result http_serve_static(struct http_request *rq)
{
	struct http_server *srv = rq->srv;
	const char *path = rq->path;
	char full[PATH_MAX], *real = NULL;
	struct MHD_Response *resp;
	struct stat st;
	int fd;

	if (!raw_path_ok(rq->raw_uri ? rq->raw_uri : path) ||
	    !segments_ok(path))
		return http_error(rq, MHD_HTTP_BAD_REQUEST, NULL,
				  "path '%.200s' is not allowed",
				  rq->raw_uri ? rq->raw_uri : path);
	if (!strcmp(path, "/"))
		path = "/index.html";
	/* the short address a phone types, beside the projector's QR code */
	else if (!strcmp(path, "/join"))
		path = "/join.html";
	if (!srv->web_real || path[strlen(path) - 1] == '/')
		goto not_found;
	if ((size_t)snprintf(full, sizeof(full), "%s%s", srv->web_real, path) >=
	    sizeof(full))
		goto not_found;
	/* symlinks may point anywhere: what counts is where they end up */
	real = realpath(full, NULL);
	if (!real || strncmp(real, srv->web_real, srv->web_len) ||
	    real[srv->web_len] != '/')
		goto not_found;
	fd = open(real, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		goto not_found;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		goto not_found;
	}
	resp = MHD_create_response_from_fd64((uint64_t)st.st_size, fd);
	if (!resp) {
		close(fd);
		free(real);
		return MHD_NO;
	}
	MHD_add_response_header(resp, "Content-Type", mime_type(real));
	free(real);
	return http_respond(rq, MHD_HTTP_OK, resp);
not_found:
	free(real);
	return http_error(rq, MHD_HTTP_NOT_FOUND, NULL,
			  "no file '%.200s' in the web folder", rq->path);
}
