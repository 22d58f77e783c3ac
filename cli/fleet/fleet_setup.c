/* fleet_setup.c - a campaign's request checked and its directory made, before any job */
#include "fleet_setup.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "params.h"
#include "store.h"
#include "strbuf.h"

/*
 * Each k=v names a parameter of e once, with a value its row takes, that
 * the run it asks for reads (experiment_check_elsewhere). What
 * depends on a node's machine (threads past its cpus, a node it lacks) is
 * for the node to judge; what no machine takes (threads=0, a malformed
 * list) is refused here, before any job starts.
 */
int fleet_check_params(const struct experiment *e, char **kv, int nkv)
{
	struct param_value *v = malloc(sizeof(*v));
	struct errinfo err;
	int rc = 0;

	for (int i = 0; !rc && i < nkv; i++) {
		const char *eq = strchr(kv[i], '=');
		const struct param *p =
			eq ? experiment_param(e, kv[i], (size_t)(eq - kv[i]))
			   : NULL;
		rc = 2;
		if (!eq)
			fprintf(stderr, "numalab fleet: '%s' is not k=v\n",
				kv[i]);
		else if (!p)
			fprintf(stderr,
				"numalab fleet: experiment '%s' has no parameter '%.*s'\n",
				e->name, (int)(eq - kv[i]), kv[i]);
		else if (!v)
			fprintf(stderr, "numalab fleet: out of memory\n");
		else if (param_parse_value(p, eq + 1, v, &err))
			fprintf(stderr, "numalab fleet: %s\n", err.msg);
		else
			rc = 0;
		for (int j = 0; !rc && j < i; j++)
			if (!strncmp(kv[j], kv[i], (size_t)(eq - kv[i]) + 1)) {
				fprintf(stderr,
					"numalab fleet: '%s' is given twice\n",
					p->name);
				rc = 2;
			}
	}
	/* and each one read by the run it asks for: none silently dropped */
	if (!rc && experiment_check_elsewhere(e, nkv, kv, &err)) {
		fprintf(stderr, "numalab fleet: %s\n", err.msg);
		rc = 2;
	}
	free(v);
	return rc;
}

/* Whether path is a directory with nothing in it. */
static int empty_dir(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;
	int empty = d != NULL;

	while (d && (e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			empty = 0;
	if (d)
		closedir(d);
	return empty;
}

/*
 * The campaign's id (given, or the time and a random tag: it sorts by
 * time and is unique enough across login nodes) and its directory, made
 * (*made) or found empty: a campaign's files never go over another's,
 * nor into a file. 0, or 2 said.
 */
int fleet_campaign_dir(struct fleet_campaign *c, const char *dir,
		       const char *id, int *made)
{
	struct strbuf sb = STRBUF_INIT;
	time_t now = time(NULL);
	struct tm tm;
	int rc = -1;

	gmtime_r(&now, &tm);
	srand((unsigned)(now ^ getpid()));
	if (id)
		snprintf(c->id, sizeof(c->id), "%s", id);
	else
		snprintf(c->id, sizeof(c->id), "%04d%02d%02d-%02d%02d%02d-%04x",
			 tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
			 tm.tm_hour, tm.tm_min, tm.tm_sec, rand() & 0xffff);
	store_timestamp(c->created_at, sizeof(c->created_at));
	if (dir)
		strbuf_addstr(&sb, dir);
	else
		strbuf_addf(&sb, "numalab-campaigns/%s", c->id);
	if (!dir)
		mkdir("numalab-campaigns", 0755);
	*made = mkdir(sb.buf, 0755) == 0;
	if (!*made && errno == EEXIST && !empty_dir(sb.buf))
		fprintf(stderr,
			"numalab fleet: '%s' exists and is not an empty directory: "
			"a campaign's files are never written over another's "
			"(give a new --dir%s)\n",
			sb.buf, id ? " or --id" : "");
	else if (!*made && errno != EEXIST)
		fprintf(stderr,
			"numalab fleet: cannot make the campaign directory '%s': %s\n",
			sb.buf, strerror(errno));
	else if (!(c->dir = realpath(sb.buf, NULL)))
		fprintf(stderr, "numalab fleet: cannot use '%s': %s\n", sb.buf,
			strerror(errno));
	else
		rc = 0;
	strbuf_release(&sb);
	return rc ? 2 : 0;
}
