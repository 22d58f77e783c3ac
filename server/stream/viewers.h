/* viewers.h - how many event streams are being sent, under their limit */
#ifndef NUMALAB_VIEWERS_H
#define NUMALAB_VIEWERS_H

/* One more stream: 1 when there was room under the limit, else 0. */
int viewers_enter(void);
/* One fewer (after a viewers_enter that gave 1). */
void viewers_leave(void);
/* The limit (stream_set_limit), and the streams counted now. */
int viewers_limit(void);
int viewers_active(void);

#endif
