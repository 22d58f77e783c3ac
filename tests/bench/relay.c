/* relay.c - the floor under a served sample: a worker's lines moved to a viewer's socket, nothing else */
/*
 * What any server built as numalab's is pays to carry a worker's events
 * to one viewer on this machine, with none of numalab's own work: no
 * parse, no document, no store, no HTTP. The same trip as the server's:
 *
 *   the worker (started as the runner starts it, on every cpu) writes
 *   its lines to a pipe; this process's main thread wakes on the first,
 *   reads, holds the batch for 1 ms (the runner's WORKER_BATCH_MS), takes
 *   a last look, and hands the batch to a second thread through an
 *   eventfd (as the runner wakes a viewer's libmicrohttpd thread); that
 *   thread sends it on a loopback TCP connection to a reader process that
 *   only drains it (the viewer).
 *
 * Both threads are pinned to CPU, as the server's are pinned off the
 * run's cpus; the reader too. The CPU figure is this process's (both
 * threads, getrusage RUSAGE_SELF): the worker and the reader are
 * children, not counted, as the server's figure counts neither.
 *
 * usage: relay CPU RUNS WORKER [ARG ...]
 * prints one JSON object: {"runs","samples","lines","batches","cpu_s",
 * "user_s","wall_s"}; samples counts the lines of type "sample".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define HOLD_S 0.001
#define CHUNK 65536

static const char sample_head[] = "{\"type\":\"sample\"";

/* The batch the main thread gathers, and what it counted. */
struct batch {
	char *bytes;
	size_t len, cap;
	long samples, lines, batches;
};

/* The batches handed to the sender: bytes, whether the last has come. */
static struct {
	pthread_mutex_t mu;
	char *bytes;
	size_t len, cap;
	int last;
	int wake; /* eventfd */
	int sock;
} out = {.mu = PTHREAD_MUTEX_INITIALIZER};

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void die(const char *what)
{
	fprintf(stderr, "relay: %s: %s\n", what, strerror(errno));
	exit(1);
}

static double seconds(struct timeval tv)
{
	return (double)tv.tv_sec + (double)tv.tv_usec * 1e-6;
}

/* The sender: each batch as it comes, in one send where it fits. */
static void *sender(void *arg)
{
	char *mine = NULL;
	size_t cap = 0;

	(void)arg;
	for (;;) {
		uint64_t v;
		size_t n, off = 0;
		int last;

		if (read(out.wake, &v, sizeof(v)) < 0 && errno != EINTR)
			die("eventfd read");
		pthread_mutex_lock(&out.mu);
		n = out.len;
		if (n > cap) {
			cap = 2 * n;
			mine = realloc(mine, cap);
			if (!mine)
				die("malloc");
		}
		memcpy(mine, out.bytes, n);
		out.len = 0;
		last = out.last;
		pthread_mutex_unlock(&out.mu);
		while (off < n) {
			ssize_t w = send(out.sock, mine + off, n - off, 0);
			if (w < 0 && errno != EINTR)
				die("send");
			off += w > 0 ? (size_t)w : 0;
		}
		if (last)
			break;
	}
	free(mine);
	return NULL;
}

/* A batch for the sender, and its wake-up. */
static void publish(const char *b, size_t n, int last)
{
	uint64_t one = 1;

	pthread_mutex_lock(&out.mu);
	if (out.len + n > out.cap) {
		out.cap = 2 * (out.len + n);
		out.bytes = realloc(out.bytes, out.cap);
		if (!out.bytes)
			die("malloc");
	}
	memcpy(out.bytes + out.len, b, n);
	out.len += n;
	out.last = last;
	pthread_mutex_unlock(&out.mu);
	if (write(out.wake, &one, sizeof(one)) < 0)
		die("eventfd write");
}

/* Whole lines of type "sample" in b (a line split between reads is
 * counted where its head is). */
static long count_samples(const char *b, size_t n, int *at_start)
{
	long k = 0;

	for (size_t i = 0; i < n; i++) {
		if (*at_start && n - i >= sizeof(sample_head) - 1 &&
		    !memcmp(b + i, sample_head, sizeof(sample_head) - 1))
			k++;
		*at_start = b[i] == '\n';
	}
	return k;
}

static pid_t spawn(char **argv, int out_fd)
{
	cpu_set_t all;
	pid_t pid;

	CPU_ZERO(&all);
	for (int i = 0; i < CPU_SETSIZE; i++)
		CPU_SET(i, &all);
	pid = vfork();
	if (pid == 0) {
		/* every cpu, as the runner gives the worker the server's */
		sched_setaffinity(0, sizeof(all), &all);
		if (dup2(out_fd, 1) < 0)
			_exit(127);
		execv(argv[0], argv);
		_exit(127);
	}
	return pid;
}

/* Lines read into the batch: counted, kept until the batch goes. */
static void take(struct batch *b, const char *buf, size_t n, int *at_start)
{
	b->samples += count_samples(buf, n, at_start);
	for (size_t i = 0; i < n; i++)
		b->lines += buf[i] == '\n';
	if (b->len + n > b->cap) {
		b->cap = 2 * (b->len + n);
		b->bytes = realloc(b->bytes, b->cap);
		if (!b->bytes)
			die("malloc");
	}
	memcpy(b->bytes + b->len, buf, n);
	b->len += n;
}

/* One worker run relayed to its end. */
static void relay_run(char **argv, char *buf, struct batch *b)
{
	int p[2], at_start = 1, st;
	double since = -1;
	pid_t pid;

	if (pipe2(p, O_CLOEXEC))
		die("pipe");
	pid = spawn(argv, p[1]);
	if (pid < 0)
		die("vfork");
	close(p[1]);
	for (;;) {
		struct pollfd pf = {.fd = p[0], .events = POLLIN};
		int eof = 0;
		ssize_t n;

		if (since >= 0) {
			/* the batch's hold, the pipe left alone, then one
			 * look, then the batch goes */
			double left = since + HOLD_S - now_s();
			if (left > 0) {
				struct timespec ts = {0,
						      (long)(left * 1e9) + 1};
				ppoll(NULL, 0, &ts, NULL);
			}
			if (poll(&pf, 1, 0) > 0) {
				n = read(p[0], buf, CHUNK);
				if (n > 0)
					take(b, buf, (size_t)n, &at_start);
				else
					eof = 1;
			}
			publish(b->bytes, b->len, 0);
			b->len = 0;
			b->batches++;
			since = -1;
			if (eof)
				break;
			continue;
		}
		if (poll(&pf, 1, -1) <= 0)
			continue;
		n = read(p[0], buf, CHUNK);
		if (n <= 0)
			break;
		take(b, buf, (size_t)n, &at_start);
		since = now_s();
	}
	close(p[0]);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (!WIFEXITED(st) || WEXITSTATUS(st)) {
		fprintf(stderr, "relay: the worker ended with status %d\n", st);
		exit(1);
	}
}

/* The viewer: a reader on cpu that drains the connection. */
static pid_t start_reader(int listener, const cpu_set_t *cpu)
{
	pid_t pid = fork();

	if (pid == 0) {
		char b[CHUNK];
		int c;

		sched_setaffinity(0, sizeof(*cpu), cpu);
		c = accept(listener, NULL, NULL);
		while (c >= 0 && read(c, b, sizeof(b)) > 0)
			;
		_exit(0);
	}
	return pid;
}

int main(int argc, char **argv)
{
	struct sockaddr_in sa = {.sin_family = AF_INET,
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t sl = sizeof(sa);
	struct rusage r0, r1;
	struct batch b = {0};
	int cpu, runs, listener;
	cpu_set_t one;
	pthread_t th;
	pid_t reader;
	double t0, t1;
	char *buf;

	if (argc < 4 || (cpu = atoi(argv[1])) < 0 ||
	    (runs = atoi(argv[2])) < 1) {
		fprintf(stderr, "usage: relay CPU RUNS WORKER [ARG ...]\n");
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	listener = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (listener < 0 || bind(listener, (struct sockaddr *)&sa, sl) ||
	    listen(listener, 1) ||
	    getsockname(listener, (struct sockaddr *)&sa, &sl))
		die("listen on loopback");
	reader = start_reader(listener, &one);
	if (reader < 0)
		die("fork");
	out.sock = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (out.sock < 0 || connect(out.sock, (struct sockaddr *)&sa, sl))
		die("connect");
	close(listener);
	out.wake = eventfd(0, EFD_CLOEXEC);
	buf = malloc(CHUNK);
	if (out.wake < 0 || !buf)
		die("eventfd");
	if (sched_setaffinity(0, sizeof(one), &one))
		die("pin to the cpu");
	if (pthread_create(&th, NULL, sender, NULL))
		die("thread");
	getrusage(RUSAGE_SELF, &r0);
	t0 = now_s();
	for (int i = 0; i < runs; i++)
		relay_run(argv + 3, buf, &b);
	publish("", 0, 1);
	pthread_join(th, NULL);
	t1 = now_s();
	getrusage(RUSAGE_SELF, &r1);
	shutdown(out.sock, SHUT_WR);
	waitpid(reader, NULL, 0);
	printf("{\"runs\": %d, \"samples\": %ld, \"lines\": %ld, \"batches\": "
	       "%ld, \"cpu_s\": %.6f, \"user_s\": %.6f, \"wall_s\": %.6f}\n",
	       runs, b.samples, b.lines, b.batches,
	       seconds(r1.ru_utime) - seconds(r0.ru_utime) +
		       seconds(r1.ru_stime) - seconds(r0.ru_stime),
	       seconds(r1.ru_utime) - seconds(r0.ru_utime), t1 - t0);
	free(buf);
	free(b.bytes);
	return 0;
}
