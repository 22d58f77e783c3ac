/* stdout_close.c - a command's last step: its output written, or said not to be */
#include "stdout_close.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "say.h"

/* why stdout's first failed flush failed, 0: none has */
static int flush_errno;

int stdout_flush(FILE *f)
{
	int rc = fflush(f);

	if (rc && f == stdout && !flush_errno)
		flush_errno = errno ? errno : EIO;
	return rc;
}

int stdout_close(const char *prog, int rc)
{
	int err = flush_errno;

	/* a failed write sets the stream's error flag and nothing else: each
	 * printf of a command is not checked, the stream is, once, here */
	errno = 0;
	if (fflush(stdout) && !err)
		err = errno;
	if (!err && ferror(stdout))
		err = errno ? errno : EIO;
	/* a stdout closed before the start (>&-) that got nothing to write
	 * lost nothing */
	if (fclose(stdout) && !err && errno != EBADF)
		err = errno;
	if (!err)
		return rc;
	say(stderr, "%s: cannot write the output: %s\n", prog, strerror(err));
	return rc ? rc : 1;
}
