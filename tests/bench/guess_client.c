/* guess_client.c - the phones' guesses, each a POST on a new connection at its planned time, timed to the answer's last byte */
/*
 * usage: guess_client PORT PATH < PLAN
 * PLAN: one guess a line, "DELAY_MS SOURCE_ADDR COOKIE KEY BODY" (COOKIE
 * and KEY "-" for none; BODY without spaces). Each guess opens its own
 * connection from SOURCE_ADDR to 127.0.0.1:PORT at DELAY_MS after the
 * start, sends one POST PATH (Connection: close) and reads the answer to
 * its end. Prints, in the plan's order, "STATUS MS" a line (MS from the
 * planned moment to the answer's last byte: a guess the client itself
 * started late is counted late), or "0 -1 WHY" for one that failed.
 *
 * One thread on non-blocking sockets and epoll: a few microseconds of
 * this client a guess, so what is timed is the server and the host, not
 * a client's queue (a Python asyncio client took most of a cpu for 1,000
 * guesses a second and its own queue read as 200-400 ms at p99 against a
 * bare server).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define GUESSES_MAX 100000
#define GIVE_UP_MS 60000.0

struct guess {
	double at_ms;
	char src[64], cookie[256], key[128], body[128];
	char req[1024];
	size_t req_len, sent;
	char head[16];
	size_t head_len;
	int fd, status, done;
	double ms;
	const char *why;
};

static size_t finished; /* guesses answered or failed */

static double now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static void fail(struct guess *g, const char *why, int ep)
{
	g->why = why;
	g->done = 1;
	finished++;
	if (g->fd >= 0) {
		epoll_ctl(ep, EPOLL_CTL_DEL, g->fd, NULL);
		close(g->fd);
		g->fd = -1;
	}
}

static void start(struct guess *g, int port, const char *path, int ep)
{
	struct sockaddr_in to = {.sin_family = AF_INET,
				 .sin_port = htons((unsigned short)port)};
	struct sockaddr_in from = {.sin_family = AF_INET};
	struct epoll_event ev = {.events = EPOLLOUT, .data.ptr = g};
	int n;

	inet_pton(AF_INET, "127.0.0.1", &to.sin_addr);
	if (inet_pton(AF_INET, g->src, &from.sin_addr) != 1)
		return fail(g, "bad source address", ep);
	n = snprintf(g->req, sizeof(g->req),
		     "POST %s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n%s%s%s%s%s%s"
		     "Content-Type: application/json\r\nContent-Length: "
		     "%zu\r\nConnection: close\r\n\r\n%s",
		     path, port, strcmp(g->cookie, "-") ? "Cookie: " : "",
		     strcmp(g->cookie, "-") ? g->cookie : "",
		     strcmp(g->cookie, "-") ? "\r\n" : "",
		     strcmp(g->key, "-") ? "X-Numalab-Key: " : "",
		     strcmp(g->key, "-") ? g->key : "",
		     strcmp(g->key, "-") ? "\r\n" : "", strlen(g->body),
		     g->body);
	if (n < 0 || (size_t)n >= sizeof(g->req))
		return fail(g, "request too long", ep);
	g->req_len = (size_t)n;
	g->fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (g->fd < 0)
		return fail(g, "socket", ep);
	if (bind(g->fd, (struct sockaddr *)&from, sizeof(from)))
		return fail(g, "bind", ep);
	if (connect(g->fd, (struct sockaddr *)&to, sizeof(to)) &&
	    errno != EINPROGRESS)
		return fail(g, "connect", ep);
	if (epoll_ctl(ep, EPOLL_CTL_ADD, g->fd, &ev))
		return fail(g, "epoll_ctl", ep);
}

static void on_ready(struct guess *g, int ep)
{
	struct epoll_event ev = {.events = EPOLLIN, .data.ptr = g};
	char buf[4096];
	ssize_t n;

	if (g->sent < g->req_len) {
		n = send(g->fd, g->req + g->sent, g->req_len - g->sent,
			 MSG_NOSIGNAL);
		if (n < 0 && errno != EAGAIN)
			return fail(g, "send", ep);
		g->sent += n > 0 ? (size_t)n : 0;
		if (g->sent == g->req_len)
			epoll_ctl(ep, EPOLL_CTL_MOD, g->fd, &ev);
		return;
	}
	while ((n = read(g->fd, buf, sizeof(buf))) > 0) {
		size_t k = sizeof(g->head) - 1 - g->head_len;
		k = (size_t)n < k ? (size_t)n : k;
		memcpy(g->head + g->head_len, buf, k);
		g->head_len += k;
	}
	if (n < 0 && errno == EAGAIN)
		return;
	if (n < 0)
		return fail(g, "read", ep);
	g->ms = now_ms() - g->at_ms;
	g->head[g->head_len] = '\0';
	/* "HTTP/1.1 200 OK" */
	g->status = g->head_len > 12 ? atoi(g->head + 9) : 0;
	g->done = 1;
	finished++;
	epoll_ctl(ep, EPOLL_CTL_DEL, g->fd, NULL);
	close(g->fd);
	g->fd = -1;
}

static int by_time(const void *a, const void *b)
{
	const struct guess *x = *(struct guess *const *)a;
	const struct guess *y = *(struct guess *const *)b;
	return (x->at_ms > y->at_ms) - (x->at_ms < y->at_ms);
}

int main(int argc, char **argv)
{
	static struct guess g[GUESSES_MAX];
	static struct guess *order[GUESSES_MAX];
	struct epoll_event evs[256];
	struct rlimit rl;
	size_t n = 0, next = 0;
	int port, ep;
	double t0;

	if (argc != 3 || (port = atoi(argv[1])) <= 0) {
		fprintf(stderr, "usage: guess_client PORT PATH < PLAN\n");
		return 2;
	}
	while (n < GUESSES_MAX &&
	       scanf("%lf %63s %255s %127s %127s", &g[n].at_ms, g[n].src,
		     g[n].cookie, g[n].key, g[n].body) == 5) {
		g[n].fd = -1;
		order[n] = &g[n];
		n++;
	}
	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	qsort(order, n, sizeof(order[0]), by_time);
	ep = epoll_create1(EPOLL_CLOEXEC);
	if (ep < 0) {
		perror("guess_client: epoll_create1");
		return 1;
	}
	t0 = now_ms();
	for (size_t i = 0; i < n; i++)
		g[i].at_ms += t0;
	while (finished < n) {
		double now = now_ms();
		int wait = -1, k;

		while (next < n && order[next]->at_ms <= now)
			start(order[next++], port, argv[2], ep);
		if (next < n)
			wait = (int)(order[next]->at_ms - now) + 1;
		if (now - t0 > GIVE_UP_MS)
			break;
		k = epoll_wait(ep, evs, 256, wait < 0 ? 1000 : wait);
		for (int i = 0; i < k; i++)
			on_ready(evs[i].data.ptr, ep);
	}
	for (size_t i = 0; i < n; i++) {
		if (!g[i].done)
			g[i].why = "no answer within 60 s";
		if (g[i].why)
			printf("0 -1 %s\n", g[i].why);
		else
			printf("%d %.3f\n", g[i].status, g[i].ms);
	}
	return 0;
}
