/* fleet_clush.c - the ClusterShell engine: one `clush -w LIST` for a room of machines over SSH */
#include "fleet.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
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
	int ended; /* its exit line came: taken already */
	/* its exit line came saying it failed: taken once its stderr has
	 * come too (clush reads a node's stdout and stderr apart, so
	 * either may come first), or a second later */
	int exit_status;
	double exit_at;
};

/* What the stream of clush's lines is read into. */
struct reading {
	struct byname bn;
	struct found *fd;
	int waiting; /* nodes with an exit_at */
};

/* The line each node's command ends with, after numalab's own output. */
#define EXIT_LINE "numalab-fleet-exit "

/* The node's output as the Slurm engine leaves it, then taken: NODE.json
 * (its document), NODE.rc and NODE.err in the campaign's directory. */
static void node_ended(struct fleet_campaign *c, struct fleet_node *n,
		       struct found *f, int status)
{
	static const char *const ext[] = {"json", "rc", "err"};

	for (int k = 0; k < 3; k++) {
		char *path = fleet_node_file(c, n, ext[k]);
		FILE *out = path ? fopen(path, "w") : NULL;
		if (out) {
			if (k == 0)
				fputs(f->doc.len ? f->doc.buf : "", out);
			else if (k == 1)
				fprintf(out, "%d\n", status);
			else
				fprintf(out, "%s\n", f->tail);
			fclose(out);
		}
		free(path);
	}
	f->ended = 1;
	fleet_take_document(c, n, f->doc.len ? f->doc.buf : NULL, status,
			    f->tail);
	strbuf_release(&f->doc);
}

/*
 * Without -b, clush prefixes every line a node prints with "host: ", so
 * whatever a node prints lands only in its own document: a node cannot
 * forge a header, or an exit line, that gives its text to another (a
 * host name has no space, so the first space ends the prefix). A node's
 * exit line ends its document: it is taken then, as the node finishes.
 */
static void out_line(struct fleet_campaign *c, struct reading *r, char *line)
{
	char *sp = strchr(line, ' ');
	struct fleet_node *n;
	struct found *f;

	if (!sp || sp == line || sp[-1] != ':')
		return;
	n = find(&r->bn, line, (size_t)(sp - 1 - line));
	if (!n)
		return;
	f = &r->fd[n - c->node];
	if (f->ended)
		return;
	if (!strncmp(sp + 1, EXIT_LINE, strlen(EXIT_LINE))) {
		int status = atoi(sp + 1 + strlen(EXIT_LINE));
		if (!status || *f->tail) {
			node_ended(c, n, f, status);
		} else if (!f->exit_at) {
			f->exit_status = status;
			f->exit_at = clock_now();
			r->waiting++;
		}
		return;
	}
	strbuf_addstr(&f->doc, sp + 1);
	strbuf_addch(&f->doc, '\n');
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

static void err_line(const struct byname *bn, struct found *fd, char *line)
{
	char name[256];
	int code;

	if (sscanf(line, "clush: %255[^:]: exited with exit code %d", name,
		   &code) == 2) {
		each_host(bn, fd, name, code, 0);
	} else if (sscanf(line, "clush: %255[^:]: command timeout", name) ==
		   1) {
		each_host(bn, fd, name, 0, 1);
	} else if (sscanf(line, "%255[^:]: ", name) == 1) {
		struct fleet_node *n = find(bn, name, strlen(name));
		if (n)
			snprintf(fd[n - bn->c->node].tail, sizeof(fd[0].tail),
				 "%s", line + strlen(name) + 2);
	}
}

/* Takes the nodes that said they failed: all, or those waiting a second. */
static void take_waiting(struct reading *r, int all)
{
	struct fleet_campaign *c = r->bn.c;
	double now = clock_now();

	for (int i = 0; r->waiting && i < c->n; i++) {
		struct found *f = &r->fd[i];
		if (f->ended || !f->exit_at ||
		    (!all && !*f->tail && now - f->exit_at < 1.0))
			continue;
		r->waiting--;
		node_ended(c, &c->node[i], f, f->exit_status);
	}
}

static void on_line(void *arg, int stream, char *text)
{
	struct reading *r = arg;

	if (stream == 0)
		out_line(r->bn.c, r, text);
	else
		err_line(&r->bn, r->fd, text);
	if (stream == 1 && r->waiting)
		take_waiting(r, 0);
}

/* Asked every 250 ms while clush runs. */
static int stopped(void *arg)
{
	struct reading *r = arg;

	if (r->waiting)
		take_waiting(r, 0);
	return *r->bn.c->stop != 0;
}

/* The remote command: numalab's document, then the exit line. */
static void remote_command(struct fleet_campaign *c, struct strbuf *cmd)
{
	strbuf_addstr(cmd,
		      "NUMALAB_FLEET_ENGINE=clush NUMALAB_FLEET_CAMPAIGN=");
	add_quoted(cmd, c->id);
	/* the exec worker runs every "node" here: say which one it stands for
	 */
	if (c->clush_worker && !strcmp(c->clush_worker, "exec"))
		strbuf_addstr(cmd, "NUMALAB_FLEET_NODE=%h ");
	add_quoted(cmd, c->bin);
	strbuf_addstr(cmd, "run --json ");
	add_quoted(cmd, c->experiment);
	for (int i = 0; i < c->nkv; i++)
		add_quoted(cmd, c->kv[i]);
	strbuf_addstr(cmd, "; echo \"" EXIT_LINE "$?\"");
}

/* A node clush ended without its exit line: why. */
static void left_over(struct fleet_campaign *c, struct fleet_node *n,
		      struct found *f)
{
	if (*c->stop)
		fleet_cancel(c, n, "cancelled (%s)",
			     c->stopped_by ? c->stopped_by : "Ctrl-C");
	else if (f->timeout)
		fleet_fail(c, n, "timed out after %d s (clush -u)",
			   c->timeout_s);
	else if (f->status == 255)
		fleet_fail(c, n, "ssh failed%s%s", *f->tail ? ": " : "",
			   f->tail);
	else
		fleet_take_document(c, n, f->doc.len ? f->doc.buf : NULL,
				    f->status < 0 ? 0 : f->status, f->tail);
}

int fleet_clush_run(struct fleet_campaign *c, struct errinfo *err)
{
	struct strvec names = STRVEC_INIT, av = STRVEC_INIT;
	struct strbuf cmd = STRBUF_INIT;
	struct reading r = {0};
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
	if (!fleet_in_path("clush")) {
		return errinfo_set(err, "engine",
				   "cannot run clush: it is not in PATH "
				   "(install ClusterShell: apt install "
				   "clustershell)"),
		       -EIO;
	}
	r.fd = calloc((size_t)c->n, sizeof(*r.fd));
	if (!r.fd || byname_init(&r.bn, c)) {
		free(r.fd);
		return errinfo_set(err, NULL, "out of memory");
	}
	for (int i = 0; i < c->n; i++) {
		strbuf_init(&r.fd[i].doc);
		r.fd[i].status = -1;
		c->node[i].state = FLEET_RUNNING;
	}
	if (c->planned && (rc = c->planned(c, err)))
		goto out;
	remote_command(c, &cmd);
	strvec_push(&av, "clush");
	if (c->clush_worker) {
		strvec_push(&av, "-R");
		strvec_push(&av, c->clush_worker);
	}
	strvec_push(&av, "-w");
	strvec_push(&av, c->nodes);
	strvec_pushf(&av, "-u%d", c->timeout_s);
	strvec_push(&av, cmd.buf);
	for (int i = 0; i < c->n; i++)
		fleet_progress(c, &c->node[i], "started through clush");
	rc = fleet_exec_lines(av.v, on_line, stopped, &r);
	if (rc < 0 || rc == 127) {
		rc = errinfo_set(err, "engine", "cannot run clush: %s",
				 rc < 0 ? strerror(-rc) : "exit status 127");
		goto out;
	}
	rc = 0;
	take_waiting(&r, 1);
	for (int i = 0; i < c->n; i++)
		if (!r.fd[i].ended)
			left_over(c, &c->node[i], &r.fd[i]);
out:
	for (int i = 0; r.fd && i < c->n; i++)
		strbuf_release(&r.fd[i].doc);
	free(r.fd);
	free(r.bn.v);
	strvec_clear(&av);
	strbuf_release(&cmd);
	return rc;
}
