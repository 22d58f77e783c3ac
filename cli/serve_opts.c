/* serve_opts.c - the serve subcommand's options: one table, and what they ask for together */
#include "serve_opts.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "http.h"
#include "opts.h"
#include "say.h"
#include "serve_net.h"
#include "token_file.h"
#include "url_check.h"

/* --allowed-host NAME: a name without a port, repeatable. */
static int allowed_host(void *dest, const char *v)
{
	struct serve_opts *o = dest;

	if (!*v || strpbrk(v, ":/[] ")) {
		say(stderr, "numalab serve: bad host name for "
			    "'--allowed-host' (a name without "
			    "port, e.g. lab.example)\n");
		return -EINVAL;
	}
	strvec_push(&o->allowed_hosts, v);
	return 0;
}

/* --fleet ENGINE: slurm or clush. */
static int fleet_engine(void *dest, const char *v)
{
	struct serve_opts *o = dest;

	if (strcmp(v, "slurm") && strcmp(v, "clush")) {
		say(stderr,
		    "numalab serve: bad value '%s' for "
		    "'--fleet' (slurm or clush)\n",
		    v);
		return -EINVAL;
	}
	o->fleet = v;
	return 0;
}

#define SO struct serve_opts

/* serve's options, in the order its --help lists them */
static const struct opt serve_table[] = {
	OPT_STRING("--listen", SO, listen, "ADDR:PORT",
		   "where to listen (default 127.0.0.1:8080;\n"
		   "port 0 picks a free one and prints it)"),
	OPT_STRING("--db", SO, db, "PATH",
		   "the SQLite file of runs (default ./numalab.db)"),
	OPT_STRING("--web", SO, web, "DIR",
		   "the page's files (default: ../web next to\n"
		   "the binary, ../share/numalab/web of its\n"
		   "install prefix, or ./web)"),
	OPT_INT("--max-run-seconds", SO, max_run_seconds, 1, 7 * 86400, "N",
		"a run is killed after this long, and one\n"
		"estimated to take longer is refused\n"
		"(default 600); the estimate multiplies\n"
		"the run's work by rates measured here at\n"
		"start (a third of a second), kept in\n"
		"DB.rates next to the database (with no\n"
		"database file: ~/.cache/numalab/rates)\n"
		"and measured again when the machine\n"
		"changes"),
	OPT_INT("--max-queue", SO, max_queue, 1, 100000, "N",
		"runs that may wait to start (default 16)"),
	OPT_STRING("--token", SO, token, "T",
		   "require 'Authorization: Bearer T'"),
	OPT_STRING("--token-file", SO, token_file, "F",
		   "the same, the token read from file F"),
	OPT_STRING("--class-token", SO, class_token, "T",
		   "the class link's token: it signs students\n"
		   "in to read runs and send predictions, not\n"
		   "to start, cancel, delete or import runs,\n"
		   "start or post campaigns, or run checks\n"
		   "(default: one is generated with a token)"),
	OPT_INT("--session-seconds", SO, session_seconds, 1, 7 * 86400, "N",
		"how long a browser's sign-in lasts\n"
		"(default 43200: 12 hours)"),
	OPT_FLAG("--public-read", SO, public_read,
		 "with a token: reads need none, only changes"),
	OPT_STRING("--cors", SO, cors, "ORIGIN",
		   "allow cross-origin requests from ORIGIN\n"
		   "(scheme://host[:port]; '*' is refused)"),
	OPT_STRING("--tls-cert", SO, tls_cert, "FILE",
		   "serve HTTPS with this PEM certificate"),
	OPT_STRING("--tls-key", SO, tls_key, "FILE",
		   "and this PEM key (both, or neither)"),
	OPT_CALL_MANY("--allowed-host", allowed_host, "NAME",
		      "answer requests for NAME too (repeatable;\n"
		      "loopback names and address literals always)"),
	OPT_STRING("--public-url", SO, public_url, "URL",
		   "the address phones use (scheme://host[:port],\n"
		   "a DNS name or a reverse proxy): the links\n"
		   "and the QR code use it, its host is allowed,\n"
		   "and with https the cookie is Secure"),
	OPT_INT("--max-client-sessions", SO, max_client_sessions, 1, 1024, "N",
		"students signed in at once from one address\n"
		"(an IPv6 /64 counted as one; default 16):\n"
		"its next sign-in ends its oldest"),
	OPT_INT("--max-connections", SO, max_conns, 16, 1000000, "N",
		"connections at once (default 16384); when\n"
		"all are taken, an idle one of the client\n"
		"holding the most is closed for a client\n"
		"holding fewer"),
	OPT_INT("--max-client-connections", SO, max_client_conns, 1, 1000000,
		"N",
		"connections at once from one address, an\n"
		"IPv6 /64 counted as one (default 2048)"),
	OPT_INT("--max-viewers", SO, max_viewers, 1, 1000000, "N",
		"event streams at once, past which one\n"
		"more is answered 503 (default 12288, or\n"
		"3/4 of --max-connections if fewer)"),
	OPT_INT("--import-quota", SO, import_count, 1, 1000000, "N",
		"imports per client per hour (default 60)"),
	OPT_INT("--import-quota-mib", SO, import_mib, 1, 1000000, "M",
		"MiB of imports per client per hour\n"
		"(default 128)"),
	OPT_CALL("--fleet", fleet_engine, "ENGINE",
		 "let the page start campaigns on many machines\n"
		 "(slurm or clush; off by default; needs a token):\n"
		 "POST /api/campaigns/start runs `numalab fleet\n"
		 "run ... --server` this server in the background"),
	OPT_STRING("--worker", SO, worker, "PATH",
		   "run PATH as the worker instead of numalab-worker\n"
		   "(for tests: it gets `run --ndjson NAME k=v ...`)"),
	OPT_HELP(NULL),
	OPT_END(),
};

static const struct opts_cmd serve_cmd = {
	.prog = "numalab serve",
	.table = serve_table,
	.flags = OPTS_EQUALS | OPTS_ONCE,
	.unknown = "unknown option '%1$s' (numalab serve --help lists them)",
	.no_value = "option '%1$s' needs a value",
	.bad_int = "bad value '%2$s' for '%1$s' (allowed %3$ld-%4$ld)",
	.help_col = 25,
	.head = "usage: numalab serve [options]\n"
		"\n",
	.tail = "\n"
		"With a token, the teacher's and the class's links are printed at\n"
		"start, one pair for each address of this machine a phone can reach\n"
		"when listening on 0.0.0.0 or :: (and its host name when that\n"
		"resolves to one of them), then the page where a phone types the\n"
		"class's join code: opening one signs the browser in (a cookie, and\n"
		"a key the page keeps). A listen address other than loopback without\n"
		"--token gets both tokens generated; without --tls-cert they cross\n"
		"the network in clear text. A token shorter than 16 characters is\n"
		"warned about: wrong tokens are slowed, not stopped.\n",
};

int serve_parse(int argc, char **argv, struct serve_opts *o)
{
	*o = (struct serve_opts){.listen = "127.0.0.1:8080",
				 .db = "numalab.db",
				 .max_run_seconds = 600,
				 .max_queue = 16,
				 .allowed_hosts = STRVEC_INIT,
				 .import_count = 60,
				 .max_conns = HTTP_MAX_CONNS,
				 .max_client_conns = HTTP_MAX_CLIENT_CONNS,
				 .import_mib = 128};
	return opts_parse(&serve_cmd, argc, argv, o);
}

/* "127.0.0.1:8080", "[::1]:0", "localhost:8080" into host and port. */
static int split_listen(const char *listen, char *host, size_t hostlen,
			int *port)
{
	const char *colon, *h = listen;
	size_t n;
	char *end;
	long p;

	if (*h == '[') {
		const char *close = strchr(h, ']');
		if (!close || close[1] != ':')
			return -EINVAL;
		h++;
		n = (size_t)(close - h);
		colon = close + 1;
	} else {
		colon = strrchr(h, ':');
		if (!colon)
			return -EINVAL;
		n = (size_t)(colon - h);
	}
	if (!n || n >= hostlen)
		return -EINVAL;
	memcpy(host, h, n);
	host[n] = '\0';
	errno = 0;
	p = strtol(colon + 1, &end, 10);
	if (errno || end == colon + 1 || *end || p < 0 || p > 65535)
		return -EINVAL;
	*port = (int)p;
	return 0;
}

/*
 * --cors: one named origin. Its pages may read, and change runs: without a
 * token anyone's browser on that site can, which is said at start.
 */
static int serve_check_cors(const struct serve_opts *o, const char *token)
{
	struct errinfo err;
	int tls;

	if (!o->cors)
		return 0;
	if (!strcmp(o->cors, "*")) {
		say(stderr,
		    "numalab serve: refusing '--cors *': every web site a "
		    "visitor opens could read this server's runs, and start "
		    "and cancel runs (name the origin instead, e.g. --cors "
		    "https://lab.example)\n");
		return -EINVAL;
	}
	if (url_check(o->cors, "--cors", 0, &tls, &err)) {
		say(stderr, "numalab serve: %s\n", err.msg);
		return -EINVAL;
	}
	if (!token)
		say(stderr,
		    "numalab serve: warning: '--cors %s' without a token: "
		    "pages of %s may start and cancel runs here (give "
		    "--token-file FILE)\n",
		    o->cors, o->cors);
	return 0;
}

/* --tls-cert and --tls-key, both or neither, read into *tls. */
static int serve_check_tls(const struct serve_opts *o, struct http_tls *tls)
{
	struct errinfo err;

	if (!o->tls_cert && !o->tls_key)
		return 0;
	if (!o->tls_cert || !o->tls_key) {
		say(stderr,
		    "numalab serve: '%s' needs '%s' too (HTTPS takes a "
		    "certificate and its key)\n",
		    o->tls_cert ? "--tls-cert" : "--tls-key",
		    o->tls_cert ? "--tls-key" : "--tls-cert");
		return -EINVAL;
	}
	if (http_tls_load(o->tls_cert, o->tls_key, tls, &err)) {
		say(stderr, "numalab serve: %s\n", err.msg);
		return -EINVAL;
	}
	struct stat st;
	if (!stat(o->tls_key, &st) && (st.st_mode & 077))
		say(stderr,
		    "numalab serve: warning: TLS key '%s' may be read by "
		    "other users (chmod 600 '%s')\n",
		    o->tls_key, o->tls_key);
	return 0;
}

/* A token of 128 random bits in hex into *out. 0, or -EINVAL said. */
static int serve_new_token(char **out)
{
	char hex[33];

	if (http_random_hex(hex, 16)) {
		say(stderr, "numalab serve: cannot make a token: getrandom "
			    "failed\n");
		return -EINVAL;
	}
	*out = strdup(hex);
	explicit_bzero(hex, sizeof(hex));
	return *out ? 0 : -EINVAL;
}

/* --public-url: scheme://host[:port], a final / dropped. 0, or -EINVAL
 * said. */
static int serve_check_public_url(struct serve_opts *o)
{
	static char url[256];
	struct errinfo err;
	size_t n;
	int tls;

	if (!o->public_url)
		return 0;
	if (strlen(o->public_url) >= sizeof(url)) {
		say(stderr,
		    "numalab serve: bad --public-url '%.40s...': longer than "
		    "%zu characters\n",
		    o->public_url, sizeof(url) - 1);
		return -EINVAL;
	}
	snprintf(url, sizeof(url), "%s", o->public_url);
	n = strlen(url);
	/* a final / after the host, not the scheme's */
	if (n > 1 && url[n - 1] == '/' && url[n - 2] != '/')
		url[n - 1] = '\0';
	if (url_check(url, "--public-url", 0, &tls, &err)) {
		say(stderr, "numalab serve: %s\n", err.msg);
		return -EINVAL;
	}
	o->public_url = url;
	return 0;
}

/*
 * The teacher's token (given, from its file, or made off loopback) into
 * *token and the class's (given, or made with a token) into *class_token,
 * with what --fleet needs and a warning for a short one. 0, or -EINVAL
 * said.
 */
static int serve_check_tokens(const struct serve_opts *o, const char *host,
			      char **token, char **class_token)
{
	if (o->token_file) {
		struct errinfo terr;
		if (token_file_read(o->token_file, token, &terr)) {
			say(stderr, "numalab serve: %s\n", terr.msg);
			return -EINVAL;
		}
	} else if (o->token) {
		if (!*o->token) {
			say(stderr, "numalab serve: the token is empty\n");
			return -EINVAL;
		}
		*token = strdup(o->token);
	}
	if (o->class_token && !*o->class_token) {
		say(stderr, "numalab serve: the class token is empty\n");
		return -EINVAL;
	}
	if (o->class_token && !*token) {
		say(stderr, "numalab serve: '--class-token' needs '--token' or "
			    "'--token-file' (the teacher's)\n");
		return -EINVAL;
	}
	/* off loopback, as Jupyter does: tokens made here, printed as links */
	if (!*token && !serve_is_loopback(host) && serve_new_token(token))
		return -EINVAL;
	if (*token && o->class_token && !strcmp(*token, o->class_token)) {
		say(stderr, "numalab serve: the class token is the teacher's: "
			    "give the class another one\n");
		return -EINVAL;
	}
	if (*token && o->class_token)
		*class_token = strdup(o->class_token);
	else if (*token && serve_new_token(class_token))
		return -EINVAL;
	if (o->fleet && !*token) {
		say(stderr,
		    "numalab serve: '--fleet %s' needs a token: whoever "
		    "reaches the page could start jobs on the whole "
		    "cluster (give --token-file FILE)\n",
		    o->fleet);
		return -EINVAL;
	}
	if (*token && strlen(*token) < 16)
		say(stderr,
		    "numalab serve: warning: the token is %zu characters: "
		    "anyone who can reach the server may guess it (wrong "
		    "tries are slowed, not stopped); give 16 or more, or "
		    "leave it out off loopback and one is made\n",
		    strlen(*token));
	if (*class_token && strlen(*class_token) < 16)
		say(stderr,
		    "numalab serve: warning: the class token is %zu "
		    "characters: give 16 or more\n",
		    strlen(*class_token));
	return 0;
}

/*
 * What the options ask for together: the listen address into host and
 * port, the token (from its file, or generated off loopback) into *token,
 * the class's (given, or generated with a token) into *class_token, the
 * certificate and key into *tls. Returns 0, or -EINVAL said.
 */
int serve_check(struct serve_opts *o, char *host, size_t hostlen, int *port,
		char **token, char **class_token, struct http_tls *tls)
{
	if (split_listen(o->listen, host, hostlen, port)) {
		say(stderr,
		    "numalab serve: bad listen address '%s' (use ADDR:PORT, "
		    "e.g. 127.0.0.1:8080)\n",
		    o->listen);
		return -EINVAL;
	}
	if (o->token && o->token_file) {
		say(stderr,
		    "numalab serve: give '--token' or '--token-file', not both\n");
		return -EINVAL;
	}
	if (serve_check_public_url(o))
		return -EINVAL;
	if (serve_check_tokens(o, host, token, class_token))
		return -EINVAL;
	if (serve_check_cors(o, *token) || serve_check_tls(o, tls))
		return -EINVAL;
	char fleet_name[256];
	if (o->fleet && tls->cert &&
	    serve_fleet_name(&o->allowed_hosts, host, tls, fleet_name,
			     sizeof(fleet_name)))
		return -EINVAL;
	if (*token && !tls->cert && !serve_is_loopback(host) &&
	    !(o->public_url && !strncmp(o->public_url, "https:", 6)))
		say(stderr,
		    "numalab serve: warning: serving '%s' over plain HTTP: "
		    "the token crosses the network in clear text, for anyone "
		    "on the way to read (give --tls-cert and --tls-key)\n",
		    o->listen);
	return 0;
}
