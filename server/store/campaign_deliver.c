/* campaign_deliver.c - one node of a campaign delivered into the store, its run stored once */
#include "campaign_deliver.h"

#include <errno.h>

#include "import.h"
#include "import_store.h"

int campaign_deliver_node(struct store *st, const char *id, const char *node,
			  const struct campaign_node_update *u, json_t *run,
			  const char *client, int64_t *run_id, int *stored,
			  struct errinfo *err)
{
	json_t *have;
	int rc = campaigns_node_run(st, id, node, run_id);

	*stored = 0;
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
		if (import_validate(run, err))
			return -EINVAL;
		rc = import_store(st, run, client, run_id, err);
		if (rc)
			return rc == -ESTALE ? -ESTALE : -EIO;
		*stored = 1;
	}
	return campaigns_node_set(st, id, node, u, run_id, err);
}
