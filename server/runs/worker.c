/* worker.c - the worker supervisor: fork/exec, read loop, why it ended */
#define _GNU_SOURCE
#include "worker.h"
#include "clock.h"
#include "errtail.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/pidfd.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "events.h"
#include "jsonfast.h"
#include "jsonlimit.h"

#define LINE_MAX_BYTES (1 << 20) /* a longer stdout line is garbage */
#define KILL_GRACE_MS 2000	 /* SIGTERM, then SIGKILL this much later */
#define DRAIN_MS 2000		 /* output still read after the worker exited */
/* What the read loop learns from one worker. */
struct worker {
	const struct worker_spec *spec;
	const struct worker_ops *ops;
	pid_t pid;
	char *failure; /* garbage or a hook's failure: the run fails with it */
	char *line;    /* the stdout line being assembled */
	size_t len, cap;
	struct errtail err; /* the last lines of its stderr */
	int timed_out, term_sent, killed;
	double kill_at;
	int exited, wstatus;
	double pending_since; /* > 0: events read, not yet flushed */
	double hold_s;	      /* how long they wait for those that follow */
	int caught_up;	      /* the batch's last look at the pipe is done */
};

/* The worker leads its own process group: the signal reaches all of it. */
static void signal_worker(struct worker *w, int sig)
{
	if (w->exited)
		return;
	if (kill(-w->pid, sig))
		kill(w->pid, sig);
}

static void kill_worker(struct worker *w)
{
	if (!w->killed) {
		signal_worker(w, SIGKILL);
		w->killed = 1;
	}
}

static void fail_worker(struct worker *w, const char *fmt, const char *arg)
{
	struct strbuf sb = STRBUF_INIT;

	if (w->failure)
		return;
	strbuf_addf(&sb, fmt, arg);
	w->failure = strbuf_detach(&sb);
	kill_worker(w);
}

/* A short, printable quote of a bad line. */
static void quote_line(const char *s, size_t len, char *out, size_t outlen)
{
	size_t o = 0;

	for (size_t i = 0; i < len && o + 4 < outlen; i++)
		out[o++] = (s[i] >= 0x20 && s[i] < 0x7f) ? s[i] : '?';
	if (len && o + 4 >= outlen) {
		out[o++] = '.';
		out[o++] = '.';
		out[o++] = '.';
	}
	out[o] = '\0';
}

/* One complete stdout line read as an event: NULL, the run failed with
 * why, when it is garbage (or the run has failed already). */
static json_t *read_line(struct worker *w, const char *s, size_t len)
{
	json_error_t jerr;
	const char *type;
	char q[160];
	json_t *ev;

	if (len && s[len - 1] == '\r')
		len--;
	if (!len || w->failure)
		return NULL;
	ev = jsonlimit_load(s, len, 0, NULL, &jerr, NULL, 0);
	type = json_string_value(json_object_get(ev, "type"));
	if (!json_is_object(ev) || !type || !*type || event_reserved(type)) {
		quote_line(s, len, q, sizeof(q));
		fail_worker(w, "worker wrote garbage: '%s'", q);
		json_decref(ev);
		return NULL;
	}
	return ev;
}

/* One complete stdout line: an event, or garbage. */
static void handle_line(struct worker *w, const char *s, size_t len)
{
	struct errinfo err;
	size_t n = len && s[len - 1] == '\r' ? len - 1 : len;
	json_t *ev;
	int taken;

	errinfo_clear(&err);
	if (w->ops->event_text && n && !w->failure) {
		taken = w->ops->event_text(w->ops->ctx, s, n, &err);
		if (taken < 0)
			fail_worker(w, "%s", err.msg);
		if (taken)
			return;
	}
	ev = read_line(w, s, len);
	if (!ev)
		return;
	if (w->ops->event(w->ops->ctx, ev, s, n, &err))
		fail_worker(w, "%s", err.msg);
	json_decref(ev);
}

/* A line passed over (a progress line a later one repeats) is still
 * checked: a walk of it where that says it is an event, else a parse. */
static void check_line(struct worker *w, const char *s, size_t len)
{
	int seq;

	if (len && s[len - 1] == '\r')
		len--;
	if (!jsonfast_check_within(s, len, JSONLIMIT_DEPTH, JSONLIMIT_VALUES,
				   &seq))
		json_decref(read_line(w, s, len));
}

/* The events read since the last flush are in: the caller stores them in
 * one go. */
static void flush(struct worker *w)
{
	struct errinfo err;

	w->pending_since = 0;
	w->caught_up = 0;
	errinfo_clear(&err);
	if (w->ops->flush(w->ops->ctx, &err))
		fail_worker(w, "%s", err.msg);
}

/* n more bytes of the line being assembled; 0, or -1 (the run fails). */
static int add_to_line(struct worker *w, const char *s, size_t n)
{
	size_t cap = w->cap;

	while (w->len + n + 1 > cap)
		cap = cap ? cap * 2 : 4096;
	if (cap > LINE_MAX_BYTES) {
		char q[160];
		/* a read is 64 KiB at most: the line has its first 100 */
		quote_line(w->line, 100, q, sizeof(q));
		fail_worker(
			w,
			"worker wrote garbage: a line over 1 MiB starting '%s'",
			q);
		return -1;
	}
	if (cap != w->cap) {
		char *l = realloc(w->line, cap);
		if (!l) {
			fail_worker(w, "%s",
				    "out of memory reading the worker");
			return -1;
		}
		w->line = l;
		w->cap = cap;
	}
	memcpy(w->line + w->len, s, n);
	w->len += n;
	return 0;
}

/*
 * A progress event says how far the run has come, and the next one says
 * it again: of the progress lines whole in one chunk, only the last is
 * kept; the ones before it are checked as any line is (garbage fails the
 * run) and passed over: not numbered, stored, folded or shown. Points
 * that take a fraction of a millisecond come with a progress line each,
 * a fifth of the lines of such a run. Only lines that begin as the
 * worker's own compact ones do are recognised; any other is kept.
 */
static const char progress_head[] = "{\"type\":\"progress\",";

static int is_progress(const char *s, size_t k)
{
	return k > sizeof(progress_head) &&
	       !memcmp(s, progress_head, sizeof(progress_head) - 1);
}

/* The start of the last whole progress line in buf, or NULL. */
static const char *last_progress(const char *buf, size_t n)
{
	const char *p = buf, *end = buf + n, *last = NULL;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));

		if (!nl)
			break;
		if (is_progress(p, (size_t)(nl - p)))
			last = p;
		p = nl + 1;
	}
	return last;
}

/* A chunk of stdout, split into lines: a line whole in it is read where
 * it lies, the rest assembled. */
static void feed_stdout(struct worker *w, const char *buf, size_t n)
{
	const char *p = buf, *end = buf + n, *last = last_progress(buf, n);

	while (p < end && !w->failure) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t k = (size_t)((nl ? nl : end) - p);

		if (nl && !w->len) {
			if (!last || p >= last || !is_progress(p, k))
				handle_line(w, p, k);
			else
				check_line(w, p, k);
		} else if (!add_to_line(w, p, k) && nl) {
			handle_line(w, w->line, w->len);
			w->len = 0;
		}
		p += k + (nl != NULL);
	}
	if (!w->pending_since) {
		int ms = w->ops->batch_ms ? w->ops->batch_ms(w->ops->ctx) : 0;

		w->pending_since = clock_now();
		w->hold_s = (ms > 0 ? ms : WORKER_BATCH_MS) / 1000.0;
	}
}

/*
 * In the child, between fork and exec: only async-signal-safe calls.
 * The worker dies with the server (PDEATHSIG) and starts with default
 * signal handling, whatever the server blocked or ignored.
 */
static void exec_worker(const char *exe, char *const *argv, pid_t parent,
			int in, int out, int err, const cpu_set_t *cpus,
			int policy)
{
	sigset_t none;

	if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent)
		_exit(127);
	setpgid(0, 0);
	/* every CPU the server was given, not the few it keeps to while it runs
	 */
	sched_setaffinity(0, sizeof(*cpus), cpus);
	/* and the server's policy, not the one it yields to a run with */
	if (policy >= 0)
		sched_setscheduler(0, policy, &(struct sched_param){0});
	if (dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0)
		_exit(127);
	close_range(3, ~0U, 0);
	signal(SIGPIPE, SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	execv(exe, argv);
	static const char msg[] = "cannot execute the worker binary\n";
	ssize_t w = write(2, msg, sizeof(msg) - 1);
	(void)w;
	_exit(127);
}

/*
 * The child borrows the server's memory until its exec (vfork): a fork
 * would copy the page tables of the whole server and write-protect its
 * heap, and every thread of the server would then take a copy-on-write
 * fault on each page it next writes, a run's worth of events' (~0.3 ms
 * of server CPU per event in a burst of short runs on this guest). The
 * child makes only system calls (exec_worker), as vfork allows.
 */
static pid_t spawn(const struct worker_spec *spec, pid_t parent, int in,
		   int out, int err)
{
	pid_t pid = vfork();

	if (pid == 0)
		exec_worker(spec->exe, spec->argv, parent, in, out, err,
			    spec->cpus, spec->policy);
	return pid;
}

/* Reaps the worker if it has exited; only this thread waits for it. */
static void reap(struct worker *w, int block)
{
	int st;
	pid_t got;

	if (w->exited)
		return;
	while ((got = waitpid(w->pid, &st, block ? 0 : WNOHANG)) < 0 &&
	       errno == EINTR)
		;
	if (got == w->pid) {
		w->exited = 1;
		w->wstatus = st;
		/* what it left behind in its group goes with it */
		kill(-w->pid, SIGKILL);
	}
}

/* A wake-up: a cancel asks the worker to stop, politely first. */
static void on_wake(struct worker *w)
{
	char tmp[64];

	while (read(w->spec->wake_fd, tmp, sizeof(tmp)) > 0)
		;
	if (w->ops->cancelled(w->ops->ctx) && !w->term_sent && !w->killed &&
	    !w->exited) {
		signal_worker(w, SIGTERM);
		w->term_sent = 1;
		w->kill_at = clock_now() + KILL_GRACE_MS / 1000.0;
	}
}

/*
 * Events read wait up to w->hold_s for those that follow (until: when to
 * look again): 1 while the pipe is left alone, 0 when it is looked at;
 * once the time is up, one last look takes in what came meanwhile, then
 * the batch goes. A worker that exited is read as it writes.
 */
static int batch_step(struct worker *w, double now, double *until)
{
	double due = w->pending_since + w->hold_s;

	if (w->pending_since <= 0)
		return 0;
	if (now < due && !w->exited) {
		if (*until < 0 || due < *until)
			*until = due;
		return 1;
	}
	if (w->caught_up) {
		flush(w);
		return 0;
	}
	w->caught_up = 1;
	*until = now; /* a look, no wait */
	return 0;
}

/* poll(2) on p, stdout left out when held (poll passes over a negative
 * fd: its complement, put back after). */
static int poll_held(struct pollfd *p, int hold, int timeout)
{
	int rc;

	if (hold && p[0].fd >= 0)
		p[0].fd = ~p[0].fd;
	else
		hold = 0;
	rc = poll(p, 4, timeout);
	if (hold)
		p[0].fd = ~p[0].fd;
	if (rc <= 0)
		for (int i = 0; i < 4; i++)
			p[i].revents = 0;
	return rc;
}

/*
 * The read loop: until the worker has exited and its pipes are drained.
 * The pidfd says when it exits even if something still holds its pipes;
 * whatever writes to them then gets DRAIN_MS more, no longer.
 */
static void read_worker(struct worker *w, int outfd, int errfd)
{
	struct pollfd p[4] = {{.fd = outfd, .events = POLLIN},
			      {.fd = errfd, .events = POLLIN},
			      {.fd = w->spec->wake_fd, .events = POLLIN},
			      {.fd = pidfd_open(w->pid, 0), .events = POLLIN}};
	int pidfd = p[3].fd;
	double deadline = clock_now() + w->spec->max_seconds, drain_until = 0;
	char *buf = malloc(65536);

	if (!buf)
		fail_worker(w, "%s", "out of memory reading the worker");
	while (p[0].fd >= 0 || p[1].fd >= 0 || (pidfd >= 0 && !w->exited)) {
		double now = clock_now(), until = -1;
		int timeout, hold;

		if (w->exited) {
			if (drain_until == 0)
				drain_until = now + DRAIN_MS / 1000.0;
			if (now >= drain_until)
				break;
			until = drain_until;
		} else {
			if (!w->timed_out && !w->killed && now >= deadline) {
				w->timed_out = 1;
				kill_worker(w);
			}
			if (w->kill_at > 0 && now >= w->kill_at) {
				kill_worker(w);
				w->kill_at = 0;
			}
			if (!w->killed)
				until = deadline;
			if (w->kill_at > 0 && (until < 0 || w->kill_at < until))
				until = w->kill_at;
		}
		hold = batch_step(w, now, &until);
		timeout = until < 0 ? -1 : (int)((until - now) * 1000) + 1;
		if (until >= 0 && until - now < 0.001)
			timeout = until > now ? 1 : 0;
		if (poll_held(p, hold, timeout) < 0) {
			if (errno == EINTR)
				continue;
			kill_worker(w);
			break;
		}
		if (p[3].fd >= 0 && p[3].revents) {
			reap(w, 0);
			if (w->exited)
				p[3].fd = -1;
		}
		if (p[2].revents)
			on_wake(w);
		for (int i = 0; i < 2; i++) {
			ssize_t n;
			if (p[i].fd < 0 || !p[i].revents)
				continue;
			n = buf ? read(p[i].fd, buf, 65536) : 0;
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0) {
				close(p[i].fd);
				p[i].fd = -1;
				if (!buf)
					kill_worker(w);
				continue;
			}
			if (i == 0 && !w->failure)
				feed_stdout(w, buf, (size_t)n);
			else if (i == 1)
				errtail_feed(&w->err, buf, (size_t)n,
					     w->spec->run_id);
		}
	}
	for (int i = 0; i < 2; i++)
		if (p[i].fd >= 0)
			close(p[i].fd);
	if (pidfd >= 0)
		close(pidfd);
	if (w->len && !w->failure)
		/* a last line without its newline still counts */
		handle_line(w, w->line, w->len);
	if (w->pending_since > 0)
		flush(w);
	free(buf);
	reap(w, 1);
}

int worker_run(const struct worker_spec *spec, const struct worker_ops *ops,
	       struct worker_end *end, struct errinfo *err)
{
	struct worker w = {.spec = spec, .ops = ops, .pid = -1};
	int out[2] = {-1, -1}, errp[2] = {-1, -1}, devnull = -1, rc = 0;
	struct errinfo herr;
	pid_t parent = getpid();

	memset(end, 0, sizeof(*end));
	devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (devnull < 0 || pipe2(out, O_CLOEXEC) || pipe2(errp, O_CLOEXEC))
		goto fail;
	w.pid = spawn(spec, parent, devnull, out[1], errp[1]);
	if (w.pid < 0)
		goto fail;
	setpgid(w.pid, w.pid); /* also here: no window where it has none */
	close(out[1]);
	close(errp[1]);
	close(devnull);
	errinfo_clear(&herr);
	if (ops->started(ops->ctx, &herr))
		fail_worker(&w, "%s", herr.msg);
	read_worker(&w, out[0], errp[0]); /* closes them */
	end->timed_out = w.timed_out;
	end->wstatus = w.wstatus;
	end->failure = w.failure;
	end->tail = errtail_text(&w.err);
	free(w.line);
	return 0;
fail:
	rc = -errno;
	errinfo_set(err, NULL, "cannot start the worker: %s", strerror(errno));
	for (int i = 0; i < 2; i++) {
		if (out[i] >= 0)
			close(out[i]);
		if (errp[i] >= 0)
			close(errp[i]);
	}
	if (devnull >= 0)
		close(devnull);
	return rc;
}

void worker_end_free(struct worker_end *end)
{
	free(end->failure);
	free(end->tail);
	memset(end, 0, sizeof(*end));
}

const char *worker_explain(const struct worker_end *end, const char *end_status,
			   const char *end_error, int max_seconds,
			   struct strbuf *msg)
{
	int ws = end->wstatus;
	const char *tail = end->tail ? end->tail : "";

	if (end->timed_out) {
		strbuf_addf(msg, "run exceeded its time limit of %d s",
			    max_seconds);
	} else if (end->failure) {
		strbuf_addstr(msg, end->failure);
	} else if (WIFSIGNALED(ws)) {
		int sig = WTERMSIG(ws);
		const char *abbr = sigabbrev_np(sig);
		strbuf_addf(msg, "worker killed by signal %d (SIG%s)%s", sig,
			    abbr ? abbr : "?", tail);
	} else if (WEXITSTATUS(ws) != 0) {
		if (end_error)
			strbuf_addf(msg, "worker exited with status %d: %s",
				    WEXITSTATUS(ws), end_error);
		else
			strbuf_addf(msg, "worker exited with status %d%s",
				    WEXITSTATUS(ws), tail);
	} else if (end_status && !strcmp(end_status, "done")) {
		return "done";
	} else if (end_status && *end_status) {
		strbuf_addstr(msg, end_error ? end_error
					     : "the worker reported failure");
	} else {
		strbuf_addf(msg, "worker exited without reporting its end%s",
			    tail);
	}
	return "failed";
}
