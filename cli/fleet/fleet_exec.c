/* fleet_exec.c - running an engine's command (sinfo, sbatch, clush) and keeping what it says */
#define _GNU_SOURCE
#include "fleet_exec.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* The flags of spawn. */
enum {
	/* a Python command writes each line as it comes */
	SPAWN_UNBUFFERED = 1,
	/* in a process group of its own with all it starts: stopped as one */
	SPAWN_GROUP = 2,
};

/*
 * Starts argv (looked up in PATH) with stdin from /dev/null, its stdout
 * and stderr into pipes whose read ends go into fd[0] and fd[1]. Returns
 * its pid, or -errno with nothing left open.
 */
static pid_t spawn(char *const argv[], unsigned flags, int fd[2])
{
	int po[2], pe[2], e;
	pid_t pid;

	if (pipe2(po, O_CLOEXEC))
		return -errno;
	if (pipe2(pe, O_CLOEXEC)) {
		e = errno;
		close(po[0]);
		close(po[1]);
		return -e;
	}
	pid = fork();
	if (pid > 0 && (flags & SPAWN_GROUP))
		setpgid(pid, pid); /* as the child does: whichever runs first */
	if (pid == 0) {
		int null = open("/dev/null", O_RDONLY);
		if (flags & SPAWN_GROUP)
			setpgid(0, 0);
		/* the engine's command must not see our Ctrl-C: we cancel
		 * ourselves */
		signal(SIGINT, SIG_IGN);
		/* clush is Python: each line as it comes, not a block later */
		if (flags & SPAWN_UNBUFFERED)
			setenv("PYTHONUNBUFFERED", "1", 1);
		dup2(null, 0);
		dup2(po[1], 1);
		dup2(pe[1], 2);
		execvp(argv[0], argv);
		dprintf(2, "cannot run '%s': %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	e = errno;
	close(po[1]);
	close(pe[1]);
	if (pid < 0) {
		close(po[0]);
		close(pe[0]);
		return -e;
	}
	fd[0] = po[0];
	fd[1] = pe[0];
	return pid;
}

/* pid's exit status, 128+N when killed by signal N, or -errno. */
static int reap(pid_t pid)
{
	int status;

	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

int fleet_exec(char *const argv[], struct strbuf *out, struct strbuf *err)
{
	int fd[2];
	pid_t pid = spawn(argv, 0, fd);

	if (pid < 0)
		return (int)pid;
	struct pollfd fds[2] = {{fd[0], POLLIN, 0}, {fd[1], POLLIN, 0}};
	struct strbuf *dst[2] = {out, err};
	int open_fds = 2;
	while (open_fds) {
		if (poll(fds, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		for (int i = 0; i < 2; i++) {
			char buf[8192];
			ssize_t n;
			if (fds[i].fd < 0 ||
			    !(fds[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			n = read(fds[i].fd, buf, sizeof(buf));
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0) {
				close(fds[i].fd);
				fds[i].fd = -1;
				open_fds--;
			} else if (dst[i]) {
				strbuf_add(dst[i], buf, (size_t)n);
			}
		}
	}
	for (int i = 0; i < 2; i++)
		if (fds[i].fd >= 0)
			close(fds[i].fd);
	return reap(pid);
}

/* Hands each complete line of sb to line(), keeping a partial last one. */
static void lines_of(struct strbuf *sb, int stream, int all,
		     void (*line)(void *arg, int stream, char *text), void *arg)
{
	size_t start = 0;

	for (size_t i = 0; i < sb->len; i++)
		if (sb->buf[i] == '\n') {
			sb->buf[i] = '\0';
			line(arg, stream, sb->buf + start);
			start = i + 1;
		}
	if (all && start < sb->len) {
		line(arg, stream, sb->buf + start);
		start = sb->len;
	}
	if (start) {
		memmove(sb->buf, sb->buf + start, sb->len - start);
		sb->len -= start;
		sb->buf[sb->len] = '\0';
	}
}

int fleet_exec_lines(char *const argv[],
		     void (*line)(void *arg, int stream, char *text),
		     int (*stop)(void *arg), void *arg)
{
	struct strbuf part[2] = {STRBUF_INIT, STRBUF_INIT};
	int fd[2], open_fds = 2, signalled = 0;
	pid_t pid = spawn(argv, SPAWN_UNBUFFERED | SPAWN_GROUP, fd);

	if (pid < 0)
		return (int)pid;
	struct pollfd fds[2] = {{fd[0], POLLIN, 0}, {fd[1], POLLIN, 0}};
	while (open_fds) {
		/* the command and every process it started (clush's workers,
		 * the commands they run, its ssh clients): a process of its
		 * own would live on after it */
		if (!signalled && stop && stop(arg)) {
			kill(-pid, SIGTERM);
			signalled = 1;
		} else if (signalled && ++signalled == 20) {
			kill(-pid, SIGKILL); /* 5 s later, still there */
		}
		int k = poll(fds, 2, 250);
		if (k < 0 && errno != EINTR)
			break;
		for (int i = 0; k > 0 && i < 2; i++) {
			char buf[65536];
			ssize_t n;
			if (fds[i].fd < 0 ||
			    !(fds[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			n = read(fds[i].fd, buf, sizeof(buf));
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0) {
				close(fds[i].fd);
				fds[i].fd = -1;
				open_fds--;
				lines_of(&part[i], i, 1, line, arg);
			} else {
				strbuf_add(&part[i], buf, (size_t)n);
				lines_of(&part[i], i, 0, line, arg);
			}
		}
	}
	for (int i = 0; i < 2; i++) {
		if (fds[i].fd >= 0)
			close(fds[i].fd);
		strbuf_release(&part[i]);
	}
	/* what is left of the group once its output ended, while the
	 * command is not yet reaped (its pid, the group's id, not reused) */
	if (signalled)
		kill(-pid, SIGKILL);
	return reap(pid);
}

int fleet_in_path(const char *name)
{
	const char *path = getenv("PATH");
	char full[4096];

	while (path && *path) {
		size_t n = strcspn(path, ":");
		snprintf(full, sizeof(full), "%.*s/%s", (int)n, path, name);
		if (n && !access(full, X_OK))
			return 1;
		path += n + (path[n] == ':');
	}
	return 0;
}

void fleet_last_line(const char *text, char *buf, size_t len)
{
	const char *end = text + strlen(text), *start;

	while (end > text &&
	       (end[-1] == '\n' || end[-1] == '\r' || end[-1] == ' '))
		end--;
	start = end;
	while (start > text && start[-1] != '\n')
		start--;
	snprintf(buf, len, "%.*s", (int)(end - start), start);
}
