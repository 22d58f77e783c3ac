/* serve.c - the serve subcommand: the server put together, and a clean stop on SIGTERM/SIGINT */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "api.h"
#include "campaign_live.h"
#include "commands.h"
#include "fleet_start.h"
#include "http.h"
#include "http_tls.h"
#include "numa_mem.h"
#include "rates.h"
#include "runner.h"
#include "say.h"
#include "selfpath.h"
#include "serve_net.h"
#include "serve_opts.h"
#include "stale_retry.h"
#include "stdout_close.h"
#include "store.h"
#include "stream.h"
#include "strvec.h"
#include "topo.h"
#include "units.h"
#include "worker_path.h"

/* The server's parts, in the order they are put together. */
struct serve {
	struct serve_opts o;
	char host[256], web[PATH_MAX], worker[PATH_MAX];
	int port;
	char *token, *class_token;
	struct http_tls tls;
	struct topo *topo;
	struct store *store;
	struct stale_retry *retry;
	struct runner *runner;
	struct api *api;
	struct strvec link_hosts;
	char join_code[HTTP_JOIN_CODE_LEN + 1];
	struct http_server *http;
};

/* rates_init, and what went wrong with the rates' cache in the log */
static void rates_init_said(const struct topo *t, const char *path)
{
	char note[ERRINFO_MSG_LEN];

	if (rates_init(t, path, note, sizeof(note)) || *note)
		say(stderr, "numalab serve: %s\n", note);
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
		rates_init_said(t, fallback);
		return;
	}
	snprintf(path, sizeof(path), "%.*s.rates", (int)strcspn(db, "?#"), db);
	rates_fingerprint(t, fp, sizeof(fp));
	if (rates_load(path, fp, &r) && rates_load(fallback, fp, &r) == 0) {
		rates_set(&r);
		rates_save(path, fp, &r);
		return;
	}
	rates_init_said(t, path);
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
	const struct mem_caps *c = mem_caps();

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
	const char *self = serve_self_address(host);
	char name[256];
	snprintf(name, sizeof(name), "%s", self);
	fleet->ca_file[0] = fleet->connect_to[0] = '\0';
	if (tls->cert) {
		/* serve_check made sure the certificate names one */
		serve_fleet_name(&o->allowed_hosts, host, tls, name,
				 sizeof(name));
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

/* The connections the limit on open files allows, and the event streams
 * that fit among them. */
static void serve_fit_limits(struct serve_opts *o)
{
	o->max_conns = (int)fit_fd_limit((unsigned int)o->max_conns);
	if (!o->max_viewers)
		o->max_viewers = o->max_conns / 4 * 3 < STREAM_MAX_DEFAULT
					 ? o->max_conns / 4 * 3
					 : STREAM_MAX_DEFAULT;
	viewers_set_limit(o->max_viewers);
}

/*
 * The runs left running when the server last stopped, marked interrupted
 * (once the disk has room, when it filled).
 */
static void serve_interrupt_stale(struct serve *s)
{
	struct errinfo err;
	int64_t upto = 0;
	int n = store_interrupt_stale(
		s->store, "the server stopped before the run finished",
		"the server stopped before the run started", &upto, &err);

	if (n == -ENOSPC) {
		/* what stopped them is what stops us now: say so, once there is
		 * room */
		char why[256];
		snprintf(why, sizeof(why), "the disk filled: %s",
			 strstr(err.msg, ": ") ? strstr(err.msg, ": ") + 2
					       : err.msg);
		say(stderr,
		    "numalab serve: %s: the runs left running will be marked "
		    "interrupted as soon as the disk has room\n",
		    err.msg);
		s->retry = stale_retry_start(s->store, why, upto);
	} else if (n < 0)
		say(stderr, "numalab serve: %s\n", err.msg);
	else if (n > 0)
		say(stderr,
		    "numalab serve: %d %s cut short when the server last "
		    "stopped: marked interrupted\n",
		    n, units_plural(n, "run was", "runs were"));
}

/* The machine, the store and its rates. 0, or -1 said. */
static int serve_open_store(struct serve *s)
{
	struct errinfo err;

	s->topo = topo_load();
	if (!s->topo) {
		say(stderr, "numalab serve: cannot read the topology: %s\n",
		    topo_load_error());
		return -1;
	}
	say_refused_calls();
	s->store = store_open(s->o.db, &err);
	if (!s->store) {
		say(stderr, "numalab serve: %s\n", err.msg);
		return -1;
	}
	/* another server on this store: the runs that look unfinished from
	 * here may be its own, live */
	int shared = store_live_attach(s->store, &err) == -EBUSY;

	if (shared)
		say(stderr,
		    "numalab serve: %s; this one stores its runs' batches one by "
		    "one, and leaves the runs that look unfinished as they are\n",
		    err.msg);
	serve_rates(s->topo, s->o.db);
	if (store_readonly(s->store))
		say(stderr,
		    "numalab serve: database '%s' is read-only: runs can be "
		    "read but not started\n",
		    s->o.db);
	if (!shared)
		serve_interrupt_stale(s);
	return 0;
}

/* The runner with its worker, and the API over it. 0, or -1 said. */
static int serve_open_runs(struct serve *s)
{
	const struct serve_opts *o = &s->o;
	int ours;

	/* numalab-worker, found beside this binary, unless --worker */
	if (worker_path(o->worker, s->worker, sizeof(s->worker), &ours))
		return -1;
	struct runner_config rcfg = {
		.exe = s->worker,
		.max_queue = o->max_queue,
		.max_run_seconds = o->max_run_seconds,
		.keep_seconds = 120,
		.keep_max = 32,
		.canonical_lines = ours,
	};
	s->runner = runner_new(&rcfg, s->store);
	if (!s->runner) {
		say(stderr, "numalab serve: cannot start the runner: %s\n",
		    strerror(errno));
		return -1;
	}
	s->api = api_new(s->topo, s->store, s->runner, o->max_run_seconds);
	if (!s->api) {
		say(stderr, "numalab serve: out of memory\n");
		return -1;
	}
	if (!is_dir(s->web))
		say(stderr,
		    "numalab serve: no web folder at '%s': the API works, "
		    "the page does not (give --web DIR)\n",
		    s->web);
	return 0;
}

/* The HTTP server on the API, with the hosts its links name. 0, or -1
 * said. */
static int serve_start_http(struct serve *s)
{
	struct serve_opts *o = &s->o;
	char named[256];
	struct errinfo err;

	serve_link_hosts(s->host, &s->link_hosts, named, sizeof(named));
	if (*named)
		strvec_push(&o->allowed_hosts, named);
	if (s->class_token && http_join_code_make(s->join_code)) {
		say(stderr, "numalab serve: cannot make a join code: "
			    "getrandom failed\n");
		return -1;
	}
	struct http_config hcfg = {
		.host = s->host,
		.link_host = s->link_hosts.v[0],
		.public_url = o->public_url,
		.join_code = *s->join_code ? s->join_code : NULL,
		.max_client_sessions = o->max_client_sessions,
		.port = s->port,
		.web_dir = s->web,
		.token = s->token,
		.class_token = s->class_token,
		.session_seconds = o->session_seconds,
		.public_read = o->public_read,
		.cors = o->cors,
		.max_conns = (unsigned int)o->max_conns,
		.max_client_conns = (unsigned int)o->max_client_conns,
		.allowed_hosts = (const char *const *)o->allowed_hosts.v,
		.quota_count = (unsigned int)o->import_count,
		.quota_bytes = (size_t)o->import_mib << 20,
		.tls_cert = s->tls.cert,
		.tls_key = s->tls.key};
	s->http = http_start(&hcfg, api_routes, s->api, &err);
	if (!s->http) {
		say(stderr, "numalab serve: %s\n", err.msg);
		return -1;
	}
	return 0;
}

/* Where the server listens, and the links with a token. */
static void serve_announce(const struct serve *s)
{
	const char *scheme = s->tls.cert ? "https" : "http";
	int v6 = strchr(s->host, ':') != NULL;

	printf("listening on %s://%s%s%s:%d/\n", scheme, v6 ? "[" : "", s->host,
	       v6 ? "]" : "", http_port(s->http));
	if (s->token)
		serve_links(scheme, &s->link_hosts, s->o.public_url,
			    http_port(s->http), s->token, s->class_token,
			    s->join_code);
	stdout_flush(stdout);
}

/* Every part that was started, stopped, the last first. */
static void serve_close(struct serve *s)
{
	/* runs first: their final events reach the streams before they close */
	if (s->runner)
		runner_stop(s->runner);
	/* a campaign's stream has no end of its own; its coordinator delivers
	 * again once the server is back */
	campaign_live_clear();
	fleet_start_shutdown();
	if (s->http) {
		viewers_drain(2000);
		stream_stop();
		http_stop(s->http);
	}
	api_free(s->api);
	runner_free(s->runner);
	stale_retry_stop(s->retry);
	store_close(s->store);
	topo_free(s->topo);
	free(s->token);
	free(s->class_token);
	http_tls_clear(&s->tls);
	strvec_clear(&s->o.allowed_hosts);
	strvec_clear(&s->link_hosts);
}

int cmd_serve(int argc, char **argv)
{
	struct serve s = {.link_hosts = STRVEC_INIT};
	static struct fleet_start fleet;
	sigset_t sigs;
	int sig, rc;

	rc = serve_parse(argc, argv, &s.o);
	if (rc < 0 && serve_check(&s.o, s.host, sizeof(s.host), &s.port,
				  &s.token, &s.class_token, &s.tls))
		rc = 2;
	if (rc >= 0) {
		free(s.token);
		free(s.class_token);
		http_tls_clear(&s.tls);
		strvec_clear(&s.o.allowed_hosts);
		return rc;
	}
	if (s.o.web)
		snprintf(s.web, sizeof(s.web), "%s", s.o.web);
	else
		default_web(s.web, sizeof(s.web));

	/* every thread inherits this: the signals wait for sigwait below */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &sigs, NULL);
	signal(SIGPIPE, SIG_IGN);
	serve_fit_limits(&s.o);
	rc = 1;
	if (serve_open_store(&s) || serve_open_runs(&s) || serve_start_http(&s))
		goto out;
	if (s.o.fleet) {
		serve_fleet(&fleet, &s.o, s.host, http_port(s.http), s.token,
			    &s.tls);
		api_set_fleet(s.api, &fleet);
	}
	serve_announce(&s);

	while (sigwait(&sigs, &sig))
		;
	say(stderr, "numalab serve: %s: stopping\n", strsignal(sig));
	rc = 0;
out:
	serve_close(&s);
	return rc;
}
