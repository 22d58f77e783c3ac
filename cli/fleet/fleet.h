/* fleet.h - a campaign: one experiment on many machines through an engine (Slurm, ClusterShell) */
#ifndef NUMALAB_FLEET_H
#define NUMALAB_FLEET_H

#include <signal.h>
#include <stdint.h>

#include <jansson.h>

#include "errinfo.h"

enum fleet_state {
	FLEET_PENDING,
	FLEET_RUNNING,
	FLEET_DONE,
	FLEET_FAILED,
	FLEET_CANCELLED
};

/* The names the store and the API give the states, by enum fleet_state. */
extern const char *const fleet_state_names[];

struct fleet_sink;

struct fleet_node {
	char *name; /* as the engine knows it */
	char *partition;
	char *features; /* comma-separated, as sinfo gives them */
	char job_id[32];
	enum fleet_state state;
	char reason[512]; /* why it failed */
	char shown[96];	  /* the last progress line said, to say changes only */
	int exclusive;
	json_t *doc;	/* its run document, once collected */
	int64_t run_id; /* once imported; 0 before */
	/* what was last handed to the sink, to hand over changes only */
	int sent_state;
	char sent_job[32];
};

struct fleet_campaign {
	char id[64];
	const char *engine; /* "slurm" or "clush" */
	char cluster[128];
	const char *experiment;
	char **kv; /* k=v for `numalab run` */
	int nkv;
	char created_at[40];
	char finished_at[40];
	char *dir; /* the campaign's directory (shared with Slurm's nodes) */
	const char *bin; /* numalab on the nodes */
	const char *partition, *constraint, *nodes;
	int all;
	const char *clush_worker; /* clush -R WORKER; NULL: its default (ssh) */
	int timeout_s;
	struct fleet_node *node;
	int n;
	volatile sig_atomic_t *stop; /* Ctrl-C, SIGTERM, a cancel asked for */
	const char *stopped_by;	     /* what stop says: "Ctrl-C", ... */
	double t0;
	char error[600]; /* why the engine refused the whole campaign */
	/* where each change goes as it happens (NULL: nowhere), and what
	 * the engines call once they know their nodes, before any runs:
	 * nonzero (err set) stops the campaign there */
	struct fleet_sink *sink;
	/* how a change is handed to the sink (fleet_sink_node), so that the
	 * campaign calls no code above it */
	void (*hand)(struct fleet_sink *s, struct fleet_node *n, int with_run);
	int live;  /* planned: changes go to the sink from now on */
	int quiet; /* no progress line on stdout (fleet run --plan) */
	int (*planned)(struct fleet_campaign *c, struct errinfo *err);
};

/* Adds a node to c; 0 or -ENOMEM. */
int fleet_node_add(struct fleet_campaign *c, const char *name,
		   const char *partition, const char *features);
/* Says what n is doing now ("job 12 pending (Resources)"), once per change. */
void fleet_progress(struct fleet_campaign *c, struct fleet_node *n,
		    const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Hands n's state to the sink when it changed (the engines call it on a
 * job id or a start; the functions below call it themselves). */
void fleet_changed(struct fleet_campaign *c, struct fleet_node *n);
/* Marks n cancelled with how, and says so. */
void fleet_cancel(struct fleet_campaign *c, struct fleet_node *n,
		  const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Marks n failed with why, and says so. */
void fleet_fail(struct fleet_campaign *c, struct fleet_node *n, const char *fmt,
		...) __attribute__((format(printf, 3, 4)));
/*
 * Takes n's document from text (the output of `numalab run --json`):
 * done when it parses and its status is done, failed with the run's own
 * error otherwise (stderr_tail when there is no document).
 */
void fleet_take_document(struct fleet_campaign *c, struct fleet_node *n,
			 const char *text, int exit_status,
			 const char *stderr_tail);
/* Nodes of c that match the constraint ("a", "a&b", "a|b"): 1 or 0. */
int fleet_features_match(const char *features, const char *constraint);

/*
 * The engines: list the nodes, start one run per node, follow them and
 * collect each node's document. 0; -EINVAL with err set for a request
 * the engine cannot serve (an unknown node, nothing to run on); -EIO
 * with err set when the engine itself fails (sinfo missing).
 */
int fleet_slurm_run(struct fleet_campaign *c, struct errinfo *err);
int fleet_clush_run(struct fleet_campaign *c, struct errinfo *err);

/*
 * fleet run --plan: the nodes the campaign would run on, as the engine
 * lists them (Slurm: sinfo), on stdout as a line of text or as JSON;
 * nothing is started. Returns the exit status (an engine's refusal said).
 */
int fleet_plan(struct fleet_campaign *c, int json);

/* The campaign as the store and the API keep it (campaigns.h). */
json_t *fleet_campaign_json(const struct fleet_campaign *c);
/* The path of n's file ext in the campaign's directory (to free). */
char *fleet_node_file(const struct fleet_campaign *c,
		      const struct fleet_node *n, const char *ext);

/* A running server a campaign delivers into. */
struct fleet_server {
	const char *url;	/* http(s)://HOST[:PORT][/PATH] (url_check.h) */
	const char *token;	/* its bearer token, or NULL */
	const char *ca_file;	/* https: the PEM certificates to trust instead
				   of the system's (a lab's own); NULL: the
				   system's */
	const char *connect_to; /* an address to reach url's host at, its
				   name still the one the certificate must
				   name; NULL: the host itself */
};

/*
 * Whether s is one fleet_deliver_server can use: its url read whole
 * (url_check), --ca-file only for https and readable, --connect-to
 * a host. 0, or -EINVAL with err naming what is wrong and what is allowed.
 */
int fleet_server_check(const struct fleet_server *s, struct errinfo *err);

/* `numalab fleet deliver DIR ...` (fleet_redeliver.c): its exit status. */
int fleet_deliver_cmd(int argc, char **argv);

/* A store file or a server, as fleet_sink delivers into it. */
struct fleet_conn;
/* NULL with err set (a store that cannot be opened). */
struct fleet_conn *fleet_conn_open(const char *db,
				   const struct fleet_server *srv,
				   struct errinfo *err);
void fleet_conn_close(struct fleet_conn *k);
/*
 * One delivery: the campaign's record, or one node's state (body:
 * {"state", "reason", "job_id", "run"}, *run_id the run it has after,
 * *cancel whether a cancel was asked for). 0 delivered; 1 not now (the
 * server away or busy: try again); -1 refused (why says it).
 */
int fleet_conn_record(struct fleet_conn *k, json_t *rec, struct errinfo *err);
int fleet_conn_node(struct fleet_conn *k, const char *cid, const char *node,
		    json_t *body, int64_t *run_id, int *cancel,
		    struct errinfo *err);
/* Whether a cancel of campaign cid was asked for (0 when it cannot be
 * read). */
int fleet_conn_cancelled(struct fleet_conn *k, const char *cid);

#endif
