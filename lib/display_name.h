/* display_name.h - what a name shown to a class may hold: visible text, as written */
#ifndef NUMALAB_DISPLAY_NAME_H
#define NUMALAB_DISPLAY_NAME_H

#include "errinfo.h"

/* a display name: 48 bytes of UTF-8 at most */
#define DISPLAY_NAME_MAX 48

/*
 * 0 when name may be shown to others as it was written: at most
 * DISPLAY_NAME_MAX bytes of UTF-8, no control character (C0, DEL, C1, a
 * line or paragraph separator), no invisible character or text-direction
 * control (U+200B-U+200F, U+202A-U+202E, U+2066-U+2069, U+FEFF and the
 * like), not only spaces, no space at either end. "" passes: it is no
 * name, which a caller that needs one refuses itself. Otherwise -EINVAL
 * with err's field set to field and its text naming subject ("name",
 * "'class.guesses[0].name'"), what is wrong and what is allowed.
 */
int display_name_check(const char *name, const char *subject, const char *field,
		       struct errinfo *err);

#endif
