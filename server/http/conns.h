/* conns.h - connections per client: the per-address limit, the total, and room for a newcomer */
#ifndef NUMALAB_CONNS_H
#define NUMALAB_CONNS_H

#include <sys/socket.h>

/* Connections over the total that may be open while the ones closed to make
 * room for newcomers wind down (libmicrohttpd's own limit is above it). */
#define CONNS_CLOSING_MAX 16u

struct conns_config {
	unsigned int max_total;	 /* connections at once */
	unsigned int max_client; /* from one client; 0: no limit of its own */
};

struct conns;
/* One open connection, as conns_opened gave it. */
struct conn_rec;

/* NULL on ENOMEM. */
struct conns *conns_new(const struct conns_config *cfg);
void conns_free(struct conns *c);

/*
 * Whether a connection from addr may be accepted. A client is counted by
 * trust_client_key (an IPv6 /64 is one client). Past its own limit it is
 * refused. When the total is reached, of the clients holding more than the
 * newcomer, those holding the most give up their oldest idle connection
 * (never one in a request or an event stream), shut down to make room;
 * when none holds more with one idle, the newcomer is refused. So a new
 * address is always served, whether a few hold many or each of thousands
 * holds one. Refusals and closings are logged, at most once a
 * minute, as counts (no address, no URL). Accepted: 1. A connection is
 * counted once it is open (conns_opened), so with several accepting threads
 * a client, or the total, may pass its limit by at most their number.
 */
int conns_admit(struct conns *c, const struct sockaddr *addr);

/* A connection accepted, its socket fd: its record, NULL on ENOMEM (it is
 * then counted nowhere). */
struct conn_rec *conns_opened(struct conns *c, const struct sockaddr *addr,
			      int fd);
/* It began (busy) or finished a request: the last to be closed to make
 * room, and never while busy. */
void conns_active(struct conns *c, struct conn_rec *r, int busy);
/* It is closed (before its socket is): the record is freed. */
void conns_closed(struct conns *c, struct conn_rec *r);

#endif
