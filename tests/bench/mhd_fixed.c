/* mhd_fixed.c - the smallest libmicrohttpd server: one fixed body for every GET, the throughput baseline */
/*
 * usage: mhd_fixed [--mode pool|tpc|poll] [--threads N] [--port N]
 *                  [--type CONTENT-TYPE] BODY_FILE
 * Answers every request with the bytes of BODY_FILE (200). The response
 * is built once and queued again for every request, so the figure is
 * libmicrohttpd's own cost for a body of that size. --mode pool (the
 * default) runs --threads epoll loops (libmicrohttpd's thread pool, 2 by
 * default), as numalab's server does (server/http/http.c: one loop a cpu,
 * at least 2, at most 4); tpc runs a thread per connection with a poll()
 * listener; poll one internal epoll thread. Prints "port N" on stdout once
 * it listens (--port 0, the default, takes any free one) and runs until
 * SIGTERM or SIGINT.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <microhttpd.h>

static struct MHD_Response *fixed;

static enum MHD_Result answer(void *cls, struct MHD_Connection *conn,
			      const char *url, const char *method,
			      const char *version, const char *upload_data,
			      size_t *upload_data_size, void **con_cls)
{
	(void)cls;
	(void)url;
	(void)method;
	(void)version;
	(void)upload_data;
	/*
	 * The first call only sees the headers: a response queued then makes
	 * libmicrohttpd close the connection (the body is unread), so answer
	 * on the second, as its examples do, and keep the connection alive.
	 */
	if (!*con_cls) {
		*con_cls = &fixed;
		return MHD_YES;
	}
	/* a body (the phones' guesses) is read and dropped; the answer goes
	 * once all of it is in */
	if (*upload_data_size) {
		*upload_data_size = 0;
		return MHD_YES;
	}
	return MHD_queue_response(conn, MHD_HTTP_OK, fixed);
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	long n;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 ||
	    fseek(f, 0, SEEK_SET))
		goto out;
	buf = malloc((size_t)n + 1);
	if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	*len = (size_t)n;
out:
	fclose(f);
	return buf;
}

int main(int argc, char **argv)
{
	const char *type = "application/json", *file = NULL, *mode = "pool";
	unsigned int flags, threads = 2;
	int port = 0, sig;
	struct MHD_Daemon *d;
	const union MHD_DaemonInfo *info;
	sigset_t set;
	size_t len = 0;
	char *body;

	for (int a = 1; a < argc; a++) {
		if (!strcmp(argv[a], "--port") && a + 1 < argc)
			port = atoi(argv[++a]);
		else if (!strcmp(argv[a], "--type") && a + 1 < argc)
			type = argv[++a];
		else if (!strcmp(argv[a], "--mode") && a + 1 < argc)
			mode = argv[++a];
		else if (!strcmp(argv[a], "--threads") && a + 1 < argc)
			threads = (unsigned int)atoi(argv[++a]);
		else
			file = argv[a];
	}
	if (!file || threads < 1 || threads > 64 ||
	    (strcmp(mode, "tpc") && strcmp(mode, "poll") &&
	     strcmp(mode, "pool"))) {
		fprintf(stderr, "usage: mhd_fixed [--mode pool|tpc|poll] "
				"[--threads 1-64] [--port N] [--type TYPE] "
				"BODY_FILE\n");
		return 2;
	}
	body = slurp(file, &len);
	if (!body) {
		fprintf(stderr, "mhd_fixed: cannot read '%s': %s\n", file,
			strerror(errno));
		return 1;
	}
	fixed = MHD_create_response_from_buffer(len, body,
						MHD_RESPMEM_MUST_FREE);
	MHD_add_response_header(fixed, MHD_HTTP_HEADER_CONTENT_TYPE, type);

	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	/* blocked before the daemon's threads start, so they inherit it */
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG;
	if (!strcmp(mode, "tpc"))
		flags |= MHD_USE_THREAD_PER_CONNECTION | MHD_USE_POLL;
	else
		flags |= MHD_USE_EPOLL;
	if (strcmp(mode, "pool"))
		threads = 0;
	d = MHD_start_daemon(flags, (uint16_t)port, NULL, NULL, answer, NULL,
			     MHD_OPTION_CONNECTION_LIMIT, 4096u,
			     MHD_OPTION_THREAD_POOL_SIZE, threads,
			     MHD_OPTION_END);
	if (!d) {
		fprintf(stderr,
			"mhd_fixed: cannot start the daemon on port %d\n",
			port);
		return 1;
	}
	info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
	printf("port %u\n", info ? (unsigned)info->port : (unsigned)port);
	fflush(stdout);
	sigwait(&set, &sig);
	MHD_stop_daemon(d);
	MHD_destroy_response(fixed);
	return 0;
}
