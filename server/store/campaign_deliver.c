/* campaign_deliver.c - one node of a campaign delivered into the store, its run stored once */
#include "campaign_deliver.h"

#include <errno.h>
#include <string.h>

#include "campaign_params.h"
#include "import.h"
#include "import_store.h"

static int final_state(const char *state)
{
	return !strcmp(state, "done") || !strcmp(state, "failed") ||
	       !strcmp(state, "cancelled");
}

/*
 * Whether a node may go from state from to to: forward only. A pending
 * node goes anywhere; a running one anywhere but back to pending; an
 * ended one (done, failed, cancelled) stays as it is (a delivery sent
 * again), except that one without a run takes the run it ended with
 * (brings): a node ended by its campaign's cancel or end before its run
 * arrived keeps that run. 0, or -EEXIST with err set.
 */
static int check_move(const char *from, const char *to, int has_run, int brings,
		      struct errinfo *err)
{
	if (!strcmp(from, to) || !strcmp(from, "pending") ||
	    (!strcmp(from, "running") && strcmp(to, "pending")) ||
	    (final_state(from) && !has_run && brings))
		return 0;
	return errinfo_set(err, "state",
			   "the node is %s%s: it cannot become %s (a node goes "
			   "pending, running, then done, failed or cancelled, "
			   "and stays as it ended)",
			   from, has_run ? " with its run" : "", to),
	       -EEXIST;
}

/* What a delivery says of itself, before the store is asked: a run comes
 * with the node's end, and a node done has a run that is done. */
static int check_body(const struct campaign_node_update *u, json_t *run,
		      struct errinfo *err)
{
	const char *status = json_string_value(json_object_get(run, "status"));

	if (run && !final_state(u->state))
		return errinfo_set(err, "run",
				   "a node that is %s has no run yet: a run "
				   "is delivered with the node's end (done, "
				   "failed or cancelled)",
				   u->state);
	if (run && !strcmp(u->state, "done") && status &&
	    strcmp(status, "done"))
		return errinfo_set(err, "run.status",
				   "the run ended %.40s: a node whose run did "
				   "not end done is failed or cancelled, not "
				   "done",
				   status);
	return 0;
}

/* -ENOENT, -ESRCH or another error of campaigns_node_now, said in err. */
static int unreadable(int rc, const char *id, const char *node,
		      struct errinfo *err)
{
	if (rc == -ENOENT)
		errinfo_set(err, "id", "unknown campaign id '%.80s'", id);
	else if (rc == -ESRCH)
		errinfo_set(err, "node", "campaign '%.80s' has no node '%.80s'",
			    id, node);
	else
		errinfo_set(err, NULL, "cannot read campaign '%.80s'", id);
	return rc == -ENOENT || rc == -ESRCH ? rc : -EIO;
}

/* The node's run looked up, the delivery checked against the node and its
 * campaign, the run stored when the node has none, and linked to it;
 * inside the caller's atomic step. bad: run's check, done before. */
static int deliver(struct store *st, const char *id, const char *node,
		   const struct campaign_node_update *u, json_t *run,
		   const struct errinfo *bad, const char *client,
		   int64_t *run_id, int *stored, struct errinfo *err)
{
	struct campaign_node_now now;
	json_t *have;
	int rc = campaigns_node_now(st, id, node, &now);

	if (rc) {
		json_decref(now.params);
		return unreadable(rc, id, node, err);
	}
	/* the run a node has is the one it keeps */
	if (now.run_id && (have = store_get_run(st, now.run_id)))
		json_decref(have);
	else
		now.run_id = 0;
	/* every delivery is checked whole, the first and those sent again */
	if (bad) {
		*err = *bad;
		rc = -EINVAL;
	} else {
		rc = check_move(now.state, u->state, now.run_id != 0,
				run != NULL, err);
	}
	if (!rc && run)
		rc = campaign_run_matches(now.experiment, now.params, run, err);
	json_decref(now.params);
	if (rc)
		return rc;
	*run_id = now.run_id;
	if (run && !now.run_id) {
		rc = import_store(st, run, client, run_id, err);
		if (rc)
			return rc == -ESTALE ? -ESTALE : -EIO;
		*stored = 1;
	}
	return campaigns_node_set(st, id, node, u, run_id, err);
}

/*
 * The run is stored and linked in one atomic step: a server killed
 * between the two keeps neither, so the delivery sent again stores it
 * once; two deliveries of one node at once store it once too (the
 * second finds the first's run).
 */
int campaign_deliver_node(struct store *st, const char *id, const char *node,
			  const struct campaign_node_update *u, json_t *run,
			  const char *client, int64_t *run_id, int *stored,
			  struct errinfo *err)
{
	struct errinfo why;
	int bad, rc;

	/* checked before the store is held: other threads need not wait */
	errinfo_clear(&why);
	bad = run && (import_validate(run, &why) || check_body(u, run, &why));
	*stored = 0;
	*run_id = 0;
	rc = store_atomic_begin(st, err);
	if (rc)
		return rc;
	rc = deliver(st, id, node, u, run, bad ? &why : NULL, client, run_id,
		     stored, err);
	if (store_atomic_end(st, !rc, err))
		rc = -EIO;
	if (rc)
		*stored = 0;
	return rc;
}
