/* session.h - the signed-in browsers: a bounded table of random session ids, their role, name and expiry */
#ifndef NUMALAB_SESSION_H
#define NUMALAB_SESSION_H

#include "http.h"

#define SESSION_MAX 1024 /* browsers signed in at once */

struct sessions;

/* A table of SESSION_MAX sessions, each living lifetime_s seconds. NULL on
 * ENOMEM. */
struct sessions *sessions_new(int lifetime_s);
void sessions_free(struct sessions *s);

/*
 * Signs in a browser as role with display name (may be ""); its new id
 * (HTTP_SESSION_LEN - 1 hex digits from getrandom(2)) into id. When the
 * table is full the expired go first, then the oldest student's session;
 * a teacher's is never dropped for another. Returns 0, -ENOSPC when every
 * session is a live teacher's, -EIO when getrandom fails.
 */
int sessions_create(struct sessions *s, int role, const char *name,
		    char id[HTTP_SESSION_LEN]);

/*
 * The live session of id (compared in constant time with each): its role
 * returned, its name copied into name (HTTP_NAME_LEN). HTTP_ROLE_NONE
 * when there is none or it has expired (then it is forgotten).
 */
int sessions_lookup(struct sessions *s, const char *id,
		    char name[HTTP_NAME_LEN]);

/* Signs the session of id out; nothing when there is none. */
void sessions_delete(struct sessions *s, const char *id);

/* The lifetime of a session, in seconds. */
int sessions_lifetime(const struct sessions *s);

#endif
