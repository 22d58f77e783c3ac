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
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct mark {
	int64_t t_ns;
	char type[24];
};

static int (*real_fputs)(const char *, FILE *);
static int active;
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
				for (ty += 8; ty[k] && ty[k] != '"' && k + 1 < sizeof(m->type); k++)
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

	if (!active || !base)
		return;
	snprintf(path, sizeof(path), "%s.%d", base, (int)getpid());
	f = fopen(path, "w");
	if (!f)
		return;
	for (size_t i = 0; i < nmarks; i++)
		fprintf(f, "%lld %s\n", (long long)marks[i].t_ns,
			marks[i].type[0] ? marks[i].type : "-");
	fclose(f);
	free(marks);
}
