/* fleet_clush.c - the ClusterShell engine: one `clush -w LIST` for a room of machines over SSH */
#include "fleet.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleet_exec.h"
#include "hostlist.h"
#include "strbuf.h"
#include "strvec.h"

/* s in single quotes for the remote shell */
static void add_quoted(struct strbuf *sb, const char *s)
{
	strbuf_addch(sb, '\'');
	for (; *s; s++) {
		if (*s == '\'')
			strbuf_addstr(sb, "'\\''");
		else
			strbuf_addch(sb, *s);
	}
	strbuf_addstr(sb, "' ");
}

/* c's nodes by name, for find(): built once, the list can be long */
struct named {
	const char *name;
	int i;
};

struct byname {
	struct fleet_campaign *c;
	struct named *v;
};

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct named *)a)->name,
		      ((const struct named *)b)->name);
}

static int byname_init(struct byname *bn, struct fleet_campaign *c)
{
	bn->c = c;
	bn->v = malloc(((size_t)c->n + 1) * sizeof(*bn->v));
	if (!bn->v)
		return -ENOMEM;
	for (int i = 0; i < c->n; i++)
		bn->v[i] = (struct named){c->node[i].name, i};
	qsort(bn->v, (size_t)c->n, sizeof(*bn->v), by_name);
	return 0;
}

/* The node named by the first len bytes of name, or NULL. */
static struct fleet_node *find(const struct byname *bn, const char *name,
			       size_t len)
{
	int lo = 0, hi = bn->c->n - 1;

	while (lo <= hi) {
		int mid = lo + (hi - lo) / 2;
		const char *have = bn->v[mid].name;
		int d = strncmp(have, name, len);
		if (!d && have[len])
			d = 1;
		if (!d)
			return &bn->c->node[bn->v[mid].i];
		if (d < 0)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return NULL;
}

struct found {
	struct strbuf doc; /* what the node printed */
	int status;	   /* its exit code; -1: not said */
	char tail[300];
	int timeout;
};

/*
 * Without -b, clush prefixes every line a node prints with "host: ", so
 * whatever a node prints lands only in its own document: a node cannot
 * forge a header that gives its text to another (a host name has no
 * space, so the first space ends the prefix).
 */
static void parse_out(const struct byname *bn, struct found *fd, char *out)
{
	for (char *line = out, *next; line && *line; line = next) {
		char *sp;
		struct fleet_node *n;
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		sp = strchr(line, ' ');
		if (!sp || sp == line || sp[-1] != ':')
			continue;
		n = find(bn, line, (size_t)(sp - 1 - line));
		if (!n)
			continue;
		strbuf_addstr(&fd[n - bn->c->node].doc, sp + 1);
		strbuf_addch(&fd[n - bn->c->node].doc, '\n');
	}
}

/* stderr: "host: text" from the node, "clush: host: exited with exit code N"
 * from clush */
/* clush names hosts with the same outcome as one host list: lab[01-02] */
static void each_host(const struct byname *bn, struct found *fd,
		      const char *hosts, int status, int timeout)
{
	struct strvec names = STRVEC_INIT;
	struct errinfo err;
	char list[256];

	/* "lab[01-02] (2)": the list, then how many */
	snprintf(list, sizeof(list), "%.*s", (int)strcspn(hosts, " "), hosts);
	if (!hostlist_expand(list, &names, &err))
		for (size_t k = 0; k < names.n; k++) {
			struct fleet_node *n =
				find(bn, names.v[k], strlen(names.v[k]));
			if (n && timeout)
				fd[n - bn->c->node].timeout = 1;
			else if (n)
				fd[n - bn->c->node].status = status;
		}
	strvec_clear(&names);
}

static void parse_err(const struct byname *bn, struct found *fd, char *err)
{
	for (char *line = err, *next; line && *line; line = next) {
		char name[256];
		int code;
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (sscanf(line, "clush: %255[^:]: exited with exit code %d",
			   name, &code) == 2) {
			each_host(bn, fd, name, code, 0);
		} else if (sscanf(line, "clush: %255[^:]: command timeout",
				  name) == 1) {
			each_host(bn, fd, name, 0, 1);
		} else if (sscanf(line, "%255[^:]: ", name) == 1) {
			struct fleet_node *n = find(bn, name, strlen(name));
			if (n)
				snprintf(fd[n - bn->c->node].tail,
					 sizeof(fd[0].tail), "%s",
					 line + strlen(name) + 2);
		}
	}
}

int fleet_clush_run(struct fleet_campaign *c, struct errinfo *err)
{
	struct strvec names = STRVEC_INIT, av = STRVEC_INIT;
	struct strbuf cmd = STRBUF_INIT, out = STRBUF_INIT, eout = STRBUF_INIT;
	struct found *fd = NULL;
	struct byname bn = {0};
	int rc;

	errinfo_clear(err);
	if (c->partition || c->constraint)
		return errinfo_set(
			err, "engine",
			"the clush engine knows no partitions or features (give --nodes LIST)");
	rc = hostlist_expand(c->nodes, &names, err);
	if (rc)
		return rc == -EINVAL ? rc
				     : errinfo_set(err, NULL, "out of memory");
	for (size_t i = 0; i < names.n && !rc; i++)
		if (fleet_node_add(c, names.v[i], NULL, ""))
			rc = errinfo_set(err, NULL, "out of memory");
	strvec_clear(&names);
	if (rc)
		return -ENOMEM;
	fd = calloc((size_t)c->n, sizeof(*fd));
	if (!fd || byname_init(&bn, c)) {
		free(fd);
		return errinfo_set(err, NULL, "out of memory");
	}

	strbuf_addstr(&cmd,
		      "NUMALAB_FLEET_ENGINE=clush NUMALAB_FLEET_CAMPAIGN=");
	add_quoted(&cmd, c->id);
	/* the exec worker runs every "node" here: say which one it stands for
	 */
	if (c->clush_worker && !strcmp(c->clush_worker, "exec"))
		strbuf_addstr(&cmd, "NUMALAB_FLEET_NODE=%h ");
	add_quoted(&cmd, c->bin);
	strbuf_addstr(&cmd, "run --json ");
	add_quoted(&cmd, c->experiment);
	for (int i = 0; i < c->nkv; i++)
		add_quoted(&cmd, c->kv[i]);

	strvec_push(&av, "clush");
	if (c->clush_worker) {
		strvec_push(&av, "-R");
		strvec_push(&av, c->clush_worker);
	}
	strvec_push(&av, "-w");
	strvec_push(&av, c->nodes);
	strvec_pushf(&av, "-u%d", c->timeout_s);
	strvec_push(&av, cmd.buf);
	for (int i = 0; i < c->n; i++) {
		strbuf_init(&fd[i].doc);
		fd[i].status = -1;
		c->node[i].state = FLEET_RUNNING;
		fleet_progress(c, &c->node[i], "started through clush");
	}
	rc = fleet_exec_opt(av.v, &out, &eout, 1);
	if (rc < 0 || rc == 127) {
		char last[300];
		fleet_last_line(eout.buf ? eout.buf : "", last, sizeof(last));
		rc = errinfo_set(err, "engine", "cannot run clush: %s",
				 *last ? last : strerror(-rc));
		for (int i = 0; i < c->n; i++)
			c->node[i].state = FLEET_PENDING;
		goto out;
	}
	rc = 0;
	if (out.buf)
		parse_out(&bn, fd, out.buf);
	if (eout.buf)
		parse_err(&bn, fd, eout.buf);
	for (int i = 0; i < c->n; i++) {
		struct fleet_node *n = &c->node[i];
		const char *doc = fd[i].doc.len ? fd[i].doc.buf : NULL;
		if (*c->stop && !doc)
			fleet_fail(c, n, "cancelled (Ctrl-C)");
		else if (fd[i].timeout)
			fleet_fail(c, n, "timed out after %d s (clush -u)",
				   c->timeout_s);
		else if (!doc && fd[i].status == 255)
			fleet_fail(c, n, "ssh failed%s%s",
				   *fd[i].tail ? ": " : "", fd[i].tail);
		else
			fleet_take_document(c, n, doc,
					    fd[i].status < 0 ? 0 : fd[i].status,
					    fd[i].tail);
	}
out:
	for (int i = 0; fd && i < c->n; i++)
		strbuf_release(&fd[i].doc);
	free(fd);
	free(bn.v);
	strvec_clear(&av);
	strbuf_release(&cmd);
	strbuf_release(&out);
	strbuf_release(&eout);
	return rc;
}
