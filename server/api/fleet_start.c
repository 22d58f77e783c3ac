/* fleet_start.c - POST /api/campaigns/start: runs `numalab fleet run ... --server SELF` in the background */
#include "fleet_start.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "campaign_nodes.h"
#include "campaign_notes.h"
#include "campaigns.h"
#include "errinfo.h"
#include "experiment.h"
#include "schema.h"
#include "strbuf.h"
#include "strvec.h"

extern char **environ;

/* A node list, feature expression or partition goes to the engine as one
 * argument: Slurm's host-list and constraint characters only, never an option.
 */
static int engine_word(json_t *body, const char *key, const char **out,
		       struct errinfo *err)
{
	json_t *v = json_object_get(body, key);
	const char *s;

	*out = NULL;
	if (!v)
		return 0;
	if (!json_is_string(v) || !*(s = json_string_value(v)))
		return errinfo_set(err, key, "'%s' must be a non-empty string",
				   key);
	if (strlen(s) > 1000 || s[0] == '-' ||
	    strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
		      "0123456789[]-,._&|") != strlen(s))
		return errinfo_set(err, key,
				   "bad %s '%.80s' (letters, digits and "
				   "[ ] - , . _ & | only, not starting with "
				   "'-')",
				   key, s);
	*out = s;
	return 0;
}

static const char *const start_fields[] = {"experiment", "params",    "nodes",
					   "constraint", "partition", "all",
					   NULL};
static const struct request_rules start_rules = {
	.fields = start_fields,
	.not_object = "body is not a JSON object",
	.names_only = 1,
};

static void push2(struct strvec *sv, const char *opt, const char *val)
{
	strvec_push(sv, opt);
	strvec_push(sv, val);
}

/* The request's nodes: a list, a feature expression, every one. */
static int check_nodes(json_t *body, struct fleet_where *w, struct errinfo *err)
{
	json_t *v = json_object_get(body, "all");

	if (v && !json_is_boolean(v))
		return errinfo_set(err, "all", "'all' must be true or false");
	w->all = json_is_true(v);
	if (engine_word(body, "nodes", &w->nodes, err) ||
	    engine_word(body, "constraint", &w->constraint, err) ||
	    engine_word(body, "partition", &w->partition, err))
		return -1;
	if (!w->nodes && !w->constraint && !w->all)
		return errinfo_set(err, "nodes",
				   "which nodes? (give 'nodes', 'constraint' "
				   "or 'all': true)");
	if (w->nodes && w->all)
		return errinfo_set(err, "all",
				   "give 'nodes' or 'all', not both");
	return 0;
}

json_t *fleet_start_body(struct http_request *rq, const struct fleet_start *fs,
			 struct run_request *req, struct fleet_where *w,
			 enum MHD_Result *ret)
{
	struct errinfo err;
	json_t *body;

	if (!fs) {
		*ret = http_error(rq, MHD_HTTP_NOT_FOUND, NULL,
				  "this server does not start campaigns (start "
				  "it with --fleet slurm or --fleet clush)");
		return NULL;
	}
	body = http_body_json(rq, ret);
	if (body && (schema_run_request(body, &start_rules, NULL, req, &err) ||
		     check_nodes(body, w, &err))) {
		*ret = http_error(rq, MHD_HTTP_BAD_REQUEST,
				  *err.field ? err.field : NULL, "%s", err.msg);
		json_decref(body);
		run_request_clear(req);
		body = NULL;
	}
	return body;
}

void fleet_start_argv(struct strvec *argv, const struct fleet_start *fs,
		      const struct run_request *req,
		      const struct fleet_where *w)
{
	strvec_push(argv, "numalab");
	strvec_push(argv, "fleet");
	strvec_push(argv, "run");
	strvec_push(argv, req->exp->name);
	for (size_t i = 0; i < req->argv.n; i++)
		strvec_push(argv, req->argv.v[i]);
	push2(argv, "--engine", fs->engine);
	if (w->nodes)
		push2(argv, "--nodes", w->nodes);
	if (w->constraint)
		push2(argv, "--constraint", w->constraint);
	if (w->partition)
		push2(argv, "--partition", w->partition);
	if (w->all)
		strvec_push(argv, "--all");
}

/* Campaigns started and not yet reaped, at most FLEET_START_MAX_RUNNING:
 * which process coordinates which campaign, for a cancel and for its end */
struct started {
	pid_t pid; /* 0: a free place */
	char id[64];
	char log[4200];
	struct store *st;
	int cancelled;
};

static pthread_mutex_t running_lock = PTHREAD_MUTEX_INITIALIZER;
static struct started started[FLEET_START_MAX_RUNNING];
static int running, stopping;

/* Takes a place for one more campaign: 0, or -EBUSY when none is left. */
static int running_take(void)
{
	int rc = 0;

	pthread_mutex_lock(&running_lock);
	if (running >= FLEET_START_MAX_RUNNING)
		rc = -EBUSY;
	else
		running++;
	pthread_mutex_unlock(&running_lock);
	return rc;
}

static void running_give(void)
{
	pthread_mutex_lock(&running_lock);
	running--;
	pthread_mutex_unlock(&running_lock);
}

/* The last line of the campaign's log: its own reason, when it had one. */
static void last_line(const char *path, char *buf, size_t len)
{
	char tail[2048];
	FILE *f = fopen(path, "r");
	size_t n = 0;
	long size;

	buf[0] = '\0';
	if (!f)
		return;
	fseek(f, 0, SEEK_END);
	size = ftell(f);
	fseek(f,
	      size > (long)sizeof(tail) - 1 ? size - (long)sizeof(tail) + 1 : 0,
	      SEEK_SET);
	n = fread(tail, 1, sizeof(tail) - 1, f);
	fclose(f);
	tail[n] = '\0';
	while (n && (tail[n - 1] == '\n' || tail[n - 1] == ' '))
		tail[--n] = '\0';
	char *start = strrchr(tail, '\n');
	start = start ? start + 1 : tail;
	/* "numalab fleet: why" says why in the engine's own words */
	if (!strncmp(start, "numalab fleet: ", 15))
		start += 15;
	snprintf(buf, len, "%s", start);
}

/*
 * Reaps the one campaign it was given, so that it leaves no zombie, and
 * gives its place back. A campaign whose coordinator ended without
 * saying how it ended (refused before it started, killed) is recorded
 * failed with the last thing it said, or cancelled when asked to be.
 */
static void *reap(void *arg)
{
	struct started *sp = arg;
	struct errinfo err;
	char why[600], msg[700];
	int st;

	while (waitpid(sp->pid, &st, 0) < 0 && errno == EINTR)
		;
	pthread_mutex_lock(&running_lock);
	if (!stopping) {
		last_line(sp->log, why, sizeof(why));
		if (sp->cancelled)
			snprintf(msg, sizeof(msg), "cancelled from the page");
		else if (WIFSIGNALED(st))
			snprintf(
				msg, sizeof(msg),
				"numalab fleet run was killed by signal %d%s%s",
				WTERMSIG(st), *why ? ": " : "", why);
		else
			snprintf(msg, sizeof(msg), "%s",
				 *why ? why
				      : "numalab fleet run stopped and said "
					"nothing");
		if (!campaigns_end(sp->st, sp->id,
				   sp->cancelled ? "cancelled" : "failed", msg,
				   &err))
			api_campaigns_recorded(sp->st, sp->id);
	}
	sp->pid = 0;
	running--;
	pthread_mutex_unlock(&running_lock);
	return NULL;
}

int fleet_start_cancel(const struct fleet_start *fs, const char *id)
{
	int found = 0;

	if (!fs)
		return 0;
	pthread_mutex_lock(&running_lock);
	for (int i = 0; i < FLEET_START_MAX_RUNNING; i++)
		if (started[i].pid && !strcmp(started[i].id, id)) {
			started[i].cancelled = 1;
			kill(started[i].pid, SIGTERM);
			found = 1;
		}
	pthread_mutex_unlock(&running_lock);
	return found;
}

void fleet_start_shutdown(void)
{
	pthread_mutex_lock(&running_lock);
	stopping = 1;
	pthread_mutex_unlock(&running_lock);
}

static int spawn(const struct fleet_start *fs, struct store *store,
		 struct strvec *argv, const char *id, const char *log,
		 struct errinfo *err)
{
	posix_spawn_file_actions_t fa;
	struct strvec env = STRVEC_INIT;
	struct started *sp = NULL;
	pthread_attr_t attr;
	pthread_t t;
	pid_t pid;
	int rc;

	for (char **e = environ; *e; e++)
		if (strncmp(*e, "NUMALAB_TOKEN=", 14))
			strvec_push(&env, *e);
	strvec_pushf(&env, "NUMALAB_TOKEN=%s", fs->token ? fs->token : "");
	if (env.oom) {
		strvec_clear(&env);
		running_give();
		return errinfo_set(err, NULL, "out of memory");
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 1, log,
					 O_WRONLY | O_CREAT | O_TRUNC, 0644);
	posix_spawn_file_actions_adddup2(&fa, 1, 2);
	/* the place is filled under the lock the reaper takes */
	pthread_mutex_lock(&running_lock);
	rc = posix_spawn(&pid, fs->exe, &fa, NULL, argv->v, env.v);
	for (int i = 0; !rc && i < FLEET_START_MAX_RUNNING && !sp; i++)
		if (!started[i].pid)
			sp = &started[i];
	if (sp) {
		*sp = (struct started){.pid = pid, .st = store};
		snprintf(sp->id, sizeof(sp->id), "%s", id);
		snprintf(sp->log, sizeof(sp->log), "%s", log);
	}
	pthread_mutex_unlock(&running_lock);
	posix_spawn_file_actions_destroy(&fa);
	strvec_clear(&env);
	if (rc) {
		running_give();
		return errinfo_set(err, NULL, "cannot start '%s': %s", fs->exe,
				   strerror(rc));
	}
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	if (pthread_create(&t, &attr, reap, sp)) {
		/* nobody will wait for it: its place cannot be kept */
		waitpid(pid, NULL, WNOHANG);
		pthread_mutex_lock(&running_lock);
		sp->pid = 0;
		running--;
		pthread_mutex_unlock(&running_lock);
	}
	pthread_attr_destroy(&attr);
	return 0;
}

/*
 * The campaign's record, before anything runs: the page finds it at
 * once, running with no nodes yet (its coordinator names them as soon
 * as the engine has listed them). 0 or -errno with err set.
 */
static int record_start(struct store *st, const struct fleet_start *fs,
			const char *id, const struct run_request *req,
			struct errinfo *err)
{
	json_t *params = json_object(), *c;
	char now[40];
	int rc;

	for (size_t i = 0; params && i < req->argv.n; i++) {
		const char *kv = req->argv.v[i], *eq = strchr(kv, '=');
		char key[128];
		if (!eq)
			continue;
		snprintf(key, sizeof(key), "%.*s", (int)(eq - kv), kv);
		json_object_set_new(params, key, json_string(eq + 1));
	}
	store_timestamp(now, sizeof(now));
	c = json_pack("{s:s, s:s, s:s, s:o, s:s, s:s, s:[]}", "id", id,
		      "engine", fs->engine, "experiment", req->exp->name,
		      "params", params, "created_at", now, "state", "running",
		      "nodes");
	if (!c)
		return errinfo_set(err, NULL, "out of memory");
	rc = campaigns_record(st, c, err);
	json_decref(c);
	if (!rc)
		api_campaigns_recorded(st, id);
	return rc;
}

enum MHD_Result fleet_start_post(struct http_request *rq,
				 const struct fleet_start *fs,
				 struct store *store)
{
	struct fleet_where w = {0};
	struct run_request req = RUN_REQUEST_INIT;
	struct strvec argv = STRVEC_INIT;
	struct strbuf log = STRBUF_INIT;
	struct errinfo err;
	enum MHD_Result ret;
	json_t *body;
	char id[64];

	body = fleet_start_body(rq, fs, &req, &w, &ret);
	if (!body)
		return ret;
	/* the same form of id as fleet run's own, chosen here to answer with */
	struct timespec ts;
	struct tm tm;
	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	snprintf(id, sizeof(id), "%04d%02d%02d-%02d%02d%02d-%04lx",
		 tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
		 tm.tm_min, tm.tm_sec,
		 (unsigned long)((ts.tv_nsec / 1000) ^ getpid()) & 0xffff);
	fleet_start_argv(&argv, fs, &req, &w);
	push2(&argv, "--server", fs->server);
	if (*fs->ca_file)
		push2(&argv, "--ca-file", fs->ca_file);
	if (*fs->connect_to)
		push2(&argv, "--connect-to", fs->connect_to);
	push2(&argv, "--id", id);
	if (running_take()) {
		ret = http_error(rq, MHD_HTTP_TOO_MANY_REQUESTS, NULL,
				 "%d campaigns are running already (at most %d "
				 "at once): start this one when one of them "
				 "has finished",
				 FLEET_START_MAX_RUNNING,
				 FLEET_START_MAX_RUNNING);
		goto out;
	}
	mkdir(fs->dir, 0755);
	strbuf_addf(&log, "%s/%s", fs->dir, id);
	push2(&argv, "--dir", log.buf);
	strbuf_addstr(&log, ".log");
	if (argv.oom || log.oom) {
		running_give();
		ret = http_error(rq, MHD_HTTP_INTERNAL_SERVER_ERROR, NULL,
				 "out of memory");
		goto out;
	}
	if (record_start(store, fs, id, &req, &err)) {
		running_give();
		ret = http_error(rq, MHD_HTTP_INTERNAL_SERVER_ERROR, NULL, "%s",
				 err.msg);
		goto out;
	}
	if (spawn(fs, store, &argv, id, log.buf, &err)) {
		struct errinfo e2;
		campaigns_end(store, id, "failed", err.msg, &e2);
		api_campaigns_recorded(store, id);
		ret = http_error(rq, MHD_HTTP_INTERNAL_SERVER_ERROR, NULL, "%s",
				 err.msg);
		goto out;
	}
	ret = http_json(rq, MHD_HTTP_ACCEPTED,
			json_pack("{s:s, s:s+, s:s}", "id", id, "url",
				  "/api/campaigns/", id, "log", log.buf));
out:
	json_decref(body);
	run_request_clear(&req);
	strvec_clear(&argv);
	strbuf_release(&log);
	return ret;
}
