/* errinfo.h - one error: the field it concerns (may be empty) and its text */
#ifndef NUMALAB_ERRINFO_H
#define NUMALAB_ERRINFO_H

#define ERRINFO_FIELD_LEN 64
#define ERRINFO_MSG_LEN 512

/*
 * What a failing call tells its caller. The text follows the project's
 * style (lowercase, no final period, quotes its subject) and goes
 * unchanged into the API's {"error", "field"}, the CLI's stderr and the
 * page.
 */
struct errinfo {
	char field[ERRINFO_FIELD_LEN];
	char msg[ERRINFO_MSG_LEN];
};

/* Sets both parts; field may be NULL (no field). Returns -EINVAL so a caller
 * can `return errinfo_set(...)`. */
__attribute__((format(printf, 3, 4))) int
errinfo_set(struct errinfo *e, const char *field, const char *fmt, ...);
/* Empties both parts. */
void errinfo_clear(struct errinfo *e);

#endif
