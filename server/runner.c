/* runner.c - the bounded run queue; one worker process at a time, read line by line */
#define _GNU_SOURCE
#include "runner.h"
#include "harness_cpus.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/pidfd.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#define LINE_MAX_BYTES (1 << 20) /* a longer stdout line is garbage */
#define STDERR_LINES 20		 /* kept for the failure reason */
#define STDERR_LINE_MAX 300
#define KILL_GRACE_MS 2000	 /* SIGTERM, then SIGKILL this much later */
#define CANCEL_WAIT_MS 10000	 /* how long DELETE waits for the record */
#define DRAIN_MS 2000		 /* output still read after the worker exited */

/* ENDING: off the queue, on the recent list, being recorded as cancelled */
enum run_phase { PHASE_QUEUED, PHASE_RUNNING, PHASE_ENDING, PHASE_FINISHED };
enum cancel_kind { CANCEL_NONE, CANCEL_USER, CANCEL_SHUTDOWN };

struct run {
	int64_t id;
	char **argv; /* the worker's, NULL-terminated */
	enum run_phase phase;
	enum cancel_kind cancel;
	struct run_state st;
	struct runlog *log;
	double finished_mono;
	int in_recent;
	struct run *next;
};

struct runner {
	struct runner_config cfg;
	struct store *store;
	pthread_mutex_t mu;
	pthread_cond_t cv; /* queue non-empty, stopping, a run finished */
	pthread_t thread;
	int wake[2]; /* a byte here wakes the read loop: cancel */
	struct run *queue, *queue_tail;
	int nqueued;
	struct run *current;
	struct run *recent; /* finished, newest first */
	int stopping;
	struct harness_cpus cpus; /* only the runner thread moves them */
};

static double mono_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void run_free(struct run *run)
{
	if (!run)
		return;
	for (char **a = run->argv; a && *a; a++)
		free(*a);
	free(run->argv);
	runlog_unref(run->log);
	free(run);
}

/* Drops finished runs kept too long, or beyond keep_max. mu held. */
static void prune_recent(struct runner *r)
{
	double now = mono_now();
	struct run **pp = &r->recent;
	int kept = 0;

	while (*pp) {
		struct run *run = *pp;
		if (run->phase == PHASE_FINISHED &&
		    (kept >= r->cfg.keep_max ||
		     now - run->finished_mono > r->cfg.keep_seconds)) {
			*pp = run->next;
			run_free(run);
			continue;
		}
		kept++;
		pp = &run->next;
	}
}

/* The run with this id among queued, current, recent. mu held. */
static struct run *find_run(struct runner *r, int64_t id)
{
	if (r->current && r->current->id == id)
		return r->current;
	for (struct run *q = r->queue; q; q = q->next)
		if (q->id == id)
			return q;
	for (struct run *q = r->recent; q; q = q->next)
		if (q->id == id)
			return q;
	return NULL;
}

static void wake_loop(struct runner *r)
{
	char c = 1;
	ssize_t w = write(r->wake[1], &c, 1);

	(void)w; /* a full pipe already wakes it */
}

/* Appends ev to the log and the store; steals ev. Returns 0 or -EIO. */
static int emit(struct runner *r, struct run *run, json_t *ev, char *err,
		size_t errlen)
{
	const struct runlog_event *e = runlog_append(run->log, ev);
	int rc = 0;

	if (e)
		rc = store_append_events(r->store, run->id, &e, 1, err, errlen);
	json_decref(ev);
	return rc;
}

/*
 * Records the end of a run: its state, the final event (type = status)
 * in the log and the store, the run row; closes the log and moves the
 * run to the recent list.
 */
static void finalize(struct runner *r, struct run *run, const char *status,
		     const char *error, json_t *summary, const char *headline)
{
	char now[32], err[512];
	char *sum = NULL;
	json_t *ev;

	store_timestamp(now, sizeof(now));
	pthread_mutex_lock(&r->mu);
	snprintf(run->st.status, sizeof(run->st.status), "%s", status);
	snprintf(run->st.finished_at, sizeof(run->st.finished_at), "%s", now);
	snprintf(run->st.error, sizeof(run->st.error), "%s", error ? error : "");
	pthread_mutex_unlock(&r->mu);

	ev = json_pack("{s:s, s:s, s:s*, s:O, s:s*}", "type", status, "status",
		       status, "error", error, "summary", summary, "headline",
		       headline);
	if (emit(r, run, ev, err, sizeof(err)))
		fprintf(stderr, "numalab: run %lld: %s\n", (long long)run->id,
			err);
	sum = json_dumps(summary, JSON_COMPACT);
	if (store_run_finished(r->store, run->id, status, now, error, headline,
			       sum, err, sizeof(err)))
		fprintf(stderr, "numalab: run %lld: %s\n", (long long)run->id,
			err);
	free(sum);
	runlog_close(run->log);

	pthread_mutex_lock(&r->mu);
	run->phase = PHASE_FINISHED;
	run->finished_mono = mono_now();
	if (r->current == run)
		r->current = NULL;
	if (!run->in_recent) {
		run->next = r->recent;
		r->recent = run;
		run->in_recent = 1;
	}
	prune_recent(r);
	pthread_cond_broadcast(&r->cv);
	pthread_mutex_unlock(&r->mu);
}

/* What the read loop learns from one worker. */
struct worker {
	pid_t pid;
	json_t *summary;
	char *headline;
	char end_status[16];
	char *end_error;
	char *failure; /* garbage or a store failure: the run fails with it */
	char *line;    /* the stdout line being assembled */
	size_t len, cap;
	char errlines[STDERR_LINES][STDERR_LINE_MAX];
	int nerr, errhead;
	char errpart[STDERR_LINE_MAX];
	size_t errpartlen;
	int timed_out, term_sent, killed;
	double kill_at;
	int exited, wstatus;
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
	size_t n = strlen(fmt) + strlen(arg) + 1;

	if (w->failure)
		return;
	w->failure = malloc(n);
	if (w->failure)
		snprintf(w->failure, n, fmt, arg);
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

static int server_type(const char *type)
{
	static const char *const reserved[] = {
		"status", "done", "failed", "cancelled", "interrupted", NULL};

	for (int i = 0; reserved[i]; i++)
		if (!strcmp(type, reserved[i]))
			return 1;
	return 0;
}

/*
 * A point's placement arrives once it has run: the next points of a sweep
 * mostly run on the same CPUs, so the server's threads leave them (a run
 * that named its cpus has them moved from the start).
 */
static void avoid_point_cpus(struct runner *r, json_t *ev)
{
	json_t *threads = json_object_get(ev, "threads"), *t;
	int32_t cpus[CPU_SETSIZE];
	size_t i;
	int n = 0;

	json_array_foreach(threads, i, t)
	{
		json_t *c = json_object_get(t, "cpu");
		if (json_is_integer(c) && n < CPU_SETSIZE)
			cpus[n++] = (int32_t)json_integer_value(c);
	}
	if (n)
		harness_cpus_avoid_list(&r->cpus, cpus, n);
}

/* One complete stdout line: an event, or garbage. */
static void handle_line(struct runner *r, struct run *run, struct worker *w,
			char *s, size_t len, const struct runlog_event **batch,
			int *nbatch)
{
	char q[160], err[512];
	json_error_t jerr;
	const char *type;
	json_t *ev;

	if (len && s[len - 1] == '\r')
		len--;
	if (!len || w->failure)
		return;
	ev = json_loadb(s, len, JSON_REJECT_DUPLICATES, &jerr);
	type = json_string_value(json_object_get(ev, "type"));
	if (!json_is_object(ev) || !type || !*type || server_type(type)) {
		quote_line(s, len, q, sizeof(q));
		fail_worker(w, "worker wrote garbage: '%s'", q);
		json_decref(ev);
		return;
	}
	if (!strcmp(type, "start")) {
		json_t *m = json_object_get(ev, "machine");
		char *text = m ? json_dumps(m, JSON_COMPACT) : NULL;
		if (text &&
		    store_run_machine(r->store, run->id, text, err, sizeof(err)))
			fail_worker(w, "%s", err);
		free(text);
	} else if (!strcmp(type, "summary")) {
		const char *key = json_string_value(json_object_get(ev, "key"));
		if (key)
			json_object_set_new(
				w->summary, key,
				json_pack("{s:O?, s:O?}", "value",
					  json_object_get(ev, "value"), "unit",
					  json_object_get(ev, "unit")));
	} else if (!strcmp(type, "placement")) {
		avoid_point_cpus(r, ev);
	} else if (!strcmp(type, "headline")) {
		const char *t = json_string_value(json_object_get(ev, "text"));
		if (t) {
			free(w->headline);
			w->headline = strdup(t);
		}
	} else if (!strcmp(type, "end")) {
		const char *st = json_string_value(json_object_get(ev, "status"));
		const char *e = json_string_value(json_object_get(ev, "error"));
		snprintf(w->end_status, sizeof(w->end_status), "%s",
			 st ? st : "");
		free(w->end_error);
		w->end_error = e ? strdup(e) : NULL;
	}
	const struct runlog_event *e = runlog_append(run->log, ev);
	if (e)
		batch[(*nbatch)++] = e;
	json_decref(ev);
}

/* A chunk of stdout: split into lines, store the batch in one go. */
static void feed_stdout(struct runner *r, struct run *run, struct worker *w,
			const char *buf, size_t n)
{
	const struct runlog_event **batch = NULL;
	int nbatch = 0;
	char err[512];
	size_t maxlines = 1;

	for (size_t i = 0; i < n; i++)
		maxlines += buf[i] == '\n';
	batch = calloc(maxlines, sizeof(*batch));
	if (!batch) {
		fail_worker(w, "%s", "out of memory reading the worker");
		return;
	}
	for (size_t i = 0; i < n && !w->failure; i++) {
		if (buf[i] == '\n') {
			handle_line(r, run, w, w->line, w->len, batch, &nbatch);
			w->len = 0;
			continue;
		}
		if (w->len + 1 >= w->cap) {
			size_t cap = w->cap ? w->cap * 2 : 4096;
			char *l;
			if (cap > LINE_MAX_BYTES) {
				char q[160];
				quote_line(w->line, 100, q, sizeof(q));
				fail_worker(w,
					    "worker wrote garbage: a line over "
					    "1 MiB starting '%s'",
					    q);
				break;
			}
			l = realloc(w->line, cap);
			if (!l) {
				fail_worker(w, "%s",
					    "out of memory reading the worker");
				break;
			}
			w->line = l;
			w->cap = cap;
		}
		w->line[w->len++] = buf[i];
	}
	if (nbatch && store_append_events(r->store, run->id, batch, nbatch,
					  err, sizeof(err)))
		fail_worker(w, "%s", err);
	free(batch);
}

static void push_errline(struct worker *w)
{
	if (!w->errpartlen)
		return;
	w->errpart[w->errpartlen] = '\0';
	snprintf(w->errlines[w->errhead], STDERR_LINE_MAX, "%s", w->errpart);
	w->errhead = (w->errhead + 1) % STDERR_LINES;
	if (w->nerr < STDERR_LINES)
		w->nerr++;
	w->errpartlen = 0;
}

/* Keeps the last lines of stderr, and passes them on to ours. */
static void feed_stderr(struct run *run, struct worker *w, const char *buf,
			size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (buf[i] == '\n') {
			if (w->errpartlen) {
				w->errpart[w->errpartlen] = '\0';
				fprintf(stderr, "numalab: run %lld: %s\n",
					(long long)run->id, w->errpart);
			}
			push_errline(w);
		} else if (w->errpartlen + 1 < STDERR_LINE_MAX) {
			w->errpart[w->errpartlen++] = buf[i];
		}
	}
}

/* The kept stderr lines, oldest first, after ": ". Empty if none. */
static void stderr_tail(struct worker *w, char *out, size_t len)
{
	size_t off = 0;

	push_errline(w);
	out[0] = '\0';
	for (int i = 0; i < w->nerr && off < len; i++) {
		int k = (w->errhead - w->nerr + i + STDERR_LINES) % STDERR_LINES;
		int n = snprintf(out + off, len - off, "%s%s", i ? "\n" : ": ",
				 w->errlines[k]);
		if (n < 0)
			break;
		off += (size_t)n;
	}
}

/* The worker's argv: numalab run --ndjson NAME k=v ... */
static char **worker_argv(const char *experiment, char *const *args, int n)
{
	char **v = calloc((size_t)n + 5, sizeof(char *));
	int k = 0;

	if (!v)
		return NULL;
	v[k++] = strdup("numalab");
	v[k++] = strdup("run");
	v[k++] = strdup("--ndjson");
	v[k++] = strdup(experiment);
	for (int i = 0; i < n; i++)
		v[k++] = strdup(args[i]);
	for (int i = 0; i < k; i++)
		if (!v[i]) {
			for (int j = 0; j < k; j++)
				free(v[j]);
			free(v);
			return NULL;
		}
	return v;
}

/* The value of a worker argument "name=value", or NULL. */
static const char *run_arg(const struct run *run, const char *name)
{
	size_t n = strlen(name);

	for (char **a = run->argv; *a; a++)
		if (!strncmp(*a, name, n) && (*a)[n] == '=')
			return *a + n + 1;
	return NULL;
}

/*
 * In the child, between fork and exec: only async-signal-safe calls.
 * The worker dies with the server (PDEATHSIG) and starts with default
 * signal handling, whatever the server blocked or ignored.
 */
static void exec_worker(const char *exe, char **argv, pid_t parent, int in,
			int out, int err, const cpu_set_t *cpus)
{
	sigset_t none;

	if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent)
		_exit(127);
	setpgid(0, 0);
	/* every CPU the server was given, not the few it keeps to while it runs */
	sched_setaffinity(0, sizeof(*cpus), cpus);
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

/* Reaps the worker if it has exited. mu not needed: only this thread waits. */
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

/*
 * The read loop: until the worker has exited and its pipes are drained.
 * The pidfd says when it exits even if something still holds its pipes;
 * whatever writes to them then gets DRAIN_MS more, no longer.
 */
static void read_worker(struct runner *r, struct run *run, struct worker *w,
			int outfd, int errfd)
{
	struct pollfd p[4] = {{.fd = outfd, .events = POLLIN},
			      {.fd = errfd, .events = POLLIN},
			      {.fd = r->wake[0], .events = POLLIN},
			      {.fd = pidfd_open(w->pid, 0), .events = POLLIN}};
	int pidfd = p[3].fd;
	double deadline = mono_now() + r->cfg.max_run_seconds, drain_until = 0;
	char *buf = malloc(65536);

	if (!buf)
		fail_worker(w, "%s", "out of memory reading the worker");
	while (p[0].fd >= 0 || p[1].fd >= 0 || (pidfd >= 0 && !w->exited)) {
		double now = mono_now(), until = -1;
		int timeout;

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
		timeout = until < 0 ? -1 : (int)((until - now) * 1000) + 1;
		if (poll(p, 4, timeout) < 0) {
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
		if (p[2].revents) {
			char tmp[64];
			while (read(r->wake[0], tmp, sizeof(tmp)) > 0)
				;
			pthread_mutex_lock(&r->mu);
			int cancel = run->cancel != CANCEL_NONE;
			pthread_mutex_unlock(&r->mu);
			if (cancel && !w->term_sent && !w->killed && !w->exited) {
				signal_worker(w, SIGTERM);
				w->term_sent = 1;
				w->kill_at = mono_now() + KILL_GRACE_MS / 1000.0;
			}
		}
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
				feed_stdout(r, run, w, buf, (size_t)n);
			else if (i == 1)
				feed_stderr(run, w, buf, (size_t)n);
		}
	}
	for (int i = 0; i < 2; i++)
		if (p[i].fd >= 0)
			close(p[i].fd);
	if (pidfd >= 0)
		close(pidfd);
	if (w->len && !w->failure) {
		/* a last line without its newline still counts */
		const struct runlog_event *e = NULL;
		int nb = 0;
		char err[512];
		handle_line(r, run, w, w->line, w->len, &e, &nb);
		if (nb && store_append_events(r->store, run->id, &e, 1, err,
					      sizeof(err)))
			fail_worker(w, "%s", err);
	}
	free(buf);
	reap(w, 1);
}

/* Runs one worker to its end and records how it ended. */
static void execute(struct runner *r, struct run *run)
{
	struct worker w = {.pid = -1};
	int out[2] = {-1, -1}, errp[2] = {-1, -1}, devnull = -1;
	char now[32], err[512], msg[6144], tail[4096];
	const char *status = "failed";
	int wstatus = 0;

	w.summary = json_object();
	store_timestamp(now, sizeof(now));
	pthread_mutex_lock(&r->mu);
	snprintf(run->st.status, sizeof(run->st.status), "running");
	snprintf(run->st.started_at, sizeof(run->st.started_at), "%s", now);
	pthread_mutex_unlock(&r->mu);
	if (store_run_started(r->store, run->id, now, err, sizeof(err))) {
		snprintf(msg, sizeof(msg), "%s", err);
		goto done;
	}
	devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (devnull < 0 || pipe2(out, O_CLOEXEC) || pipe2(errp, O_CLOEXEC)) {
		snprintf(msg, sizeof(msg), "cannot start the worker: %s",
			 strerror(errno));
		goto done;
	}
	pid_t parent = getpid();
	w.pid = fork();
	if (w.pid < 0) {
		snprintf(msg, sizeof(msg), "cannot start the worker: %s",
			 strerror(errno));
		goto done;
	}
	if (w.pid == 0)
		exec_worker(r->cfg.exe, run->argv, parent, devnull, out[1],
			    errp[1], &r->cpus.all);
	harness_cpus_avoid(&r->cpus, run_arg(run, "cpus"));
	setpgid(w.pid, w.pid); /* also here: no window where it has none */
	close(out[1]);
	close(errp[1]);
	out[1] = errp[1] = -1;

	if (emit(r, run, json_pack("{s:s, s:s}", "type", "status", "status",
				   "running"),
		 err, sizeof(err)))
		fail_worker(&w, "%s", err);
	/* a cancel that came before the worker existed */
	wake_loop(r);
	read_worker(r, run, &w, out[0], errp[0]);
	harness_cpus_restore(&r->cpus);
	out[0] = errp[0] = -1; /* closed by the loop */
	wstatus = w.wstatus;

	stderr_tail(&w, tail, sizeof(tail));
	pthread_mutex_lock(&r->mu);
	enum cancel_kind cancel = run->cancel;
	pthread_mutex_unlock(&r->mu);
	if (cancel == CANCEL_USER) {
		status = "cancelled";
		snprintf(msg, sizeof(msg), "cancelled on request");
	} else if (cancel == CANCEL_SHUTDOWN) {
		status = "cancelled";
		snprintf(msg, sizeof(msg), "the server stopped during the run");
	} else if (w.timed_out) {
		snprintf(msg, sizeof(msg),
			 "run exceeded its time limit of %d s",
			 r->cfg.max_run_seconds);
	} else if (w.failure) {
		snprintf(msg, sizeof(msg), "%s", w.failure);
	} else if (WIFSIGNALED(wstatus)) {
		int sig = WTERMSIG(wstatus);
		const char *abbr = sigabbrev_np(sig);
		snprintf(msg, sizeof(msg), "worker killed by signal %d (SIG%s)%s",
			 sig, abbr ? abbr : "?", tail);
	} else if (WEXITSTATUS(wstatus) != 0) {
		if (w.end_error)
			snprintf(msg, sizeof(msg),
				 "worker exited with status %d: %s",
				 WEXITSTATUS(wstatus), w.end_error);
		else
			snprintf(msg, sizeof(msg),
				 "worker exited with status %d%s",
				 WEXITSTATUS(wstatus), tail);
	} else if (!strcmp(w.end_status, "done")) {
		status = "done";
	} else if (w.end_status[0]) {
		snprintf(msg, sizeof(msg), "%s",
			 w.end_error ? w.end_error : "the worker reported failure");
	} else {
		snprintf(msg, sizeof(msg),
			 "worker exited without reporting its end%s", tail);
	}
done:
	if (out[0] >= 0)
		close(out[0]);
	if (out[1] >= 0)
		close(out[1]);
	if (errp[0] >= 0)
		close(errp[0]);
	if (errp[1] >= 0)
		close(errp[1]);
	if (devnull >= 0)
		close(devnull);
	finalize(r, run, status, strcmp(status, "done") ? msg : NULL,
		 w.summary, w.headline);
	json_decref(w.summary);
	free(w.headline);
	free(w.end_error);
	free(w.failure);
	free(w.line);
}

static void *runner_main(void *arg)
{
	struct runner *r = arg;

	pthread_mutex_lock(&r->mu);
	for (;;) {
		while (!r->queue && !r->stopping)
			pthread_cond_wait(&r->cv, &r->mu);
		if (r->stopping)
			break;
		struct run *run = r->queue;
		r->queue = run->next;
		if (!r->queue)
			r->queue_tail = NULL;
		r->nqueued--;
		run->next = NULL;
		run->phase = PHASE_RUNNING;
		r->current = run;
		pthread_mutex_unlock(&r->mu);
		execute(r, run);
		pthread_mutex_lock(&r->mu);
	}
	pthread_mutex_unlock(&r->mu);
	return NULL;
}

struct runner *runner_new(const struct runner_config *cfg, struct store *st)
{
	struct runner *r = calloc(1, sizeof(*r));
	int rc;

	if (!r)
		return NULL;
	r->cfg = *cfg;
	r->store = st;
	pthread_mutex_init(&r->mu, NULL);
	pthread_cond_init(&r->cv, NULL);
	if (pipe2(r->wake, O_CLOEXEC | O_NONBLOCK)) {
		rc = errno;
		goto fail;
	}
	rc = -harness_cpus_init(&r->cpus);
	if (rc)
		goto fail;
	rc = pthread_create(&r->thread, NULL, runner_main, r);
	if (rc)
		goto fail;
	return r;
fail:
	if (r->wake[0] > 0) {
		close(r->wake[0]);
		close(r->wake[1]);
	}
	pthread_cond_destroy(&r->cv);
	pthread_mutex_destroy(&r->mu);
	free(r);
	errno = rc;
	return NULL;
}

/* Takes a queued run off the queue onto the recent list. mu held. */
static void dequeue(struct runner *r, struct run *run)
{
	struct run **pp;

	for (pp = &r->queue; *pp != run; pp = &(*pp)->next)
		;
	*pp = run->next;
	r->queue_tail = NULL;
	for (struct run *q = r->queue; q; q = q->next)
		r->queue_tail = q;
	r->nqueued--;
	run->phase = PHASE_ENDING;
	run->next = r->recent;
	r->recent = run;
	run->in_recent = 1;
}

/* Records a run taken off the queue as cancelled. mu not held. */
static void cancel_queued(struct runner *r, struct run *run, const char *why)
{
	json_t *summary = json_object();

	finalize(r, run, "cancelled", why, summary, NULL);
	json_decref(summary);
}

void runner_stop(struct runner *r)
{
	pthread_mutex_lock(&r->mu);
	r->stopping = 1;
	if (r->current)
		r->current->cancel = CANCEL_SHUTDOWN;
	pthread_cond_broadcast(&r->cv);
	pthread_mutex_unlock(&r->mu);
	wake_loop(r);
	for (;;) {
		pthread_mutex_lock(&r->mu);
		struct run *q = r->queue;
		if (q) {
			q->cancel = CANCEL_SHUTDOWN;
			dequeue(r, q);
		}
		pthread_mutex_unlock(&r->mu);
		if (!q)
			break;
		cancel_queued(r, q, "the server stopped before the run started");
	}
	pthread_join(r->thread, NULL);
}

void runner_free(struct runner *r)
{
	if (!r)
		return;
	while (r->recent) {
		struct run *next = r->recent->next;
		run_free(r->recent);
		r->recent = next;
	}
	close(r->wake[0]);
	close(r->wake[1]);
	pthread_cond_destroy(&r->cv);
	pthread_mutex_destroy(&r->mu);
	free(r);
}

int runner_submit(struct runner *r, const char *experiment, char *const *args,
		  int nargs, const char *params_json, const char *request_json,
		  int64_t *id, char *err, size_t errlen)
{
	struct run *run = calloc(1, sizeof(*run));
	char now[32];
	int rc;

	if (!run)
		return -ENOMEM;
	run->argv = worker_argv(experiment, args, nargs);
	if (!run->argv) {
		rc = -ENOMEM;
		goto fail;
	}
	pthread_mutex_lock(&r->mu);
	if (r->stopping) {
		rc = -ESHUTDOWN;
		goto fail_locked;
	}
	if (r->nqueued >= r->cfg.max_queue) {
		rc = -EAGAIN;
		goto fail_locked;
	}
	/* under mu, so the queue cannot fill between the check and the insert */
	store_timestamp(now, sizeof(now));
	rc = store_create_run(r->store, experiment, params_json, request_json,
			      now, &run->id, err, errlen);
	if (rc)
		goto fail_locked;
	run->log = runlog_new(run->id);
	if (!run->log) {
		/* the row stays queued: the next start marks it interrupted */
		rc = -ENOMEM;
		goto fail_locked;
	}
	run->phase = PHASE_QUEUED;
	snprintf(run->st.status, sizeof(run->st.status), "queued");
	if (r->queue_tail)
		r->queue_tail->next = run;
	else
		r->queue = run;
	r->queue_tail = run;
	r->nqueued++;
	*id = run->id;
	pthread_cond_broadcast(&r->cv);
	pthread_mutex_unlock(&r->mu);
	return 0;
fail_locked:
	pthread_mutex_unlock(&r->mu);
fail:
	run_free(run);
	return rc;
}

int runner_cancel(struct runner *r, int64_t id, struct run_state *state)
{
	struct run *run;
	struct timespec dl;

	pthread_mutex_lock(&r->mu);
	run = find_run(r, id);
	if (!run || run->phase == PHASE_FINISHED) {
		pthread_mutex_unlock(&r->mu);
		return -ENOENT;
	}
	if (run->phase == PHASE_QUEUED) {
		run->cancel = CANCEL_USER;
		dequeue(r, run);
		pthread_mutex_unlock(&r->mu);
		cancel_queued(r, run, "cancelled on request");
		pthread_mutex_lock(&r->mu);
	} else {
		if (run->cancel == CANCEL_NONE)
			run->cancel = CANCEL_USER;
		wake_loop(r);
		clock_gettime(CLOCK_REALTIME, &dl);
		dl.tv_sec += CANCEL_WAIT_MS / 1000;
		while (run->phase != PHASE_FINISHED)
			if (pthread_cond_timedwait(&r->cv, &r->mu, &dl) ==
			    ETIMEDOUT)
				break;
	}
	/* pruning may have freed it meanwhile: look again */
	run = find_run(r, id);
	if (state && !run) {
		memset(state, 0, sizeof(*state));
		snprintf(state->status, sizeof(state->status), "cancelled");
	} else if (state) {
		*state = run->st;
		if (run->phase != PHASE_FINISHED)
			snprintf(state->status, sizeof(state->status),
				 "cancelling");
	}
	pthread_mutex_unlock(&r->mu);
	return 0;
}

int runner_lookup(struct runner *r, int64_t id, struct run_state *state,
		  struct runlog **log)
{
	struct run *run;

	pthread_mutex_lock(&r->mu);
	prune_recent(r);
	run = find_run(r, id);
	if (run) {
		if (state)
			*state = run->st;
		if (log)
			*log = runlog_ref(run->log);
	}
	pthread_mutex_unlock(&r->mu);
	return run ? 0 : -ENOENT;
}

int runner_queued(struct runner *r)
{
	pthread_mutex_lock(&r->mu);
	int n = r->nqueued;
	pthread_mutex_unlock(&r->mu);
	return n;
}
