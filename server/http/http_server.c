/* http_server.c - the libmicrohttpd daemon: its start and stop, connections, its log */
#define _GNU_SOURCE
#include "conns.h"
#include "http.h"
#include "http_internal.h"
#include "ratelimit.h"
#include "session.h"
#include "trust.h"

#include <errno.h>
#include <malloc.h>
#include <netdb.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/*
 * Each HTTP thread's stack. What recurses in a handler is jansson over a
 * document, once per level, and no document gets past lib/jsonlimit.h's
 * 32 levels (64 for the server's own records): a few KiB. The rest is
 * frames of fixed size, so this leaves room many times over.
 */
#define STACK_SIZE (512 * 1024)
/* a connection that sends nothing this long is closed (a suspended event
 * stream is not counted: it waits for the run, not for the client) */
#define IDLE_TIMEOUT_S 30u
#define POOL_MAX 4u
#define TRIM_PEAK 256u
/*
 * GnuTLS's choice of protocols and ciphers: TLS 1.2 and 1.3 only, with
 * AEAD ciphers and forward-secret key exchange (no CBC, no SHA-1 MACs, no
 * RSA key transport), so an old client is refused rather than served
 * weakly.
 */
#define TLS_PRIORITIES                                                         \
	"SECURE128:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2:-CIPHER-ALL:"           \
	"+AES-256-GCM:+AES-128-GCM:+CHACHA20-POLY1305:-MAC-ALL:+AEAD:"         \
	"-KX-ALL:+ECDHE-ECDSA:+ECDHE-RSA:+DHE-RSA:%SERVER_PRECEDENCE"
/* clients whose sign-ins and wrong tries are counted at once (each
 * table); past that the fullest bucket is taken for a newcomer */
#define RATE_SLOTS 4096u
/* libmicrohttpd's own messages printed a minute, at most */
#define MHD_LOG_PER_MINUTE 20u

/* Event-loop threads: a handler that parses a large import keeps one busy. */
static unsigned int pool_size(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n < 2			    ? 2u
	       : (unsigned int)n < POOL_MAX ? (unsigned int)n
					    : POOL_MAX;
}

/*
 * One client's connections, and the total, are counted here (conns.h)
 * rather than with MHD_OPTION_PER_IP_CONNECTION_LIMIT: with a thread pool
 * libmicrohttpd counts them per thread, so a client would get the limit
 * once per thread; and at the total libmicrohttpd refuses everyone, where
 * conns makes room for a client that holds few.
 */
static enum MHD_Result on_accept(void *cls, const struct sockaddr *addr,
				 socklen_t len)
{
	struct http_server *srv = cls;

	(void)len;
	return conns_admit(srv->conns, addr) ? MHD_YES : MHD_NO;
}

static void on_connection(void *cls, struct MHD_Connection *conn,
			  void **socket_ctx,
			  enum MHD_ConnectionNotificationCode toe)
{
	struct http_server *srv = cls;
	const union MHD_ConnectionInfo *ci = MHD_get_connection_info(
		conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);

	if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
		const union MHD_ConnectionInfo *fd = MHD_get_connection_info(
			conn, MHD_CONNECTION_INFO_CONNECTION_FD);
		unsigned int n =
			__atomic_add_fetch(&srv->open, 1, __ATOMIC_RELAXED);
		if (n > __atomic_load_n(&srv->peak, __ATOMIC_RELAXED))
			__atomic_store_n(&srv->peak, n, __ATOMIC_RELAXED);
		if (ci && fd)
			*socket_ctx = conns_opened(srv->conns, ci->client_addr,
						   fd->connect_fd);
		return;
	}
	/* libmicrohttpd says so before it closes the socket: the fd a
	 * record holds is never another connection's */
	conns_closed(srv->conns, *socket_ctx);
	*socket_ctx = NULL;
	/* a crowd of connections gone: give their buffers' pages back */
	if (!__atomic_sub_fetch(&srv->open, 1, __ATOMIC_RELAXED) &&
	    __atomic_exchange_n(&srv->peak, 0, __ATOMIC_RELAXED) >= TRIM_PEAK)
		malloc_trim(0);
}

/*
 * Blanks what follows each `mark` in msg up to a separator. libmicrohttpd
 * names a request by its path (the query cut off) and never logs headers,
 * but a token must not reach a log even if that changes.
 */
static void redact(char *msg, const char *mark)
{
	for (char *p = strcasestr(msg, mark); p; p = strcasestr(p, mark)) {
		p += strlen(mark);
		size_t n = strcspn(p, "&;, '\"`\r\n");
		if (n)
			memset(p, '*', n < 3 ? n : 3);
		if (n > 3)
			memmove(p + 3, p + n, strlen(p + n) + 1);
	}
}

/* Whether one more of libmicrohttpd's messages may be printed now;
 * *dropped: how many were not since the last one printed. */
static int log_allowed(struct http_server *srv, unsigned int *dropped)
{
	time_t now = time(NULL);
	int ok;

	pthread_mutex_lock(&srv->log_mu);
	if (now - srv->log_since >= 60) {
		srv->log_since = now;
		srv->log_lines = 0;
	}
	ok = srv->log_lines < MHD_LOG_PER_MINUTE;
	if (ok) {
		srv->log_lines++;
		*dropped = srv->log_dropped;
		srv->log_dropped = 0;
	} else {
		srv->log_dropped++;
	}
	pthread_mutex_unlock(&srv->log_mu);
	return ok;
}

static void on_mhd_log(void *cls, const char *fmt, va_list ap)
{
	char msg[512];
	size_t n;
	unsigned int dropped = 0;

	if (!log_allowed(cls, &dropped))
		return;
	if (dropped)
		fprintf(stderr,
			"numalab: http: (%u more messages of libmicrohttpd "
			"not shown: %u a minute at most)\n",
			dropped, MHD_LOG_PER_MINUTE);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	redact(msg, "token=");
	redact(msg, "bearer ");
	n = strlen(msg);
	while (n && (msg[n - 1] == '\n' || msg[n - 1] == '.'))
		msg[--n] = '\0';
	fprintf(stderr, "numalab: http: %s\n", msg);
}

/* What http_start made, freed (the daemon stopped first). */
static void free_server(struct http_server *srv)
{
	trust_free(srv->trust);
	conns_free(srv->conns);
	free(srv->token);
	free(srv->class_token);
	free(srv->link_host);
	free(srv->public_url);
	free(srv->join_code);
	ratelimit_free(srv->signin_addr);
	ratelimit_free(srv->signin_net);
	ratelimit_free(srv->fail_addr);
	ratelimit_free(srv->fail_net);
	pthread_mutex_destroy(&srv->fail_mu);
	sessions_free(srv->sessions);
	free(srv->cors);
	free(srv->web_real);
	pthread_mutex_destroy(&srv->log_mu);
	free(srv);
}

/* A copy of s, or NULL for NULL; *oom set when the copy failed. */
static char *dup_opt(const char *s, int *oom)
{
	char *c = s ? strdup(s) : NULL;

	if (s && !c)
		*oom = 1;
	return c;
}

/* The server's state from cfg, before its daemon. 0, or -1 out of memory. */
static int init_server(struct http_server *srv, const struct http_config *cfg)
{
	int oom = 0;

	pthread_mutex_init(&srv->log_mu, NULL);
	pthread_mutex_init(&srv->fail_mu, NULL);
	srv->cfg = *cfg;
	srv->token = dup_opt(cfg->token, &oom);
	srv->cors = dup_opt(cfg->cors, &oom);
	srv->class_token = dup_opt(cfg->class_token, &oom);
	srv->link_host = dup_opt(cfg->link_host, &oom);
	srv->public_url = dup_opt(cfg->public_url, &oom);
	srv->join_code = dup_opt(cfg->join_code, &oom);
	srv->sessions =
		sessions_new(cfg->session_seconds > 0 ? cfg->session_seconds
						      : HTTP_SESSION_SECONDS,
			     cfg->max_client_sessions);
	/* sign-ins: 10 at once from an address, then one every 6 s; 40 at
	 * once from its /64, then one a second. Wrong tokens and codes: 10
	 * at once from an address, then one a second; 30 from a /64, then
	 * two a second. */
	srv->signin_addr = ratelimit_new(RATE_SLOTS, 10, 6000);
	srv->signin_net = ratelimit_new(RATE_SLOTS, 40, 1000);
	srv->fail_addr = ratelimit_new(RATE_SLOTS, 10, 1000);
	srv->fail_net = ratelimit_new(RATE_SLOTS, 30, 500);
	struct trust_config tc = {.listen_host = cfg->host,
				  .public_origin = cfg->public_url,
				  .tls = cfg->tls_cert != NULL,
				  .allowed_hosts = cfg->allowed_hosts,
				  .cors = cfg->cors,
				  .quota_count = cfg->quota_count,
				  .quota_bytes = cfg->quota_bytes,
				  .quota_window_s = 3600};
	srv->trust = trust_new(&tc);
	srv->conns = conns_new(&(struct conns_config){
		.max_total = cfg->max_conns ? cfg->max_conns : HTTP_MAX_CONNS,
		.max_client = cfg->max_client_conns ? cfg->max_client_conns
						    : HTTP_MAX_CLIENT_CONNS});
	if (oom || !srv->trust || !srv->conns || !srv->sessions ||
	    !srv->signin_addr || !srv->signin_net || !srv->fail_addr ||
	    !srv->fail_net)
		return -1;
	if (cfg->web_dir) {
		srv->web_real = realpath(cfg->web_dir, NULL);
		if (srv->web_real)
			srv->web_len = strlen(srv->web_real);
	}
	return 0;
}

/* libmicrohttpd's daemon on ai's address. NULL with errno on failure. */
static struct MHD_Daemon *start_daemon(struct http_server *srv,
				       const struct http_config *cfg,
				       const struct addrinfo *ai,
				       unsigned int flags)
{
	struct MHD_OptionItem tls_opts[] = {
		{MHD_OPTION_HTTPS_MEM_CERT, 0, (void *)cfg->tls_cert},
		{MHD_OPTION_HTTPS_MEM_KEY, 0, (void *)cfg->tls_key},
		{MHD_OPTION_HTTPS_PRIORITIES, 0, (void *)TLS_PRIORITIES},
		{MHD_OPTION_END, 0, NULL}};
	unsigned int max_total =
		cfg->max_conns ? cfg->max_conns : HTTP_MAX_CONNS;

	return MHD_start_daemon(
		flags, (uint16_t)cfg->port, on_accept, srv, http_on_request,
		srv, MHD_OPTION_EXTERNAL_LOGGER, on_mhd_log, srv,
		MHD_OPTION_SOCK_ADDR, ai->ai_addr, MHD_OPTION_THREAD_POOL_SIZE,
		pool_size(), MHD_OPTION_THREAD_STACK_SIZE, (size_t)STACK_SIZE,
		/* conns holds the total: this only bounds the connections
		 * closing to make room, and those let in by accepting threads
		 * at once */
		MHD_OPTION_CONNECTION_LIMIT,
		max_total + CONNS_CLOSING_MAX + pool_size(),
		MHD_OPTION_NOTIFY_CONNECTION, on_connection, srv,
		MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)CONN_MEMORY,
		MHD_OPTION_CONNECTION_TIMEOUT, IDLE_TIMEOUT_S,
		MHD_OPTION_LISTEN_BACKLOG_SIZE, 4096u,
		MHD_OPTION_URI_LOG_CALLBACK, http_on_uri, srv,
		MHD_OPTION_NOTIFY_COMPLETED, http_on_completed, srv,
		MHD_OPTION_ARRAY, cfg->tls_cert ? tls_opts : tls_opts + 3,
		MHD_OPTION_END);
}

struct http_server *http_start(const struct http_config *cfg,
			       const struct http_route *routes, void *ctx,
			       struct errinfo *err)
{
	struct http_server *srv = calloc(1, sizeof(*srv));
	struct addrinfo hints = {.ai_flags = AI_PASSIVE | AI_NUMERICSERV,
				 .ai_socktype = SOCK_STREAM};
	struct addrinfo *ai = NULL;
	char port[16];
	unsigned int flags;
	int rc;

	if (!srv) {
		errinfo_set(err, NULL, "out of memory");
		return NULL;
	}
	srv->routes = routes;
	srv->ctx = ctx;
	if (init_server(srv, cfg)) {
		errinfo_set(err, NULL, "out of memory");
		goto fail;
	}
	snprintf(port, sizeof(port), "%d", cfg->port);
	rc = getaddrinfo(cfg->host, port, &hints, &ai);
	if (rc) {
		errinfo_set(err, NULL, "cannot listen on '%s': %s", cfg->host,
			    gai_strerror(rc));
		goto fail;
	}
	/*
	 * epoll loops rather than a thread per connection: ten thousand slow
	 * or idle connections, or event streams (suspended between events),
	 * cost their sockets and buffers, and every other client is still
	 * read. Handlers never wait on a run, so a few threads suffice.
	 */
	flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL |
		MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ERROR_LOG;
	if (ai->ai_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	if (cfg->tls_cert) {
		if (MHD_is_feature_supported(MHD_FEATURE_TLS) != MHD_YES) {
			errinfo_set(
				err, NULL,
				"this libmicrohttpd was built without TLS: it "
				"cannot serve HTTPS");
			freeaddrinfo(ai);
			goto fail;
		}
		flags |= MHD_USE_TLS;
	}
	srv->d = start_daemon(srv, cfg, ai, flags);
	freeaddrinfo(ai);
	if (!srv->d) {
		errinfo_set(err, NULL, "cannot listen on %s:%d: %s", cfg->host,
			    cfg->port,
			    errno ? strerror(errno)
				  : "the daemon did not start");
		goto fail;
	}
	const union MHD_DaemonInfo *info =
		MHD_get_daemon_info(srv->d, MHD_DAEMON_INFO_BIND_PORT);
	srv->port = info ? info->port : cfg->port;
	snprintf(srv->cookie_name, sizeof(srv->cookie_name), "%s_%d",
		 HTTP_SESSION_COOKIE, srv->port);
	return srv;
fail:
	free_server(srv);
	return NULL;
}

int http_port(struct http_server *srv)
{
	return srv->port;
}

void http_stop(struct http_server *srv)
{
	if (!srv)
		return;
	if (srv->d)
		MHD_stop_daemon(srv->d);
	free_server(srv);
}
