/* serve.c - the serve subcommand: options, start-up, and a clean stop on SIGTERM/SIGINT */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <limits.h>
#include <net/if.h>
#include <netdb.h>
#include <netinet/in.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "api.h"
#include "auth.h"
#include "campaign_live.h"
#include "commands.h"
#include "fleet_start.h"
#include "http.h"
#include "http_tls.h"
#include "numa_mem.h"
#include "opts.h"
#include "rates.h"
#include "runner.h"
#include "say.h"
#include "selfpath.h"
#include "stale_retry.h"
#include "store.h"
#include "stream.h"
#include "strvec.h"
#include "token_file.h"
#include "topo.h"

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

static void usage(FILE *f)
{
	fprintf(f,
		"usage: numalab serve [options]\n"
		"\n"
		"  --listen ADDR:PORT     where to listen (default 127.0.0.1:8080;\n"
		"                         port 0 picks a free one and prints it)\n"
		"  --db PATH              the SQLite file of runs (default ./numalab.db)\n"
		"  --web DIR              the page's files (default: ../web next to\n"
		"                         the binary, ../share/numalab/web of its\n"
		"                         install prefix, or ./web)\n"
		"  --max-run-seconds N    a run is killed after this long, and one\n"
		"                         estimated to take longer is refused\n"
		"                         (default 600); the estimate multiplies\n"
		"                         the run's work by rates measured here at\n"
		"                         start (a third of a second), kept in\n"
		"                         DB.rates next to the database (with no\n"
		"                         database file: ~/.cache/numalab/rates)\n"
		"                         and measured again when the machine\n"
		"                         changes\n"
		"  --max-queue N          runs that may wait to start (default 16)\n"
		"  --token T              require 'Authorization: Bearer T'\n"
		"  --token-file F         the same, the token read from file F\n"
		"  --class-token T        the class link's token: it signs students\n"
		"                         in to read runs and send predictions, not\n"
		"                         to start, cancel, delete or import runs,\n"
		"                         start or post campaigns, or run checks\n"
		"                         (default: one is generated with a token)\n"
		"  --session-seconds N    how long a browser's sign-in lasts\n"
		"                         (default 43200: 12 hours)\n"
		"  --public-read          with a token: reads need none, only changes\n"
		"  --cors ORIGIN          allow cross-origin requests from ORIGIN\n"
		"                         (scheme://host[:port]; '*' is refused)\n"
		"  --tls-cert FILE        serve HTTPS with this PEM certificate\n"
		"  --tls-key FILE         and this PEM key (both, or neither)\n"
		"  --allowed-host NAME    answer requests for NAME too (repeatable;\n"
		"                         loopback names and address literals always)\n"
		"  --public-url URL       the address phones use (scheme://host[:port],\n"
		"                         a DNS name or a reverse proxy): the links\n"
		"                         and the QR code use it, its host is allowed,\n"
		"                         and with https the cookie is Secure\n"
		"  --max-client-sessions N\n"
		"                         students signed in at once from one address\n"
		"                         (an IPv6 /64 counted as one; default 16):\n"
		"                         its next sign-in ends its oldest\n"
		"  --max-connections N    connections at once (default 16384); when\n"
		"                         all are taken, an idle one of the client\n"
		"                         holding the most is closed for a client\n"
		"                         holding fewer\n"
		"  --max-client-connections N\n"
		"                         connections at once from one address, an\n"
		"                         IPv6 /64 counted as one (default 2048)\n"
		"  --max-viewers N        event streams at once, past which one\n"
		"                         more is answered 503 (default 12288, or\n"
		"                         3/4 of --max-connections if fewer)\n"
		"  --import-quota N       imports per client per hour (default 60)\n"
		"  --import-quota-mib M   MiB of imports per client per hour\n"
		"                         (default 128)\n"
		"  --fleet ENGINE         let the page start campaigns on many machines\n"
		"                         (slurm or clush; off by default; needs a token):\n"
		"                         POST /api/campaigns/start runs `numalab fleet\n"
		"                         run ... --server` this server in the background\n"
		"  --worker PATH          run PATH as the worker instead of this binary\n"
		"                         (for tests: it gets `run --ndjson NAME k=v ...`)\n"
		"\n"
		"With a token, the teacher's and the class's links are printed at\n"
		"start, one pair for each address of this machine a phone can reach\n"
		"when listening on 0.0.0.0 or :: (and its host name when that\n"
		"resolves to one of them), then the page where a phone types the\n"
		"class's join code: opening one signs the browser in (a cookie, and\n"
		"a key the page keeps). A listen address other than loopback without\n"
		"--token gets both tokens generated; without --tls-cert they cross\n"
		"the network in clear text. A token shorter than 16 characters is\n"
		"warned about: wrong tokens are slowed, not stopped.\n");
}

/*
 * The rates the run-time estimates multiply work by, measured here once
 * at start (about a third of a second) and kept in DB.rates next to a
 * database file (the default cache otherwise); a copy in the default
 * cache made on this same machine is taken instead of measuring again.
 */
static void serve_rates(const struct topo *t, const char *db)
{
	char path[4096], fallback[4096], fp[512];
	struct rates r;

	rates_default_path(fallback, sizeof(fallback));
	if (db && !strncmp(db, "file:", 5)) {
		/* an SQLite URI: its file, or none when it lives in memory */
		if (strstr(db, "mode=memory"))
			db = NULL;
		else
			db += strncmp(db + 5, "///", 3) ? 5 : 7;
	}
	if (!db || !*db || !strcmp(db, ":memory:")) {
		rates_init(t, fallback);
		return;
	}
	snprintf(path, sizeof(path), "%.*s.rates", (int)strcspn(db, "?#"), db);
	rates_fingerprint(t, fp, sizeof(fp));
	if (rates_load(path, fp, &r) && rates_load(fallback, fp, &r) == 0) {
		rates_set(&r);
		rates_save(path, fp, &r);
		return;
	}
	rates_init(t, path);
}

static int parse_int_opt(const char *name, const char *v, int min, int max,
			 int *out)
{
	char *end;
	long x;

	errno = 0;
	x = strtol(v, &end, 10);
	if (errno || end == v || *end || x < min || x > max) {
		say(stderr,
		    "numalab serve: bad value '%s' for '%s' (allowed %d-%d)\n",
		    v, name, min, max);
		return -EINVAL;
	}
	*out = (int)x;
	return 0;
}

enum {
	SO_HELP = 1,
	SO_LISTEN,
	SO_DB,
	SO_WEB,
	SO_TOKEN,
	SO_TOKEN_FILE,
	SO_CORS,
	SO_TLS_CERT,
	SO_TLS_KEY,
	SO_ALLOWED_HOST,
	SO_MAX_CONNS,
	SO_MAX_CLIENT_CONNS,
	SO_IMPORT_QUOTA,
	SO_IMPORT_QUOTA_MIB,
	SO_FLEET,
	SO_WORKER,
	SO_PUBLIC_READ,
	SO_MAX_RUN_SECONDS,
	SO_MAX_QUEUE,
	SO_CLASS_TOKEN,
	SO_SESSION_SECONDS,
	SO_MAX_VIEWERS,
	SO_PUBLIC_URL,
	SO_MAX_CLIENT_SESSIONS,
};

static const struct opt serve_options[] = {
	{"--help", "-h", 0, SO_HELP},
	{"--listen", NULL, 1, SO_LISTEN},
	{"--db", NULL, 1, SO_DB},
	{"--web", NULL, 1, SO_WEB},
	{"--token", NULL, 1, SO_TOKEN},
	{"--token-file", NULL, 1, SO_TOKEN_FILE},
	{"--cors", NULL, 1, SO_CORS},
	{"--tls-cert", NULL, 1, SO_TLS_CERT},
	{"--tls-key", NULL, 1, SO_TLS_KEY},
	{"--allowed-host", NULL, 1, SO_ALLOWED_HOST},
	{"--max-connections", NULL, 1, SO_MAX_CONNS},
	{"--max-client-connections", NULL, 1, SO_MAX_CLIENT_CONNS},
	{"--max-viewers", NULL, 1, SO_MAX_VIEWERS},
	{"--import-quota", NULL, 1, SO_IMPORT_QUOTA},
	{"--import-quota-mib", NULL, 1, SO_IMPORT_QUOTA_MIB},
	{"--fleet", NULL, 1, SO_FLEET},
	{"--worker", NULL, 1, SO_WORKER},
	{"--public-read", NULL, 0, SO_PUBLIC_READ},
	{"--max-run-seconds", NULL, 1, SO_MAX_RUN_SECONDS},
	{"--max-queue", NULL, 1, SO_MAX_QUEUE},
	{"--class-token", NULL, 1, SO_CLASS_TOKEN},
	{"--session-seconds", NULL, 1, SO_SESSION_SECONDS},
	{"--public-url", NULL, 1, SO_PUBLIC_URL},
	{"--max-client-sessions", NULL, 1, SO_MAX_CLIENT_SESSIONS},
	{0}};

/* The options with a number and the range it must be in. */
static const struct {
	int id;
	const char *name;
	int min, max;
	size_t offset; /* of the int in struct serve_opts */
} serve_ints[] = {
	{SO_MAX_CONNS, "--max-connections", 16, 1000000,
	 offsetof(struct serve_opts, max_conns)},
	{SO_MAX_CLIENT_CONNS, "--max-client-connections", 1, 1000000,
	 offsetof(struct serve_opts, max_client_conns)},
	{SO_MAX_VIEWERS, "--max-viewers", 1, 1000000,
	 offsetof(struct serve_opts, max_viewers)},
	{SO_IMPORT_QUOTA, "--import-quota", 1, 1000000,
	 offsetof(struct serve_opts, import_count)},
	{SO_IMPORT_QUOTA_MIB, "--import-quota-mib", 1, 1000000,
	 offsetof(struct serve_opts, import_mib)},
	{SO_MAX_RUN_SECONDS, "--max-run-seconds", 1, 7 * 86400,
	 offsetof(struct serve_opts, max_run_seconds)},
	{SO_MAX_QUEUE, "--max-queue", 1, 100000,
	 offsetof(struct serve_opts, max_queue)},
	{SO_SESSION_SECONDS, "--session-seconds", 1, 7 * 86400,
	 offsetof(struct serve_opts, session_seconds)},
	{SO_MAX_CLIENT_SESSIONS, "--max-client-sessions", 1, 1024,
	 offsetof(struct serve_opts, max_client_sessions)},
};

/* The value of an option with a string value, id's field in o. */
static const char **serve_str(struct serve_opts *o, int id)
{
	switch (id) {
	case SO_LISTEN:
		return &o->listen;
	case SO_DB:
		return &o->db;
	case SO_WEB:
		return &o->web;
	case SO_TOKEN:
		return &o->token;
	case SO_TOKEN_FILE:
		return &o->token_file;
	case SO_CLASS_TOKEN:
		return &o->class_token;
	case SO_CORS:
		return &o->cors;
	case SO_TLS_CERT:
		return &o->tls_cert;
	case SO_TLS_KEY:
		return &o->tls_key;
	case SO_WORKER:
		return &o->worker;
	case SO_PUBLIC_URL:
		return &o->public_url;
	}
	return NULL;
}

/* One option with its value (or none). Returns 0, -EINVAL said. */
static int serve_option(struct serve_opts *o, int id, const char *v)
{
	const char **str = serve_str(o, id);

	if (str) {
		*str = v;
		return 0;
	}
	for (size_t k = 0; k < sizeof(serve_ints) / sizeof(serve_ints[0]); k++)
		if (serve_ints[k].id == id)
			return parse_int_opt(
				serve_ints[k].name, v, serve_ints[k].min,
				serve_ints[k].max,
				(int *)((char *)o + serve_ints[k].offset));
	switch (id) {
	case SO_ALLOWED_HOST:
		if (!*v || strpbrk(v, ":/[] ")) {
			say(stderr, "numalab serve: bad host name for "
				    "'--allowed-host' (a name without "
				    "port, e.g. lab.example)\n");
			return -EINVAL;
		}
		strvec_push(&o->allowed_hosts, v);
		return 0;
	case SO_FLEET:
		if (strcmp(v, "slurm") && strcmp(v, "clush")) {
			say(stderr,
			    "numalab serve: bad value '%s' for "
			    "'--fleet' (slurm or clush)\n",
			    v);
			return -EINVAL;
		}
		o->fleet = v;
		return 0;
	case SO_PUBLIC_READ:
		o->public_read = 1;
		return 0;
	}
	return -EINVAL;
}

static int parse_args(int argc, char **argv, struct serve_opts *o)
{
	struct opts op = OPTS_INIT(serve_options, OPTS_EQUALS, argc, argv);
	int id;

	while ((id = opts_next(&op)) != OPTS_END) {
		if (id == SO_HELP) {
			usage(stdout);
			exit(0);
		}
		if (id == OPTS_NO_VALUE) {
			say(stderr,
			    "numalab serve: option '%s' needs a value\n",
			    op.arg);
			return -EINVAL;
		}
		if (id < 0) {
			say(stderr,
			    "numalab serve: unknown option '%s' (numalab "
			    "serve --help lists them)\n",
			    op.arg);
			return -EINVAL;
		}
		if (serve_option(o, id, op.value))
			return -EINVAL;
	}
	return 0;
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

/* 1 when every address host resolves to is a loopback one. */
static int is_loopback(const char *host)
{
	struct addrinfo hints = {.ai_socktype = SOCK_STREAM};
	struct addrinfo *ai = NULL;
	int loop = 1;

	if (getaddrinfo(host, NULL, &hints, &ai))
		return 0;
	for (struct addrinfo *a = ai; a; a = a->ai_next) {
		if (a->ai_family == AF_INET) {
			const struct sockaddr_in *s = (void *)a->ai_addr;
			if ((ntohl(s->sin_addr.s_addr) >> 24) != 127)
				loop = 0;
		} else if (a->ai_family == AF_INET6) {
			const struct sockaddr_in6 *s = (void *)a->ai_addr;
			if (!IN6_IS_ADDR_LOOPBACK(&s->sin6_addr))
				loop = 0;
		} else {
			loop = 0;
		}
	}
	freeaddrinfo(ai);
	return loop;
}

static int is_dir(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

/*
 * Says at start which NUMA system calls the system refuses (a container's
 * seccomp profile, or a kernel without NUMA), and what opens them, so an
 * administrator reads it in the log before a run notes it.
 */
static void say_refused_calls(void)
{
	const struct nmem_caps *c = nmem_caps();

	if (!c->refused[0])
		return;
	say(stderr,
	    "numalab serve: this system refuses %s (a seccomp profile, or a "
	    "kernel without NUMA): the memory experiments will say what they "
	    "cannot show. In Docker, --cap-add SYS_NICE opens get_mempolicy, "
	    "set_mempolicy and mbind; --security-opt seccomp=unconfined opens "
	    "move_pages too (docs/guide/install.md)\n",
	    c->refused);
}

/*
 * ../web next to the binary (the build tree), ../share/numalab/web (an
 * install prefix), else ./web.
 */
static void default_web(char *buf, size_t len)
{
	static const char *const rels[] = {"../web", "../share/numalab/web",
					   NULL};

	if (selfpath_find(rels, buf, len) == 0 && is_dir(buf))
		return;
	snprintf(buf, len, "web");
}

/*
 * Every connection holds a socket: the limit on open files is raised as
 * far as it goes, and the connection limit lowered to fit under it (with
 * room for the store, the worker's pipes and the web files).
 */
static unsigned int fit_fd_limit(unsigned int want)
{
	struct rlimit rl;
	const rlim_t spare = 64;

	if (getrlimit(RLIMIT_NOFILE, &rl))
		return want;
	if (rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &rl))
			getrlimit(RLIMIT_NOFILE, &rl);
	}
	if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < want + spare) {
		unsigned int fit = rl.rlim_cur > 2 * spare
					   ? (unsigned int)(rl.rlim_cur - spare)
					   : (unsigned int)spare;
		say(stderr,
		    "numalab serve: only %llu files may be open: at most %u "
		    "connections instead of %u (raise 'ulimit -n')\n",
		    (unsigned long long)rl.rlim_cur, fit, want);
		return fit;
	}
	return want;
}

/* An origin as a browser sends it: scheme://host[:port], nothing after. */
static int is_origin(const char *v)
{
	const char *h = !strncmp(v, "https://", 8)  ? v + 8
			: !strncmp(v, "http://", 7) ? v + 7
						    : NULL;

	return h && *h && *h != ':' && !strpbrk(h, "/?#@ \t") &&
	       strlen(v) < 256;
}

/*
 * --cors: one named origin. Its pages may read, and change runs: without a
 * token anyone's browser on that site can, which is said at start.
 */
static int serve_check_cors(const struct serve_opts *o, const char *token)
{
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
	if (!is_origin(o->cors)) {
		say(stderr,
		    "numalab serve: bad origin '%s' for '--cors' (give "
		    "scheme://host[:port], e.g. https://lab.example:8443)\n",
		    o->cors);
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
	char err[1024];

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
	if (http_tls_load(o->tls_cert, o->tls_key, tls, err, sizeof(err))) {
		say(stderr, "numalab serve: %s\n", err);
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

static int is_wildcard(const char *host)
{
	return !strcmp(host, "0.0.0.0") || !strcmp(host, "::");
}

/* This machine's host name into name ("" when it has none). */
static void host_name(char *name, size_t len)
{
	if (gethostname(name, len))
		name[0] = '\0';
	name[len - 1] = '\0';
}

/* Whether text is one of v's strings. */
static int in_vec(const struct strvec *v, const char *text)
{
	for (size_t i = 0; i < v->n; i++)
		if (!strcmp(v->v[i], text))
			return 1;
	return 0;
}

/*
 * The addresses of this machine a phone can reach, into v: each
 * non-loopback address of an interface that is up (IPv4 for 0.0.0.0;
 * IPv6 too for ::, but not link-local ones, which need a zone a link
 * cannot carry).
 */
static void reach_addresses(const char *host, struct strvec *v)
{
	struct ifaddrs *ifs = NULL;
	char buf[INET6_ADDRSTRLEN];

	if (getifaddrs(&ifs))
		return;
	for (int fam = 0; fam < 2; fam++)
		for (struct ifaddrs *i = ifs; i; i = i->ifa_next) {
			const struct sockaddr *sa = i->ifa_addr;
			if (!sa || !(i->ifa_flags & IFF_UP) ||
			    (i->ifa_flags & IFF_LOOPBACK))
				continue;
			if (fam == 0 && sa->sa_family == AF_INET) {
				const struct sockaddr_in *s4 = (void *)sa;
				if ((ntohl(s4->sin_addr.s_addr) >> 24) == 127)
					continue;
				inet_ntop(AF_INET, &s4->sin_addr, buf,
					  sizeof(buf));
			} else if (fam == 1 && sa->sa_family == AF_INET6 &&
				   !strcmp(host, "::")) {
				const struct sockaddr_in6 *s6 = (void *)sa;
				if (IN6_IS_ADDR_LINKLOCAL(&s6->sin6_addr) ||
				    IN6_IS_ADDR_LOOPBACK(&s6->sin6_addr) ||
				    IN6_IS_ADDR_V4MAPPED(&s6->sin6_addr))
					continue;
				inet_ntop(AF_INET6, &s6->sin6_addr, buf,
					  sizeof(buf));
			} else {
				continue;
			}
			if (!in_vec(v, buf))
				strvec_push(v, buf);
		}
	freeifaddrs(ifs);
}

/* Whether name resolves to one of the addresses in v. */
static int resolves_to_one(const char *name, const struct strvec *v)
{
	struct addrinfo hints = {.ai_socktype = SOCK_STREAM};
	struct addrinfo *ai = NULL;
	char buf[INET6_ADDRSTRLEN];
	int hit = 0;

	if (!*name || getaddrinfo(name, NULL, &hints, &ai))
		return 0;
	for (struct addrinfo *a = ai; a && !hit; a = a->ai_next)
		if (!getnameinfo(a->ai_addr, a->ai_addrlen, buf, sizeof(buf),
				 NULL, 0, NI_NUMERICHOST))
			hit = in_vec(v, buf);
	freeaddrinfo(ai);
	return hit;
}

/*
 * The hosts the printed links use, into v, the one the projector's QR
 * code uses first: the listen address; for a wildcard one each address a
 * phone can reach, then the host name when it resolves to one of them
 * (into *named as well, for the allowed hosts). A machine with no such
 * address gets its loopback one.
 */
static void serve_link_hosts(const char *host, struct strvec *v, char *named,
			     size_t len)
{
	char name[256];

	named[0] = '\0';
	if (!is_wildcard(host)) {
		strvec_push(v, host);
		return;
	}
	reach_addresses(host, v);
	host_name(name, sizeof(name));
	if (v->n && resolves_to_one(name, v)) {
		strvec_push(v, name);
		snprintf(named, len, "%s", name);
	}
	if (!v->n)
		strvec_push(v, strcmp(host, "::") ? "127.0.0.1" : "::1");
}

/* The teacher's and the class's links for each of hosts (or on
 * public_url alone), a pair of lines each, then the join page's. */
static void serve_links(const char *scheme, const struct strvec *hosts,
			const char *public_url, int port, const char *token,
			const char *class_token, const char *join_code)
{
	char base[512];

	for (size_t i = 0; i < (public_url ? 1 : hosts->n); i++) {
		if (public_url) {
			snprintf(base, sizeof(base), "%s", public_url);
		} else {
			const char *h = hosts->v[i];
			int v6 = strchr(h, ':') != NULL;
			snprintf(base, sizeof(base), "%s://%s%s%s:%d", scheme,
				 v6 ? "[" : "", h, v6 ? "]" : "", port);
		}
		printf("teacher: %s/?token=%s\n", base, token);
		printf("class: %s/?token=%s\n", base, class_token);
	}
	if (public_url)
		snprintf(base, sizeof(base), "%s/join", public_url);
	else {
		const char *h = hosts->v[0];
		int v6 = strchr(h, ':') != NULL;
		snprintf(base, sizeof(base), "%s://%s%s%s:%d/join", scheme,
			 v6 ? "[" : "", h, v6 ? "]" : "", port);
	}
	printf("join: %s code %s\n", base, join_code);
}

/* --public-url: scheme://host[:port], a final / dropped. 0, or -EINVAL
 * said. */
static int serve_check_public_url(struct serve_opts *o)
{
	static char url[256];
	size_t n;

	if (!o->public_url)
		return 0;
	snprintf(url, sizeof(url), "%s", o->public_url);
	n = strlen(url);
	if (n && url[n - 1] == '/')
		url[n - 1] = '\0';
	if (!is_origin(url)) {
		say(stderr,
		    "numalab serve: bad URL '%s' for '--public-url' (give "
		    "scheme://host[:port], e.g. https://lab.example.org)\n",
		    o->public_url);
		return -EINVAL;
	}
	o->public_url = url;
	return 0;
}

/* The address a campaign started here reaches this server at: the listen
 * address, or loopback for a wildcard one. */
static const char *self_address(const char *host)
{
	return !strcmp(host, "0.0.0.0") ? "127.0.0.1"
	       : !strcmp(host, "::")	? "::1"
					: host;
}

/*
 * The name a campaign started here delivers to over HTTPS, into name: the
 * first of this server's own address, localhost, its --allowed-host names
 * and its host name that the certificate names, since the campaign
 * verifies the certificate as any client does (it reaches the name at
 * self_address). 0, or -EINVAL said.
 */
static int serve_fleet_name(const struct serve_opts *o, const char *host,
			    const struct http_tls *tls, char *name, size_t len)
{
	char link[256];
	struct strvec cand = STRVEC_INIT;
	int rc = -EINVAL;

	if (is_wildcard(host))
		host_name(link, sizeof(link));
	else
		snprintf(link, sizeof(link), "%s", host);
	strvec_push(&cand, self_address(host));
	strvec_push(&cand, "localhost");
	for (size_t i = 0; i < o->allowed_hosts.n; i++)
		strvec_push(&cand, o->allowed_hosts.v[i]);
	strvec_push(&cand, link);
	for (size_t i = 0; i < cand.n && rc; i++)
		if (http_tls_names(tls, cand.v[i])) {
			snprintf(name, len, "%s", cand.v[i]);
			rc = 0;
		}
	if (rc)
		say(stderr,
		    "numalab serve: '--fleet' with '--tls-cert': the "
		    "certificate names none of %s, localhost, the "
		    "--allowed-host names or '%s', and a campaign started "
		    "here verifies it when it delivers its runs (add one to "
		    "its subjectAltName, e.g. IP:%s)\n",
		    self_address(host), link, self_address(host));
	strvec_clear(&cand);
	return rc;
}

/* What POST /api/campaigns/start starts: this binary, importing here (over
 * HTTPS when it serves HTTPS, trusting its own certificate). */
static void serve_fleet(struct fleet_start *fleet, const struct serve_opts *o,
			const char *host, int port, const char *token,
			const struct http_tls *tls)
{
	ssize_t len =
		readlink("/proc/self/exe", fleet->exe, sizeof(fleet->exe) - 1);
	fleet->exe[len > 0 ? len : 0] = '\0';
	char dbdir[PATH_MAX];
	snprintf(dbdir, sizeof(dbdir), "%s", o->db);
	char *slash = strrchr(dbdir, '/');
	if (slash)
		*slash = '\0';
	else
		snprintf(dbdir, sizeof(dbdir), ".");
	char *abs = realpath(dbdir, NULL);
	snprintf(fleet->dir, sizeof(fleet->dir), "%s/numalab-campaigns",
		 abs ? abs : dbdir);
	free(abs);
	fleet->engine = o->fleet;
	fleet->token = token;
	/* the campaign imports here; a wildcard address is reached on
	 * loopback */
	const char *self = self_address(host);
	char name[256];
	snprintf(name, sizeof(name), "%s", self);
	fleet->ca_file[0] = fleet->connect_to[0] = '\0';
	if (tls->cert) {
		/* serve_check made sure the certificate names one */
		serve_fleet_name(o, host, tls, name, sizeof(name));
		char *abs = realpath(o->tls_cert, NULL);
		snprintf(fleet->ca_file, sizeof(fleet->ca_file), "%s",
			 abs ? abs : o->tls_cert);
		free(abs);
		if (strcmp(name, self))
			snprintf(fleet->connect_to, sizeof(fleet->connect_to),
				 "%s", self);
	}
	snprintf(fleet->server, sizeof(fleet->server), "%s://%s%s%s:%d",
		 tls->cert ? "https" : "http", strchr(name, ':') ? "[" : "",
		 name, strchr(name, ':') ? "]" : "", port);
}

/*
 * What the options ask for together: the listen address into host and
 * port, the token (from its file, or generated off loopback) into *token,
 * the class's (given, or generated with a token) into *class_token, the
 * certificate and key into *tls. Returns 0, or -EINVAL said.
 */
static int serve_check(struct serve_opts *o, char *host, size_t hostlen,
		       int *port, char **token, char **class_token,
		       struct http_tls *tls)
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
	if (!*token && !is_loopback(host) && serve_new_token(token))
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
	if (serve_check_cors(o, *token) || serve_check_tls(o, tls))
		return -EINVAL;
	char fleet_name[256];
	if (o->fleet && tls->cert &&
	    serve_fleet_name(o, host, tls, fleet_name, sizeof(fleet_name)))
		return -EINVAL;
	if (*token && !tls->cert && !is_loopback(host) &&
	    !(o->public_url && !strncmp(o->public_url, "https:", 6)))
		say(stderr,
		    "numalab serve: warning: serving '%s' over plain HTTP: "
		    "the token crosses the network in clear text, for anyone "
		    "on the way to read (give --tls-cert and --tls-key)\n",
		    o->listen);
	return 0;
}

int cmd_serve(int argc, char **argv)
{
	struct serve_opts o = {.listen = "127.0.0.1:8080",
			       .db = "numalab.db",
			       .max_run_seconds = 600,
			       .max_queue = 16,
			       .allowed_hosts = STRVEC_INIT,
			       .import_count = 60,
			       .max_conns = HTTP_MAX_CONNS,
			       .max_client_conns = HTTP_MAX_CLIENT_CONNS,
			       .import_mib = 128};
	struct topo *topo = NULL;
	struct store *store = NULL;
	struct runner *runner = NULL;
	struct stale_retry *retry = NULL;
	int64_t upto = 0;
	struct api *api = NULL;
	struct http_server *http = NULL;
	char host[256], web[PATH_MAX], err[1024];
	char *token = NULL, *class_token = NULL;
	struct http_tls tls = {0};
	struct strvec link_hosts = STRVEC_INIT;
	static struct fleet_start fleet;
	sigset_t sigs;
	int port, sig, rc = 1, n;

	if (parse_args(argc, argv, &o)) {
		strvec_clear(&o.allowed_hosts);
		return 2;
	}
	if (serve_check(&o, host, sizeof(host), &port, &token, &class_token,
			&tls)) {
		free(token);
		free(class_token);
		http_tls_clear(&tls);
		strvec_clear(&o.allowed_hosts);
		return 2;
	}
	if (o.web)
		snprintf(web, sizeof(web), "%s", o.web);
	else
		default_web(web, sizeof(web));

	/* every thread inherits this: the signals wait for sigwait below */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &sigs, NULL);
	signal(SIGPIPE, SIG_IGN);
	o.max_conns = (int)fit_fd_limit((unsigned int)o.max_conns);
	if (!o.max_viewers)
		o.max_viewers = o.max_conns / 4 * 3 < STREAM_MAX_DEFAULT
					? o.max_conns / 4 * 3
					: STREAM_MAX_DEFAULT;
	stream_set_limit(o.max_viewers);

	topo = topo_load();
	if (!topo) {
		say(stderr, "numalab serve: cannot read the topology: %s\n",
		    topo_load_error());
		goto out;
	}
	say_refused_calls();
	store = store_open(o.db, err, sizeof(err));
	if (!store) {
		say(stderr, "numalab serve: %s\n", err);
		goto out;
	}
	serve_rates(topo, o.db);
	if (store_readonly(store))
		say(stderr,
		    "numalab serve: database '%s' is read-only: runs can be "
		    "read but not started\n",
		    o.db);
	n = store_interrupt_stale(store,
				  "the server stopped before the run finished",
				  &upto, err, sizeof(err));
	if (n == -ENOSPC) {
		/* what stopped them is what stops us now: say so, once there is
		 * room */
		char why[256];
		snprintf(why, sizeof(why), "the disk filled: %s",
			 strstr(err, ": ") ? strstr(err, ": ") + 2 : err);
		say(stderr,
		    "numalab serve: %s: the runs left running will be marked "
		    "interrupted as soon as the disk has room\n",
		    err);
		retry = stale_retry_start(store, why, upto);
	} else if (n < 0)
		say(stderr, "numalab serve: %s\n", err);
	else if (n > 0)
		say(stderr,
		    "numalab serve: %d run(s) were cut short when the server "
		    "last stopped: marked interrupted\n",
		    n);
	if (o.worker && access(o.worker, X_OK)) {
		say(stderr, "numalab serve: cannot execute worker '%s': %s\n",
		    o.worker, strerror(errno));
		goto out;
	}
	struct runner_config rcfg = {.exe = o.worker ? o.worker
						     : "/proc/self/exe",
				     .max_queue = o.max_queue,
				     .max_run_seconds = o.max_run_seconds,
				     .keep_seconds = 120,
				     .keep_max = 32};
	runner = runner_new(&rcfg, store);
	if (!runner) {
		say(stderr, "numalab serve: cannot start the runner: %s\n",
		    strerror(errno));
		goto out;
	}
	api = api_new(topo, store, runner, o.max_run_seconds);
	if (!api) {
		say(stderr, "numalab serve: out of memory\n");
		goto out;
	}
	if (!is_dir(web))
		say(stderr,
		    "numalab serve: no web folder at '%s': the API works, "
		    "the page does not (give --web DIR)\n",
		    web);
	char named[256], join_code[HTTP_JOIN_CODE_LEN + 1] = "";
	serve_link_hosts(host, &link_hosts, named, sizeof(named));
	if (*named)
		strvec_push(&o.allowed_hosts, named);
	if (class_token && http_join_code_make(join_code)) {
		say(stderr, "numalab serve: cannot make a join code: "
			    "getrandom failed\n");
		goto out;
	}
	struct http_config hcfg = {
		.host = host,
		.link_host = link_hosts.v[0],
		.public_url = o.public_url,
		.join_code = *join_code ? join_code : NULL,
		.max_client_sessions = o.max_client_sessions,
		.port = port,
		.web_dir = web,
		.token = token,
		.class_token = class_token,
		.session_seconds = o.session_seconds,
		.public_read = o.public_read,
		.cors = o.cors,
		.max_conns = (unsigned int)o.max_conns,
		.max_client_conns = (unsigned int)o.max_client_conns,
		.allowed_hosts = (const char *const *)o.allowed_hosts.v,
		.quota_count = (unsigned int)o.import_count,
		.quota_bytes = (size_t)o.import_mib << 20,
		.tls_cert = tls.cert,
		.tls_key = tls.key};
	http = http_start(&hcfg, api_routes, api, err, sizeof(err));
	if (!http) {
		say(stderr, "numalab serve: %s\n", err);
		goto out;
	}
	if (o.fleet) {
		serve_fleet(&fleet, &o, host, http_port(http), token, &tls);
		api_set_fleet(api, &fleet);
	}
	printf("listening on %s://%s%s%s:%d/\n", tls.cert ? "https" : "http",
	       strchr(host, ':') ? "[" : "", host, strchr(host, ':') ? "]" : "",
	       http_port(http));
	if (token)
		serve_links(tls.cert ? "https" : "http", &link_hosts,
			    o.public_url, http_port(http), token, class_token,
			    join_code);
	fflush(stdout);

	while (sigwait(&sigs, &sig))
		;
	say(stderr, "numalab serve: %s: stopping\n", strsignal(sig));
	rc = 0;
out:
	/* runs first: their final events reach the streams before they close */
	if (runner)
		runner_stop(runner);
	/* a campaign's stream has no end of its own; its coordinator delivers
	 * again once the server is back */
	campaign_live_clear();
	fleet_start_shutdown();
	if (http) {
		stream_drain(2000);
		stream_stop();
		http_stop(http);
	}
	api_free(api);
	runner_free(runner);
	stale_retry_stop(retry);
	store_close(store);
	topo_free(topo);
	free(token);
	free(class_token);
	http_tls_clear(&tls);
	strvec_clear(&o.allowed_hosts);
	strvec_clear(&link_hosts);
	return rc;
}
