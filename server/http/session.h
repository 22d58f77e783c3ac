/* session.h - the signed-in browsers: a bounded table of random session ids, the key each page proves, role, name, client and expiry */
#ifndef NUMALAB_SESSION_H
#define NUMALAB_SESSION_H

#include "http_request.h"

#define SESSION_MAX 1024 /* browsers signed in at once */
/* students' sessions one client (an address, an IPv6 /64) may hold */
#define SESSION_CLIENT_MAX 16

struct sessions;

/*
 * A table of SESSION_MAX sessions, each living lifetime_s seconds, at
 * most per_client students' sessions a client (0: SESSION_CLIENT_MAX).
 * NULL on ENOMEM.
 */
struct sessions *sessions_new(int lifetime_s, int per_client);
void sessions_free(struct sessions *s);

/*
 * Signs in a browser as role with display name (may be "") from client
 * (trust_client_key's 16 bytes); its new id and the key its page must
 * send with the id (each HTTP_SESSION_LEN - 1 hex digits from
 * getrandom(2)) into id and key. A client at its bound of students'
 * sessions loses its own oldest one; when the table is full the expired
 * go first, then the oldest student's session; a teacher's is never
 * dropped for another. Returns 0, -ENOSPC when every session is a live
 * teacher's, -EIO when getrandom fails.
 */
int sessions_create(struct sessions *s, int role, const char *name,
		    const unsigned char client[16], char id[HTTP_SESSION_LEN],
		    char key[HTTP_SESSION_LEN]);

/*
 * The live session of id whose key is key (both compared in constant
 * time): its role returned, its name copied into name (HTTP_NAME_LEN).
 * HTTP_ROLE_NONE when there is none, it has expired (then it is
 * forgotten), or key is NULL or another (a cookie alone is not enough).
 */
int sessions_lookup(struct sessions *s, const char *id, const char *key,
		    char name[HTTP_NAME_LEN]);

/* The name of the live session of id and key becomes name. 0, or -ENOENT. */
int sessions_rename(struct sessions *s, const char *id, const char *key,
		    const char *name);

/*
 * The names of the live sessions of role, at most max of them, into names
 * (in the order they signed in; those without a name left out). Returns
 * how many sessions of role are live, named or not.
 */
size_t sessions_names(struct sessions *s, int role,
		      char (*names)[HTTP_NAME_LEN], size_t max, size_t *got);

/* Signs the session of id out; nothing when there is none. */
void sessions_delete(struct sessions *s, const char *id);

/* The lifetime of a session, in seconds. */
int sessions_lifetime(const struct sessions *s);

/* n random bytes (64 at most) from getrandom(2) as hex into out (2n + 1
 * bytes). 0, or -EIO. */
int http_random_hex(char *out, size_t n);

#endif
