/* fleet_slurm.c - the Slurm engine: sinfo, one exclusive sbatch per node, squeue, scancel */
#include "clock.h"
#include "fleet.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "fleet_exec.h"
#include "hostlist.h"
#include "strbuf.h"
#include "strvec.h"

/* The job every node runs: numalab's document into the shared directory. */
static const char job_script[] =
	"#!/bin/sh\n"
	"# numalab fleet: one node's run; args: NUMALAB OUT EXPERIMENT k=v...\n"
	"bin=$1; out=$2; shift 2\n"
	"\"$bin\" run --json \"$@\" >\"$out.json.part\" 2>\"$out.err\"\n"
	"rc=$?\n"
	"mv \"$out.json.part\" \"$out.json\"\n"
	"echo $rc >\"$out.rc\"\n"
	"exit $rc\n";

/* sinfo's compact states in which a node takes no job */
static int unavailable(const char *state)
{
	static const char *const bad[] = {"down",  "drain", "drng",  "fail",
					  "maint", "unk",   "inval", "futr",
					  "pow",   NULL};
	for (int i = 0; bad[i]; i++)
		if (!strncmp(state, bad[i], strlen(bad[i])))
			return 1;
	return 0;
}

static int final_state(const char *s)
{
	static const char *const fin[] = {
		"COMPLETED", "FAILED",	  "CANCELLED",	   "TIMEOUT",
		"NODE_FAIL", "PREEMPTED", "OUT_OF_MEMORY", "BOOT_FAIL",
		"DEADLINE",  NULL};
	for (int i = 0; fin[i]; i++)
		if (!strcmp(s, fin[i]))
			return 1;
	return 0;
}

/* squeue reasons for a pending job that will never start as asked */
static int hopeless(const char *reason)
{
	static const char *const never[] = {"PartitionTimeLimit",
					    "PartitionNodeLimit",
					    "PartitionConfig",
					    "BadConstraints",
					    "InvalidAccount",
					    "InvalidQOS",
					    "AccountNotAllowed",
					    "QOSMaxWallDurationPerJobLimit",
					    NULL};
	for (int i = 0; never[i]; i++)
		if (!strcmp(reason, never[i]))
			return 1;
	return 0;
}

struct sinfo_row {
	char name[256], partition[128], features[512], state[32], reason[256];
};

/* Nodes from `sinfo -N`, one row per node (the first partition that lists it).
 */
static int list_nodes(struct fleet_campaign *c, struct sinfo_row **rows,
		      int *nrows, struct errinfo *err)
{
	struct strbuf out = STRBUF_INIT, eout = STRBUF_INIT;
	struct strvec av = STRVEC_INIT;
	char last[256];
	int rc;

	strvec_push(&av, "sinfo");
	strvec_push(&av, "-h");
	strvec_push(&av, "-N");
	strvec_push(&av, "-o");
	strvec_push(&av, "%N|%P|%f|%t|%E");
	if (c->partition) {
		strvec_push(&av, "-p");
		strvec_push(&av, c->partition);
	}
	rc = fleet_exec(av.v, &out, &eout);
	strvec_clear(&av);
	if (rc) {
		fleet_last_line(eout.buf ? eout.buf : "", last, sizeof(last));
		errinfo_set(err, "engine", "sinfo failed (status %d): %s", rc,
			    *last ? last : "no message");
		rc = -EIO;
		goto out;
	}
	*rows = NULL;
	*nrows = 0;
	for (char *line = out.buf, *next; line && *line; line = next) {
		struct sinfo_row r;
		char *f[5];
		int k = 0, dup = 0;
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		for (char *p = line; k < 5; k++) {
			f[k] = p;
			p = k < 4 ? strchr(p, '|') : NULL;
			if (!p)
				break;
			*p++ = '\0';
		}
		if (k < 4)
			continue;
		snprintf(r.name, sizeof(r.name), "%s", f[0]);
		snprintf(r.partition, sizeof(r.partition), "%s", f[1]);
		r.partition[strcspn(r.partition, "*")] = '\0';
		snprintf(r.features, sizeof(r.features), "%s",
			 strcmp(f[2], "(null)") ? f[2] : "");
		snprintf(r.state, sizeof(r.state), "%s", f[3]);
		snprintf(r.reason, sizeof(r.reason), "%s", k == 4 ? f[4] : "");
		if (!strcmp(r.reason, "none"))
			r.reason[0] = '\0';
		for (int i = 0; i < *nrows; i++)
			dup |= !strcmp((*rows)[i].name, r.name);
		if (dup)
			continue;
		struct sinfo_row *grown =
			realloc(*rows, sizeof(r) * (size_t)(*nrows + 1));
		if (!grown) {
			rc = errinfo_set(err, NULL, "out of memory");
			goto out;
		}
		*rows = grown;
		(*rows)[(*nrows)++] = r;
	}
out:
	strbuf_release(&out);
	strbuf_release(&eout);
	return rc;
}

/* The nodes the request names, in its order; unknown names are an error. */
static int choose_nodes(struct fleet_campaign *c, struct sinfo_row *rows,
			int nrows, struct errinfo *err)
{
	struct strvec want = STRVEC_INIT;
	int rc = 0;

	if (c->nodes) {
		rc = hostlist_expand(c->nodes, &want, err);
		if (rc)
			return rc == -EINVAL ? rc
					     : errinfo_set(err, NULL,
							   "out of memory");
	} else {
		for (int i = 0; i < nrows; i++)
			strvec_push(&want, rows[i].name);
	}
	/* every name checked before any node is taken */
	for (size_t w = 0; w < want.n && !rc; w++) {
		int found = 0;
		for (int i = 0; i < nrows; i++)
			found |= !strcmp(rows[i].name, want.v[w]);
		if (!found)
			rc = errinfo_set(err, "nodes",
					 "sinfo lists no node '%s'%s%s%s",
					 want.v[w],
					 c->partition ? " in partition '" : "",
					 c->partition ? c->partition : "",
					 c->partition ? "'" : "");
	}
	for (size_t w = 0; w < want.n && !rc; w++) {
		struct sinfo_row *r = NULL;
		for (int i = 0; i < nrows; i++)
			if (!strcmp(rows[i].name, want.v[w]))
				r = &rows[i];
		if (c->constraint &&
		    !fleet_features_match(r->features, c->constraint))
			continue;
		if (fleet_node_add(c, r->name, r->partition, r->features))
			rc = errinfo_set(err, NULL, "out of memory");
		else if (unavailable(r->state))
			fleet_fail(c, &c->node[c->n - 1],
				   "node is %s%s%s, nothing was submitted",
				   r->state, *r->reason ? ": " : "", r->reason);
	}
	if (!rc && !c->n && c->constraint)
		rc = errinfo_set(err, "constraint",
				 "no node has feature '%s'%s", c->constraint,
				 c->nodes ? " among those named" : "");
	else if (!rc && !c->n)
		rc = errinfo_set(
			err, "partition",
			"sinfo lists no node%s%s%s (is the partition's "
			"name right? sinfo -s lists them)",
			c->partition ? " in partition '" : "",
			c->partition ? c->partition : "",
			c->partition ? "'" : "");
	strvec_clear(&want);
	return rc;
}

static void cancel_all(struct fleet_campaign *c)
{
	struct strvec av = STRVEC_INIT;

	strvec_push(&av, "scancel");
	for (int i = 0; i < c->n; i++)
		if (*c->node[i].job_id && c->node[i].state < FLEET_DONE)
			strvec_push(&av, c->node[i].job_id);
	if (av.n > 1)
		fleet_exec(av.v, NULL, NULL);
	strvec_clear(&av);
}

extern char **environ;

/*
 * What a job's environment holds: what its script's shell and numalab read
 * (the PATH for mv, the locale, the cache directory for the rates, numalab's
 * and hwloc's own settings, the campaign's NUMALAB_FLEET_*), never the rest
 * of the coordinator's. Slurm adds its SLURM_* itself. The server's token is
 * left out by name even if it got past the scrub.
 */
static const char *const job_env[] = {
	"PATH",	      "HOME", "LANG",	"LC_ALL",	  "LC_CTYPE",
	"LC_NUMERIC", "TZ",   "TMPDIR", "XDG_CACHE_HOME", "LD_LIBRARY_PATH",
	NULL};
static const char *const job_env_prefix[] = {"NUMALAB_", "HWLOC_", NULL};

/* --export=NAME,NAME...: the names of job_env and job_env_prefix that are
 * set here, their values taken by sbatch (a value may hold a comma); never
 * empty, as submit sets NUMALAB_FLEET_* first. */
static void export_list(struct strbuf *sb)
{
	const char *sep = "";

	strbuf_addstr(sb, "--export=");
	for (char **e = environ; e && *e; e++) {
		size_t n = strcspn(*e, "=");
		int keep = 0;
		if (!(*e)[n] || (n == 13 && !strncmp(*e, "NUMALAB_TOKEN", 13)))
			continue;
		for (int i = 0; job_env[i] && !keep; i++)
			keep = strlen(job_env[i]) == n &&
			       !strncmp(*e, job_env[i], n);
		for (int i = 0; job_env_prefix[i] && !keep; i++)
			keep = !strncmp(*e, job_env_prefix[i],
					strlen(job_env_prefix[i]));
		if (keep) {
			strbuf_addf(sb, "%s%.*s", sep, (int)n, *e);
			sep = ",";
		}
	}
}

static int submit(struct fleet_campaign *c, struct fleet_node *n,
		  const char *script)
{
	struct strbuf exports = STRBUF_INIT;
	struct strbuf out = STRBUF_INIT, eout = STRBUF_INIT;
	struct strvec av = STRVEC_INIT;
	char last[300];
	int rc;

	/* the job gets these (export_list): where it ran goes into its
	 * document */
	setenv("NUMALAB_FLEET_ENGINE", "slurm", 1);
	setenv("NUMALAB_FLEET_CAMPAIGN", c->id, 1);
	setenv("NUMALAB_FLEET_FEATURES", n->features, 1);
	setenv("NUMALAB_FLEET_EXCLUSIVE", "1", 1);
	strvec_push(&av, "sbatch");
	strvec_push(&av, "--parsable");
	strvec_push(&av, "--exclusive");
	strvec_pushf(&av, "--nodelist=%s", n->name);
	strvec_push(&av, "--nodes=1");
	strvec_pushf(&av, "--job-name=numalab-%s", c->id);
	strvec_pushf(&av, "--output=%s/%s.slurm.out", c->dir, n->name);
	export_list(&exports);
	strvec_push(&av, exports.buf);
	strbuf_release(&exports);
	if (n->partition)
		strvec_pushf(&av, "--partition=%s", n->partition);
	if (c->constraint)
		strvec_pushf(&av, "--constraint=%s", c->constraint);
	strvec_push(&av, script);
	strvec_push(&av, c->bin);
	strvec_pushf(&av, "%s/%s", c->dir, n->name);
	strvec_push(&av, c->experiment);
	for (int i = 0; i < c->nkv; i++)
		strvec_push(&av, c->kv[i]);
	rc = fleet_exec(av.v, &out, &eout);
	strvec_clear(&av);
	if (rc) {
		fleet_last_line(eout.buf ? eout.buf : "", last, sizeof(last));
		fleet_fail(c, n, "sbatch refused the job (status %d): %s", rc,
			   last);
	} else {
		fleet_last_line(out.buf ? out.buf : "", last, sizeof(last));
		/* --parsable: "id" or "id;cluster" */
		last[strcspn(last, ";")] = '\0';
		snprintf(n->job_id, sizeof(n->job_id), "%s", last);
		n->exclusive = 1;
		fleet_progress(c, n, "submitted as job %s", n->job_id);
		fleet_changed(c, n);
	}
	strbuf_release(&out);
	strbuf_release(&eout);
	return rc;
}

static char *slurp(const char *dir, const char *name, const char *ext)
{
	struct strbuf sb = STRBUF_INIT, path = STRBUF_INIT;
	char buf[65536];
	size_t k;
	FILE *f;

	strbuf_addf(&path, "%s/%s.%s", dir, name, ext);
	f = fopen(path.buf, "r");
	strbuf_release(&path);
	if (!f)
		return NULL;
	while ((k = fread(buf, 1, sizeof(buf), f)) > 0)
		strbuf_add(&sb, buf, k);
	fclose(f);
	return strbuf_detach(&sb);
}

/* The job left squeue or ended: what did numalab leave in the directory? */
static void collect(struct fleet_campaign *c, struct fleet_node *n,
		    const char *jstate)
{
	char *rc_text = slurp(c->dir, n->name, "rc");
	char *doc = slurp(c->dir, n->name, "json");
	char *errs = slurp(c->dir, n->name, "err");
	char tail[300] = "";

	if (errs)
		fleet_last_line(errs, tail, sizeof(tail));
	if (!rc_text) {
		char *so = slurp(c->dir, n->name, "slurm.out");
		char sl[300] = "";
		if (so)
			fleet_last_line(so, sl, sizeof(sl));
		fleet_fail(c, n, "job %s ended %s before numalab finished%s%s",
			   n->job_id, jstate ? jstate : "(gone from squeue)",
			   *sl ? ": " : "", sl);
		free(so);
	} else {
		fleet_take_document(c, n, doc, atoi(rc_text), tail);
	}
	free(rc_text);
	free(doc);
	free(errs);
}

/* "job 12 pending (Resources)": squeue's state in lower case, and its
 * reason when it has one ("None" is none) */
static void say_waiting(struct fleet_campaign *c, struct fleet_node *n,
			const char *state, const char *reason)
{
	char lower[40];
	size_t i;

	for (i = 0; state[i] && i < sizeof(lower) - 1; i++)
		lower[i] = (char)(state[i] >= 'A' && state[i] <= 'Z'
					  ? state[i] - 'A' + 'a'
					  : state[i]);
	lower[i] = '\0';
	if (!*reason || !strcmp(reason, "None") || !strcmp(reason, "(null)"))
		fleet_progress(c, n, "job %s %s", n->job_id,
			       *lower ? lower : "pending");
	else
		fleet_progress(c, n, "job %s %s (%s)", n->job_id,
			       *lower ? lower : "pending", reason);
}

/* The jobs not done yet, comma-separated into ids: how many. */
static int open_jobs(const struct fleet_campaign *c, struct strbuf *ids)
{
	int n = 0;

	for (int i = 0; i < c->n; i++)
		if (c->node[i].state < FLEET_DONE && *c->node[i].job_id) {
			strbuf_addf(ids, "%s%s", n ? "," : "",
				    c->node[i].job_id);
			n++;
		}
	return n;
}

static void scancel(const char *job_id)
{
	struct strvec sc = STRVEC_INIT;

	strvec_push(&sc, "scancel");
	strvec_push(&sc, job_id);
	fleet_exec(sc.v, NULL, NULL);
	strvec_clear(&sc);
}

/* Ctrl-C (or a cancel from the server): every open job cancelled. */
static void stop_jobs(struct fleet_campaign *c)
{
	cancel_all(c);
	for (int i = 0; i < c->n; i++)
		if (c->node[i].state < FLEET_DONE && *c->node[i].job_id)
			fleet_cancel(c, &c->node[i],
				     "cancelled (%s): scancel %s",
				     c->stopped_by ? c->stopped_by : "Ctrl-C",
				     c->node[i].job_id);
}

/* The time is up: every open job failed, and cancelled. */
static void time_out(struct fleet_campaign *c)
{
	for (int i = 0; i < c->n; i++)
		if (c->node[i].state < FLEET_DONE && *c->node[i].job_id)
			fleet_fail(
				c, &c->node[i],
				"timed out after %d s (job %s was %s), cancelled",
				c->timeout_s, c->node[i].job_id,
				c->node[i].state == FLEET_RUNNING ? "running"
								  : "pending");
	for (int i = 0; i < c->n; i++)
		if (c->node[i].state == FLEET_FAILED && *c->node[i].job_id)
			scancel(c->node[i].job_id);
}

/* What squeue's lines (id|state|reason) say of n's job now. */
static void job_seen(struct fleet_campaign *c, struct fleet_node *n,
		     const char *out)
{
	char key[40], state[40] = "", reason[200] = "";
	const char *line = NULL;

	snprintf(key, sizeof(key), "%s|", n->job_id);
	for (const char *p = out; p && *p;
	     p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if (!strncmp(p, key, strlen(key)))
			line = p + strlen(key);
	if (line)
		sscanf(line, "%39[^|\n]|%199[^\n]", state, reason);
	if (!line || final_state(state)) {
		collect(c, n, line ? state : NULL);
	} else if (!strcmp(state, "RUNNING") || !strcmp(state, "COMPLETING")) {
		n->state = FLEET_RUNNING;
		fleet_progress(c, n, "job %s running", n->job_id);
		fleet_changed(c, n);
	} else if (hopeless(reason)) {
		scancel(n->job_id);
		fleet_fail(c, n, "job %s can never start: %s, cancelled",
			   n->job_id, reason);
	} else {
		say_waiting(c, n, state, reason);
	}
}

/*
 * One squeue of the jobs in ids, each open node updated. 0, or 1 when
 * squeue failed (slurmctld busy or restarting), its last line in last.
 */
static int poll_jobs(struct fleet_campaign *c, const char *ids, char *last,
		     size_t len)
{
	struct strbuf out = STRBUF_INIT, eout = STRBUF_INIT;
	struct strvec av = STRVEC_INIT;
	int rc;

	strvec_push(&av, "squeue");
	strvec_push(&av, "-h");
	strvec_push(&av, "--states=all");
	strvec_pushf(&av, "--jobs=%s", ids);
	strvec_push(&av, "-o");
	strvec_push(&av, "%i|%T|%r");
	rc = fleet_exec(av.v, &out, &eout);
	strvec_clear(&av);
	if (rc && !(eout.buf && strstr(eout.buf, "Invalid job id"))) {
		fleet_last_line(eout.buf ? eout.buf : "", last, len);
		rc = 1;
	} else {
		for (int i = 0; i < c->n; i++)
			if (c->node[i].state < FLEET_DONE && *c->node[i].job_id)
				job_seen(c, &c->node[i], out.buf);
		rc = 0;
	}
	strbuf_release(&out);
	strbuf_release(&eout);
	return rc;
}

/* Polls squeue until every job ended, the time is up, or Ctrl-C. */
static int follow(struct fleet_campaign *c, struct errinfo *err)
{
	char last[300];
	int misses = 0;

	for (;;) {
		struct strbuf ids = STRBUF_INIT;
		int n = open_jobs(c, &ids), stop = *c->stop, failed = 0;
		int late = clock_now() - c->t0 > c->timeout_s;

		if (n && !stop && !late)
			failed = poll_jobs(c, ids.buf, last, sizeof(last));
		else if (n && stop)
			stop_jobs(c);
		else if (n)
			time_out(c);
		strbuf_release(&ids);
		if (!n || stop || late)
			return 0;
		/* slurmctld busy or restarting: keep trying a while */
		misses = failed ? misses + 1 : 0;
		if (misses > 20) {
			cancel_all(c);
			return errinfo_set(err, "engine",
					   "squeue keeps failing: %s", last);
		}
		usleep(300 * 1000);
	}
}

int fleet_slurm_run(struct fleet_campaign *c, struct errinfo *err)
{
	struct sinfo_row *rows = NULL;
	int nrows = 0, rc;
	struct strbuf script = STRBUF_INIT;
	FILE *f;

	errinfo_clear(err);
	rc = list_nodes(c, &rows, &nrows, err);
	if (!rc)
		rc = choose_nodes(c, rows, nrows, err);
	free(rows);
	if (rc)
		return rc;
	/* the cluster's name, for the record */
	{
		struct strbuf out = STRBUF_INIT;
		char *av[] = {"scontrol", "show", "config", NULL};
		if (fleet_exec(av, &out, NULL) == 0 && out.buf) {
			char *p = strstr(out.buf, "ClusterName");
			if (p && (p = strchr(p, '=')))
				sscanf(p + 1, " %127s", c->cluster);
		}
		strbuf_release(&out);
	}
	if (c->planned && (rc = c->planned(c, err)))
		return rc;
	strbuf_addf(&script, "%s/job.sh", c->dir);
	f = fopen(script.buf, "w");
	if (!f || fputs(job_script, f) < 0 || fclose(f) ||
	    chmod(script.buf, 0755)) {
		rc = errinfo_set(err, "dir", "cannot write '%s': %s",
				 script.buf, strerror(errno));
		strbuf_release(&script);
		return -EIO;
	}
	for (int i = 0; i < c->n && !*c->stop; i++)
		if (c->node[i].state == FLEET_PENDING)
			submit(c, &c->node[i], script.buf);
	strbuf_release(&script);
	return follow(c, err);
}
