/* emit_clock.c - LD_PRELOAD shim: the CLOCK_MONOTONIC time at which the worker writes each event line */
/*
 * The event format carries no emission time, so `make bench` measures the
 * latency from the worker to an SSE client with this shim: loaded into
 * `numalab serve` (LD_PRELOAD is inherited by the worker it execs), it
 * stays inert except in a process whose command line has "--ndjson". There
 * it interposes fputs: each line written to stdout that is a JSON event
 * gets its time (CLOCK_MONOTONIC, ns, taken when the serialised line is
 * handed to stdio, i.e. after the sink built it and before it enters the
 * pipe) and its "type". At exit it writes "T_NS TYPE" lines, in order, to
 * $NUMALAB_BENCH_EMIT_LOG.PID. Memory only while running: no I/O of its
 * own between events.
 *
 * In the server itself (a command line with "serve") it stamps the two
 * ends of the server's part, for the burst row's breakdown: each read()
 * that brings sample lines from a worker's pipe ("read N" marks, N the
 * samples it brought) and each send()/sendmsg() that hands SSE sample
 * events to a socket ("sent N"). They go to $NUMALAB_BENCH_EMIT_LOG.serve.PID
 * when the server exits.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

struct mark {
	int64_t t_ns;
	char type[24];
};

static int (*real_fputs)(const char *, FILE *);
static ssize_t (*real_read)(int, void *, size_t);
static ssize_t (*real_send)(int, const void *, size_t, int);
static ssize_t (*real_sendmsg)(int, const struct msghdr *, int);
static int active, serving;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static struct mark *marks;
static size_t nmarks, cap;

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

__attribute__((constructor)) static void emit_clock_init(void)
{
	char buf[4096];
	ssize_t n;
	int fd;

	real_fputs = (int (*)(const char *, FILE *))dlsym(RTLD_NEXT, "fputs");
	real_read = (ssize_t(*)(int, void *, size_t))dlsym(RTLD_NEXT, "read");
	real_send = (ssize_t(*)(int, const void *, size_t, int))dlsym(RTLD_NEXT,
								      "send");
	real_sendmsg = (ssize_t(*)(int, const struct msghdr *, int))dlsym(
		RTLD_NEXT, "sendmsg");
	if (!getenv("NUMALAB_BENCH_EMIT_LOG"))
		return;
	fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return;
	buf[n] = 0;
	for (ssize_t i = 0; i < n; i += (ssize_t)strlen(buf + i) + 1)
		if (!strcmp(buf + i, "--ndjson"))
			active = 1;
		else if (!strcmp(buf + i, "serve"))
			serving = 1;
}

/* How often needle occurs in the n bytes at p. */
static int count(const char *p, size_t n, const char *needle)
{
	size_t k = strlen(needle);
	int c = 0;

	for (const char *q = p; (q = memmem(q, n - (size_t)(q - p), needle, k));
	     q += k)
		c++;
	return c;
}

static void mark(const char *type, int n)
{
	pthread_mutex_lock(&mu);
	if (nmarks == cap) {
		size_t ncap = cap ? cap * 2 : 65536;
		struct mark *m = realloc(marks, ncap * sizeof(*m));
		if (m) {
			marks = m;
			cap = ncap;
		}
	}
	if (nmarks < cap) {
		marks[nmarks].t_ns = now_ns();
		snprintf(marks[nmarks].type, sizeof(marks[nmarks].type),
			 "%s %d", type, n);
		nmarks++;
	}
	pthread_mutex_unlock(&mu);
}

ssize_t read(int fd, void *buf, size_t len)
{
	ssize_t n = real_read(fd, buf, len);
	int c;

	if (serving && n > 0 &&
	    (c = count(buf, (size_t)n, "\"type\":\"sample\"")))
		mark("read", c);
	return n;
}

ssize_t send(int fd, const void *buf, size_t len, int flags)
{
	ssize_t n = real_send(fd, buf, len, flags);
	int c;

	if (serving && n > 0 && (c = count(buf, (size_t)n, "event: sample")))
		mark("sent", c);
	return n;
}

ssize_t sendmsg(int fd, const struct msghdr *msg, int flags)
{
	ssize_t n = real_sendmsg(fd, msg, flags);
	int c = 0;

	if (serving && n > 0) {
		size_t left = (size_t)n;
		for (size_t i = 0; i < msg->msg_iovlen && left; i++) {
			size_t k = msg->msg_iov[i].iov_len < left
					   ? msg->msg_iov[i].iov_len
					   : left;
			c += count(msg->msg_iov[i].iov_base, k,
				   "event: sample");
			left -= k;
		}
		if (c)
			mark("sent", c);
	}
	return n;
}

int fputs(const char *s, FILE *f)
{
	if (active && f == stdout && s[0] == '{') {
		const char *ty = strstr(s, "\"type\":\"");
		if (nmarks == cap) {
			size_t ncap = cap ? cap * 2 : 65536;
			struct mark *m = realloc(marks, ncap * sizeof(*m));
			if (m) {
				marks = m;
				cap = ncap;
			}
		}
		if (nmarks < cap) {
			struct mark *m = &marks[nmarks++];
			size_t k = 0;
			m->t_ns = now_ns();
			if (ty)
				for (ty += 8; ty[k] && ty[k] != '"' &&
					      k + 1 < sizeof(m->type);
				     k++)
					m->type[k] = ty[k];
			m->type[k] = 0;
		}
	}
	return real_fputs(s, f);
}

__attribute__((destructor)) static void emit_clock_fini(void)
{
	const char *base = getenv("NUMALAB_BENCH_EMIT_LOG");
	char path[4096];
	FILE *f;

	if (!(active || serving) || !base)
		return;
	snprintf(path, sizeof(path), serving ? "%s.serve.%d" : "%s.%d", base,
		 (int)getpid());
	f = fopen(path, "w");
	if (!f)
		return;
	for (size_t i = 0; i < nmarks; i++)
		fprintf(f, "%lld %s\n", (long long)marks[i].t_ns,
			marks[i].type[0] ? marks[i].type : "-");
	fclose(f);
	free(marks);
}
