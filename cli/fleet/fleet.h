/* fleet.h - a campaign: one experiment on many machines through an engine (Slurm, ClusterShell) */
#ifndef NUMALAB_FLEET_H
#define NUMALAB_FLEET_H

#include <signal.h>
#include <stdint.h>

#include <jansson.h>

#include "errinfo.h"

enum fleet_state { FLEET_PENDING, FLEET_RUNNING, FLEET_DONE, FLEET_FAILED };

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
	volatile sig_atomic_t *stop; /* Ctrl-C */
	double t0;
};

/* Adds a node to c; 0 or -ENOMEM. */
int fleet_node_add(struct fleet_campaign *c, const char *name,
		   const char *partition, const char *features);
/* Says what n is doing now ("job 12 pending (Resources)"), once per change. */
void fleet_progress(struct fleet_campaign *c, struct fleet_node *n,
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

/* The campaign as the store and the API keep it (campaigns.h). */
json_t *fleet_campaign_json(const struct fleet_campaign *c);

/* A running server a campaign delivers into. */
struct fleet_server {
	const char *url;	/* http://HOST[:PORT] or https://HOST[:PORT] */
	const char *token;	/* its bearer token, or NULL */
	const char *ca_file;	/* https: the PEM certificates to trust instead
				   of the system's (a lab's own); NULL: the
				   system's */
	const char *connect_to; /* an address to reach url's host at, its
				   name still the one the certificate must
				   name; NULL: the host itself */
};

/*
 * Whether url is one fleet_deliver_server can use: http:// or https://
 * and a host. 0, or -EINVAL with err naming what is allowed.
 */
int fleet_server_check(const struct fleet_server *s, struct errinfo *err);

/*
 * Imports each collected document into the store at db (or the server
 * s), sets each node's run_id, then records the campaign. Over HTTPS the
 * server's certificate is always verified. 0 or -EIO with err set.
 */
int fleet_deliver_db(struct fleet_campaign *c, const char *db,
		     struct errinfo *err);
int fleet_deliver_server(struct fleet_campaign *c, const struct fleet_server *s,
			 struct errinfo *err);

#endif
