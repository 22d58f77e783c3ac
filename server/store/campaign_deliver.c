/* campaign_deliver.c - one node of a campaign delivered into the store, its run stored once */
#include "campaign_deliver.h"

#include <errno.h>

#include "import.h"
#include "import_store.h"

/* The node's run looked up, stored when it has none, and linked to it;
 * inside the caller's atomic step. bad: run's check, done before. */
static int deliver(struct store *st, const char *id, const char *node,
		   const struct campaign_node_update *u, json_t *run,
		   const struct errinfo *bad, const char *client,
		   int64_t *run_id, int *stored, struct errinfo *err)
{
	json_t *have;
	int rc = campaigns_node_run(st, id, node, run_id);

	if (rc == -ENOENT)
		return errinfo_set(err, "id", "unknown campaign id '%.80s'",
				   id),
		       -ENOENT;
	if (rc == -ESRCH)
		return errinfo_set(err, "node",
				   "campaign '%.80s' has no node '%.80s'", id,
				   node),
		       -ESRCH;
	if (rc)
		return errinfo_set(err, NULL, "cannot read campaign '%.80s'",
				   id),
		       -EIO;
	/* the run a node has is the one it keeps */
	if (*run_id && (have = store_get_run(st, *run_id))) {
		json_decref(have);
		run = NULL;
	} else {
		*run_id = 0;
	}
	if (run) {
		if (bad) {
			*err = *bad;
			return -EINVAL;
		}
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
	bad = run && import_validate(run, &why);
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
