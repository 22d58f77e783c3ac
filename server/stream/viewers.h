/* viewers.h - how many event streams are being sent, under their limit */
#ifndef NUMALAB_VIEWERS_H
#define NUMALAB_VIEWERS_H

/*
 * Streams sent at once, past which a new one is answered 503 (with
 * Retry-After) rather than kept: each costs its connection's pool and a
 * few hundred bytes (README, Request heads), so 12,288 of them hold about
 * 100 MB. Below the server's connection limit, so that the 503 has a
 * connection to be sent on.
 */
#define VIEWERS_MAX_DEFAULT 12288

/* The most streams at once; n <= 0: VIEWERS_MAX_DEFAULT. */
void viewers_set_limit(int n);
/* Waits until no stream is counted (every one has sent its last event),
 * at most timeout_ms. */
void viewers_drain(int timeout_ms);
/* One more stream: 1 when there was room under the limit, else 0. */
int viewers_enter(void);
/* One fewer (after a viewers_enter that gave 1). */
void viewers_leave(void);
/* The limit (viewers_set_limit), and the streams counted now. */
int viewers_limit(void);
int viewers_active(void);

#endif
