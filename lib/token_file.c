/* token_file.c - the bearer token read from a file, one rule for every command */
#include "token_file.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "strbuf.h"

static int trailing_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

int token_file_read(const char *path, char **out, struct errinfo *err)
{
	struct strbuf sb = STRBUF_INIT;
	FILE *f = fopen(path, "r");
	int c, rc = 0;

	*out = NULL;
	errinfo_clear(err);
	if (!f) {
		rc = -errno;
		errinfo_set(err, NULL, "cannot read token file '%s': %s", path,
			    strerror(-rc));
		return rc;
	}
	errno = 0;
	while ((c = getc(f)) != EOF && c != '\n')
		strbuf_addch(&sb, (char)c);
	if (ferror(f)) {
		/* a folder opens, then fails its first read: say that */
		rc = -(errno ? errno : EIO);
		errinfo_set(err, NULL, "cannot read token file '%s': %s", path,
			    strerror(-rc));
		goto out;
	}
	while (sb.len && trailing_space(sb.buf[sb.len - 1]))
		strbuf_trim_end(&sb, 1);
	if (sb.oom) {
		errinfo_set(err, NULL, "out of memory");
		rc = -ENOMEM;
		goto out;
	}
	if (!sb.len) {
		rc = errinfo_set(err, NULL, "token file '%s' is empty", path);
		goto out;
	}
	*out = strbuf_detach(&sb);
out:
	fclose(f);
	strbuf_release(&sb);
	return rc;
}
