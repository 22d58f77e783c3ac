/* serve_opts.h - the serve subcommand's options: one table, and what they ask for together */
#ifndef NUMALAB_SERVE_OPTS_H
#define NUMALAB_SERVE_OPTS_H

#include <stddef.h>

#include "http_tls.h"
#include "strvec.h"

/* What serve's argv asks for. */
struct serve_opts {
	const char *listen;
	const char *db;
	const char *web;
	const char *token;
	const char *token_file;
	const char *class_token;
	const char *cors;
	const char *tls_cert;
	const char *tls_key;
	const char *worker;
	const char *fleet;
	const char *public_url;
	int public_read;
	int max_run_seconds;
	int max_queue;
	struct strvec allowed_hosts;
	int import_count;
	int import_mib;
	int max_conns;
	int max_client_conns;
	int max_viewers;
	int session_seconds;
	int max_client_sessions;
};

/*
 * Reads serve's argv into o (its defaults set first). Returns -1 to go
 * on, 0 when --help printed the usage, or 2 (said).
 */
int serve_parse(int argc, char **argv, struct serve_opts *o);

/*
 * What the options ask for together: the listen address into host and
 * port, the token (from its file, or generated off loopback) into *token,
 * the class's (given, or generated with a token) into *class_token, the
 * certificate and key into *tls. Returns 0, or -EINVAL said.
 */
int serve_check(struct serve_opts *o, char *host, size_t hostlen, int *port,
		char **token, char **class_token, struct http_tls *tls);

#endif
