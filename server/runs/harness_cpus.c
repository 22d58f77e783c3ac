/* harness_cpus.c - the server's threads kept off the CPUs a run measures on */
#define _GNU_SOURCE
#include "harness_cpus.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "params.h"

int harness_cpus_init(struct harness_cpus *h)
{
	memset(h, 0, sizeof(*h));
	if (sched_getaffinity(0, sizeof(h->all), &h->all))
		return -errno;
	h->policy = sched_getscheduler(0);
	return 0;
}

/* The most threads the second pass tells apart from those already moved
 * (more: it moves every thread again). */
#define SEEN_MAX 256

struct seen {
	pid_t tid[SEEN_MAX];
	int n, over;
};

static int was_seen(const struct seen *s, pid_t tid)
{
	for (int i = 0; i < s->n; i++)
		if (s->tid[i] == tid)
			return 1;
	return 0;
}

/* What a pass does to each thread: its mask (NULL: kept), its policy
 * (-1: kept). */
struct change {
	const cpu_set_t *mask;
	int policy;
};

/* One thread changed: 0, or -1 (a thread that has just exited is not an
 * error: it is only not counted). */
static int change_one(pid_t tid, const struct change *c)
{
	int rc = 0;

	if (c->mask && sched_setaffinity(tid, sizeof(*c->mask), c->mask))
		rc = -1;
	if (c->policy >= 0 &&
	    sched_setscheduler(tid, c->policy, &(struct sched_param){0}))
		rc = -1;
	return rc;
}

/*
 * Every thread of this process changed, once over, but those in skip
 * (NULL: none); each one listed goes into seen (NULL: not kept). The
 * number changed.
 */
static int set_each(const struct change *c, const struct seen *skip,
		    struct seen *seen)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	int n = 0;

	if (!d)
		return 0;
	while ((e = readdir(d))) {
		char *end;
		long tid = strtol(e->d_name, &end, 10);

		if (*end || tid <= 0)
			continue;
		if (seen && seen->n < SEEN_MAX)
			seen->tid[seen->n++] = (pid_t)tid;
		else if (seen)
			seen->over = 1;
		if (skip && !skip->over && was_seen(skip, (pid_t)tid))
			continue;
		if (!change_one((pid_t)tid, c))
			n++;
	}
	closedir(d);
	return n;
}

/*
 * Twice over: a thread that a listener was creating while the first pass
 * read the list may be missing from it, and one created after its
 * creator moved has the new mask already. The second pass moves only the
 * threads the first did not list.
 */
static int set_all(const struct change *c)
{
	struct seen seen = {.n = 0};
	int n = set_each(c, NULL, &seen);

	set_each(c, &seen, NULL);
	return n;
}

/* The policy change that yielding (on) or not (off) asks for, or -1. */
static int yield_policy(struct harness_cpus *h, int on)
{
	if (h->policy != SCHED_OTHER || on == h->yielded)
		return -1;
	h->yielded = on;
	return on ? SCHED_BATCH : SCHED_OTHER;
}

int harness_cpus_avoid_list(struct harness_cpus *h, const int32_t *cpus, int n)
{
	cpu_set_t rest = h->all;

	for (int i = 0; i < n; i++)
		if (cpus[i] >= 0 && cpus[i] < CPU_SETSIZE)
			CPU_CLR(cpus[i], &rest);
	if (!CPU_COUNT(&rest)) {
		/* nowhere else to go: back on every CPU, yielding */
		struct change c = {.mask = h->moved ? &h->all : NULL,
				   .policy = yield_policy(h, 1)};
		h->moved = 0;
		if (c.mask || c.policy >= 0)
			set_all(&c);
		return 0;
	}
	/* (a yield left them unmoved: moved is 0 while yielding) */
	if (h->moved && CPU_EQUAL(&rest, &h->now))
		return 0; /* the next point on the same CPUs */
	h->moved = 1;
	h->now = rest;
	return set_all(
		&(struct change){.mask = &rest, .policy = yield_policy(h, 0)});
}

int harness_cpus_avoid(struct harness_cpus *h, const char *cpus)
{
	int32_t list[CPU_SETSIZE];
	struct errinfo err;
	int n;

	/* nothing named: where the server's threads are between runs (a
	 * run that ends with another queued leaves them off its cpus) */
	if (!cpus || !*cpus) {
		harness_cpus_restore(h);
		return 0;
	}
	n = parse_int_list(cpus, 0, CPU_SETSIZE - 1, list, CPU_SETSIZE, &err);
	if (n <= 0) {
		harness_cpus_restore(h);
		return 0;
	}
	return harness_cpus_avoid_list(h, list, n);
}

void harness_cpus_restore(struct harness_cpus *h)
{
	struct change c = {.mask = h->moved ? &h->all : NULL,
			   .policy = yield_policy(h, 0)};

	if (c.mask || c.policy >= 0)
		set_all(&c);
	h->moved = 0;
}

int harness_cpus_worker_policy(const struct harness_cpus *h)
{
	return h->yielded ? h->policy : -1;
}
