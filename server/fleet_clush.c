/* fleet_clush.c - the ClusterShell engine: one `clush -w LIST -b` for a room of machines over SSH */
#include "fleet.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleet_exec.h"
#include "hostlist.h"
#include "strbuf.h"
#include "strvec.h"

#define CLUSH_RULE "---------------"

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

static struct fleet_node *find(struct fleet_campaign *c, const char *name)
{
	for (int i = 0; i < c->n; i++)
		if (!strcmp(c->node[i].name, name))
			return &c->node[i];
	return NULL;
}

struct found {
	char *doc;  /* what the node printed */
	int status; /* its exit code; -1: not said */
	char tail[300];
	int timeout;
};

/* clush -b: "RULE\nhosts (n)\nRULE\noutput..." per group of hosts with the same
 * output. */
static void parse_out(struct fleet_campaign *c, struct found *fd, char *out)
{
	char *p = out;

	while (p && (p = strstr(p, CLUSH_RULE "\n"))) {
		char *hosts = p + sizeof(CLUSH_RULE),
		     *eol = strchr(hosts, '\n'), *body, *end;
		struct strvec names = STRVEC_INIT;
		struct errinfo err;
		if (!eol ||
		    strncmp(eol + 1, CLUSH_RULE "\n", sizeof(CLUSH_RULE)))
			break;
		*eol = '\0';
		hosts[strcspn(hosts, " ")] = '\0';
		body = eol + 1 + sizeof(CLUSH_RULE);
		end = strstr(body, "\n" CLUSH_RULE "\n");
		p = end ? end + 1 : NULL;
		size_t len = end ? (size_t)(end + 1 - body) : strlen(body);
		if (!hostlist_expand(hosts, &names, &err))
			for (size_t k = 0; k < names.n; k++) {
				struct fleet_node *n = find(c, names.v[k]);
				if (n) {
					free(fd[n - c->node].doc);
					fd[n - c->node].doc =
						strndup(body, len);
				}
			}
		strvec_clear(&names);
	}
}

/* stderr: "host: text" from the node, "clush: host: exited with exit code N"
 * from clush */
/* clush names hosts with the same outcome as one host list: lab[01-02] */
static void each_host(struct fleet_campaign *c, struct found *fd,
		      const char *hosts, int status, int timeout)
{
	struct strvec names = STRVEC_INIT;
	struct errinfo err;
	char list[256];

	/* "lab[01-02] (2)": the list, then how many */
	snprintf(list, sizeof(list), "%.*s", (int)strcspn(hosts, " "), hosts);
	if (!hostlist_expand(list, &names, &err))
		for (size_t k = 0; k < names.n; k++) {
			struct fleet_node *n = find(c, names.v[k]);
			if (n && timeout)
				fd[n - c->node].timeout = 1;
			else if (n)
				fd[n - c->node].status = status;
		}
	strvec_clear(&names);
}

static void parse_err(struct fleet_campaign *c, struct found *fd, char *err)
{
	for (char *line = err, *next; line && *line; line = next) {
		char name[256];
		int code;
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (sscanf(line, "clush: %255[^:]: exited with exit code %d",
			   name, &code) == 2) {
			each_host(c, fd, name, code, 0);
		} else if (sscanf(line, "clush: %255[^:]: command timeout",
				  name) == 1) {
			each_host(c, fd, name, 0, 1);
		} else if (sscanf(line, "%255[^:]: ", name) == 1) {
			struct fleet_node *n = find(c, name);
			if (n)
				snprintf(fd[n - c->node].tail,
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
	if (!fd)
		return errinfo_set(err, NULL, "out of memory");

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
	strvec_push(&av, "-b");
	strvec_pushf(&av, "-u%d", c->timeout_s);
	strvec_push(&av, cmd.buf);
	for (int i = 0; i < c->n; i++) {
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
		parse_out(c, fd, out.buf);
	if (eout.buf)
		parse_err(c, fd, eout.buf);
	for (int i = 0; i < c->n; i++) {
		struct fleet_node *n = &c->node[i];
		if (*c->stop && !fd[i].doc)
			fleet_fail(c, n, "cancelled (Ctrl-C)");
		else if (fd[i].timeout)
			fleet_fail(c, n, "timed out after %d s (clush -u)",
				   c->timeout_s);
		else if (!fd[i].doc && fd[i].status == 255)
			fleet_fail(c, n, "ssh failed%s%s",
				   *fd[i].tail ? ": " : "", fd[i].tail);
		else
			fleet_take_document(c, n, fd[i].doc,
					    fd[i].status < 0 ? 0 : fd[i].status,
					    fd[i].tail);
	}
out:
	for (int i = 0; i < c->n; i++)
		free(fd[i].doc);
	free(fd);
	strvec_clear(&av);
	strbuf_release(&cmd);
	strbuf_release(&out);
	strbuf_release(&eout);
	return rc;
}
