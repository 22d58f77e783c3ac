/* fleet_plan.c - POST /api/campaigns/plan: the nodes a campaign would run on, as its engine counts them, before it starts */
#define _GNU_SOURCE
#include "fleet_plan.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "fleet_start.h"
#include "strbuf.h"

extern char **environ;

/* The longest a plan may take: sinfo answers in well under a second,
 * and gives up on its own after Slurm's MessageTimeout (10 s). */
#define PLAN_SECONDS 30

/*
 * Runs argv (this numalab) with stdout and stderr into out, stdin from
 * /dev/null and without the server's token, for PLAN_SECONDS at most.
 * Returns its exit status, or -errno when it could not be run or was
 * stopped for taking too long (-ETIMEDOUT).
 */
static int run_capture(const char *exe, char **argv, struct strbuf *out)
{
	posix_spawn_file_actions_t fa;
	struct strvec env = STRVEC_INIT;
	double deadline = clock_now() + PLAN_SECONDS;
	int p[2], rc, st, late = 0;
	pid_t pid;

	if (pipe2(p, O_CLOEXEC))
		return -errno;
	for (char **e = environ; *e; e++)
		if (strncmp(*e, "NUMALAB_TOKEN=", 14))
			strvec_push(&env, *e);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, p[1], 1);
	posix_spawn_file_actions_adddup2(&fa, p[1], 2);
	rc = env.oom ? ENOMEM : posix_spawn(&pid, exe, &fa, NULL, argv, env.v);
	posix_spawn_file_actions_destroy(&fa);
	strvec_clear(&env);
	close(p[1]);
	if (rc) {
		close(p[0]);
		return -rc;
	}
	for (;;) {
		struct pollfd pf = {p[0], POLLIN, 0};
		char buf[4096];
		ssize_t n;
		int left = (int)((deadline - clock_now()) * 1000);
		if (left <= 0 || (poll(&pf, 1, left) == 0)) {
			kill(pid, SIGKILL);
			late = 1;
			break;
		}
		n = read(p[0], buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		strbuf_add(out, buf, (size_t)n);
	}
	close(p[0]);
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -errno;
	if (late)
		return -ETIMEDOUT;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* The last line of text, without "numalab fleet: ": the engine's words. */
static const char *last_words(char *text)
{
	size_t n = strlen(text);
	char *start;

	while (n && (text[n - 1] == '\n' || text[n - 1] == ' '))
		text[--n] = '\0';
	start = strrchr(text, '\n');
	start = start ? start + 1 : text;
	if (!strncmp(start, "numalab fleet: ", 15))
		start += 15;
	return start;
}

enum MHD_Result fleet_plan_post(struct http_request *rq,
				const struct fleet_start *fs)
{
	struct run_request req = RUN_REQUEST_INIT;
	struct strvec argv = STRVEC_INIT;
	struct strbuf out = STRBUF_INIT;
	struct fleet_where w = {0};
	enum MHD_Result ret;
	json_t *body, *plan;
	int rc;

	body = fleet_start_body(rq, fs, &req, &w, &ret);
	if (!body)
		return ret;
	fleet_start_argv(&argv, fs, &req, &w);
	strvec_push(&argv, "--plan");
	strvec_push(&argv, "--json");
	rc = argv.oom ? -ENOMEM : run_capture(fs->exe, argv.v, &out);
	plan = rc == 0 ? json_loads(out.buf ? out.buf : "", 0, NULL) : NULL;
	if (plan)
		ret = http_json(rq, MHD_HTTP_OK, plan);
	else if (rc == 2)
		/* the engine's refusal: an unknown partition, node or feature
		 */
		ret = http_error(rq, MHD_HTTP_BAD_REQUEST, NULL, "%s",
				 last_words(out.buf ? out.buf : ""));
	else
		ret = http_error(rq, MHD_HTTP_INTERNAL_SERVER_ERROR, NULL,
				 "cannot make the plan: %s",
				 rc == -ETIMEDOUT ? "the engine did not answer "
						    "in 30 s"
				 : rc < 0	  ? strerror(-rc)
				 : out.len	  ? last_words(out.buf)
						  : "the engine said nothing");
	json_decref(body);
	run_request_clear(&req);
	strvec_clear(&argv);
	strbuf_release(&out);
	return ret;
}
