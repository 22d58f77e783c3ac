/* fleet_sink.h - a campaign's changes delivered as they happen, each run kept on disk and sent again until it is taken */
#ifndef NUMALAB_FLEET_SINK_H
#define NUMALAB_FLEET_SINK_H

#include "fleet.h"

/* The longest wait between two tries of a delivery the server did not take. */
#define FLEET_SINK_BACKOFF_MAX_S 16

/*
 * A sink for c into k, with its own thread: deliveries go in order, one
 * at a time; one the server does not take now (away, busy, stopping) is
 * tried again after 0.5 s, then twice as long each time up to
 * FLEET_SINK_BACKOFF_MAX_S; one it refuses is dropped with its reason.
 * While idle the thread asks every 2 s whether a cancel was asked for,
 * and stops the campaign (c->stop) when it was. NULL on ENOMEM.
 */
struct fleet_sink *fleet_sink_new(struct fleet_campaign *c,
				  struct fleet_conn *k);

/*
 * Sends c's record as it is now and waits for the answer: 0 taken; 1
 * the server cannot be reached now (it is sent again until taken); -1
 * refused, err says why (nothing of the campaign should run).
 */
int fleet_sink_begin(struct fleet_sink *s, struct errinfo *err);
/*
 * Sends n's state, reason and job, and with_run its run document (its
 * file NODE.json in the campaign's directory, read when it is sent). A
 * run taken leaves NODE.ack beside it with its run id.
 */
void fleet_sink_node(struct fleet_sink *s, struct fleet_node *n, int with_run);
/*
 * Waits at most wait_s for every delivery, puts each node's run id and
 * any refusal into c, then sends c's final record and waits for it
 * (within the same time). Stops the thread. Returns how many deliveries
 * were left undelivered (0: all).
 */
int fleet_sink_finish(struct fleet_sink *s, int wait_s);
void fleet_sink_free(struct fleet_sink *s);

#endif
